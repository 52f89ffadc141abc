"""The bottom layer: child processes that always end, /proc, signals, the run's mark, and the SSH protocol's
first packets and `ssh -v` lines, parsed. Standard library and sshbench's base modules only: everything
above may use it, and it uses nothing above (the import contracts in pyproject.toml hold it to that)."""

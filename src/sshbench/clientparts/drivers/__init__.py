"""Drivers: one small program per client, run as a process of its own (clientparts/base.py has their
contract), and contract.py, the one module they share, beside them (each imports it as `contract`: a program's
own directory is first on sys.path). sshbench never imports them; its unit tests do."""

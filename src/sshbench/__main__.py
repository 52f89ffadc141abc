"""`python -m sshbench` runs the same entry point as the console script."""

from sshbench.cli import main

raise SystemExit(main())

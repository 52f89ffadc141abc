"""Drivers: one small program per client, run as a process of its own (clientparts/base.py has their
contract); sshbench never imports them."""

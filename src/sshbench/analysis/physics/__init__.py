"""What bounds a transfer: a CPU, the link, or SSH's own flow-control window, and the warnings that follow.

What is known here is the physics of one channel: what a run measured beside SSH to compare with
(references.py: raw TCP along the same path, each cipher's crypto ceiling, the pipe figures per cipher),
the window the receiving side gave one channel and what a larger one moved (windows.py), the CPU shares,
the named thresholds and the warnings a user can act on (advice.py), each transfer case's limit
(links.py), and what limited a report's fastest transfers (limits.py).

Above comparisons/ (a window variant is stated as every comparison is) and stats/; beside security/, in
one layer with it: neither imports the other, since what bounds a transfer does not depend on which
algorithm is safe. The answers (answers/, connections/) read it.
"""

"""What a connection costs before and around its bytes: set-up phases, stalls, short commands, logins.

What is known here is time that is not throughput: where a connection's set-up time goes at ssh -v's
marks (phases.py), a phase far beyond its round trips named with its likely causes (stalls.py), what a
short command costs with and without a reused connection or SSH's compression (commands.py), and logins
per second up to the knee (logins.py).

Above physics/ (the round trip a path measured), comparisons/ and stats/; beside answers/, in one layer
with it, neither importing the other. config/ reads the short commands for its ControlMaster lines, so
it sits above.
"""

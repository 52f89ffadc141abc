"""What a run answers about moving bytes: which cipher, server or build, by how much, and what fills the link.

What is known here is the question a user asks of a transfer, one module each: the fastest safe cipher
against its runner-up and the client's default (answer.py), which server (servers.py), several builds
side by side (build_ratios.py), the change that fills the link against the plain transfer (remedies.py),
that pick against its nearest rivals (contest.py), and the command that applies it (howto.py).

Above physics/ (what limited each case), security/ (only safe ciphers are named), comparisons/ and
stats/; beside connections/, in one layer with it, neither importing the other. config/ writes what
these proved into a config, so it sits above.
"""

"""The program's vocabulary: what every stage speaks, and nothing that runs anything.

errors (exit codes and the one-line failures), untrusted (what text read
from files, peers and hosts may become), units, algorithms (names, grades
and the facts behind them), case_terms (what a case measures, which way the
bytes go), linkspec and buildspec (--link and --build as typed values), and
outputs (where a command may write). The stages import from here; nothing
here imports a stage.
"""

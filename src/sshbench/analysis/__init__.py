"""What the numbers mean, pure: nothing here runs a command.

Grouped by what each part knows, in the order pyproject.toml's contract "Analysis, top to bottom" holds
(docs/ARCHITECTURE.md): conclude.py and findings.py at the top, then runs/, config/, answers/ beside
connections/, physics/ beside security/, comparisons/, and stats/ at the bottom.
"""

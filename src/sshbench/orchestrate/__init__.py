"""The run, end to end: prepare what is measured (servers, links, real hosts), measure each, conclude.

`cli/run.py` parses and renders; everything between is here: the one place
that starts servers and links, splits the budget between hosts, builds each
host's report, measures it (measure/) and concludes it (warnings, the
validated recommendation). One module per step: run.py (the whole run),
session.py (one host).
"""

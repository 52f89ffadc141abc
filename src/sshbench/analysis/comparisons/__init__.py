"""Which of a report's cases are compared with which, and how each comparison is judged and stated.

What is known here is a report's cases and the dimensions a run crossed, read through the decision rule:
its cross pairs (dimensions.py: the same case on each build, stream count, compression and link, against
the dimension's first value), one pair's data and forecast as the rule sees it (pairs.py), and every
"X vs Y" a report states, with the correction its verdicts use (stated.py).

Above stats/ alone, whose tests and verdicts it applies; stats/ knows samples, not cases. Every part
above states its comparisons through here (physics/ a window variant against its default, the answers
a pick against its rivals), so a pair never reads one way in one table and another in the next.
"""

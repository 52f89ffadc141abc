"""What several results files say together: runs compared case by case, and many hosts as one fleet.

What is known here is how runs of different machines or times line up: how much faster or slower each
case is than the baseline's, how sure, and whether it is a regression (compare.py), and a fleet's
normalised figures, its outliers and its one recommendation (fleet.py).

The top of the subpackages: above config/ (the fleet's recommendation is built as a host's is),
physics/, security/ and stats/; below findings.py, which holds what these make, and conclude.py, which
draws them (conclude_comparisons, conclude_fleet).
"""

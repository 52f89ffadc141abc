"""How sure samples make a figure or a difference: intervals, tests, verdicts, noise and forecasts.

What is known here is statistics, and nothing of what a case measured or why: the order-statistic and
Moses intervals, Mann-Whitney and Hodges-Lehmann (robust.py), Wilcoxon over back-to-back pairs
(paired.py), group-sequential boundaries (sequential.py) and the decision rule's verdicts at each look
(verdicts.py), summaries of a case's counted samples (stats.py), the machine's noise and the design it
calls for (noise.py), the samples an open pair still needs (forecast.py), and the placement trial's test
on spread (placing.py).

The bottom layer of analysis (the layers contract in pyproject.toml): it imports no other part of
analysis, and every other part may import it. The run loop and the schedule (measure/, plan/) read it
while a run measures.
"""

"""How every output writes the same things: grade marks, figures with intervals, units, titles and legends.

One spelling per idea, shared by the terminal, Markdown, HTML and charts, so
that a weak algorithm is "! weak" wherever it appears and "812 ±14" means
the same thing in every format.
"""

from __future__ import annotations

from dataclasses import dataclass

from sshbench.analysis.findings import MIN_PAIRED, WIDER_MARGIN, DecisionRule, Forecast
from sshbench.render.table_model import Style
from sshbench.results.model import Report, Stat
from sshbench.vocabulary.algorithms import Grade, Kind, lookup
from sshbench.vocabulary.case_terms import Direction, Relation

# The grade as a table cell; weak and broken are marked so they stand out even without colour.
GRADE_MARK = {Grade.WEAK: "! weak", Grade.BROKEN: "!! broken"}
# Semantic styles: the terminal maps them to colours, HTML to classes; Markdown ignores them.
GRADE_STYLE: dict[Grade, Style] = {Grade.RECOMMENDED: "good", Grade.ACCEPTABLE: "", Grade.WEAK: "weak",
                                   Grade.BROKEN: "broken", Grade.UNKNOWN: "dim"}


def grade_of(name: str, kind: Kind) -> Grade:
    return lookup(name, kind).grade


def grade_cell(grade: Grade) -> str:
    return GRADE_MARK.get(grade, grade.value)


def flagged_name(name: str, kind: Kind) -> str:
    """A name where no grade column stands beside it (matrix headers, chart labels): "3des-cbc (!! broken)"."""
    grade = grade_of(name, kind)
    return f"{name} ({GRADE_MARK[grade]})" if grade in GRADE_MARK else name


def pm(stat: Stat | None, scale: float = 1.0, digits: int = 0, interval: bool = True) -> str:
    """Median, with its 95% interval's half-width ("812 ±14") when asked and known; "-" without a figure."""
    if stat is None:
        return "-"
    text = f"{stat.median / scale:,.{digits}f}"
    if interval and stat.half_width is not None:
        text += f" ±{stat.half_width / scale:,.{digits}f}"
    return text


def mbps(stat: Stat | None) -> str:
    """MB/s with its interval, to three significant figures (a 20 Mbit link's 2.48 is not "2")."""
    median = stat.median if stat is not None else 0.0
    return pm(stat, 1e6, 0 if median >= 100e6 else 1 if median >= 10e6 else 2)


def ms(value: float | None) -> str:
    return "-" if value is None else f"{value * 1000:.1f}"


@dataclass(frozen=True)
class Headline:
    """An answer's first line in its two parts, where it holds ("upload rtt=20ms") and what it says there, kept
    apart where the line is made: the answer's lines print them joined, the facts list labels by the one and
    states the other, and no output takes the joined line apart again."""

    where: str
    says: str

    @property
    def line(self) -> str:
        return f"{self.where}: {self.says}"


TITLES = {
    (Kind.CIPHER, Direction.UPLOAD): "Ciphers, upload (client -> server)",
    (Kind.CIPHER, Direction.DOWNLOAD): "Ciphers, download (server -> client)",
    (Kind.MAC, Direction.UPLOAD): "MACs, upload (client -> server)",
    (Kind.KEX, Direction.SETUP): "Key exchange: connection handshake",
    (Kind.HOSTKEY, Direction.SETUP): "Host key algorithms: connection handshake",
}

# The rank column: a number when significantly slower than the row above (or first), else one of these.
RELATION_MARK = {Relation.EQUIVALENT: "≈", Relation.UNSETTLED: "?"}
RELATION_STYLE: dict[Relation, Style] = {Relation.EQUIVALENT: "", Relation.UNSETTLED: "warn"}
NO_INTERVAL = "n<6"


def legend(rule: DecisionRule, precision: bool, legacy: bool) -> list[str]:
    """What the rank marks and the ± column mean, with the test and its correction named."""
    interval = "±: 95% interval of the median (order statistics)" + (
        ", green when within the precision target" if precision else "") + f"; {NO_INTERVAL}: too few for one"
    if legacy:  # files written before verdicts: ties as that sshbench recorded them
        return [interval, "'=': not significantly different from the row above (Mann-Whitney U, p >= 0.05, "
                "uncorrected; recorded by an older sshbench)"]
    return [interval, f"#: a number = slower than the row above; ≈ = equivalent to it within ±{rule.margin * 100:g}%; "
            "? = not yet separable from it", rule_words(rule)]


def rule_words(rule: DecisionRule) -> str:
    """The decision rule a table's verdicts were made with, in the words its caption uses (made here, from the
    rule's values: the tests, the correction, the looks, the margin)."""
    looks = "" if rule.looks == 1 else f", and Bonferroni over the table's {rule.looks} looks"
    if rule.points:
        looks = (f", at group-sequential boundaries over its looks at {_counts(rule.points)} samples (an "
                 f"equal share of alpha per look)")
    paired = f", or Wilcoxon signed-rank on back-to-back pairs where there are {MIN_PAIRED}" if rule.paired else ""
    return (f"different: Mann-Whitney U{paired}, p < {rule.alpha:g} after Holm's correction over the table's "
            f"pairs{looks}; equivalent: the same correction on two one-sided tests of a "
            f"±{rule.margin * 100:g}% ratio")


def _counts(points: tuple[int, ...]) -> str:
    return ", ".join(str(p) for p in points[:-1]) + f" and {points[-1]}" if len(points) > 1 else str(points[0])


# How every "X vs Y" ratio is stated (analysis/comparisons/stated.py), named once in each output that states one.
RATIOS = ("ratios (x): Hodges-Lehmann, each interval at the level of the test that decided its verdict under the "
          "run's decision rule (the group-sequential boundaries of its looks, Holm over the comparisons of one "
          "dimension): the interval and the verdict beside it come from one test")
UNITS = "MB/s = 10^6 bytes per second, MiB/s = 2^20; factor 1.00 = fastest"
MATRIX_LEGEND = ("each cell: steady-state MB/s ±95% interval (pipe: the data phase alone; file tools: total time "
                 "minus the same tool moving 1 byte); e2e: end-to-end MB/s, start-up and handshake included, "
                 "what the user waits for; CPU: client / server CPU s/GiB in the steady state")
HOSTS_NOTE = ("Hosts were measured one after another, never in parallel, each with its own share of the time "
              "budget and byte cap. To compare them by shape rather than speed: sshbench compare FILE "
              "--normalize CIPHER.")
FLEET_NOTE = ("A fleet: each machine measured itself, with its own client, server and run (e.g. fleet/sshbench.yml "
              "ran them in parallel); the figures compare machines. The normalised tables say what each "
              "normalisation assumes.")


def hosts_note(runs: list[Report]) -> str:
    """One `sshbench run a b` (one client, hosts in turn), or a fleet of machines that each measured itself."""
    machines = {r.environment.host.label or r.environment.host.hostname for r in runs}
    return FLEET_NOTE if len(machines) > 1 or len({r.seed for r in runs}) > 1 else HOSTS_NOTE


def _minutes(seconds: float) -> str:
    return "under a minute" if seconds < 60 else f"about {seconds / 60:.0f} min"


def forecast_text(forecast: Forecast) -> str:
    """What settling an open comparison would take at this run's noise, in words."""
    wider = (f"; equivalent within ±{WIDER_MARGIN * 100:g}% in {_minutes(forecast.wider_seconds)} "
             f"(--tie-margin {WIDER_MARGIN:g})" if forecast.wider_seconds is not None else "")
    if forecast.samples is None or forecast.seconds is None:
        return "out of reach at this noise: any difference is too small to show" + wider
    kind = "different" if forecast.outcome is Relation.DIFFERENT else "equivalent"
    return (f"to settle, likely as {kind}: {_minutes(forecast.seconds)} more of these two at this noise, "
            f"~{forecast.samples} samples each (--max-runs {forecast.samples}){wider}")

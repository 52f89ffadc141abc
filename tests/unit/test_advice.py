
from sshbench.analysis.physics.advice import Code, advise
from sshbench.analysis.stats.stats import summarize
from sshbench.options import RunOptions
from sshbench.results.environment import DuringRun, Environment, HostFacts
from sshbench.results.model import Case, CaseKind, CaseRecord, Direction, Report, Sample
from sshbench.vocabulary.units import GiB

FAST = Case(CaseKind.CIPHER, Direction.UPLOAD, cipher="aes128-gcm@openssh.com")
TCP = Case(CaseKind.CONTROL, Direction.UPLOAD)


def _sample(case: Case, rnd: int, rate: float) -> Sample:
    return Sample(case_id=case.id, round=rnd, warmup=rnd == 0, ok=True, started_at="t", size_bytes=GiB,
                  bytes_received=GiB, data_seconds=GiB / rate, setup_seconds=0.2, phases={"banner_sent": 0.01})


def _report(rates: dict[Case, list[float]], host: HostFacts | None = None,
            options: RunOptions | None = None) -> Report:
    records = [CaseRecord(c) for c in rates]
    samples = [_sample(c, i + 1, r) for c, values in rates.items() for i, r in enumerate(values)]
    report = Report(tool_version="t", started_at="t", seed=1, options=options or RunOptions(),
                    environment=Environment(host=host or HostFacts(cpu_count=2)), cases=records, samples=samples)
    report.summaries = summarize(records, samples, precision=0.03)
    return report


def codes(report: Report) -> list[Code]:
    return [a.code for a in advise(report)]


def test_quiet_run_has_no_warnings() -> None:
    steady = [1000e6, 1001e6, 999e6, 1000e6, 1002e6, 998e6]
    assert codes(_report({FAST: steady, TCP: [5000e6] * 6})) == []


def test_busy_machine_steal_and_governor() -> None:
    host = HostFacts(cpu_count=2, load_average_start=[1.6, 1, 1], frequency_governor="powersave",
                     during_run=DuringRun(others_cpu_share=0.3, steal_share=0.08))
    found = codes(_report({FAST: [1e9] * 6}, host=host))
    assert found.count(Code.MACHINE_BUSY) == 2
    assert Code.STEAL_TIME in found and Code.FREQUENCY_SCALING in found


def test_slow_first_sample_and_wide_spread() -> None:
    found = codes(_report({FAST: [500e6, 1000e6, 1010e6, 990e6, 1005e6, 995e6, 600e6, 1400e6]}))
    assert Code.FIRST_RUN_SLOW in found
    assert Code.WIDE_SPREAD in found


def test_control_too_close_to_ssh() -> None:
    found = codes(_report({FAST: [1000e6] * 6, TCP: [1500e6] * 6}))
    assert found == [Code.CONTROL_TOO_CLOSE]


def test_compression_with_incompressible_data() -> None:
    found = advise(_report({FAST: [1e9] * 6}, options=RunOptions(data="random", compression=("ssh",))))
    assert [a.code for a in found] == [Code.COMPRESSION_USELESS]
    assert "--data text" in found[0].advice


def test_window_bound_when_ssh_carries_its_window_per_round_trip() -> None:
    """OpenSSH's 2 MiB channel window over 80 ms caps one channel at about 26 MB/s, whatever the cipher."""
    from sshbench.analysis.physics.advice import Limit
    from sshbench.implementations import DROPBEAR, OPENSSH
    assert OPENSSH.receive_window and DROPBEAR.receive_window
    OPENSSH_WINDOW, DROPBEAR_WINDOW = OPENSSH.receive_window, DROPBEAR.receive_window

    shares = {"client": 0.2, "server": 0.3}
    bound = Limit("upload", "aes128-ctr", 24e6, shares, [], window=(OPENSSH_WINDOW, 0.08))
    assert bound.window_limit is not None and 26.1e6 < bound.window_limit < 26.3e6
    assert bound.window_bound and bound.bound_by == "SSH window / RTT"
    assert "window-bound" in bound.text and "2048 KiB window per 80 ms round trip, 26.2 MB/s" in bound.text
    fast_cpu = Limit("upload", "aes128-ctr", 24e6, {"client": 0.2, "server": 0.95}, ["server"],
                     window=(OPENSSH_WINDOW, 0.08))
    assert not fast_cpu.window_bound and "CPU-bound on the server" in fast_cpu.text
    below = Limit("upload", "aes128-ctr", 5e6, shares, [], window=(OPENSSH_WINDOW, 0.08))
    assert not below.window_bound and "window" not in below.text
    dropbear = Limit("upload", "aes128-ctr", 0.29e6, shares, [], server_process="dropbear",
                     window=(DROPBEAR_WINDOW, 0.08))
    assert dropbear.window_bound and "24 KiB window" in dropbear.text


def test_on_loopback_a_small_fixed_window_is_named_with_its_option() -> None:
    """Dropbear's 24 KiB receive window limited its loopback upload (48.8 MB/s, neither side busy; by hand 56-71
    MB/s at its default, 120-124 with -W 4194304): the limit names that window and dropbear's -W, not "the link,
    or CPUs shared". OpenSSH's 2 MiB window on the same figures is not named (it is never this small)."""
    from sshbench.analysis.physics.advice import limit_of
    from sshbench.results.environment import EmbeddedFacts, ServerFacts

    rate = 48.8e6
    cpu = {"client": 0.5, "server": 0.6}  # shares of a core: CPU s/GiB x GiB/s
    for server, named in (("dropbear", True), ("openssh", False)):
        report = _report({FAST: [rate] * 6})
        report.environment.server = ServerFacts(embedded=EmbeddedFacts(server=server, implementation=server))
        for sample in report.samples:  # the steady window: all of the sample's bytes, in its data phase
            seconds = sample.data_seconds or 0.0
            sample.steady_bytes, sample.steady_seconds = sample.bytes_received, seconds
            sample.client_cpu_steady_seconds = cpu["client"] * seconds
            sample.server_cpu_steady_seconds = cpu["server"] * seconds
        report.summaries = summarize(report.cases, report.samples, precision=0.03)
        limit = limit_of(report, "upload")
        assert limit is not None and not limit.busy and set(limit.shares) == {"client", "server"}
        if named:
            assert limit.small_window_bound and limit.bound_by == "Dropbear's 24 KiB window"
            assert "channel window is 24 KiB" in limit.text and "dropbear -W" in limit.text
            assert "the link, or CPUs shared" not in limit.text
        else:
            assert not limit.small_window_bound and "window" not in limit.bound_by

"""The parts of the link answer that need no server: TCP_INFO read back from a recorded real socket, the checks a
sample must pass before it counts, the loss limiter, --link cc=, the commands that apply a change, and where
compression pays."""

from __future__ import annotations

import base64
import dataclasses
import gzip
import json
import socket
from pathlib import Path

import pytest

from sshbench.analysis.answers.howto import howto
from sshbench.analysis.answers.remedies import BreakEven
from sshbench.analysis.conclude import conclude
from sshbench.analysis.physics.links import LOSS_SHARE, Bound
from sshbench.compressors import choice
from sshbench.measure import physics
from sshbench.options import RunOptions
from sshbench.plumbing.tcpinfo import TcpInfo, parse_tcp_info, read_socket, tcp_info_of
from sshbench.results.model import Case, CaseKind, Direction, Report, Sample, Stat
from sshbench.results.tcpfacts import Basis, TcpFacts
from sshbench.vocabulary.errors import UsageError
from sshbench.vocabulary.linkspec import LinkSpec, parse_label, parse_links
from sshbench.vocabulary.units import MiB

DATA = Path(__file__).resolve().parent.parent / "data"
GCM = "aes128-gcm@openssh.com"


def test_tcp_info_is_read_as_ss_prints_it_for_the_same_socket() -> None:
    """Recorded on kernel 6.18: getsockopt(TCP_INFO) of a loopback sender after 200 MiB, and `ss -ti` of it."""
    recorded = json.loads((DATA / "tcpinfo-loopback-6.18.json").read_text())
    info = parse_tcp_info(base64.b64decode(recorded["tcp_info_base64"]), recorded["congestion"])
    assert info is not None
    fields = dict(word.split(":", 1) for word in recorded["ss_ti"].split() if ":" in word and "(" not in word
                  and word.count(":") == 1)
    assert info.congestion == "bbr" and recorded["ss_ti"].split()[5] == "bbr"
    assert info.mss == int(fields["mss"]) and info.cwnd == int(fields["cwnd"])
    assert info.bytes_sent == int(fields["bytes_sent"]) and info.bytes_acked == int(fields["bytes_acked"])
    assert info.data_segs_out == int(fields["data_segs_out"])
    assert info.rtt == pytest.approx(float(fields["rtt"].split("/")[0]) / 1000)
    assert info.min_rtt == pytest.approx(float(fields["minrtt"]) / 1000)
    assert info.busy == pytest.approx(float(fields["busy"].removesuffix("ms")) / 1000)
    assert info.total_retrans == 0 and "retrans" not in fields
    assert parse_tcp_info(b"\0" * 100, "bbr") is None, "a kernel before 4.10: too short"


def test_a_live_socket_is_read_in_this_process_and_through_another_s_descriptor() -> None:
    server = socket.create_server(("127.0.0.1", 0))
    client = socket.create_connection(server.getsockname())
    accepted, _ = server.accept()
    try:
        client.sendall(b"x" * 100_000)
        # all of it received first: sendall returns once the bytes are in the send buffer, and on a busy machine
        # some were still being sent between the two reads below (their counts differed)
        accepted.settimeout(10)
        got = 0
        while got < 100_000 and (chunk := accepted.recv(65536)):
            got += len(chunk)
        own = read_socket(client)
        assert own is not None and own.bytes_sent >= 100_000
        import os
        through = tcp_info_of(os.getpid(), client.getsockname()[1])  # pidfd_getfd of our own descriptor
        assert through is not None and through.bytes_sent == own.bytes_sent
        assert tcp_info_of(os.getpid(), 1) is None, "no socket of ours has port 1 at either end"
    finally:
        for sock in (client, accepted, server):
            sock.close()


def _info(retrans: int, segs: int, busy: float = 1.0) -> TcpInfo:
    return TcpInfo("cubic", 1448, 10, 0.04, 0.04, retrans, segs, segs * 1448, retrans * 1448, segs * 1448, busy,
                   0.0, 0.0, 1e6)


def test_tcp_facts_over_a_window_count_only_the_streams_read_at_both_ends() -> None:
    facts = TcpFacts.between([_info(10, 1000), None, _info(0, 500)], [_info(30, 3000), _info(5, 5), _info(10, 1500)])
    assert facts is not None and facts.segments == 2000 + 1000 and facts.retransmitted == 20 + 10
    assert facts.loss == pytest.approx(30 / 3000) and facts.congestion == "cubic"
    assert TcpFacts.between([None], [_info(1, 1)]) is None


def _case(streams: int = 1, link: str = "rtt=40ms") -> Case:
    return Case(CaseKind.CIPHER, Direction.UPLOAD, cipher=GCM, link=link, streams=streams)


def _sample(rate: float, seconds: float, size: int | None = None, wire: float = 1.0) -> Sample:
    steady = int(rate * seconds)
    size = size or int(steady / 0.75)
    return Sample(case_id="c", round=1, warmup=False, ok=True, started_at="", size_bytes=size,
                  bytes_received=size, data_seconds=seconds * 1.3, steady_bytes=steady, steady_seconds=seconds,
                  wire_bytes_sent=int(size * wire), timing=Basis.DELIVERED)


def test_a_sample_counts_only_with_a_long_enough_window_within_the_link_s_capacity() -> None:
    link = physics.link_capacity(LinkSpec(0.08, 50e6), 9000)  # 50 Mbit/s, MTU 9000: 6.21 MB/s of TCP payload
    assert link.bytes_per_second == pytest.approx(6.25e6 * (9000 - 52) / 9000)
    assert physics.unusable(_sample(6.0e6, 3.0), _case(), 0.08, link) is None
    too_fast = physics.unusable(_sample(9.03e6, 3.0, wire=1 / 1.42), _case(), 0.08, link)
    assert too_fast is not None and "above the 6.21 MB/s the path carries" in too_fast.text
    assert physics.unusable(_sample(8.8e6, 3.0, wire=1 / 1.42), _case(), 0.08, link) is None, "its ratio's due"
    short = physics.unusable(_sample(6.0e6, 0.7), _case(), 0.04, link)
    assert short is not None and "under 20 round trips" in short.text
    measured = physics.measured_capacity(30e6, 3)  # raw TCP, one connection: four streams may carry four times it
    assert physics.unusable(_sample(100e6, 3.0), _case(4), 0.0, measured) is None
    assert physics.unusable(_sample(150e6, 3.0), _case(4), 0.0, measured) is not None
    one = physics.measured_capacity(30e6, 1)  # one raw TCP sample: the machine's one-sample spread is forgiven
    assert physics.unusable(_sample(150e6, 3.0), _case(4), 0.0, one) is None
    above = physics.unusable(_sample(170e6, 3.0), _case(4), 0.0, one)
    assert above is not None and "raw TCP's best sample of 1 through the same path" in above.text
    late = _sample(6.0e6, 3.0, size=int(6.0e6 * 3.0 / 0.2))
    why = physics.unusable(late, _case(4), 0.04, link)
    assert why is not None and why.text.startswith("steady window of 20% of the bytes"), why
    none = _sample(6.0e6, 3.0, size=256 * MiB)
    none.steady_bytes = none.steady_seconds = None
    why = physics.unusable(none, _case(4), 0.04, link)
    assert why is not None and why.text.startswith("no steady window")
    small = _sample(6.0e6, 3.0, size=32 * MiB)
    small.steady_bytes = small.steady_seconds = None
    assert physics.unusable(small, _case(4), 0.04, link) is None, "--size too small for any: all timed whole"
    ramping = _sample(6.0e6, 3.0)
    assert ramping.steady_bytes is not None
    ramping.steady_half_bytes = int(ramping.steady_bytes * 0.65)  # the second half at 0.54x the first
    why = physics.unusable(ramping, _case(16), 0.15, None)
    assert why is not None and why.text.startswith("not steady: the window's second half ran at 0.54x"), why
    assert physics.unusable(ramping, _case(16), 0.15, None, trend=False) is None, "after its re-sizes it counts"
    assert physics.unusable(ramping, _case(1), 0.15, None) is None, "one stream's halves differ by noise and loss"
    ramping.tcp = TcpFacts("bbr", 100_000, 1_000, 3.0, 0.0, 0.0, 8 << 20, 0.04)  # 1% resent in the window
    assert physics.unusable(ramping, _case(16), 0.15, None) is None, "under loss a changing pace is the path's"
    ramping.tcp = TcpFacts("bbr", 100_000, 10, 3.0, 0.0, 0.0, 8 << 20, 0.04)  # 0.01%: a clean path
    assert physics.unusable(ramping, _case(16), 0.15, None) is not None, "a clean path's drift is a ramp"
    ramping.tcp = None
    ramping.steady_half_bytes = int(ramping.steady_bytes * 0.48)
    assert physics.unusable(ramping, _case(16), 0.15, None) is None, "a pace within 1.3x is steady"
    control = Case(CaseKind.CONTROL, Direction.UPLOAD, link="rtt=40ms")
    assert physics.unusable(_sample(99e6, 3.0), control, 0.04, link) is None, "references are not checked"


def test_a_short_window_re_sizes_an_automatic_case_and_tells_a_fixed_size_what_to_give() -> None:
    """At rtt=10ms a 16 MiB sample's steady window of 0.09 s (112 MB/s) is 9 round trips: an automatic case
    grows to what its own pace needs for the data phase it was sized for (at least twice); the user's --size is
    kept, and the reason names a size that would hold 20 round trips."""
    from sshbench.options import RunOptions
    from sshbench.plan.budget import sized
    from sshbench.results.model import CaseRecord, Report

    case = _case(link="rtt=10ms")
    paced = sized(16 * MiB / (0.09 * 1.3), 0.67)
    assert paced > 2 * 16 * MiB
    for source, size_after, words in (("auto", paced, "re-sized and measured again"),
                                      ("fixed", 16 * MiB, "--size 16MiB is too small for it: give --size 64MiB")):
        record = CaseRecord(case, 16 * MiB, source)  # type: ignore[arg-type]
        report = Report("t", "", 1, options=RunOptions(links=tuple(parse_links("rtt=10ms"))), cases=[record])
        sample = _sample(112e6, 0.09, size=16 * MiB)
        sample.case_id = case.id
        report.samples.append(sample)
        physics.set_aside(record, sample, report, 1024 * MiB, 0.67)
        assert sample.unusable is not None and words in sample.unusable, sample.unusable
        assert record.size_bytes == size_after
    record = CaseRecord(_case(16, "rtt=10ms"), 512 * MiB, "auto")
    report = Report("t", "", 1, options=RunOptions(links=tuple(parse_links("rtt=10ms"))), cases=[record])
    ramping = _sample(200e6, 2.0, size=512 * MiB)
    assert ramping.steady_bytes is not None
    ramping.case_id, ramping.steady_half_bytes = record.case.id, int(ramping.steady_bytes * 0.65)
    report.samples.append(ramping)
    physics.set_aside(record, ramping, report, 4096 * MiB, 2.0)
    assert (ramping.unusable or "").startswith("not steady") and record.size_bytes == 1024 * MiB, "long: doubled"


def test_a_sample_much_shorter_than_it_was_sized_for_is_re_sized_from_its_own_pace() -> None:
    """4 streams over rtt=20ms with 1% loss warmed up at 92 MB/s and ran at 195: sized for 4 s they lasted 2.1 s,
    and those windows read 0.90 of the hand. Such a sample is set aside and its case sized from its own pace; one
    within MIN_PLANNED_SHARE counts; the user's --size is never re-sized for it, nor --runs N's samples."""
    from sshbench.options import RunOptions
    from sshbench.plan.budget import sized
    from sshbench.results.model import CaseRecord, Report

    label = "rtt=20ms,loss=1%"
    for source, mode, data, counts in (("auto", "decision", 2.1, False), ("auto", "decision", 3.0, True),
                                       ("fixed", "decision", 2.1, True), ("auto", "fixed", 2.1, True)):
        record = CaseRecord(_case(4, label), 351 * MiB, source)  # type: ignore[arg-type]
        options = RunOptions(links=tuple(parse_links(label)), runs=3 if mode == "fixed" else None)
        assert options.mode == mode
        report = Report("t", "", 1, options=options, cases=[record])
        sample = _sample(195e6, 1.4, size=351 * MiB)
        sample.case_id, sample.data_seconds = record.case.id, data
        report.samples.append(sample)
        physics.set_aside(record, sample, report, 4096 * MiB, 4.0)
        assert (sample.unusable is None) is counts, (source, mode, data, sample.unusable)
        if counts:
            assert record.size_bytes == 351 * MiB
        else:
            assert sample.unusable == ("data phase 2.10 s, under 67% of the 4.00 s it was sized for (its warm-up ran "
                                       "slower); re-sized and measured again")
            assert record.size_bytes == max(2 * 351 * MiB, sized(351 * MiB / 2.1, 4.0, 4)), "at least doubled"


def test_a_window_under_half_a_second_re_sizes_a_sized_case_and_counts_at_the_user_s_size() -> None:
    """Loopback (no round trips to count): a 0.15 s window of a case sshbench sized is set aside and the case
    re-sized from its pace (0.25 s of data: to last the 0.67 s planned); the same window at the user's --size or
    --sample-seconds counts; so does a case at the largest size."""
    from sshbench.options import RunOptions
    from sshbench.plan.budget import sized, target_seconds
    from sshbench.results.model import CaseRecord, Report

    case = _case(link="")
    paced = sized(256 * MiB / 0.25, 0.5 / 0.75)
    for source, adapt, largest, size_after, counts in (("auto", True, 4096 * MiB, paced, False),
                                                       ("fixed", True, 4096 * MiB, 256 * MiB, True),
                                                       ("auto", False, 4096 * MiB, 256 * MiB, True),
                                                       ("auto", True, 256 * MiB, 256 * MiB, True)):
        record = CaseRecord(case, 256 * MiB, source)  # type: ignore[arg-type]
        report = Report("t", "", 1, options=RunOptions(adapt_length=adapt), cases=[record])
        sample = _sample(1.4e9, 0.15, size=256 * MiB)
        sample.case_id, sample.data_seconds = case.id, 0.25
        report.samples.append(sample)
        physics.set_aside(record, sample, report, largest, target_seconds(case, report.options))
        assert (sample.unusable is None) is counts, sample.unusable
        assert counts or sample.unusable == "steady window 0.15 s, under 0.5 s; re-sized and measured again"
        assert record.size_bytes == size_after
    assert physics.unusable(_sample(1.4e9, 0.6), case, None, None, sized=True) is None
    for window, said in ((0.498, "0.49"), (0.29, "0.29"), (0.2999, "0.29")):  # rounded down, never "0.50, under 0.5"
        aside = physics.unusable(_sample(1.4e9, window), case, None, None, sized=True)
        assert aside is not None and aside.text == f"steady window {said} s, under 0.5 s; re-sized and measured again"
    assert target_seconds(case, RunOptions()) == pytest.approx(0.5 / 0.75), "sized for a 0.5 s window"
    assert target_seconds(case, RunOptions(adapt_length=False)) == 0.3, "the user's --sample-seconds"


def test_a_lossy_link_s_samples_last_long_enough_for_the_long_run_s_pace() -> None:
    """Under loss one stream's pace falls for seconds after its start (plan/budget.py: 28.7 MB/s between 8 and 32
    MiB by hand, 25.6 between 32 and 128) and several streams' pace still grows after 2 s (rtt=20ms: 0.90 of the
    hand in ~1 s windows): its samples hold LOSSY_STEADY_RTTS round trips of data, several streams' never less
    than LOSSY_DATA_SECONDS; a loss-free link's LINK_STEADY_RTTS, every stream count alike; a short
    --sample-seconds does not shorten either."""
    from sshbench.options import RunOptions
    from sshbench.plan.budget import (
        LINK_STEADY_RTTS,
        LOSSY_DATA_SECONDS,
        LOSSY_ONE_STREAM_SECONDS,
        LOSSY_STEADY_RTTS,
        target_seconds,
    )
    for label, seconds in (("rtt=40ms,loss=1%", LOSSY_STEADY_RTTS * 0.040), ("rtt=40ms", LINK_STEADY_RTTS * 0.040),
                           ("rtt=40ms,rate=100mbit", LINK_STEADY_RTTS * 0.040),
                           ("rtt=80ms,loss=0.5%", LOSSY_STEADY_RTTS * 0.080),
                           ("rtt=20ms,loss=1%", LOSSY_DATA_SECONDS), ("rtt=5ms,loss=1%", LOSSY_DATA_SECONDS),
                           ("rtt=0,loss=1%", LOSSY_DATA_SECONDS),
                           ("rtt=5ms", max(LINK_STEADY_RTTS * 0.005, 0.5 / 0.75))):
        options = RunOptions(links=tuple(parse_links(label)), sample_seconds=0.3)
        for streams in (2, 8):
            assert target_seconds(_case(streams, label), options) == pytest.approx(seconds), (label, streams)
        one = (max(LOSSY_STEADY_RTTS * options.links[0].rtt_seconds, LOSSY_ONE_STREAM_SECONDS) if "loss" in label
               else seconds)
        assert target_seconds(_case(1, label), options) == pytest.approx(max(one, 0.5 / 0.75)), label
    assert LOSSY_STEADY_RTTS * 0.040 >= 3.5, "a window of 3/4 of it past the early pace (32 -> 128 MiB: 3.7 s)"
    assert LOSSY_DATA_SECONDS * 3 / 4 >= 2.5, "4 streams under loss: about 2 s windows read 0.96 of the hand, 1 s 0.90"
    longer = RunOptions(links=tuple(parse_links("rtt=20ms,loss=1%")), sample_seconds=6.0)
    assert target_seconds(_case(4, "rtt=20ms,loss=1%"), longer) == 6.0, "a longer --sample-seconds is kept"


def _bound(rate: float, window: int | None, tcp: float | None, loss: float | None) -> Bound:
    stat = Stat(median=rate, mean=rate, min=rate, max=rate, stdev=0.0, count=6)
    return Bound("c", "rtt=40ms", "pipe", GCM, "upload", "", stat, 0.04, window, tcp, {"client": 0.3, "server": 0.3},
                 loss=loss, congestion="bbr")


def test_a_case_below_its_window_and_link_on_a_path_that_resent_segments_is_loss_bound() -> None:
    lossy = _bound(22e6, 2 * MiB, 260e6, 0.010)  # 42% of window/RTT, 8% of raw TCP, 1% resent
    assert lossy.verdict == "loss" and lossy.short == "loss 1.0% resent"
    assert "loss-bound" in lossy.text and "1.00% of segments resent (bbr)" in lossy.text
    assert _bound(22e6, 2 * MiB, 260e6, LOSS_SHARE / 2).verdict == "none", "a clean path's stray resend"
    assert _bound(50e6, 2 * MiB, 260e6, 0.010).verdict == "window", "a full window wins over loss"
    assert _bound(22e6, 2 * MiB, 260e6, None).verdict == "none", "facts not read: never guessed"


def test_loss_holds_no_case_that_a_plain_case_of_the_same_path_outpaced_per_stream() -> None:
    """Sweep seed 3757458777 draw 10 (AMD EPYC, 2026-12-03): 2 SSH zlib streams over rtt=4ms,rate=193mbit with 0.92%
    loss moved 6.81 MB/s (2.2 on the wire) beside another process on the client's CPU, called "loss 1.0% resent",
    where the client's default cipher, one uncompressed stream, moved 23.9 MB/s through the same loss."""
    def bound(outpaced: float | None, rate: float = 6.81e6, streams: int = 2) -> Bound:
        stat = Stat(median=rate, mean=rate, min=rate, max=rate, stdev=0.0, count=6)
        return Bound("c", "rtt=4ms,rate=193mbit,loss=0.92%", "pipe", GCM, "upload", "", stat, 0.0041, 2 * MiB,
                     23.99e6, {"client": 0.6, "server": 0.1}, streams=streams, compression=choice("ssh"),
                     wire_ratio=0.33, loss=0.010, congestion="bbr", reference="the line's payload capacity",
                     outpaced=outpaced)
    assert bound(None).verdict == "loss", "no other case of that path: the resent share stands"
    held = bound(23.9e6)
    assert held.verdict == "none" and not held.held_by_loss and "loss" not in held.short
    assert bound(2.0e6).verdict == "loss", "the plain case no faster per stream on the wire: loss may hold both"
    assert bound(23.9e6, rate=40e6, streams=1).verdict == "loss", "13 MB/s on the wire, within 2x of 23.9"


def test_raw_tcp_held_by_loss_is_no_link_capacity_more_streams_reach_past() -> None:
    """rtt=10ms,loss=1%,cc=cubic (AMD EPYC, recorded 2026-12-03): raw TCP 9 MB/s, one SSH stream 9.4, four 33.2,
    which the link rule called "the link is full (376% of raw TCP)"."""
    def bound(rate: float, streams: int, congestion: str = "cubic", line: float | None = None,
              raw_loss: float | None = 0.0106) -> Bound:
        stat = Stat(median=rate, mean=rate, min=rate, max=rate, stdev=0.0, count=6)
        return Bound("c", "rtt=10ms,loss=1%", "pipe", GCM, "upload", "", stat, 0.0104, 2 * MiB, 9.0e6,
                     {"client": 0.1, "server": 0.1}, streams=streams, loss=0.011, congestion=congestion,
                     reference_loss=raw_loss, line=line)
    one, four = bound(9.4e6, 1), bound(33.2e6, 4)
    assert one.loss_paced_reference and one.verdict == "loss" and one.link_share is None
    assert four.verdict == "loss" and four.link_limit == 36e6 and four.short == "loss 1.1% resent"
    assert "itself loss-paced: 1.06% resent" in four.text and "x 4 = 36.0 MB/s" in four.text
    assert "as raw TCP through the same link is" in four.text
    assert bound(9.4e6, 1, congestion="bbr").verdict == "link", "BBR does not back off on loss: raw TCP is the link"
    assert bound(9.4e6, 1, line=10.5e6).verdict == "link", "raw TCP at the line's rate: the line, not loss"
    assert bound(9.4e6, 1, raw_loss=0.0005).verdict == "link", "raw TCP barely resent: the link's"
    assert bound(9.4e6, 1, raw_loss=None).verdict == "link", "raw TCP's sockets not read: never guessed"


def test_cc_is_a_link_dimension_written_back_exactly() -> None:
    bbr, cubic = parse_links("rtt=40ms,loss=1%,cc=bbr,cubic")
    assert (bbr.label, cubic.label) == ("rtt=40ms,loss=1%,cc=bbr", "rtt=40ms,loss=1%,cc=cubic")
    assert parse_label(cubic.label) == cubic and cubic.congestion == "cubic" and not cubic.plain
    assert parse_label("rtt=0,cc=reno").plain, "a cable with another congestion control is still a cable"
    for bad in ("rtt=1ms,cc=CUBIC;rm", "rtt=1ms,cc=", "rtt=1ms,cc=a-b"):
        with pytest.raises(UsageError):
            parse_links(bad)


def test_every_change_gets_the_command_that_applies_exactly_it() -> None:
    plain = Case(CaseKind.CIPHER, Direction.UPLOAD, cipher="chacha20-poly1305@openssh.com", link="rtt=80ms")
    four = Case(CaseKind.CIPHER, Direction.UPLOAD, cipher=GCM, link="rtt=80ms", streams=4)
    assert howto(four, plain) == f"`ls DIR | xargs -P 4 -I{{}} scp -c {GCM} -r DIR/{{}} HOST:DIR/`"
    zstd = Case(CaseKind.CIPHER, Direction.UPLOAD, cipher=plain.cipher, link="rtt=80ms", compression="zstd:3")
    assert howto(zstd, plain) == "`tar cf - DIR | zstd -3 -q --single-thread -c | ssh HOST 'zstd -d -q -c | tar xf -'`"
    both = Case(CaseKind.CIPHER, Direction.UPLOAD, cipher=plain.cipher, link="rtt=80ms", streams=4,
                compression="zstd:3")
    assert howto(both, plain) == ("`ls DIR | xargs -P 4 -I{} sh -c 'zstd -3 -q --single-thread -c < DIR/{} | ssh "
                                  "HOST \"zstd -d -q -c > DIR/{}\"'`")
    zlib = Case(CaseKind.CIPHER, Direction.UPLOAD, cipher=plain.cipher, link="rtt=80ms", compression="ssh")
    assert howto(zlib, plain).startswith("`tar cf - DIR | ssh -C HOST 'tar xf -'")


def test_compression_that_saves_no_bytes_pays_on_no_link() -> None:
    assert not BreakEven(choice("zstd:3"), 163e6, "client compressor", 1.00).pays
    assert BreakEven(choice("zstd:3"), 115e6, "client compressor", 3.06).pays


def test_a_rival_short_of_the_first_look_is_not_judged_yet_whatever_its_interval(tmp_path: Path) -> None:
    """Verdicts are read at the planned looks only. In this real run 8 streams counted 4 samples (the others set
    aside) when the budget ended, and the headline said "not yet separable from the plain transfer (6.24x ...)"
    beside a change list saying "significantly faster" ([5.48, 6.94]). It now says it is not judged yet, and
    how many samples the first look needs."""
    from sshbench.analysis.answers.contest import rivals
    from sshbench.analysis.answers.remedies import path_answers
    from sshbench.render.jsondoc import link_answers_json
    from sshbench.render.remedies import headline
    from sshbench.results.store import read_results

    path = tmp_path / "r.json"
    path.write_bytes(gzip.decompress((DATA / "results-rtt40-loss1-streams-1-4-8.json.gz").read_bytes()))
    (report,) = read_results(str(path))
    answers = path_answers(report)
    (answer,) = answers
    assert answer.best is not None and answer.best.case.streams == 8
    found = rivals(report, answers)[answer.best.case.id]
    assert [(r.first_look, r.pairs) for r in found] == [(6, 4), (6, 4)], found
    line = headline(answer, found).line
    assert "not judged yet against the plain transfer (6.24x: 4 of the 6 samples each its first look needs" in line
    assert "not yet separable" not in line
    assert link_answers_json(conclude(report))[0]["rivals"][0]["first_look"] == 6


def test_a_budget_too_short_for_a_lossy_link_s_4_s_samples_is_refused_before_the_links_are_built() -> None:
    """Several streams' samples over a lossy link last 4 s or more whatever its rtt, one stream's 2 s or more, so
    a run of such cases needs that many for its warm-up and minimum; the refusal says so, worded for the stream
    count, and offers no shorter rtt (it would not help)."""
    from sshbench.options import RunOptions
    from sshbench.orchestrate.run import _check_link_floor
    from sshbench.vocabulary.errors import BudgetTooSmall

    lossy = tuple(parse_links("rtt=1ms,loss=1%"))
    with pytest.raises(BudgetTooSmall, match=r"^--link rtt=1ms,loss=1%: with loss \(with --streams their samples "
                                             r"last 4 s or more\).*raise --time-budget to 1m or more$"):
        _check_link_floor(RunOptions(links=lossy, streams=(4, 8), time_budget_seconds=10))
    with pytest.raises(BudgetTooSmall, match=r"^--link rtt=1ms,loss=1%: with loss \(one stream's samples last 2 s "
                                             r"or more\)"):
        _check_link_floor(RunOptions(links=lossy, streams=(1, 4), time_budget_seconds=10))
    _check_link_floor(RunOptions(links=lossy, streams=(1, 4), time_budget_seconds=20))
    _check_link_floor(RunOptions(links=lossy, streams=(4, 8), time_budget_seconds=60))
    with pytest.raises(BudgetTooSmall, match=r"or give a shorter rtt$"):
        _check_link_floor(RunOptions(links=tuple(parse_links("rtt=2s")), time_budget_seconds=60))


def test_the_capacity_is_read_at_the_link_s_own_mtu_before_its_facts_are_written() -> None:
    """The regression: with no link facts yet (written at the end of a run), the capacity fell back to MTU 1500,
    and SSH filling a 9000-byte 50 Mbit/s link (6.21 MB/s of payload) read as above the 6.03 it "carries"."""
    jumbo = LinkSpec(0.002, 50e6, mtu_bytes=9000)
    report = Report("t", "", 1, options=RunOptions(links=(jumbo,)), cases=[])
    case = dataclasses.replace(_case(), link=jumbo.label)
    _, capacity = physics.path_of(report, case)
    assert capacity is not None and capacity.bytes_per_second == pytest.approx(6.25e6 * 8948 / 9000)
    assert physics.unusable(_sample(6.21e6, 4.0), case, 0.002, capacity) is None, "SSH filling the line counts"
    path = LinkSpec(0.002, 50e6)  # the default MTU up to 200 Mbit/s is a real path's 1500
    assert path.mtu == 1500 and LinkSpec(0.002, 1e9).mtu == 9000 and LinkSpec(0.002).mtu == 9000
    assert physics.link_capacity(path, None).bytes_per_second == pytest.approx(6.25e6 * 1448 / 1500)


def test_an_external_decompressor_s_blocks_are_allowed_for_and_no_more() -> None:
    """zstd's receiver counts bytes after `zstd -d`, which writes 128 KiB blocks: two streams' 15 MB window is
    uncertain by 2 x 2 x 128 KiB, 3.5% (measured 1.003-1.008 of the line at 30 Mbit/s, MTU 9000)."""
    link = physics.link_capacity(LinkSpec(0.01, 30e6, mtu_bytes=9000), None)
    zstd = dataclasses.replace(_case(2), compression="zstd:3")
    sample = _sample(link.bytes_per_second * 1.03, 4.0)
    steady = sample.steady_bytes or 0
    assert physics.block_uncertainty(zstd, steady) == pytest.approx(4 * 128 * 1024 / steady)
    assert physics.unusable(sample, zstd, 0.01, link) is None
    assert physics.unusable(sample, _case(2), 0.01, link) is not None, "uncompressed: only timing is forgiven"
    far = _sample(link.bytes_per_second * 1.2, 4.0)
    assert physics.unusable(far, zstd, 0.01, link) is not None

"""Results files from earlier sshbench versions, brought to today's form before they are checked.

Schemas 4, 5 and 6 differ from the next only by what the next added (5:
verdicts, partner key exchange, time use; 6: emulated links, echo latency;
7: steady-state timing, back-to-back passes, cost rankings, factor
intervals, the looks each kind of table planned). Schema 8 made streams and
compression case dimensions: a schema-7 run's `compression` was one switch
for the whole run (true: SSH's zlib on every connection), so its cipher and
MAC cases become `ssh`-compressed cases, their ids and groups renamed to
match (`...:upload` -> `...:upload~ssh`). Schema 9 only added fields
(the looks' sample counts, the measured noise and the design it chose,
each steady state's halves). Schema 10 added the placement trial and
made sftp's -B/-R sweeps (options `sftp_buffers`, `sftp_requests`) the
sftp method's knobs (`options.knobs`). Schema 3 (sshbench 0.1
before the typed environment) differs from 4 in two
places: the server's facts were one flat object whose `kind` was
"embedded-openssh" or "remote", and the warm-up was called the probe
(`probe_bytes`, size source "probe").
Everything else is the same. Anything that is not what version 3 wrote is
passed on unchanged, for the checks to refuse with a precise message.
"""

# The results schema's versions (results/model.py SCHEMA_VERSION), what each added:
# 2: handshake at session open; 3: transfer methods; 4: typed environment and options;
# 5: decision mode (verdicts between neighbours, the partner key exchange, time use); 6: emulated links, echo;
# 7: steady-state timing, back-to-back passes (Sample.chain), cost rankings, factor intervals, Report.looks;
# 8: streams and compression as case dimensions, the compressors' CPU, per-stream rates;
# 9: group-sequential looks (Report.look_points), the measured noise and the design it chose (Report.design),
# each steady state's two halves (Sample.steady_half_bytes); 10: the placement trial (Report.placement_trial);
# 11: one timing basis (Sample.timing), the senders' TCP facts (Sample.tcp), samples kept but not counted;
# 12: short commands (Case.command, the command kind, Sample.command_seconds);
# 13: the streams' tail (Sample.tail_seconds); 14: how far a split's parts went their own way
# (Sample.parts_independent); 15: a window variant's receive window and the server's command line as it ran
# (EmbeddedFacts.receive_window, .command); 16: the SSH client as a case dimension (--client: Case.dims "client",
# Environment.clients, Sample.negotiated_from, .client_window_bytes, .client_data_seconds), and what a reason or
# error is, as a value beside its words (results/kinds.py: CaseRecord.reason_kind); 17: the emulated line's idle
# seconds in a steady window (Sample.link_idle_steady_seconds)

from __future__ import annotations

from collections.abc import Callable
from typing import Any

_EMBEDDED_KEYS = ("path", "listen", "host_key_types", "per_connection", "refused_connections")
_REMOTE_KEYS = ("destination", "hostname", "port", "user", "via_proxy", "banner", "system", "round_trip_seconds",
                "server_cpu", "ssh_config", "iperf3")


def upgrade(data: object) -> object:
    """A schema-3 to -16 file (one run, or several hosts) in today's form; any other input as it is."""
    if not isinstance(data, dict):
        return data
    if data.get("schema_version") == 3:
        data = _from_3(data)
    for old in (4, 5, 6):
        if data.get("schema_version") == old:
            data = _added_fields(data, old)
    if data.get("schema_version") == 7:
        data = _from_7(data)
    if data.get("schema_version") == 8:
        data = _added_fields(data, 8)
    if data.get("schema_version") == 9:
        data = _from_9(data)
    if data.get("schema_version") == 10:
        data = _added_fields(data, 10)  # 11: the timing basis, TCP facts, unusable samples
    if data.get("schema_version") == 11:
        data = _added_fields(data, 11)  # 12: short commands
    if data.get("schema_version") == 12:
        data = _added_fields(data, 12)  # 13: the streams' tail (Sample.tail_seconds)
    if data.get("schema_version") == 13:
        data = _added_fields(data, 13)  # 14: how far a split's parts went their own way
    if data.get("schema_version") == 14:
        data = _added_fields(data, 14)  # 15: a window variant's receive window, the server's command line
    if data.get("schema_version") == 15:
        # 16: the client a transfer was made with (--client; fields with defaults), and each reason's kind
        data = _per_run(data, 15, _kinds_from_15)
    if data.get("schema_version") == 16:
        data = _added_fields(data, 16)  # 17: the emulated line's idle seconds (Sample.link_idle_steady_seconds)
    return data


_SFTP_KNOBS = ("sftp_buffers", "sftp_requests")  # schema 9's options for what are now sftp's knobs


def _per_run(data: dict[str, Any], old: int, step: Callable[[dict[str, Any]], dict[str, Any]]) -> dict[str, Any]:
    """A hosts document with `step` applied to each of its runs of schema `old`; a single run, `step` applied."""
    if data.get("schema") == "sshbench/hosts" and isinstance(data.get("runs"), list):
        return {**data, "schema_version": old + 1, "runs": [step(r) if isinstance(r, dict) and r.get(
            "schema_version") == old else r for r in data["runs"]]}
    return step(data)


def _from_9(data: dict[str, Any]) -> dict[str, Any]:
    """Schema 10 added the placement trial and made sftp's -B/-R sweeps knobs of the sftp method (options.knobs)."""
    return _per_run(data, 9, _knobs_from_9)


def _knobs_from_9(data: dict[str, Any]) -> dict[str, Any]:
    run: dict[str, Any] = {**data, "schema_version": 10}
    options = run.get("options")
    if isinstance(options, dict) and any(key in options for key in _SFTP_KNOBS):
        kept = {k: v for k, v in options.items() if k not in _SFTP_KNOBS}
        kept["knobs"] = [[key, options[key]] for key in _SFTP_KNOBS if options.get(key)]
        run["options"] = kept
    return run


_COMPRESSED_KINDS = ("cipher", "mac")  # what moved data through SSH; controls and ceilings never did


def _from_7(data: dict[str, Any]) -> dict[str, Any]:
    return _per_run(data, 7, _compression_from_7)


def _compression_from_7(data: dict[str, Any]) -> dict[str, Any]:
    run: dict[str, Any] = {**data, "schema_version": 8}
    options = run.get("options")
    if not isinstance(options, dict) or not isinstance(options.get("compression"), bool):
        return run
    compressed = options["compression"]
    run["options"] = {**options, "compression": ["ssh" if compressed else "off"]}
    if not compressed or not isinstance(run.get("cases"), list):
        return run
    renamed: dict[str, str] = {}
    groups: dict[str, str] = {}
    cases = []
    for record in run["cases"]:
        case = record.get("case") if isinstance(record, dict) else None
        if isinstance(case, dict) and case.get("kind") in _COMPRESSED_KINDS and case.get("direction") in (
                "upload", "download") and isinstance(case.get(case["kind"]), str):
            method = case.get("method", "pipe")
            suffix = "" if method == "pipe" else f":{method}"
            prefix = f"{case['kind']}:{case[case['kind']]}:{case['direction']}{suffix}"
            group = f"{case['kind']}:{case['direction']}{suffix}"
            if isinstance(case.get("id"), str) and case["id"].startswith(prefix):
                renamed[case["id"]] = prefix + "~ssh" + case["id"][len(prefix):]
                case = {**case, "compression": "ssh", "id": renamed[case["id"]]}
                groups[group] = group + "~ssh"
            record = {**record, "case": case}
        cases.append(record)
    run["cases"] = cases
    for key in ("samples", "summaries"):
        if isinstance(run.get(key), list):
            run[key] = [_renamed(item, renamed, groups) for item in run[key]]
    return run


def _renamed(item: object, ids: dict[str, str], groups: dict[str, str]) -> object:
    if not isinstance(item, dict):
        return item
    out = {**item}
    if isinstance(out.get("case_id"), str) and out["case_id"] in ids:
        out["case_id"] = ids[out["case_id"]]
        group = out.get("group")
        if isinstance(group, str):  # "cipher:upload:scp#build@link": the variant goes after the method
            base = next((g for g in sorted(groups, key=len, reverse=True) if group.startswith(g)), None)
            if base is not None:
                out["group"] = groups[base] + group[len(base):]
    return out


_FELL_BACK = "fell back to free placement during the run"  # schema 15's words before why a split placement gave way


def _kinds_from_15(data: dict[str, Any]) -> dict[str, Any]:
    """Schema 16 records what a case's reason is beside its words (results/kinds.py), and why a split placement
    gave way (HostFacts.placement_fallback) beside the placement's."""
    run: dict[str, Any] = {**data, "schema_version": 16}
    if isinstance(run.get("cases"), list):
        run["cases"] = [{**r, "reason_kind": kind} if isinstance(r, dict) and isinstance(r.get("reason"), str) and (
            kind := _reason_kind(r["reason"])) else r for r in run["cases"]]
    environment = run.get("environment")
    host = environment.get("host") if isinstance(environment, dict) else None
    placed = host.get("placement") if isinstance(host, dict) else None
    if isinstance(environment, dict) and isinstance(host, dict) and isinstance(placed, str) and _FELL_BACK in placed:
        why = placed.partition(_FELL_BACK)[2].lstrip(": ")  # as the advice read it then
        run["environment"] = {**environment, "host": {**host, "placement_fallback": why}}
    return run


def _reason_kind(why: str) -> str | None:
    """A schema-15 reason as what it is, by the very tests on its words that sshbench decided by then: the one
    place the words are read (a file written since carries the kind itself)."""
    if "not offered" in why:
        return "not offered"
    if why.startswith("server refused"):
        return "refused"
    return "set aside" if why.startswith("every sample set aside: ") else None


def _added_fields(data: dict[str, Any], old: int) -> dict[str, Any]:
    """Schema `old` + 1 only adds fields, with defaults: an `old` file is a newer file without them.

    Schema 4 runs were precision or fixed mode (decision mode came with 5):
    their options say so already, since `precision` was always set.
    """
    return _per_run(data, old, lambda run: {**run, "schema_version": old + 1})


def _from_3(data: dict[str, Any]) -> dict[str, Any]:
    if data.get("schema") == "sshbench/hosts":
        runs = data.get("runs")
        return {**data, "schema_version": 4, "runs": [_from_3(run) if isinstance(run, dict) and run.get(
            "schema_version") == 3 else run for run in runs] if isinstance(runs, list) else runs}
    if data.get("schema") != "sshbench/run":
        return data
    run: dict[str, Any] = {**data, "schema_version": 4}
    if isinstance(run.get("options"), dict):
        options = {k: v for k, v in run["options"].items() if k != "seed"}  # the seed is the run's own field
        if "probe_bytes" in options:
            options["warmup_bytes"] = options.pop("probe_bytes")
        run["options"] = options
    if isinstance(run.get("cases"), list):  # the warm-up size was called the probe
        run["cases"] = [{**c, "size_source": "warmup"} if isinstance(c, dict) and c.get("size_source") == "probe"
                        else c for c in run["cases"]]
    environment = run.get("environment")
    if isinstance(environment, dict) and isinstance(environment.get("server"), dict):
        run["environment"] = {**environment, "server": _server(environment["server"])}
    return run


def _server(old: dict[str, Any]) -> dict[str, Any]:
    server: dict[str, Any] = {key: old[key] for key in ("version", "openssl") if key in old}
    if old.get("kind") == "embedded-openssh":
        return {**server, "kind": "embedded",
                "embedded": {"server": "openssh", **{k: old[k] for k in _EMBEDDED_KEYS if k in old}}}
    if old.get("kind") == "remote":
        return {**server, "kind": "remote", "remote": {k: old[k] for k in _REMOTE_KEYS if k in old}}
    return old

"""Results files from earlier sshbench versions, brought to today's form before they are checked.

Schema 4 differs from 5 only by what 5 added. Schema 3 (sshbench 0.1
before the typed environment) differs from 4 in two
places: the server's facts were one flat object whose `kind` was
"embedded-openssh" or "remote", and the warm-up was called the probe
(`probe_bytes`, size source "probe").
Everything else is the same. Anything that is not what version 3 wrote is
passed on unchanged, for the checks to refuse with a precise message.
"""

from __future__ import annotations

from typing import Any

_EMBEDDED_KEYS = ("path", "listen", "host_key_types", "per_connection", "refused_connections")
_REMOTE_KEYS = ("destination", "hostname", "port", "user", "via_proxy", "banner", "system", "round_trip_seconds",
                "server_cpu", "ssh_config", "iperf3")


def upgrade(data: object) -> object:
    """A schema-3 or -4 file (one run, or several hosts) in today's form; any other input as it is."""
    if isinstance(data, dict) and data.get("schema_version") == 4:
        return _from_4(data)
    if not isinstance(data, dict) or data.get("schema_version") != 3:
        return data
    return _from_4(_from_3(data))


def _from_4(data: dict[str, Any]) -> dict[str, Any]:
    """Schema 5 only adds fields (verdicts, partner key exchange, time use); a 4 file is a 5 file without them.

    Its runs were precision or fixed mode (decision mode came with 5): their
    options say so already, since `precision` was always set.
    """
    runs = data.get("runs")
    if data.get("schema") == "sshbench/hosts" and isinstance(runs, list):
        return {**data, "schema_version": 5,
                "runs": [{**r, "schema_version": 5} if isinstance(r, dict) and r.get("schema_version") == 4 else r
                         for r in runs]}
    return {**data, "schema_version": 5}


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

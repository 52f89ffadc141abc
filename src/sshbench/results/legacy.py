"""Results files from earlier sshbench versions, brought to today's form before they are checked.

Schema 3 (sshbench 0.1 before the typed environment) differs from 4 in two
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
    """A schema-3 file (one run, or several hosts) in schema-4 form; any other input as it is."""
    if not isinstance(data, dict) or data.get("schema_version") != 3:
        return data
    if data.get("schema") == "sshbench/hosts":
        runs = data.get("runs")
        return {**data, "schema_version": 4, "runs": [upgrade(run) for run in runs] if isinstance(runs, list) else runs}
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

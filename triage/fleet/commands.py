"""The commands an operator runs to take a host out of service, filled in with the real host and
reason, quoted for a POSIX shell: shown (with a copy button) on the incident, host and fleet
pages, and given by the API (`drain.commands`) for automation.

Host names and reasons come from logs, which are untrusted: `shlex.quote` makes each one a
single shell word whatever it holds (quotes, `$(...)`, `;`, newlines), and the reason is cut to
one line that Slurm keeps whole.
"""
from __future__ import annotations

import re
import shlex

# Slurm keeps a node's reason in a short string; longer reasons only clutter `sinfo -R`.
REASON_MAX = 200


def drain_reason(text: str) -> str:
    """One line, no control characters, at most REASON_MAX characters; double quotes become
    single ones, because scontrol reads them as its own delimiters (a real slurmctld dropped a
    trailing one from the stored reason)."""
    line = " ".join(re.sub(r"[\x00-\x1f\x7f]", " ", text).split()).replace('"', "'")
    return line[:REASON_MAX]


def drain_commands(*, host: str, reason: str) -> dict[str, str]:
    """{"slurm": scontrol ..., "kubernetes": kubectl cordon ...} for this host."""
    why = drain_reason(reason) or "nccl-triage: drain recommended"
    return {
        "slurm": f"scontrol update NodeName={shlex.quote(host)} State=DRAIN Reason={shlex.quote(why)}",
        "kubernetes": f"kubectl cordon {shlex.quote(host)}",
    }


def incident_drain(*, incident_id: str, host: str | None, title: str) -> dict[str, object] | None:
    """What takes an incident's culprit host out of service: {"host", "reason", "commands"};
    None when the verdict names no host. The reason points back at the incident."""
    if not host:
        return None
    reason = drain_reason(f"nccl-triage {incident_id}: {title}")
    return {"host": host, "reason": reason, "commands": drain_commands(host=host, reason=reason)}

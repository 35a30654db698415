"""Human-readable rendering of a diagnosis for the terminal (no Django needed)."""
from __future__ import annotations

import re
from typing import Any

# Control characters (a newline, ANSI escapes) and lone surrogates in text that came from a
# bundle (member names, log lines): printed escaped, so they can neither forge terminal lines
# nor recolour or clear the screen.
_UNPRINTABLE = re.compile(r"[\x00-\x1f\x7f-\x9f\ud800-\udfff]")


def terminal_safe(text: str) -> str:
    """`text` with every control character written as its escape (\\n, \\x1b ...)."""
    return _UNPRINTABLE.sub(lambda m: m.group().encode("unicode_escape", "backslashreplace").decode("ascii"), text)


def render_text(d: dict[str, Any]) -> str:
    lines: list[str] = []
    findings = d.get("findings") or []
    verdict = findings[0] if findings else None
    if verdict:
        lines.append(f"VERDICT  {verdict['cause']}  ({verdict['confidence']} confidence, rule {verdict['rule']})")
    else:
        lines.append("VERDICT  unknown  (no finding)")
    lines.append(f"SUMMARY  {d.get('summary', '')}")
    ff = d.get("first_failure")
    if ff:
        who = f"rank {ff['rank']}" if ff.get("rank") is not None else "rank unknown"
        where = ", ".join(x for x in (ff.get("host"), ff.get("time")) if x)
        lines.append(f"FIRST FAILURE  {who}" + (f" ({where})" if where else ""))
        lines.append(f"  {ff['source']}:{ff['line']}: {ff['text']}")
    for i, f in enumerate(findings):
        lines.append("")
        lines.append(f"[{i + 1}] {f['cause']} / {f['confidence']}: {f['title']}")
        lines.append(f"    {f['detail']}")
        for ev in f["evidence"]:
            lines.append(f"    > {ev['source']}:{ev['line']}: {ev['text'][:240]}")
        if i == 0:
            lines.append("    FIX:")
            for fix_line in f["fix"].splitlines():
                lines.append(f"      {fix_line}")
    notes = d.get("notes") or []
    problems = d.get("problems") or []
    if notes:
        lines.append("")
        lines.append("NOTES")
        lines.extend(f"  - {n}" for n in notes)
    if problems:
        lines.append("")
        lines.append("COULD NOT READ")
        lines.extend(f"  - {p}" for p in problems)
    return "\n".join(terminal_safe(line) for line in lines) + "\n"

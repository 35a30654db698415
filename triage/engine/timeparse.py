"""Timestamps in every format the references list, normalised to naive local datetimes.

Logs print local time without a zone, so times stay naive: they compare across ranks of one
job (same cluster, same zone) and are never shifted by a guess. Formats without a year (glog
`MMDD`, vLLM `MM-DD`, syslog) take the year from the bundle (a full date in any line, a
snapshot, an error file's epoch: facts._fix_years), else from the reference year a caller gives;
with neither the year is unknown, never the reading machine's: such times are read in
YEAR_UNKNOWN, which orders them among themselves, and the diagnosis shows them as unknown
(model.iso gives null; the timeline draws the time of day without a year).
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime

# [2026-05-05 06:16:47] or [2026-05-05 06:16:47.123456] (NCCL >= 2.26 default), also ISO 'T'
_FULL = re.compile(
    r"(?P<y>20\d\d)-(?P<mo>\d\d)-(?P<d>\d\d)[T _](?P<h>\d\d):(?P<mi>\d\d):(?P<s>\d\d)(?:[.,](?P<f>\d{1,9}))?"
)
# glog / torch C++: [E0822 16:31:16.131931664 or E0813 08:21:22.980000 ; MMDD may be 3 digits
_GLOG = re.compile(r"(?:^|[\[\s:])[FEWIV](?P<md>\d{3,4}) (?P<h>\d\d):(?P<mi>\d\d):(?P<s>\d\d)(?:\.(?P<f>\d{1,9}))?")
# vLLM v0: 'INFO 04-22 15:53:32 utils.py:580]'
_VLLM = re.compile(r"^(?:\([^)]*\) )?(?:INFO|WARNING|ERROR|DEBUG|CRITICAL) (?P<mo>\d\d)-(?P<d>\d\d) (?P<h>\d\d):"
                   r"(?P<mi>\d\d):(?P<s>\d\d)")
# Every wall-clock format here has hh:mm:ss (a host:pid:tid prefix does not: 'node-01:40000:40077'),
# looked for from its first colon: a pattern that starts with a literal is searched for that
# character first, where one that starts with a digit class is tried at every position (7 us
# on a long NCCL line without a time, against 1 us; most lines have none).
_HMS_FROM_COLON = re.compile(r":\d\d:\d\d")


def has_hms(text: str) -> bool:
    """Whether `text` holds hh:mm:ss (two digits, a colon, two digits, a colon, two digits)."""
    m = _HMS_FROM_COLON.search(text, 2)
    while m:
        at = m.start()
        if text[at - 2 : at].isdecimal():
            return True
        m = _HMS_FROM_COLON.search(text, at + 1)
    return False


# dmesg: '[1118468.873266] ...'
_DMESG = re.compile(r"^\[\s*(?P<sec>\d+)\.(?P<us>\d{1,6})\]")
# syslog/journal: 'Dec  1 14:22:01 host kernel: ...'
_SYSLOG = re.compile(
    r"^(?P<mon>Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) +(?P<d>\d{1,2}) (?P<h>\d\d):(?P<mi>\d\d):(?P<s>\d\d)"
)
# Application 'DD-MM-YYYY HH:MM:SS' (seen in Lightning user logs)
_DMY = re.compile(r"^(?P<d>\d\d)-(?P<mo>\d\d)-(?P<y>20\d\d) (?P<h>\d\d):(?P<mi>\d\d):(?P<s>\d\d)")

_MONTH_NAMES = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")
_MONTHS = {m: i for i, m in enumerate(_MONTH_NAMES, 1)}
_MICRO_DIGITS = 6
# The stand-in year of a time whose year nobody wrote: a leap year (29 February parses), and one
# no log of a GPU job can carry, so it never passes for a real one.
YEAR_UNKNOWN = 4


@dataclass
class Clock:
    """Per-run context for reading times: the year to assume (None: unknown, not today's)."""

    year: int | None = None

    def assume_year(self) -> int:
        return self.year or YEAR_UNKNOWN


def _micro(frac: str | None) -> int:
    if not frac:
        return 0
    return int((frac + "000000")[:6])


def _safe(y: int, mo: int, d: int, h: int, mi: int, s: int, us: int = 0) -> datetime | None:
    try:
        return datetime(y, mo, d, h, mi, s, us)
    except ValueError:
        return None


def full_date(text: str) -> datetime | None:
    m = _FULL.search(text)
    if not m:
        return None
    return _safe(int(m["y"]), int(m["mo"]), int(m["d"]), int(m["h"]), int(m["mi"]), int(m["s"]), _micro(m["f"]))


def dmesg_uptime(text: str) -> float | None:
    """dmesg's '[1118468.873266]': seconds since boot; facts.py turns it into a wall time once the
    host's boot time (from its snapshot) is known."""
    m = _DMESG.match(text)
    return float(f"{m['sec']}.{m['us']}") if m else None


def parse_time(text: str, clock: Clock) -> tuple[datetime | None, bool]:
    """The first timestamp found in a line, or None; the flag says the year was assumed."""
    head = text[:200]
    if not has_hms(head):
        return None, False  # every format below has hh:mm:ss; most log lines have no time
    if "-" in head:
        m = _FULL.search(head)
        if m:
            return _safe(int(m["y"]), int(m["mo"]), int(m["d"]), int(m["h"]), int(m["mi"]), int(m["s"]),
                         _micro(m["f"])), False
        m = _VLLM.search(head)
        if m:
            return _safe(clock.assume_year(), int(m["mo"]), int(m["d"]), int(m["h"]), int(m["mi"]), int(m["s"])), True
        m = _DMY.search(head)
        if m:
            return _safe(int(m["y"]), int(m["mo"]), int(m["d"]), int(m["h"]), int(m["mi"]), int(m["s"])), False
    m = _GLOG.search(head)
    if m:
        md = m["md"]
        month, day = int(md[:-2]), int(md[-2:])
        # The 9-digit fraction of torch's C++ logger is CLOCK_MONOTONIC, not wall time (checked
        # against torch 2.13: it follows time.monotonic()'s fraction, and lines of one process
        # go backwards in it): keep seconds. glog builds print 6 wall-clock digits: keep them.
        frac = m["f"] if m["f"] and len(m["f"]) <= _MICRO_DIGITS else None
        return _safe(clock.assume_year(), month, day, int(m["h"]), int(m["mi"]), int(m["s"]), _micro(frac)), True
    m = _SYSLOG.search(head)
    if m:
        return _safe(clock.assume_year(), _MONTHS[m["mon"]], int(m["d"]), int(m["h"]), int(m["mi"]), int(m["s"])), True
    return None, False

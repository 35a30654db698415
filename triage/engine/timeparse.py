"""Timestamps in every format the references list, normalised to naive datetimes.

Logs print local time without a zone, so times are read as printed and stay naive: they compare
across ranks of one job (same cluster, same zone) and are never shifted by a guess. Formats
without a year (glog `MMDD`, vLLM `MM-DD`, syslog) take the year from the bundle (a full date in
any line, a snapshot, an error file's epoch: facts._fix_years), else from the reference year a
caller gives; with neither the year is unknown, never the reading machine's: such times are read
in YEAR_UNKNOWN, which orders them among themselves, and the diagnosis shows them as unknown
(model.iso gives null; the timeline draws the time of day without a year).

A time whose line states its zone (capture layers: kubectl --timestamps, CRI, RFC 5424, rsyslog's
RFC 3339 dates, journalctl short-iso / short-full / short-unix, dmesg --time-format iso) is read
as printed too; `stated_offset` says the zone (seconds east of UTC, the catalog's
`time.stated_zone`), the reader records it on the line's events and facts._resolve_zones applies
it once the bundle is read, as a log viewer merging files would:
- the host's UTC offset known (its snapshot's host.timezone.utc_offset_seconds): the time becomes
  that host's local wall time, the clock its zone-less lines print;
- every timed line of the bundle states a zone: where they state different zones they are
  compared as instants (converted to UTC, still naive: the JSON's times keep their form); where
  they state one, they already compare as printed and stay so;
- zoned and zone-less lines mixed and the offset unknown: nothing says how the two clocks relate,
  so no order between them is invented: the times stay as printed and the diagnosis says so
  in a note (a zone-less time is not assumed to be UTC, nor the reading machine's zone).
An epoch (journalctl short-unix here, error files' and flight recorders' in model.from_epoch) is
read as UTC.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import UTC, datetime

from . import identity

# The formats are the identity catalog's `time` entries (triage/engine/identity/times.toml:
# program, source file, samples of each); this module keeps the order they are tried in.
_FULL = identity.pattern("time.iso8601")
_GLOG = identity.pattern("time.glog")
_VLLM = identity.pattern("time.vllm")
_CTIME = identity.pattern("time.ctime")
# Every wall-clock format here has hh:mm:ss (a host:pid:tid prefix does not: 'node-01:40000:40077'),
# looked for from its first colon: a pattern that starts with a literal is searched for that
# character first, where one that starts with a digit class is tried at every position (7 us
# on a long NCCL line without a time, against 1 us; most lines have none).
_HMS_FROM_COLON = re.compile(r":\d\d:\d\d")


def has_hms(text: str) -> bool:
    """Whether `text` holds hh:mm:ss (two digits, a colon, two digits, a colon, two digits)."""
    return _first_hms(text) >= 0


def _first_hms(text: str) -> int:
    """Where the first hh:mm:ss of `text` starts, -1 where it has none."""
    m = _HMS_FROM_COLON.search(text, 2)
    while m:
        at = m.start()
        if text[at - 2 : at].isdecimal():
            return at - 2
        m = _HMS_FROM_COLON.search(text, at + 1)
    return -1


_DMESG = identity.pattern("dmesg.raw")
_SYSLOG = identity.pattern("time.syslog")
_DMY = identity.pattern("time.dmy")
_MDY = identity.pattern("time.mdy")
_RELTIME = identity.pattern("dmesg.reltime")
# The kernel's own clock printed as a wall time (dmesg -T, --time-format iso): boot time plus
# the monotonic clock, which dmesg(1) warns may drift from the wall clock.
_KERNEL_WALL = (identity.pattern("dmesg.ctime"), identity.pattern("dmesg.iso"))

# journalctl -o short-unix's time (identity journal.short_unix: '%10llu.%06llu' seconds since the
# epoch), as the prefix hands it over.
_EPOCH_SECONDS = re.compile(r"\d{9,11}\.\d{6}")
_ZONE = identity.pattern("time.stated_zone")
_UTC_NAMES = ("Z", "UTC", "GMT")
_HOUR_S, _MINUTE_S = 3600, 60

_DAY_NAMES = ("Mon ", "Tue ", "Wed ", "Thu ", "Fri ", "Sat ", "Sun ")


def _has_day_name(text: str) -> bool:
    # A few substring checks before the ctime search, which would try every position.
    for day in _DAY_NAMES:  # noqa: SIM110 - a plain loop: any() over a generator costs twice as much
        if day in text:
            return True
    return False


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
    return _safe(int(m["x_y"]), int(m["x_mo"]), int(m["x_d"]), int(m["x_h"]), int(m["x_mi"]), int(m["x_s"]),
                 _micro(m["x_f"]))


def dmesg_uptime(text: str) -> float | None:
    """dmesg's '[1118468.873266]': seconds since boot; facts.py turns it into a wall time once the
    host's boot time (from its snapshot) is known."""
    m = _DMESG.match(text)
    return float(m["uptime"]) if m else None


def kernel_wall_time(text: str) -> bool:
    """Whether the line's time is the kernel's clock printed as a wall time (dmesg -T / iso)."""
    first = text[:1]
    return (first == "[" and _KERNEL_WALL[0].match(text) is not None) or (
        first.isdigit() and _KERNEL_WALL[1].match(text) is not None)


def stated_offset(text: str) -> int | None:
    """The UTC offset (seconds east) a line's first hh:mm:ss states right after it ('Z', '+01:00',
    '+0100', journalctl short-full's ' UTC'); None where it states none, or a zone name that names
    no single offset ('CET'). A short-unix epoch states UTC."""
    head = text[:200]
    if head[:1].isdigit() and _EPOCH_SECONDS.fullmatch(head):
        return 0
    # The zone of the line's first time (the one parse_time reads first), not of a later one.
    at = _first_hms(head)
    m = _ZONE.match(head, at) if at >= 0 else None
    if m is None:
        return None
    zone = m["zone"].strip()
    if zone in _UTC_NAMES:
        return 0
    digits = zone[1:].replace(":", "")
    seconds = int(digits[:2]) * _HOUR_S + int(digits[2:]) * _MINUTE_S
    return -seconds if zone[0] == "-" else seconds


def parse_time(text: str, clock: Clock) -> tuple[datetime | None, bool]:
    """The first timestamp found in a line, or None; the flag says the year was assumed."""
    head = text[:200]
    if head[:1].isdigit() and _EPOCH_SECONDS.fullmatch(head):
        # A prefix's epoch (journalctl short-unix): UTC, never the reading machine's zone.
        return datetime.fromtimestamp(float(head), tz=UTC).replace(tzinfo=None), False
    if not has_hms(head):
        # Every format below has hh:mm:ss but dmesg's reltime minute ('[Dec 2 09:11] '); most
        # log lines have no time.
        if head[:1] == "[" and (m := _RELTIME.match(head)):
            return _safe(clock.assume_year(), _MONTHS[m["x_mon"]], int(m["x_d"]), int(m["x_h"]), int(m["x_mi"]),
                         0), True
        return None, False
    if "-" in head:
        m = _FULL.search(head)
        if m:
            return _safe(int(m["x_y"]), int(m["x_mo"]), int(m["x_d"]), int(m["x_h"]), int(m["x_mi"]), int(m["x_s"]),
                         _micro(m["x_f"])), False
        m = _VLLM.search(head)
        if m:
            return _safe(clock.assume_year(), int(m["x_mo"]), int(m["x_d"]), int(m["x_h"]), int(m["x_mi"]),
                         int(m["x_s"])), True
        m = _DMY.search(head)
        if m:
            return _safe(int(m["x_y"]), int(m["x_mo"]), int(m["x_d"]), int(m["x_h"]), int(m["x_mi"]),
                         int(m["x_s"])), False
    if "/" in head:
        m = _MDY.match(head)
        if m:
            return _safe(int(m["x_y"]), int(m["x_mo"]), int(m["x_d"]), int(m["x_h"]), int(m["x_mi"]),
                         int(m["x_s"])), False
    m = _GLOG.search(head)
    if m:
        md = m["x_md"]
        month, day = int(md[:-2]), int(md[-2:])
        # The 9-digit fraction of torch's C++ logger is CLOCK_MONOTONIC, not wall time (checked
        # against torch 2.13: it follows time.monotonic()'s fraction, and lines of one process
        # go backwards in it): keep seconds. glog builds print 6 wall-clock digits: keep them.
        frac = m["x_f"] if m["x_f"] and len(m["x_f"]) <= _MICRO_DIGITS else None
        return _safe(clock.assume_year(), month, day, int(m["x_h"]), int(m["x_mi"]), int(m["x_s"]), _micro(frac)), True
    # After glog's (the commoner): ctime's day names never make a glog time.
    m = _CTIME.search(head) if _has_day_name(head) else None
    if m:
        return _safe(int(m["x_y"]), _MONTHS[m["x_mon"]], int(m["x_d"]), int(m["x_h"]), int(m["x_mi"]),
                     int(m["x_s"])), False
    m = _SYSLOG.search(head)
    if m:
        return _safe(clock.assume_year(), _MONTHS[m["x_mon"]], int(m["x_d"]), int(m["x_h"]), int(m["x_mi"]),
                     int(m["x_s"]), _micro(m["x_f"])), True
    return None, False

"""What one catalog entry says: the meaning of a message family, wherever its line appears.

The catalog is data. Each entry is drawn from the program that prints the message (an NCCL
source file, a `cudaError_t`, an Xid code, a PyTorch file, a launcher) and says what the message
means on its own: the cause it points to, the role it plays for the rank that printed it, how
sure it is, and the fix. Format parsers add who and when; they never decide meaning.
"""
from __future__ import annotations

from dataclasses import dataclass, field

ROLES = ("fault", "symptom", "context", "harmless")
CONFIDENCES = ("high", "medium", "low")
# At or below: a generic catch-all (10-30, see `priority` below) with nothing specific to say.
CATCH_ALL_PRIORITY = 20


@dataclass(frozen=True)
class Signature:
    """One message family.

    - `id`: dotted, stable, `<source>.<area>.<name>` (`nccl.ib.completion_error`).
    - `patterns`: regular expressions matched anywhere in one line, after any prefix. Keep them
      to the common subset of Hyperscan, RE2 and Python `re`: no look-around, no
      back-references, no named groups, no `\\Z`; `(?i)` only at the start. Write them from the
      message's constant text (its format string), with the variable parts as `\\S+`, `\\d+`,
      `.*`; never from one sample's values.
    - `extract`: an optional Python regex with named groups, run only on matched lines, whose
      groups fill the finding (`errno`, `iface`, `device`, `bus_id`, `xid`, `peer`, ...).
    - `cause`: one of the docs/design.md causes, or None for `context`/`harmless` entries.
    - `role`: `fault` (the printing rank's own failure), `symptom` (what a rank prints after
      another rank or the fabric failed, e.g. "remote process exited"), `context` (facts:
      versions, transports, settings), `harmless` (known benign lines that look scary).
    - `confidence`: what the message supports on its own: `high` only where the message itself
      names the cause; `medium` where it points to it; `low` where it is a guess.
    - `priority`: when several entries match one line, the highest wins (specific 60-90,
      default 50, generic catch-alls 10-30).
    - `fix`: what to do, as text; lines that start with `$ ` are commands. `{device}`, `{pid}`,
      `{host}`, `{rank}` and the names of `extract` groups are filled where the finding knows them.
    - `origin`: where the message comes from: file and version range, error name, Xid code.
    - `samples`: at least one real-looking line that must match (used by the tests).
    - `literals`: lower-case substrings one of which every match contains, for the pure-Python
      prefilter. Empty: derived from the patterns (the test suite checks that derivation works).
    - `survivable`: the program says it falls back and goes on (a fast path off, a retry): the
      line is a finding only where the run then failed, and never above `medium`.
    - `outranked_by`: what explains this message when it is also in the bundle: entry ids, or
      `cause:<cause>` for any fault of that cause the catalog or the kernel log names (a GPU the
      kernel says fell off the bus or needs a reset outranks "CUDA devices busy or unavailable").
      The entry's finding then drops to `low`.
    - `alone_differs`: why the verdict on this entry's sample alone is not the entry's `cause`
      (a cause rule reads the same line more closely); empty for almost every entry. The
      catalog-wide tests take exactly these entries out, and say so.
    - `raised_in`: for an entry that reads a generic exception by where it was raised
      (signatures/raised_in.py): regular expressions on the file of the traceback's last frame.
      Its `patterns` then match the exception line's type; it never reads a line alone (it is not
      in `CATALOG`, so the matcher and the gate never see it), only an exception raised there whose
      own message no specific entry reads.
    - `in_any_frame`: `raised_in` is matched against every frame the traceback kept (the last
      frame and the few that called it), not only the last: for code that reaches the exception
      through the stdlib (a json or socket call), where the caller's frame says what was going on.
    """

    id: str
    patterns: tuple[str, ...]
    cause: str | None
    role: str
    confidence: str
    title: str
    fix: str
    origin: str
    samples: tuple[str, ...]
    extract: str | None = None
    priority: int = 50
    literals: tuple[str, ...] = field(default_factory=tuple)
    survivable: bool = False
    outranked_by: tuple[str, ...] = field(default_factory=tuple)
    alone_differs: str = ""
    raised_in: tuple[str, ...] = field(default_factory=tuple)
    in_any_frame: bool = False


def alone_differs(sigs: tuple[Signature, ...], reasons: dict[str, str]) -> tuple[Signature, ...]:
    """`sigs` with `alone_differs` set on the entries named in `reasons` (for entries built by a
    module's helper, which has no such argument); an unknown id is an error."""
    from dataclasses import replace

    unknown = set(reasons) - {s.id for s in sigs}
    if unknown:
        raise KeyError(f"alone_differs for entries that do not exist: {sorted(unknown)}")
    return tuple(replace(s, alone_differs=reasons[s.id]) if s.id in reasons else s for s in sigs)

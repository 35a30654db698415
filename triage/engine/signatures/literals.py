"""Required literals of a pattern, for the pure-Python prefilter.

Every match of a pattern contains at least one of its required literals (lower-cased), so a
line that contains none of them cannot match and is never run through the regex. Derived from
the parsed pattern: the longest run of plain characters that every alternative must contain.
"""
from __future__ import annotations

import re
from typing import Any

try:  # Python 3.11+: the parser moved to re._parser
    from re import _parser as sre_parse  # type: ignore[attr-defined]
except ImportError:  # pragma: no cover
    import sre_parse

_LITERAL = sre_parse.LITERAL
_SUBPATTERN = sre_parse.SUBPATTERN
_BRANCH = sre_parse.BRANCH
_MAX_REPEAT = sre_parse.MAX_REPEAT
_MIN_REPEAT = sre_parse.MIN_REPEAT
_IN = sre_parse.IN
MIN_LITERAL = 3


def _runs(items: Any) -> list[set[str]]:
    """Alternative sets of literals: every match contains one literal of each returned set."""
    needs: list[set[str]] = []
    run: list[str] = []

    def flush() -> None:
        if len(run) >= MIN_LITERAL:
            needs.append({"".join(run).lower()})
        run.clear()

    for op, arg in items:
        if op is _LITERAL:
            run.append(chr(arg))
            continue
        if op is _IN and len(arg) == 2 and all(o is _LITERAL for o, _ in arg):  # noqa: PLR2004 - [Aa]
            a, b = (chr(v) for _, v in arg)
            if a.lower() == b.lower():  # [Ee] -> e
                run.append(a.lower())
                continue
        flush()
        if op is _SUBPATTERN:
            needs.extend(_runs(arg[3]))
        elif op in (_MAX_REPEAT, _MIN_REPEAT) and arg[0] >= 1:
            needs.extend(_runs(arg[2]))
        elif op is _BRANCH:
            options: set[str] = set()
            for alternative in arg[1]:
                found = _runs(alternative)
                if not found:
                    options = set()
                    break
                options |= max(found, key=lambda s: min(len(x) for x in s))
            if options:
                needs.append(options)
    flush()
    return needs


def required_literals(pattern: str) -> tuple[str, ...]:
    """The best set of literals one of which every match contains; () when none can be found."""
    needs = needed_sets(pattern)
    if not needs:
        return ()
    best = max(needs, key=lambda s: (min(len(x) for x in s), -len(s)))
    return tuple(sorted(best))


def needed_sets(pattern: str) -> list[set[str]]:
    """Every set of literals such that each match of the pattern contains one of the set (lower
    case); [] when the pattern has no literal run of MIN_LITERAL characters."""
    flags = re.IGNORECASE if pattern.startswith("(?i)") else 0
    return _runs(list(sre_parse.parse(pattern, flags)))

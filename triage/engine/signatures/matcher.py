"""The catalog compiled for matching one line: which entries does this line carry?

Hyperscan where the wheel exists (all patterns in one database, ids name the entries), else an
RE2 set, else plain `re` behind the required-literal check (a line that contains none of an
entry's literals cannot match it). `best()` picks the entry that explains the line: the highest
priority, then the more specific (longer) pattern.
"""
from __future__ import annotations

import re
from collections.abc import Callable
from functools import lru_cache
from typing import Any, NamedTuple

from . import CATALOG
from .literals import required_literals
from .schema import Signature


class Match(NamedTuple):
    """(A tuple: one is made for most lines read, and a frozen dataclass costs four times as much.)"""

    sig: Signature
    groups: dict[str, str]


def _hyperscan(patterns: list[str], owners: list[int]) -> Callable[[str], set[int]] | None:
    try:
        import hyperscan
    except ImportError:
        return None
    from ..scan import hyperscan_db

    try:
        db = hyperscan_db(hyperscan, patterns, [hyperscan.HS_FLAG_SINGLEMATCH] * len(patterns))
        scratch = hyperscan.Scratch(db)
    except Exception:  # noqa: BLE001 - a pattern Hyperscan cannot take: use the next engine
        return None

    def on_match(pid: int, _f: int, _t: int, _fl: int, hits: set[int]) -> None:
        hits.add(owners[pid])

    def find(line: str) -> set[int]:
        hits: set[int] = set()
        # (One handler for every line, the line's set its context: no closure made per line.)
        db.scan(line.encode("utf-8", "replace"), match_event_handler=on_match, context=hits, scratch=scratch)
        return hits

    return find


def _re2(patterns: list[str], owners: list[int]) -> Callable[[str], set[int]] | None:
    try:
        import re2
    except ImportError:
        return None
    try:
        options = re2.Options()
        options.max_mem = 256 << 20
        rset = re2.Set.SearchSet(options)
        for p in patterns:
            rset.Add(p)
        rset.Compile()
    except Exception:  # noqa: BLE001
        return None

    def find(line: str) -> set[int]:
        return {owners[i] for i in (rset.Match(line) or ())}

    return find


def _python(patterns: list[str], owners: list[int], sigs: tuple[Signature, ...]) -> Callable[[str], set[int]]:
    compiled = [re.compile(p) for p in patterns]
    by_literal: dict[str, list[int]] = {}
    for i, p in enumerate(patterns):
        sig = sigs[owners[i]]
        lits = sig.literals or required_literals(p)
        for lit in lits:
            by_literal.setdefault(lit, []).append(i)
    literals = tuple(by_literal.items())

    def find(line: str) -> set[int]:
        low = line.lower()
        hits: set[int] = set()
        for lit, ids in literals:
            if lit in low:
                for i in ids:
                    if owners[i] not in hits and compiled[i].search(line):
                        hits.add(owners[i])
        return hits

    return find


class CatalogMatcher:
    def __init__(self, catalog: tuple[Signature, ...] = CATALOG, prefer: str | None = None) -> None:
        self.catalog = catalog
        patterns: list[str] = []
        owners: list[int] = []
        for i, sig in enumerate(catalog):
            for p in sig.patterns:
                patterns.append(p)
                owners.append(i)
        # best()'s order of the entries a line matches: priority, then the longer pattern.
        self._rank = [(sig.priority, max((len(p) for p in sig.patterns), default=0), -i)
                      for i, sig in enumerate(catalog)]
        # Compiled on first use: most entries never match a given bundle.
        self._extract: list[re.Pattern[str] | None] = [None] * len(catalog)
        find: Callable[[str], set[int]] | None = None
        self.engine = "python"
        if prefer in (None, "hyperscan"):
            find = _hyperscan(patterns, owners)
            self.engine = "hyperscan" if find else self.engine
        if find is None and prefer in (None, "re2", "hyperscan"):
            find = _re2(patterns, owners)
            self.engine = "re2" if find else "python"
        self._find = find or _python(patterns, owners, catalog)
        # How entries rank when several match one line: priority, then the longer pattern.
        self._rank = [(sig.priority, max((len(p) for p in sig.patterns), default=0), -k)
                      for k, sig in enumerate(catalog)]

    def matches(self, line: str) -> list[Signature]:
        return [self.catalog[i] for i in sorted(self._find(line))]

    def best(self, line: str) -> Match | None:
        hits = self._find(line)
        if not hits:
            return None
        i = max(hits, key=self._rank.__getitem__) if len(hits) > 1 else next(iter(hits))
        sig = self.catalog[i]
        groups: dict[str, Any] = {}
        ex = self._extract[i]
        if ex is None and sig.extract:
            ex = self._extract[i] = re.compile(sig.extract)
        if ex is not None:
            m = ex.search(line)
            if m:
                groups = {k: v for k, v in m.groupdict().items() if v is not None}
        return Match(sig, groups)


@lru_cache(maxsize=4)
def matcher(prefer: str | None = None) -> CatalogMatcher:
    return CatalogMatcher(CATALOG, prefer)

"""The signature catalog is well-formed: every sample matches its own entry, every pattern
compiles in every prefilter engine, and the pure-Python prefilter's literals cover it."""
from __future__ import annotations

import re

import pytest

from triage.engine.model import CAUSES
from triage.engine.signatures import CATALOG, CONFIDENCES, ROLES, SOURCES
from triage.engine.signatures.literals import required_literals

IDS = [s.id for s in CATALOG]


def test_ids_are_unique() -> None:
    dupes = sorted({i for i in IDS if IDS.count(i) > 1})
    assert dupes == []


@pytest.mark.parametrize("sig", CATALOG, ids=IDS)
def test_entry_is_well_formed(sig) -> None:  # type: ignore[no-untyped-def]
    assert re.fullmatch(r"[a-z0-9_]+(\.[a-z0-9_]+)+", sig.id), sig.id
    assert sig.role in ROLES
    assert sig.confidence in CONFIDENCES
    if sig.role in ("fault", "symptom"):
        assert sig.cause in CAUSES
    else:
        assert sig.cause is None or sig.cause in CAUSES
    assert sig.patterns and sig.samples and sig.title and sig.origin
    for pattern in sig.patterns:
        assert "(?P<" not in pattern and "(?=" not in pattern and "(?!" not in pattern and "(?<" not in pattern
        re.compile(pattern)
    if sig.extract:
        re.compile(sig.extract)


@pytest.mark.parametrize("sig", CATALOG, ids=IDS)
def test_samples_match_their_entry(sig) -> None:  # type: ignore[no-untyped-def]
    for sample in sig.samples:
        assert any(re.search(p, sample) for p in sig.patterns), (sig.id, sample)
        literals = sig.literals or tuple(x for p in sig.patterns for x in required_literals(p))
        assert any(lit in sample.lower() for lit in literals), (sig.id, literals)


@pytest.mark.parametrize("sig", CATALOG, ids=IDS)
def test_every_pattern_has_prefilter_literals(sig) -> None:  # type: ignore[no-untyped-def]
    if sig.literals:
        assert all(lit == lit.lower() and len(lit) >= 3 for lit in sig.literals)
        return
    for pattern in sig.patterns:
        assert required_literals(pattern), f"{sig.id}: no literal derivable from {pattern!r}; set literals="


def test_patterns_compile_in_re2() -> None:
    import re2  # type: ignore[import-not-found]

    options = re2.Options()
    options.max_mem = 64 << 20
    bad = []
    for sig in CATALOG:
        for pattern in sig.patterns:
            try:
                re2.compile(pattern, options)
            except Exception as exc:  # noqa: BLE001
                bad.append((sig.id, pattern, str(exc)))
    assert bad == []


def test_sources_are_all_present() -> None:
    assert set(SOURCES) == {"nccl", "cuda", "xid", "system", "torch", "frameworks", "crash"}


def test_patterns_compile_in_hyperscan() -> None:
    import hyperscan  # type: ignore[import-not-found]  # a pinned requirement on x86-64

    patterns = [p.encode() for sig in CATALOG for p in sig.patterns]
    db = hyperscan.Database()
    db.compile(expressions=patterns, ids=list(range(len(patterns))), elements=len(patterns),
               flags=[hyperscan.HS_FLAG_ALLOWEMPTY] * len(patterns))

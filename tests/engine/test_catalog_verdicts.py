"""Every catalog fault and symptom, alone and behind launcher prefixes: the verdict's cause is the
cause the catalog's entry gives, not whatever the engine answered on another day. The catalog is
the reference: where a sample is read by another entry (a more specific wording), that entry's
cause must agree, or the entry says why not (`alone_differs`). No entry is left out silently.

An entry the catalog is sure of (`medium`, `high`) must be the verdict; one it only guesses
(`low`) must at least be among the findings (a cause rule may read the line more closely).
"""
from __future__ import annotations

import functools
import tempfile
from pathlib import Path

import pytest

from triage.engine import diagnose
from triage.engine.signatures import CATALOG
from triage.engine.signatures.matcher import matcher
from triage.engine.signatures.schema import Signature

# Launchers' line prefixes, a CI runner's timestamp, and how a log is pasted into an issue
# (quoted, indented as code, in a table).
WRAPPERS = ("[rank3]:", "[default3]:", "3: ", "node-a: ", "[1,3]<stderr>:", "2026-11-03T10:00:00.123456Z ",
            "(RayWorkerWrapper pid=4242, ip=10.0.0.2) ", "> ", "    ", "\t", "| ")

NAMED = [sig for sig in CATALOG if sig.role in ("fault", "symptom") and sig.cause is not None]


def _reading(sample: str) -> Signature:
    found = matcher().best(sample)
    assert found is not None, sample
    return found.sig


@functools.cache
def _causes(text: str) -> tuple[str, ...]:
    with tempfile.TemporaryDirectory() as tmp:
        (Path(tmp) / "rank0.log").write_text(text + "\n")
        return tuple(f["cause"] for f in diagnose(Path(tmp)).to_dict()["findings"])


def _expected(sig: Signature, sample: str) -> tuple[str, str]:
    """(cause, confidence) the catalog gives the sample: this entry's, or the entry that reads
    the line, which must agree unless this entry says why it does not."""
    reading = _reading(sample)
    if reading.cause != sig.cause:
        assert sig.alone_differs, (
            f"{sig.id} says {sig.cause}, but its sample is read by {reading.id} ({reading.cause}): "
            f"make them agree, or say why in {sig.id}.alone_differs: {sample!r}")
    return str(reading.cause if reading.role in ("fault", "symptom") and reading.cause else sig.cause), reading.confidence


def _check(sig: Signature, sample: str, text: str) -> None:
    cause, confidence = _expected(sig, sample)
    causes = _causes(text)
    if confidence == "low":
        assert cause in causes, (sig.id, text, causes)
    else:
        assert causes[:1] == (cause,), (sig.id, text, causes)


def test_every_named_entry_is_here() -> None:
    # Nothing filtered by what the engine or the matcher happens to answer.
    assert len(NAMED) == sum(1 for s in CATALOG if s.role in ("fault", "symptom") and s.cause)
    assert len(NAMED) > 600


@pytest.mark.parametrize("sig", NAMED, ids=[s.id for s in NAMED])
def test_each_sample_alone_is_the_entrys_cause(sig: Signature) -> None:
    for sample in sig.samples:
        _check(sig, sample, sample)


@pytest.mark.parametrize("sig", NAMED, ids=[s.id for s in NAMED])
def test_the_entrys_cause_holds_behind_any_prefix(sig: Signature) -> None:
    sample = sig.samples[0]
    for prefix in WRAPPERS:
        _check(sig, sample, prefix + sample)


def test_an_entry_that_differs_says_why() -> None:
    # `alone_differs` is a reason, not a switch: it names what reads the line instead.
    for sig in CATALOG:
        if sig.alone_differs:
            assert len(sig.alone_differs) > 30, sig.id

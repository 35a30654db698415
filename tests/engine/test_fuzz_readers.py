"""The fuzz harness over every structured reader: for every generated input the diagnosis's
JSON and the peak memory stay under fixed bounds (readers_fuzz.MAX_*), and nothing raises past
the reader but BundleError. Derandomised and sized for the suite (a few seconds each), so a
run is the same everywhere; and shown able to fail: with the bounds taken away, the 22-level
shared-tuple pickle breaks the property."""
from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from readers_fuzz import (
    ERROR_FILES,
    FR_JSONS,
    FR_PICKLES,
    MANIFESTS,
    NVML_LINES,
    OPCODE_SOUP,
    RAS_JSONS,
    RAS_TEXTS,
    SMOKES,
    SNAPSHOTS,
    diagnose_bounded,
    shared_tuples,
    warm,
)

from triage.engine.forensics import flight_recorder, plainpickle

FUZZ = settings(max_examples=300, deadline=None, derandomize=True, database=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


def setup_module() -> None:
    warm()


READERS = [
    ("flight-recorder pickles from opcodes", "fr_trace_3", FR_PICKLES),
    ("any opcodes in any order", "fr_trace_3", OPCODE_SOUP),
    ("flight-recorder JSON", "fr_trace_3.json", FR_JSONS),
    ("snapshots, manifests, smoke results", "snapshot.json", st.one_of(SNAPSHOTS, MANIFESTS, SMOKES)),
    ("torchelastic error files", "error.json", ERROR_FILES),
    ("NVML samples", "nvml-samples.jsonl", NVML_LINES),
    ("NCCL RAS output", "ras.txt", st.one_of(RAS_TEXTS, RAS_JSONS)),
]


@pytest.mark.parametrize(("name", "strategy"), [r[1:] for r in READERS], ids=[r[0] for r in READERS])
@FUZZ
@given(data=st.data())
def test_every_reader_stays_bounded(name: str, strategy: st.SearchStrategy[bytes], data: st.DataObject) -> None:
    diagnose_bounded(name, data.draw(strategy))


def test_the_22_level_pickle_keeps_the_property() -> None:
    out = diagnose_bounded("fr_trace_3", shared_tuples(22))
    assert out is None  # its one file refused: nothing read


def _no_budget(monkeypatch: pytest.MonkeyPatch) -> None:
    for limit in ("MAX_ITEM_NODES", "MAX_ITEM_CHARS", "MAX_TOP_NODES", "MAX_TOP_CHARS"):
        monkeypatch.setattr(plainpickle, limit, 1 << 62)


def _names_as_text(monkeypatch: pytest.MonkeyPatch) -> None:
    """A process-group name taken as str() of whatever is there, as the reader did."""
    def as_text(value: Any, left_out: Any, what: str) -> str:
        return str(value)

    monkeypatch.setattr(flight_recorder, "_pg_key", as_text)


def test_the_harness_fails_when_the_bounds_are_removed(monkeypatch: pytest.MonkeyPatch) -> None:
    """Both bounds taken away, the shared tuples break the property. 18 levels (3 MB of JSON)
    rather than 22 (50 MB): the same shape at a sixteenth of the size, so the proof does not
    take a minute under tracemalloc."""
    _no_budget(monkeypatch)
    _names_as_text(monkeypatch)
    with pytest.raises(AssertionError, match="characters of diagnosis JSON"):
        diagnose_bounded("fr_trace_3", shared_tuples(18))


def test_the_budget_alone_refuses_it(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each bound holds on its own: with names taken as str(), the budget refuses the dump."""
    _names_as_text(monkeypatch)
    assert diagnose_bounded("fr_trace_3", shared_tuples(22)) is None


def test_the_shapes_alone_bound_it(monkeypatch: pytest.MonkeyPatch) -> None:
    """...and with no budget, the name (a tuple, not a string) is left out with a note."""
    _no_budget(monkeypatch)
    out = diagnose_bounded("fr_trace_3", shared_tuples(22))
    assert out is not None
    assert any("values not of their type or size left out (process_group name)" in p for p in out["problems"])
    # The entry is read, filed under its (absent) pg_id: "", with the name it really has.
    assert [(g["pg"], g["desc"]) for g in out["collectives"]["groups"]] == [("", "default_pg")]

"""The log viewer's pages: counted in blocks, never read whole."""
from __future__ import annotations

from pathlib import Path

import pytest

from triage.incidents.logs import BLOCK, SourceNotFound, log_page
from triage.incidents.models import Incident
from triage.incidents.services import incident_ingest, incoming_from_path

pytestmark = pytest.mark.django_db


@pytest.fixture
def big_log_incident(media_root: Path, tmp_path: Path) -> Incident:
    # Several blocks of numbered lines, one of them longer than a block.
    path = tmp_path / "rank0.log"
    with path.open("wb") as f:
        for n in range(1, 200_001):
            if n == 150_000:
                f.write(b"x" * (BLOCK + 10) + b"\n")
            else:
                f.write(f"line {n} <b>tag</b>\n".encode())
    with incoming_from_path(path) as incoming:
        incident, _ = incident_ingest(bundles=[incoming], job="logs")
    return incident


def page(incident: Incident, first: int, count: int = 5):  # type: ignore[no-untyped-def]
    return log_page(incident=incident, source="rank0.log", first=first, count=count, max_chars=100)


def test_it_opens_the_first_page(big_log_incident: Incident) -> None:
    p = page(big_log_incident, 1)
    assert [line.text for line in p.lines] == [f"line {n} <b>tag</b>" for n in range(1, 6)]
    assert p.first == 1 and p.last == 5 and not p.at_end


def test_it_jumps_deep_into_the_file(big_log_incident: Incident) -> None:
    p = page(big_log_incident, 123_456, count=3)
    assert [(line.number, line.text) for line in p.lines] == [
        (123_456, "line 123456 <b>tag</b>"), (123_457, "line 123457 <b>tag</b>"), (123_458, "line 123458 <b>tag</b>")
    ]


def test_it_cuts_a_monster_line_and_goes_on(big_log_incident: Incident) -> None:
    p = page(big_log_incident, 149_999, count=3)
    assert [line.number for line in p.lines] == [149_999, 150_000, 150_001]
    assert p.lines[1].truncated and p.lines[1].text == "x" * 100
    assert p.lines[2].text == "line 150001 <b>tag</b>"


def test_it_ends_at_the_end(big_log_incident: Incident) -> None:
    p = page(big_log_incident, 199_999, count=5)
    assert [line.number for line in p.lines] == [199_999, 200_000]
    assert p.at_end
    assert page(big_log_incident, 300_000).lines == []


def test_an_unknown_source_is_refused(big_log_incident: Incident) -> None:
    with pytest.raises(SourceNotFound):
        log_page(incident=big_log_incident, source="nope/rank0.log", first=1, count=5, max_chars=100)
    with pytest.raises(SourceNotFound):
        log_page(incident=big_log_incident, source="rank0.log/missing.log", first=1, count=5, max_chars=100)

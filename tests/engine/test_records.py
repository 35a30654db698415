"""What a parser's record says of its writer is the catalog's (signatures/data/records.toml),
and the kinds the rules read for a record whose meaning the catalog gives (readings.record_view):
the parsers yield identity and structure only (model.Record)."""
from __future__ import annotations

import ast
from pathlib import Path

import pytest

from triage.engine import diagnose
from triage.engine.bundle import Budget, Limits, iter_members
from triage.engine.facts import VIEWED_KINDS, build_facts
from triage.engine.parallel import read_state
from triage.engine.reader import Collected, read_member
from triage.engine.scan import prefilter
from triage.engine.signatures.records import SAYS, Reading, reading_of, readings, severity
from triage.engine.signatures.schema import CatalogError
from triage.engine.timeparse import Clock

PARSERS = Path(__file__).resolve().parents[2] / "triage" / "engine" / "parsers"


def _recorded_kinds() -> set[str]:
    """The kinds the parsers' `ctx.record("<kind>", ...)` calls name."""
    kinds: set[str] = set()
    for path in PARSERS.glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "record"
                    and node.args and isinstance(node.args[0], ast.Constant)):
                kinds.add(str(node.args[0].value))
    return kinds


def test_every_reading_is_of_a_kind_a_parser_records() -> None:
    table = readings()
    assert table and all(r.says in SAYS and r.origin for found in table.values() for r in found)
    assert set(table) <= _recorded_kinds(), sorted(set(table) - _recorded_kinds())
    assert _recorded_kinds() >= VIEWED_KINDS


ENTRIES = [r for found in readings().values() for r in found]


def _records(tmp_path: Path, name: str, block: str, kind: str) -> list:
    (tmp_path / name).mkdir()
    path = tmp_path / name / "log.txt"
    path.write_text(block + "\n", encoding="utf-8")
    budget = Budget(Limits())
    out = Collected()
    for member in iter_members(path, budget):
        read_member(member, out, budget, prefilter(), Clock(year=2025))
    return [e for e in out.events if e.kind == kind]


@pytest.mark.parametrize("entry", ENTRIES, ids=[f"{r.kind}-{r.says}" for r in ENTRIES])
def test_each_reading_reads_its_samples_and_no_not_sample(tmp_path: Path, entry: Reading) -> None:
    """The parsers read every sample as a record of the entry's kind that this entry reads (and so
    its event says what the entry says); a not-sample is read by another entry, or is no record
    of that kind at all."""
    for i, sample in enumerate(entry.samples):
        found = _records(tmp_path, f"s{i}", sample, entry.kind)
        assert found, f"no {entry.kind} record for the sample {sample!r}"
        assert all(reading_of(entry.kind, ev.data) is entry and ev.severity == entry.says for ev in found), (
            sample, [(ev.data, ev.severity) for ev in found])
    for i, line in enumerate(entry.not_samples):
        found = _records(tmp_path, f"n{i}", line, entry.kind)
        assert not any(reading_of(entry.kind, ev.data) is entry for ev in found), line


@pytest.mark.parametrize(("kind", "data", "says"), [
    ("process_exit", {"exitcode": -15, "reporter": "elastic"}, "warn"),  # SIGTERM from its own agent
    ("process_exit", {"exitcode": -15, "reporter": "deepspeed"}, "fatal"),
    ("process_exit", {"exitcode": 1, "reporter": "elastic"}, "fatal"),
    ("watchdog_progress", {"failed_seq": 12}, "error"),
    ("watchdog_progress", {"failed_seq": None, "last_completed": 11}, "info"),
    ("pcie_aer", {"aer": "Corrected"}, "warn"),
    ("pcie_aer", {"aer": "CORRECTED"}, "warn"),
    ("pcie_aer", {"aer": "Uncorrected"}, "error"),
    ("master_addr", {"valid": False}, "error"),
    ("master_addr", {"valid": True}, "info"),
    ("store_connect_failed", {"log_level": "W"}, "warn"),
    ("store_connect_failed", {"log_level": None}, "error"),
    ("nccl_init", {"rank": 0}, "info"),  # a kind the table does not read: a fact
])
def test_what_a_record_says_of_its_writer(kind: str, data: dict, says: str) -> None:
    assert severity(kind, data) == says


def test_a_table_out_of_order_is_refused(tmp_path, monkeypatch) -> None:
    from triage.engine.signatures import records
    (tmp_path / records.FILE).write_text(
        '[[record]]\nkind = "x"\nsays = "error"\norigin = "o"\nsamples = ["x"]\n\n'
        '[[record]]\nkind = "x"\nsays = "warn"\nwhen = { a = 1 }\norigin = "o"\nsamples = ["x"]\n', encoding="utf-8")
    monkeypatch.setattr(records, "DATA", tmp_path)
    records.readings.cache_clear()
    try:
        with pytest.raises(CatalogError, match="last"):
            records.readings()
    finally:
        monkeypatch.undo()
        records.readings.cache_clear()


def _facts(tmp_path: Path, lines: list[str], name: str = "log.txt"):
    path = tmp_path / name
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    state = read_state(path)
    return build_facts(state.collected, state.problems)


def test_the_allocator_report_is_an_oom_by_the_catalog(tmp_path: Path) -> None:
    line = ("[rank2]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 2 has a total "
            "capacity of 79.10 GiB of which 1.06 GiB is free.")
    facts = _facts(tmp_path, [line])
    (ev,) = facts.kind("cuda_oom")
    assert facts.meaning_of(ev).data["sig"] == "torch.cuda.oom"
    assert ev.data["requested"] == "2.00 GiB" and ev.severity == "error"


def test_the_kernel_kill_line_is_a_host_oom_by_the_catalog(tmp_path: Path) -> None:
    facts = _facts(tmp_path, ["[12345.678901] Out of memory: Killed process 4242 (python)"], "dmesg.txt")
    (ev,) = facts.kind("host_oom_kill")
    assert ev.data["victim_pid"] == 4242 and facts.meaning_of(ev).data["cause"] == "oom"


def test_a_gpu_fallen_off_the_bus_is_an_xid_by_the_catalog_not_the_parser(tmp_path: Path) -> None:
    line = "[512.0] NVRM: GPU 0000:3b:00.0: GPU has fallen off the bus."
    (record,) = _records(tmp_path, "read", line, "nvrm_gpu")  # the parser: the driver's GPU line, its bus
    assert record.data == {"bus": "3b:00", "uptime_s": 512.0}  # (the reader adds the dmesg clock)
    # The catalog's entry says the line is the open driver's report of Xid 79 (osinit.c).
    facts = _facts(tmp_path, [line], "dmesg.txt")
    (ev,) = facts.kind("xid")
    assert (ev.data["xid"], ev.data["bus"], ev.data["fault_class"]) == (79, "3b:00", "hardware")
    assert facts.meaning_of(ev).data["sig"] == "kernel.nvrm.fallen_off_bus"
    assert diagnose(tmp_path / "dmesg.txt").to_dict()["findings"][0]["rule"] == "hardware_fault.xid"


def test_a_driver_line_of_a_gpu_the_catalog_reads_as_no_fault_stays_what_it_is(tmp_path: Path) -> None:
    facts = _facts(tmp_path, ["[5.0] NVRM: GPU 0000:3b:00.0: RmInitAdapter succeeded"], "dmesg.txt")
    assert not facts.kind("xid") and [e.data["bus"] for e in facts.kind("nvrm_gpu")] == ["3b:00"]

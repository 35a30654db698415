"""The identity-and-time catalog (triage/engine/identity/): every sample yields its fields,
alone and behind every capture layer; every not-sample yields none; the schema is enforced."""
from __future__ import annotations

from datetime import datetime
from pathlib import Path
from typing import Any

import pytest

from triage.engine import diagnose, identity
from triage.engine.demux import peel_one, split_prefix
from triage.engine.timeparse import Clock, dmesg_uptime, parse_time, stated_offset

CLOCK = Clock(year=2026)
ENTRIES = identity.catalog()
PREFIXES = [e for e in ENTRIES if e.kind == "prefix"]
WRAPPERS = [e for e in PREFIXES if e.wraps]
# Origin's name of each field a prefix yields.
ORIGIN = {"rank": "rank", "local_rank": "local_rank", "task": "task", "host": "host", "pid": "pid",
          "tp_rank": "tp_rank", "time": "time_text"}


def _iso(text: str | None) -> str | None:
    if text is None:
        return None
    when, _ = parse_time(text, CLOCK)
    return when.isoformat() if when else None


def _yielded(entry: identity.Entry, line: str) -> tuple[dict[str, Any], str]:
    """What split_prefix reads of the entry's fields in `line`, and the body left."""
    origin, body = split_prefix(line)
    got: dict[str, Any] = {}
    for field in entry.fields:
        attr = ORIGIN.get(field)
        if attr is None:
            continue
        value = getattr(origin, attr)
        got[field] = _iso(value) if field == "time" else value
    return got, body


def _expected(entry: identity.Entry, sample: identity.Sample) -> dict[str, Any]:
    return {f: sample.yields.get(f) for f in entry.fields if f in ORIGIN}


PREFIX_SAMPLES = [(e, s) for e in PREFIXES for s in e.samples]


@pytest.mark.parametrize(("entry", "sample"), PREFIX_SAMPLES, ids=[f"{e.id}:{i}" for i, (e, _s) in enumerate(PREFIX_SAMPLES)])
def test_a_prefix_sample_alone_yields_its_fields(entry: identity.Entry, sample: identity.Sample) -> None:
    got, body = _yielded(entry, sample.line)
    assert got == _expected(entry, sample), entry.id
    if sample.body is not None:
        # What is left after this prefix, and after any prefix inside it.
        assert body == split_prefix(sample.body)[1]
    assert body != sample.line, f"{entry.id}: nothing peeled"


# The wrapped line: a capture layer's own first sample's prefix (its line less its body) in front.
def _wrapper_prefix(wrapper: identity.Entry) -> str:
    for s in wrapper.samples:
        if s.body is not None and s.line.endswith(s.body):
            return s.line[: len(s.line) - len(s.body)]
        _origin, body = split_prefix(s.line)
        return s.line[: len(s.line) - len(body)]
    raise AssertionError(wrapper.id)


WRAPPED = [(w, e, s) for w in WRAPPERS for e, s in PREFIX_SAMPLES if e.id != w.id and e.order > w.order]


@pytest.mark.parametrize(("wrapper", "entry", "sample"), WRAPPED,
                         ids=[f"{w.id}>{e.id}:{i}" for i, (w, e, _s) in enumerate(WRAPPED)])
def test_a_prefix_sample_behind_every_capture_layer_yields_its_fields(
        wrapper: identity.Entry, entry: identity.Entry, sample: identity.Sample) -> None:
    line = _wrapper_prefix(wrapper) + sample.line
    got, body = _yielded(entry, line)
    want = _expected(entry, sample)
    outer, _ = _yielded(wrapper, line)
    # A field both name is the outer layer's (the first prefix that names it), but a Slurm task
    # never hides a rank the launcher inside it names.
    for field, value in outer.items():
        if field in want and value is not None:
            want[field] = value
    assert got == want, (wrapper.id, entry.id)
    if sample.body is not None:
        assert body == split_prefix(sample.body)[1]


@pytest.mark.parametrize("entry", PREFIXES, ids=[e.id for e in PREFIXES])
def test_a_prefix_not_sample_is_not_read_by_it(entry: identity.Entry) -> None:
    for line in entry.not_samples:
        assert peel_one(entry, line) is None, (entry.id, line)
    for sample in entry.samples:
        assert peel_one(entry, sample.line) is not None, (entry.id, sample.line)


OTHER = [e for e in ENTRIES if e.kind != "prefix"]


@pytest.mark.parametrize("entry", OTHER, ids=[e.id for e in OTHER])
def test_a_report_or_time_sample_yields_its_fields_and_a_not_sample_none(entry: identity.Entry) -> None:
    for sample in entry.samples:
        m = entry.regex.search(sample.line)
        assert m is not None, (entry.id, sample.line)
        for field in entry.fields:
            want = sample.yields.get(field)
            got: Any = m[field]
            if field == "time" and got is not None:
                got = _iso(sample.line) if entry.kind == "time" else got
            elif field == "uptime" and got is not None:
                got = float(got)
            elif got is not None and isinstance(want, int):
                got = int(got)
            assert got == want, (entry.id, sample.line, field)
    for line in entry.not_samples:
        m = entry.regex.search(line)
        assert m is None or all(m[f] is None for f in entry.fields), (entry.id, line)


@pytest.mark.parametrize("entry", [e for e in ENTRIES if e.kind == "time"],
                         ids=[e.id for e in ENTRIES if e.kind == "time"])
def test_the_time_reader_reads_every_time_sample(entry: identity.Entry) -> None:
    for sample in entry.samples:
        if "uptime" in sample.yields:
            assert dmesg_uptime(sample.line) == sample.yields["uptime"]
            assert parse_time(sample.line, CLOCK) == (None, False)
        elif "delta" in sample.yields:  # no clock: neither a time nor an uptime is read
            assert parse_time(sample.line, CLOCK) == (None, False) and dmesg_uptime(sample.line) is None
        elif "time" in sample.yields:
            assert _iso(sample.line) == sample.yields["time"], sample.line
        if entry.fields == ("zone",):
            assert stated_offset(sample.line) is not None, sample.line
    for line in entry.not_samples:
        if "uptime" in entry.fields:
            assert dmesg_uptime(line) is None
        if entry.fields == ("zone",):
            assert stated_offset(line) is None, line


def test_every_entry_says_where_it_comes_from() -> None:
    for e in ENTRIES:
        assert e.program and e.version and e.source, e.id
        assert e.samples, e.id


@pytest.mark.parametrize(("text", "problem"), [
    ('[[format]]\nid = "x"\n', "'kind' must be a str"),
    ('[[format]]\nid="x"\nkind="prefix"\nprogram="p"\nversion="1"\nsource="s"\npattern="^(?P<rank>\\\\d+)"\n'
     'fields=["rank"]\nsamples=[{line="1"}]\nnot_samples=[]\n', "says where it starts"),
    ('[[format]]\nid="x"\nkind="report"\nprogram="p"\nversion="1"\nsource="s"\npattern="(?P<rnk>\\\\d+)"\n'
     'fields=["rnk"]\nsamples=[{line="1"}]\nnot_samples=[]\n', "not in the vocabulary"),
    ('[[format]]\nid="x"\nkind="report"\nprogram="p"\nversion="1"\nsource="s"\npattern="(?P<rank>\\\\d+)"\n'
     'fields=["rank", "host"]\nsamples=[{line="1"}]\nnot_samples=[]\n', "are not its fields"),
    ('[[format]]\nid="x"\nkind="time"\nprogram="p"\nversion="1"\nsource="s"\npattern="(?P<time>\\\\d+)"\n'
     'fields=["time"]\nsamples=[{line="1"}]\nnot_samples=[]\n', "says its zone"),
    ('[[format]]\nid="x"\nkind="report"\nprogram="p"\nversion="1"\nsource="s"\npattern="(?P<rank>\\\\d+)"\n'
     'fields=["rank"]\nsamples=[]\nnot_samples=[]\n', "at least one sample"),
])
def test_a_malformed_entry_is_refused_with_its_file_named(tmp_path: Path, text: str, problem: str) -> None:
    (tmp_path / "bad.toml").write_text(text)
    with pytest.raises(identity.CatalogError, match="bad.toml") as err:
        identity.load(tmp_path)
    assert problem in str(err.value)


# --- what the catalog changes in a diagnosis ------------------------------------------------

def _xid_bundle(root: Path, dmesg_line: str) -> Path:
    buses = {0: "1b000", 1: "3b000", 2: "5b000", 3: "7b000"}
    for r in range(4):
        pid = 4200 + r
        lines = [f"node-a:{pid}:{pid + 10} [{r}] NCCL INFO ncclCommInitRank comm 0x55 rank {r} nranks 4 cudaDev {r} "
                 f"nvmlDev {r} busId {buses[r]} commId 0xabc - Init COMPLETE",
                 f"[rank{r}]:[I1202 09:10:30.000000000 ProcessGroupNCCL.cpp:900] [PG 0 Rank {r}] initialized"]
        if r != 2:
            lines.append(f"[rank{r}]:[E1202 09:21:04.123456789 ProcessGroupNCCL.cpp:616] [PG 0 Rank {r}] Watchdog caught "
                         "collective operation timeout: WorkNCCL(SeqNum=120, OpType=ALLREDUCE, NumelIn=1, NumelOut=1, "
                         "Timeout(ms)=600000) ran for 600001 milliseconds before timing out.")
        (root / f"r{r}.log").write_text("\n".join(lines) + "\n")
    (root / "dmesg.txt").write_text(dmesg_line + "\n")
    return root


XID = "NVRM: Xid (PCI:0000:5b:00): 79, pid=4202, name=python, GPU has fallen off the bus."


@pytest.mark.parametrize(("prefix", "clock"), [
    ("[Wed Dec  2 09:11:04 2026] ", "kernel"),          # dmesg -T
    ("2026-12-02T09:11:04,000000+00:00 ", "kernel"),     # dmesg --time-format iso
    ("Dec 02 09:11:04 node-a kernel: ", None),           # journalctl (short)
    ("Wed 2026-12-02 09:11:04 UTC node-a kernel: ", None),  # journalctl -o short-full
    ("<4>1 2026-12-02T09:11:04Z node-a kernel - - - ", None),  # RFC 5424
])
def test_the_xid_time_is_read_and_the_culprit_row_is_drawn(tmp_path: Path, prefix: str, clock: str | None) -> None:
    d = diagnose(str(_xid_bundle(tmp_path, prefix + XID)))
    out = d.to_dict()
    ff = out["first_failure"]
    assert (out["findings"][0]["cause"], ff["rank"], ff["device"]) == ("hardware_fault", 2, 2)
    # journalctl's short form writes no year and nothing else in the bundle does: the time is
    # known but for its year (null in the contract, '--MM-DD...' beside it), never this machine's.
    year_known = "2026" in prefix
    assert ff["time"] == ("2026-12-02T09:11:04" if year_known else None)
    assert ff["time_yearless"] == (None if year_known else "--12-02T09:11:04")
    assert ff["time_clock"] == (clock if year_known else None)
    drawn = "2026-12-02T09:11:04" if year_known else "0004-12-02T09:11:04"  # the timeline's stand-in year
    assert d.timeline["year_known"] is year_known
    row = next(r for r in d.timeline["ranks"] if r["rank"] == 2)
    assert row["end"] == drawn and row["segments"]
    assert [s["state"] for s in row["segments"]][-1] == "silent"
    assert d.timeline["first_failure"]["x"] == drawn
    assert ("kernel's clock" in d.timeline["first_failure"]["label"]) == (clock == "kernel")


def test_an_untimed_dmesg_line_leaves_the_time_unknown(tmp_path: Path) -> None:
    out = diagnose(str(_xid_bundle(tmp_path, "[1118468.873266] " + XID))).to_dict()
    ff = out["first_failure"]
    assert ff["rank"] == 2
    assert ff["time"] is None and ff["time_clock"] is None


def test_a_slurm_task_is_no_rank_of_the_torchrun_agent_under_it(tmp_path: Path) -> None:
    # srun -l torchrun ...: task 1 runs node 1's agent; its table names global rank 0... of the
    # job it launched (here a one-node job run as task 1), and the agent's own lines name none.
    lines = [
        "1: [rank0]: Traceback (most recent call last):",
        '1: [rank0]:   File "train.py", line 9, in <module>',
        "1: [rank0]: RuntimeError: boom",
        "1: E1202 09:11:05.000000 42 torch/distributed/elastic/multiprocessing/api.py:869] failed (exitcode: 1) "
        "local_rank: 0 (pid: 4242) of binary: /usr/bin/python",
        "1: torch.distributed.elastic.multiprocessing.errors.ChildFailedError:",
        "1: ============================================================",
        "1: train.py FAILED",
        "1: ------------------------------------------------------------",
        "1: Failures:",
        "1:   <NO_OTHER_FAILURES>",
        "1: ------------------------------------------------------------",
        "1: Root Cause (first observed failure):",
        "1: [0]:",
        "1:   time      : 2026-12-02_09:11:05",
        "1:   host      : node-b",
        "1:   rank      : 0 (local_rank: 0)",
        "1:   exitcode  : 1 (pid: 4242)",
        "1:   error_file: <N/A>",
        "1:   traceback : To enable traceback see: https://pytorch.org/docs/stable/elastic/errors.html",
        "1: ============================================================",
    ]
    (tmp_path / "slurm-77.out").write_text("\n".join(lines) + "\n")
    out = diagnose(str(tmp_path)).to_dict()
    assert out["first_failure"]["rank"] == 0
    assert {r["rank"] for r in out["ranks"]} == {0}


def test_open_mpi_timestamped_tags_name_rank_and_time(tmp_path: Path) -> None:
    lines = ["Wed Dec  2 09:11:01 2026[1,0]<stdout>:step 10 loss 2.1",
             "Wed Dec  2 09:11:01 2026[1,1]<stdout>:step 10 loss 2.1",
             "Wed Dec  2 09:11:04 2026[1,1]<stderr>:torch.OutOfMemoryError: CUDA out of memory. Tried to allocate "
             "2.00 GiB. GPU 0 has a total capacity of 79.15 GiB of which 1.2 GiB is free."]
    (tmp_path / "mpirun.log").write_text("\n".join(lines) + "\n")
    out = diagnose(str(tmp_path)).to_dict()
    ff = out["first_failure"]
    assert (out["findings"][0]["cause"], ff["rank"], ff["time"]) == ("oom", 1, datetime(2026, 12, 2, 9, 11, 4).isoformat())


def test_the_coverage_tool_counts_the_formats_with_an_entry(tmp_path: Path) -> None:
    import importlib.util
    import sys

    spec = importlib.util.spec_from_file_location("identity_coverage", Path(__file__).parents[2] / "tools"
                                                  / "identity_coverage.py")
    assert spec is not None and spec.loader is not None
    tool = importlib.util.module_from_spec(spec)
    sys.modules["identity_coverage"] = tool
    spec.loader.exec_module(tool)
    rows = tool.coverage(tmp_path, None)  # no mirror: the entries are still checked against each line
    gaps = {(r["source"].split(" (")[0], f["format"]) for r in rows for f in r["formats"] if not f["entry"]}
    # Every format the sources list has an entry (dmesg's delta-only lines yield their delta, no clock).
    assert gaps == set()
    for row in rows:
        for f in row["formats"]:
            if f["entry"]:
                assert identity.entry(f["entry"]).id == f["entry"]


def _diagnosed(tmp_path: Path, lines: list[str]) -> dict[str, Any]:
    (tmp_path / "job.log").write_text("\n".join(lines) + "\n")
    return diagnose(str(tmp_path)).to_dict()


@pytest.mark.parametrize(("lines", "rank"), [
    # Hydra's mpiexec -l: '[%r] '.
    (["[0] step 10 loss 2.1", "[1] torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 1 has a "
      "total capacity of 79.15 GiB of which 1.2 GiB is free."], 1),
    # Open MPI --xml-output.
    (['<stdout rank="0">step 10</stdout>', '<stderr rank="5">torch.OutOfMemoryError: CUDA out of memory. Tried to '
      'allocate 2.00 GiB. GPU 1 has a total capacity of 79.15 GiB of which 1.2 GiB is free.</stderr>'], 5),
    # accelerate's logger: the tag after the Formatter's header.
    (["12/02/2026 09:11:04 - ERROR - __main__ - [RANK 6] torch.OutOfMemoryError: CUDA out of memory. Tried to "
      "allocate 2.00 GiB. GPU 1 has a total capacity of 79.15 GiB of which 1.2 GiB is free."], 6),
])
def test_a_launcher_or_logger_rank_names_the_failing_rank(tmp_path: Path, lines: list[str], rank: int) -> None:
    out = _diagnosed(tmp_path, lines)
    assert (out["findings"][0]["cause"], out["first_failure"]["rank"]) == ("oom", rank)


def test_nccl_device_lines_cut_of_their_host_are_no_hydra_rank() -> None:
    origin, body = split_prefix("[3] include/shm.h:28 NCCL WARN Call to posix_fallocate failed : No space left on device")
    assert origin.rank is None and body.startswith("[3] ")
    # A viewer's line number before torchrun's prefix: not a Hydra rank.
    origin, _ = split_prefix("[80746] [rank0]:[E321 02:07:08.4 ProcessGroupNCCL.cpp:607] [Rank 0] Watchdog caught")
    assert origin.rank != 80746


def test_ctests_test_index_is_no_slurm_task_once_its_header_shows_it(tmp_path: Path) -> None:
    body = ["91: Test command: /paddle/build/paddle/platform/nccl_test",
            "91: Test timeout computed to be: 1500",
            "91: idgsim-gpu-001:47744:47744 [0] init.cu:674 WARN Cuda failure 'CUDA driver version is insufficient "
            "for CUDA runtime version'"]
    assert _diagnosed(tmp_path, body)["first_failure"]["rank"] is None
    # The same lines with no CTest header have srun --label's shape: task 91.
    assert _diagnosed(tmp_path, body[2:])["first_failure"]["rank"] == 91

"""The scan gate (gate.py, scan.pattern_set) and the scanner's flood sampling."""
from __future__ import annotations

import io
from collections import Counter

import pytest

from triage.engine import diagnose
from triage.engine.gate import cover, merge_literals
from triage.engine.partial import parse_members
from triage.engine.reader import KEEP_FIRST, KEEP_LAST
from triage.engine.scan import FLOOD_WINDOWS, MEANING, WINDOW_BYTES, Floods, LineScanner, pattern_set, prefilter
from triage.engine.signatures import CATALOG

ENGINES = ("hyperscan", "re2", "re")


@pytest.mark.parametrize("engine", ENGINES)
def test_every_fault_and_symptom_sample_passes_the_gate(engine):
    pf = prefilter(prefer=engine)
    missed = []
    for sig in CATALOG:
        if sig.role not in ("fault", "symptom"):
            continue
        for sample in sig.samples:
            data = sample.encode() + b"\n"
            if not any(pf.classes[pid] == MEANING for pid in pf.first(data, 0, len(data))):
                missed.append((sig.id, sample))
    assert not missed, missed[:10]


def test_the_gate_is_literals_and_keywords_not_the_catalog():
    ps = pattern_set()
    catalog_patterns = {p for sig in CATALOG for p in sig.patterns}
    literal = [p for p, caseless in zip(ps.patterns, ps.caseless, strict=False) if caseless]
    # Far fewer gate patterns than catalog patterns (750 of 1,499 now: a literal per entry
    # pattern at most, shared ones once), and none of the catalog regexes itself.
    assert len(ps.patterns) < len(catalog_patterns) * 0.6, len(ps.patterns)
    assert len(literal) > 100
    assert not any(p in catalog_patterns for p in literal)


def test_cover_never_takes_digits_or_punctuation_and_prefers_rare_literals():
    lits = set(cover([r"(?i)xid[ =:]+108(?:\D|$)", r"Channel \d+ -> fatal link flap on (?:mlx5_\d+)"]))
    assert "108" not in lits and "-> " not in lits
    assert "xid" in lits
    # 'channel ' is on every healthy NCCL INFO line; the rare phrase is taken instead.
    assert not any(lit.strip() == "channel" for lit in lits), lits


def test_merge_keeps_every_literal_reachable():
    lits = ["cudaerrorillegaladdress", "cudaerrorinvalidvalue", "cudaerrorlaunchfailure", "unrelated literal"]
    merged = merge_literals(lits)
    assert len(merged) < len(lits)
    for lit in lits:
        assert any(m in lit for m in merged), lit


def _flood_log(fault_at: int, lines: int) -> bytes:
    out = []
    for i in range(lines):
        if i == fault_at:
            out.append("node-01:7:9 [3] enqueue.cc:1556 NCCL WARN Cuda failure 'out of memory'")
        out.append(f"node-01:7:9 [3] misc/socket.cc:{560 + i % 7} NCCL WARN NET/Socket : Call to connect returned Connection refused, retrying")
        out.append(f"node-01:7:8 [3] {i * 0.0007:.6f} ncclProxyProgress:1120 NCCL TRACE [1] Sent step {i} posted {i + 1} size 524288")
    return ("\n".join(out) + "\n").encode()


@pytest.mark.parametrize("engine", ENGINES)
def test_a_flood_is_sampled_but_a_rare_line_inside_it_is_kept(engine):
    lines = 60_000  # ~11 MB: well past FLOOD_WINDOWS windows
    data = _flood_log(fault_at=50_000, lines=lines)
    assert len(data) > WINDOW_BYTES * (FLOOD_WINDOWS + 4)
    floods = Floods()
    out = list(LineScanner(io.BytesIO(data), engine=prefilter(prefer=engine), floods=floods))
    texts = [t for _, t in out]
    assert any(b"Cuda failure 'out of memory'" in t for t in texts)
    retries = sum(b"Connection refused, retrying" in t for t in texts)
    # Every retry line of the first windows, then a sample: far fewer than the 60,000 there are.
    assert FLOOD_WINDOWS < retries < 10_000, retries
    assert floods.sampled > 0


def test_all_engines_pick_the_same_lines_in_a_flood():
    data = _flood_log(fault_at=30_000, lines=40_000)
    picks = {e: [n for n, _ in LineScanner(io.BytesIO(data), engine=prefilter(prefer=e), floods=Floods())] for e in ENGINES}
    assert picks["hyperscan"] == picks["re2"]
    assert set(picks["hyperscan"]) <= set(picks["re"])


def test_repeated_events_are_capped_per_rank_and_kind_and_counted(tmp_path):
    log = tmp_path / "rank3.log"
    log.write_bytes(_flood_log(fault_at=70_000, lines=80_000))
    events = parse_members(str(log)).collected.events
    per_kind = Counter((ev.kind, ev.data.get("sig")) for ev in events)
    retry = ("signature", "nccl.socket.connect_retrying")
    assert per_kind[retry] == KEEP_FIRST + KEEP_LAST, per_kind
    counted = [ev.data["repeated"] for ev in events if (ev.kind, ev.data.get("sig")) == retry and "repeated" in ev.data]
    assert len(counted) == 1 and counted[0] > KEEP_FIRST + KEEP_LAST
    assert per_kind[("signature", "nccl.cuda.out_of_memory")] == 1
    # The verdict is the same as on the full log: the rank's own OOM, on the line that says it.
    d = diagnose(str(log))
    assert (d.findings[0].cause, d.findings[0].rule) == ("oom", "oom.nccl_alloc")
    assert d.first_failure is not None and d.first_failure["line"] == 140_001


def test_newline_count_matches_bytes_count_on_every_slice():
    # count_lines is StringZilla's SIMD count where the wheel is installed: same answers as
    # bytes.count for any bounds, empty and reversed ones included, on a bytearray as on bytes.
    import random

    from triage.engine import scan

    rng = random.Random(5)
    data = bytes(rng.choice(b"ab\n\r\x00") for _ in range(3000))
    for buf in (data, bytearray(data)):
        for _ in range(500):
            lo, hi = rng.randrange(-5, 3010), rng.randrange(-5, 3010)
            lo, hi = max(lo, 0), max(hi, 0)
            assert scan.count_lines(buf, lo, hi) == data.count(b"\n", lo, hi), (lo, hi)
    assert scan.count_lines(data, 0, len(data)) == data.count(b"\n") > 0

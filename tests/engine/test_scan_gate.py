"""The scan gate (gate.py, scan.pattern_set) and the scanner's flood sampling."""
from __future__ import annotations

import io
from collections import Counter
from collections.abc import Callable

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
    # 'xid' followed by one of ' =:' (a class of three is three literals): 'xid ', 'xid:', 'xid='.
    assert any(lit.startswith("xid") for lit in lits), lits
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


def _catalog_gate_patterns() -> list[tuple[str, str, int, list[str]]]:
    """(entry id, pattern, scan class, the entry's samples) for every pattern the cover gates."""
    from triage.engine.scan import _catalog_class

    out = []
    for sig in CATALOG:
        cls = _catalog_class(sig.role, sig.cause, sig.priority)
        if cls is not None:
            out.extend((sig.id, p, cls, list(sig.samples)) for p in sig.patterns)
    return out


def test_every_factor_set_is_in_every_match_of_its_pattern():
    # factor_sets is the cover's only source of literals: each set it gives must have a member
    # in every text its pattern matches. Checked on every catalog sample a pattern matches, and
    # on hand-made patterns whose alternations multiply with their neighbours.
    import re

    from triage.engine.gate import factor_sets

    cases = [(p, s) for _, p, _, samples in _catalog_gate_patterns() for s in samples]
    cases += [
        (r"(?:socket|ncclOsSocket)TryAccept: (?:Accept failed|exceeded error retry count)", "ncclOsSocketTryAccept: Accept failed"),
        (r"(?i)xid[ =:]+108(?:\D|$)", "NVRM: Xid: 108"),
        (r"(?:Initialization|Asynchronous) errors? on \d+ ranks?", "Initialization error on 3 ranks"),
        (r"(?:net|net_ib\w*|socket)\.(?:cc|h):\d+ -> [26]\b", "net_ib_x.cc:12 -> 2"),
        (r"a(?:bc)?d[Ee]{2}f", "adEef"),
        (r"(?:foo|bar)+baz", "barfoobaz"),
    ]
    missed = []
    checked = 0
    for pattern, text in cases:
        m = re.search(pattern, text)
        if m is None:
            continue
        checked += 1
        found = m.group(0).lower()
        for needed in factor_sets(pattern):
            if not any(x in found for x in needed):
                missed.append((pattern, text, sorted(needed)))
    assert checked > 1000, checked
    assert not missed, missed[:5]


def test_every_catalog_sample_its_pattern_matches_passes_the_cover_alone():
    # Through the cover literals of its own class or a stronger one (a literal two classes
    # share is kept in the stronger, MEANING), the parsers' keywords left out so that they
    # cannot hide a line the cover lost.
    from triage.engine.scan import IDENTITY

    ps = pattern_set()
    literals = {cls: [lit[0] for lit, c, caseless in zip(ps.literals, ps.classes, ps.caseless, strict=False)
                      if c <= cls and caseless] for cls in (MEANING, IDENTITY)}
    import re

    missed = []
    checked = 0
    for sig_id, pattern, cls, samples in _catalog_gate_patterns():
        for sample in samples:
            if re.search(pattern, sample) is None:
                continue
            checked += 1
            low = sample.lower()
            # A pattern that is also a parser keyword is gated as itself, not by the cover.
            if not any(lit in low for lit in literals[cls]) and pattern not in ps.patterns:
                missed.append((sig_id, sample))
    assert checked > 1000, checked
    assert not missed, missed[:10]


def test_the_cover_takes_long_required_runs_over_short_words():
    lits = set(cover([r"(?:socket|ncclOsSocket)TryAccept: (?:Accept failed|exceeded error retry count)",
                      r"(?:Initialization|Asynchronous) errors? on \d+ ranks?"]))
    # Not 'socket' nor 'initialization' (the harmless 'ProcessGroupNCCL initialization options'
    # line is in every torch log): the runs the alternatives form with their neighbours.
    assert not lits & {"socket", "initialization", "asynchronous", " rank"}, lits
    assert min(len(x) for x in lits) >= 10, lits
    for text in ("ncclOsSocketTryAccept: Accept failed", "socketTryAccept: exceeded error retry count",
                 "Initialization errors on 2 ranks", "Asynchronous error on 1 rank"):
        assert any(x in text.lower() for x in lits), text


def test_no_cover_literal_contains_another():
    ps = pattern_set()
    for cls in (MEANING,):
        lits = [lit[0] for lit, c, caseless in zip(ps.literals, ps.classes, ps.caseless, strict=False) if c == cls and caseless]
        assert not [(a, b) for a in lits for b in lits if a != b and a in b][:5]


def test_substring_test_matches_in(monkeypatch: pytest.MonkeyPatch):
    # text.holds is StringZilla's SIMD search where the wheel is installed (the head checks of
    # every file use it), `in` without it: the same answers, found and not found, at the edges.
    import sys

    from triage.engine import text

    monkeypatch.setitem(sys.modules, "stringzilla", None)  # the wheel missing
    for holds in (text.holds, text._substring_test()):
        _same_as_in(holds)


def _same_as_in(holds: Callable[[bytes, bytes], bool]) -> None:
    import random

    rng = random.Random(7)
    data = bytes(rng.choice(b"ab=\n ") for _ in range(5000))
    found = missed = 0
    for _ in range(2000):
        start = rng.randrange(0, 5000)
        needle = data[start : start + rng.randrange(0, 12)] if rng.random() < 0.5 else bytes(
            rng.choice(b"ab=\n c") for _ in range(rng.randrange(1, 8)))
        assert holds(data, needle) == (needle in data), needle
        found += needle in data
        missed += needle not in data
    assert found and missed
    assert holds(b"", b"") and not holds(b"", b"x") and holds(data, data) and not holds(data, data + b"a")

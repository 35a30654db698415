"""The block scanner and its keyword prefilter (scan.py)."""
from __future__ import annotations

import io

import pytest

from triage.engine.scan import LineScanner, prefilter

ENGINES = ("hyperscan", "re2", "re")

COLL = (
    "node-01:631871:631871 [0] NCCL INFO AllReduce: opCount 1a2 sendbuff 0x7f1e2c000000 recvbuff 0x7f1e2c000000 "
    "count 1 datatype 7 op 0 root 0 comm 0x55d1c2a0e3b0 [nranks=8] stream 0x55d1c29f1e80"
)
CHANNEL_LINES = (
    "node-01:631871:631871 [0] NCCL INFO Channel 00/02 :    0   1   2   3   4   5   6   7",
    "node-01:631871:631871 [0] NCCL INFO Channel 01/02 :    0   1   2   3   4   5   6   7",
    "node-01:631871:631871 [0] NCCL INFO Trees [0] 1/-1/-1->0->-1 [1] -1/-1/-1->0->1",
)

MIXED = [
    "banner line one",  # 1 (head)
    "NCCL version 2.21.5+cuda12.4",  # 2
    "node-01:1:1 [0] NCCL INFO Bootstrap : Using eth0:10.0.0.1<0>",
    "filler a",
    COLL,
    "filler b",
    CHANNEL_LINES[0],
    "node-01:1:1 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[1] via P2P/CUMEM",
    COLL.replace("1a2", "1a3"),
    "plain filler line with nothing in it",
    "node-01:1:2 [0] misc/socket.cc:484 NCCL WARN socketProgress: Connection closed by remote peer node2<43127>",
    "node-01:1:2 [0] NCCL INFO misc/socket.cc:484 -> 6",
    CHANNEL_LINES[1],
    "another quiet line",
    "torch.distributed.DistBackendError: NCCL error in: /p/ProcessGroupNCCL.cpp:3690, unhandled system error, NCCL version 2.21.5",
    "ncclSystemError: System call (e.g. socket, malloc) or external library call failed or device error. ",
    "Last error:",
    "socketProgressOpt: Call to recv from 10.1.1.1<1> xyz",  # brought in by 'Last error:'
    "quiet 1",
    "quiet 2",
    COLL.replace("1a2", "1a4"),
    "quiet 3",
    "[rank1]:[E816 01:45:40.184373931 ProcessGroupNCCL.cpp:1664] [PG 0 Rank 1] Timeout at NCCL work: 5, last enqueued NCCL work: 5, last completed NCCL work: 4.",
    "quiet 4",
    "quiet 5",
    "quiet 6",
    "last words of the rank",  # tail
]


def scan(lines: list[str], engine: str, **kw) -> list[tuple[int, str]]:
    data = ("\n".join(lines) + "\n").encode()
    scanner = LineScanner(io.BytesIO(data), engine=prefilter(prefer=engine), **kw)
    return [(n, raw.decode()) for n, raw in scanner]


def test_engines_are_available_as_named():
    names = {prefilter(prefer=e).engine for e in ENGINES}
    assert "python" in names
    assert prefilter(prefer="re").engine == "python"


@pytest.mark.parametrize("engine", ENGINES)
def test_line_numbers_are_right_across_tiny_blocks(engine):
    out = scan(MIXED, engine, block_bytes=64, head_lines=2, tail_lines=1)
    assert out, "nothing emitted"
    for n, text in out:
        assert text == MIXED[n - 1], f"line {n}: {text!r} != {MIXED[n - 1]!r}"
    numbers = [n for n, _ in out]
    assert numbers == sorted(set(numbers)), "line numbers not strictly increasing"


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("block_bytes", [64, 4096])
def test_empty_lines_at_the_start_of_a_file_or_a_block_are_counted(engine, block_bytes):
    # A block that starts with a newline and has nothing carried into it (a file's first
    # block, or the block after one that ended on a newline) used to lose its empty first
    # line from the count: every line number after it was one too low.
    lines = ["", "", "quiet 1", "x" * 61, "", "NCCL WARN boom", "quiet 2", ""] * 3 + ["last words"]
    out = scan(lines, engine, block_bytes=block_bytes, head_lines=0, tail_lines=1)
    warns = [n for n, text in out if text == "NCCL WARN boom"]
    assert warns == [6, 14, 22]
    assert out[-1] == (25, "last words")
    for n, text in out:
        assert text == lines[n - 1]


@pytest.mark.parametrize("engine", ENGINES)
def test_head_tail_and_keyword_lines(engine):
    out = dict(scan(MIXED, engine, block_bytes=64, head_lines=2, tail_lines=1))
    assert out[1] == "banner line one" and out[2] == MIXED[1]
    assert out[len(MIXED)] == "last words of the rank"
    wanted = [
        "NCCL WARN socketProgress",
        "misc/socket.cc:484 -> 6",
        "via P2P/CUMEM",
        "NCCL error in:",
        "Last error:",
        "socketProgressOpt: Call to recv from 10.1.1.1<1> xyz",
        "last completed NCCL work: 4.",
    ]
    texts = list(out.values())
    for needle in wanted:
        assert any(needle in t for t in texts), f"{needle!r} not emitted by {engine}"
    assert 18 in out, "the line after 'Last error:' must be emitted"
    for quiet in ("filler a", "filler b", "quiet 1", "quiet 4", "plain filler line with nothing in it"):
        assert quiet not in texts, f"{quiet!r} emitted by {engine}"


@pytest.mark.parametrize("engine", ENGINES)
def test_bulk_coll_and_channel_lines_do_not_match(engine):
    first = prefilter(prefer=engine).first
    for line in (COLL, *CHANNEL_LINES):
        data = line.encode() + b"\n"
        assert first(data, 0, len(data)) == {}, f"{engine} prefilter matches bulk line {line!r}"
    out = dict(scan(MIXED, engine, block_bytes=64, head_lines=2, tail_lines=1))
    assert not any("opCount" in t for t in out.values())
    assert not any("Channel 00/02" in t or "Channel 01/02" in t for t in out.values())


def test_last_error_at_a_block_boundary_brings_the_next_line():
    """'Last error:' as the last whole line of a block: the reason is in the next block."""
    head = "x" * 40 + "\n"
    data = (head + "Last error:\n" + "the reason\n" + "q\n" * 5).encode()
    block = len(head) + len("Last error:\n")
    for engine in ENGINES:
        out = dict(LineScanner(io.BytesIO(data), engine=prefilter(prefer=engine), head_lines=0, tail_lines=0, block_bytes=block))
        assert out.get(2) == b"Last error:"
        assert out.get(3) == b"the reason", f"{engine}: line after 'Last error:' lost at the block boundary: {out}"


def test_all_engines_emit_the_same_pairs():
    results = {e: scan(MIXED, e, block_bytes=64, head_lines=2, tail_lines=1) for e in ENGINES}
    base = results["re"]
    for engine, pairs in results.items():
        assert pairs == base, f"{engine} differs from re: {set(pairs) ^ set(base)}"


def test_all_engines_same_on_large_block_defaults():
    lines = MIXED * 200
    results = {e: scan(lines, e) for e in ENGINES}
    assert results["hyperscan"] == results["re2"]
    # The pure-Python fallback matches plain literals, a documented superset ("the parsers
    # decide"): it may emit more lines, never fewer.
    assert set(results["hyperscan"]) <= set(results["re"])
    nums = [n for n, _ in results["re"]]
    assert nums[:30] == list(range(1, 31))  # the default 30 head lines
    assert nums[-30:] == list(range(len(lines) - 29, len(lines) + 1))  # and 30 tail lines


@pytest.mark.parametrize("engine", ENGINES)
def test_last_line_without_newline_and_crlf(engine):
    data = b"a\r\nb\r\nquiet\r\nquiet\r\nquiet\r\nLast error:\r\nthe reason\r\nquiet\r\nquiet\r\nfinal Error line"
    scanner = LineScanner(io.BytesIO(data), engine=prefilter(prefer=engine), head_lines=1, tail_lines=1, block_bytes=16)
    out = dict(scanner)
    assert out[1].rstrip(b"\r") == b"a"
    assert out[6].rstrip(b"\r") == b"Last error:"
    assert out[7].rstrip(b"\r") == b"the reason"
    assert out[10] == b"final Error line"
    assert 3 not in out and 9 not in out
    assert scanner.stats.lines == 10
    assert scanner.stats.bytes == len(data)


def test_stats_count_lines_and_bytes():
    data = ("\n".join(MIXED) + "\n").encode()
    scanner = LineScanner(io.BytesIO(data), engine=prefilter(prefer="re"), block_bytes=64)
    list(scanner)
    assert scanner.stats.lines == len(MIXED)
    assert scanner.stats.bytes == len(data)


@pytest.mark.parametrize("engine", ENGINES)
def test_tail_lines_kept_when_the_last_line_is_a_keyword_line(engine):
    """The tail is 'always emitted': a keyword hit on the last line must not swallow the tail before it."""
    lines = [f"q{i}" for i in range(1, 100)] + ["RuntimeError: the end"]
    out = [n for n, _ in scan(lines, engine, head_lines=0, tail_lines=5)]
    assert out == [96, 97, 98, 99, 100]


@pytest.mark.parametrize("engine", ENGINES)
def test_line_after_an_over_long_line_is_not_glued_to_it(engine):
    data = b"first line\n" + b"A" * (200 * 1024) + b"\n" + b"node-a:1:1 [0] NCCL INFO Using network Socket\n"
    out = dict(LineScanner(io.BytesIO(data), engine=prefilter(prefer=engine), head_lines=0, tail_lines=0, block_bytes=64 * 1024))
    assert out.get(3) == b"node-a:1:1 [0] NCCL INFO Using network Socket", (out.get(3) or b"")[:80]


def test_gate_leaving_out_patterns_seen_in_a_region_picks_the_same_lines(monkeypatch):
    """The Hyperscan gate leaves out, for the rest of a region, the patterns the scanner reads no
    more of there (recurring identity lines, the ONCE class, a flooding WARN once sampled): the
    picks must be those of the whole gate, and the smaller gates must really be used."""
    import dataclasses

    from triage.engine import scan as scan_module
    from triage.engine.scan import Floods

    monkeypatch.setattr(scan_module, "GATE_COMPILE_EVERY", 0)  # compile variants at once
    sizes: list[int] = []
    real_db = scan_module.hyperscan_db

    def recording_db(hs, patterns, flags, ids=None, compile_it=True):
        if ids is not None:
            sizes.append(len(patterns))
        return real_db(hs, patterns, flags, ids, compile_it)

    monkeypatch.setattr(scan_module, "hyperscan_db", recording_db)
    engine = prefilter(prefer="hyperscan")
    assert engine.first_without is not None and engine.recurring
    drops: list[frozenset[int]] = []

    def recording(buf, lo, hi, drop):
        drops.append(drop)
        return engine.first_without(buf, lo, hi, drop)

    body = []
    for step in range(6000):  # ~1.3 MB: ten windows and more in one region
        body.append(COLL.replace("1a2", f"{step:x}"))
        body.append(f"node-01:1:1 [0] NCCL INFO Channel {step % 16:02d}/0 : 0[0] -> 1[1] via P2P/CUMEM")
        if step % 5 == 0:
            body.append(f"node-01:1:2 [0] misc/socket.cc:{500 + step % 7} NCCL WARN Call to connect returned Connection "
                        "refused, retrying")
        if step == 5000:  # late and rare: a new identity pattern, a fault
            body.append("node-01:1:1 [0] NCCL INFO NCCL_SOCKET_IFNAME set by environment to ib0")
            body.append("node-01:1:1 [0] NCCL WARN Cuda failure 'out of memory'")
    data = ("\n".join(body) + "\n").encode()
    picks = {}
    for name, gate in (("whole", dataclasses.replace(engine, first_without=None)),
                       ("less", dataclasses.replace(engine, first_without=recording))):
        floods = Floods()
        picks[name] = [list(LineScanner(io.BytesIO(data), engine=gate, floods=floods)) for _ in range(2)]
    assert picks["less"] == picks["whole"]
    assert any(drops), "the gate never left a pattern out"
    assert sizes and min(sizes) < len(engine.classes), "no smaller gate was used"
    texts = {raw for run in picks["whole"] for _, raw in run}
    assert any(b"set by environment" in t for t in texts) and any(b"Cuda failure" in t for t in texts)


@pytest.mark.parametrize("engine", ENGINES)
def test_context_before_a_failure_line_stops_at_an_nccl_line(engine):
    # The lines before a failure line come with it (a traceback's frames, a failure record's
    # head), but never from behind an NCCL debug line: such a line is a record of its own, and
    # a rank's last INFO lines before its watchdog's report were most of what a rank file parsed.
    lines = [
        "head line",
        "quiet a",
        "Traceback (most recent call last):",
        '  File "train.py", line 212, in <module>',  # 4
        "    loss.backward()",  # 5
        "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB.",  # 6
        "quiet b",  # 7
        "quiet c",  # 8
        COLL.replace("1a2", "1a5"),  # 9
        COLL.replace("1a2", "1a6"),  # 10
        "[E1201 14:42:12.123456 ProcessGroupNCCL.cpp:616] [Rank 3] Watchdog caught collective operation timeout: "
        "WorkNCCL(SeqNum=5, OpType=ALLREDUCE, NumelIn=4, NumelOut=4, Timeout(ms)=600000) ran for 600031 "
        "milliseconds before timing out.",  # 11
        "quiet d",
        "last words",
    ]
    out = dict(scan(lines, engine, head_lines=1, tail_lines=1))
    assert {4, 5, 6, 11} <= set(out), sorted(out)
    assert not {7, 8, 9, 10} & set(out), sorted(out)

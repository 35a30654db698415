"""Streaming line scanner with a multi-pattern prefilter.

A 1 GB NCCL_DEBUG=INFO log is almost all lines that say nothing about a failure. The scanner
reads fixed-size blocks, finds the lines that contain any keyword with one multi-pattern pass
over the block (Hyperscan where the wheel exists, RE2 next, Python `re` last), and hands only
those lines (plus the head and tail of each source, which carry banners and the last words of
a rank) to the parsers. Memory stays bounded by the block size whatever the input.
"""
from __future__ import annotations

from collections import deque
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import BinaryIO, Callable

BLOCK_BYTES = 4 * 1024 * 1024
# Longest line kept whole; the rest of a longer line is skipped (and counted).
MAX_KEPT_LINE = 64 * 1024
HEAD_LINES = 30
TAIL_LINES = 30

# The keyword set: any line containing one of these is parsed. Patterns are plain enough to
# compile in Hyperscan, RE2 and Python `re` alike. Keep the bulk lines of INFO logs (COLL
# "opCount" lines, tuning tables) out: they must not match.
KEYWORDS: tuple[str, ...] = (
    r"WARN",
    r"\.(?:cc|c|h|cu|cpp|hpp):[0-9]+ (?:\([A-Za-z_0-9]+\) )?-> [0-9]",
    r"Init (?:COMPLETE|START)",
    r" nranks [0-9]",
    r"NCCL version",
    r"cudaDriverVersion",
    r"Using network",
    r"NET/IB",
    r"NET/Socket",
    r"via (?:P2P|SHM|NET|direct)",
    r"direct shared memory",
    r"set by environment",
    r"Bootstrap ?:",
    r"Connected all rings",
    r"[Ww]atchdog",
    r"WorkNCCL",
    r"NCCL error",
    r"NCCL communicator",
    r"[Ll]ast (?:error|completed|enqueued)",
    r"ProcessGroup",
    r"[Gg]loo",
    r"c10d",
    r"TCPStore",
    r"Dist[A-Za-z]*Error",
    r"[Rr]endezvous",
    r"clients joined",
    r"[Tt]ime(?:d)? ?out",
    r"TIMEOUT",
    r"[Ee]rror",
    r"ERROR",
    r"[Ee]xception",
    r"Traceback",
    r"File \"",
    r"[Ff]atal",
    r"FATAL",
    r"terminate called",
    r"what\(\)",
    r"[Ss]ignal",
    r"SIG[A-Z]{3,5}",
    r"exitcode",
    r"[Ee]xit(?:ed)? (?:code|status|with)",
    r"return code",
    r"[Kk]ill(?:ed|ing)",
    r"died",
    r"FAIL",
    r"[Ff]ail(?:ed|ure)",
    r"[Aa]bort",
    r"Segmentation fault",
    r"core dumped",
    r"Bus error",
    r"out of memory",
    r"Out of memory",
    r"oom",
    r"OOM",
    r"ECC",
    r"Xid",
    r"NVRM",
    r"AMD-Vi",
    r"DMAR",
    r"IOMMU",
    r"iommu",
    r"fallen off",
    r"Root Cause",
    r"Failures:",
    r" {2,}(?:time|host|rank|exitcode|error_file|traceback) +: ",
    r"[Ll]ocal_rank",
    r"LOCAL_RANK",
    r"GLOBAL_RANK",
    r"world_size",
    r"WORLD_SIZE",
    r"[Mm]aster_addr",
    r"MASTER_ADDR",
    r"CUDA_VISIBLE_DEVICES",
    r"Load weight",
    r"sigquit",
    r"init_device",
    r"nccl==",
    r"libnccl",
    r"Duplicate GPU",
    r"[Mm]ultiple [Rr]anks",
    r"shared memory",
    r"/dev/shm",
    r"shm_open",
    r"posix_fallocate",
    r"No space left",
    r"Permission denied",
    r"[Cc]onnection",
    r"[Cc]onnect to",
    r"Broken pipe",
    r"refused",
    r"No route",
    r"[Uu]nreachable",
    r"Got completion",
    r"ibv_",
    r"wrong type",
    r"truncated",
    r"[Mm]ismatch",
    r"[Dd]esync",
    r"lagging",
    r"never joined",
    r"[Hh]eartbeat",
    r"stuck",
    r"[Dd]ump",
    r"[Ff]light ?[Rr]ecorder",
    r"torch(?:==| version|\.__version__)",
    r"PyTorch version",
    r"[Dd]river [Vv]ersion",
    r"CUDA (?:error|[Vv]ersion|driver|runtime)",
    r"cudaError",
    r"Cuda failure",
)


# The pure-Python fallback (no Hyperscan or RE2 wheel): plain lower-case substrings that
# together cover every KEYWORDS pattern (a superset is fine: the parsers decide). Python's
# `re` with this many alternatives and character classes runs at a few MB/s; `bytes.find`
# per literal runs at memchr speed.
LITERALS: tuple[str, ...] = (
    "warn", " -> ", "init", " nranks ", "version", "using network", "net/", "via ", "shared memory",
    "set by environment", "bootstrap", "connect", "watchdog", "worknccl", "nccl error", "nccl communicator",
    "last ", "processgroup", "gloo", "c10d", "tcpstore", "error", "rendezvous", "clients joined", "time",
    "exception", "traceback", 'file "', "fatal", "terminate called", "what()", "sig", "exit", "return code",
    "kill", "died", "fail", "abort", "segmentation fault", "core dumped", "out of memory", "oom", "ecc",
    "xid", "nvrm", "amd-vi", "dmar", "iommu", "fallen off", "root cause", "host ", "rank ", "_rank",
    "world_size", "master_addr", "cuda_visible_devices", "load weight", "nccl==", "libnccl",
    "duplicate gpu", "multiple ranks", "shm", "posix_fallocate", "no space left", "permission denied",
    "broken pipe", "refused", "no route", "unreachable", "got completion", "ibv_", "wrong type", "truncated",
    "mismatch", "desync", "lagging", "never joined", "heartbeat", "stuck", "dump", "flight", "torch",
    "cuda ", "cudaerror", "cuda failure",
)


def keyword_patterns() -> tuple[str, ...]:
    """The parsers' own keywords and every catalog pattern: one list, built, never hand-kept."""
    from .signatures import CATALOG

    seen = dict.fromkeys(KEYWORDS)
    for sig in CATALOG:
        seen.update(dict.fromkeys(sig.patterns))
    return tuple(seen)


def keyword_literals() -> tuple[str, ...]:
    from .signatures import CATALOG
    from .signatures.literals import required_literals

    lits = dict.fromkeys(LITERALS)
    for sig in CATALOG:
        for lit in sig.literals or tuple(x for p in sig.patterns for x in required_literals(p)):
            lits[lit] = None
    return tuple(lits)


def _literal_finder(literals: tuple[str, ...]) -> Callable[[bytes], list[int]]:
    needles = tuple(sorted({lit.encode() for lit in literals}))

    def find(block: bytes) -> list[int]:
        low = block.lower()
        hits: list[int] = []
        for needle in needles:
            i = low.find(needle)
            while i >= 0:
                hits.append(i)
                nl = low.find(b"\n", i)
                if nl < 0:
                    break
                i = low.find(needle, nl + 1)
        return hits

    return find


def _re2_finder(pattern: bytes) -> Callable[[bytes], list[int]] | None:
    try:
        import re2  # type: ignore[import-not-found]
    except ImportError:
        return None
    try:
        options = re2.Options()
        options.max_mem = 64 << 20
        compiled = re2.compile(pattern, options)
    except Exception:  # noqa: BLE001 - any RE2 build problem falls back to `re`
        return None

    def find(block: bytes) -> list[int]:
        return [m.start() for m in compiled.finditer(block)]

    return find


def _hyperscan_finder(patterns: list[bytes]) -> Callable[[bytes], list[int]] | None:
    try:
        import hyperscan  # type: ignore[import-not-found]
    except ImportError:
        return None
    try:
        db = hyperscan.Database()
        db.compile(expressions=patterns, ids=list(range(len(patterns))), elements=len(patterns), flags=[0] * len(patterns))
    except Exception:  # noqa: BLE001 - a pattern Hyperscan cannot take: use the next engine
        return None

    def find(block: bytes) -> list[int]:
        ends: list[int] = []
        append = ends.append

        def on_match(_id: int, _from: int, to: int, _flags: int, _ctx: object) -> None:
            append(to - 1)

        db.scan(block, match_event_handler=on_match)
        return ends

    return find


@dataclass
class Prefilter:
    engine: str
    find: Callable[[bytes], list[int]]


_PREFILTER: Prefilter | None = None


def prefilter(prefer: str | None = None) -> Prefilter:
    """The fastest available multi-pattern engine (cached). `prefer` forces one, for tests:
    "hyperscan", "re2", or "python" (also "re") for the pure-Python fallback."""
    global _PREFILTER
    if _PREFILTER is not None and prefer is None:
        return _PREFILTER
    patterns = [k.encode() for k in keyword_patterns()]
    alternation = b"(?:" + b"|".join(patterns) + b")"
    chosen: Prefilter | None = None
    if prefer in (None, "hyperscan"):
        finder = _hyperscan_finder(patterns)
        if finder:
            chosen = Prefilter("hyperscan", finder)
    if chosen is None and prefer in (None, "re2", "hyperscan"):
        finder = _re2_finder(alternation)
        if finder:
            chosen = Prefilter("re2", finder)
    if chosen is None:
        chosen = Prefilter("python", _literal_finder(keyword_literals()))
    if prefer is None:
        _PREFILTER = chosen
    return chosen


def _introduces_next(raw: bytes) -> bool:
    return raw.rstrip(b"\r").endswith(b":")


@dataclass
class ScanStats:
    lines: int = 0
    bytes: int = 0
    long_lines_cut: int = 0
    last_line: int = 0


@dataclass
class LineScanner:
    """Yields (line_number, raw_line) for the lines worth parsing, in order."""

    stream: BinaryIO
    engine: Prefilter = field(default_factory=prefilter)
    head_lines: int = HEAD_LINES
    tail_lines: int = TAIL_LINES
    block_bytes: int = BLOCK_BYTES
    stats: ScanStats = field(default_factory=ScanStats)

    def __iter__(self) -> Iterator[tuple[int, bytes]]:
        tail: deque[tuple[int, bytes]] = deque(maxlen=self.tail_lines)
        recent: deque[int] = deque(maxlen=self.tail_lines + 8)  # line numbers already yielded
        held: list[tuple[int, bytes]] = []  # the last block's picks, yielded with the next block
        line_base = 0  # lines completed before the current block
        carry = b""
        skipping_long = False  # inside a line longer than MAX_KEPT_LINE: drop until newline
        bring_next = False  # the previous block ended with a line ending in ':'
        find = self.engine.find
        read = self.stream.read
        while True:
            chunk = read(self.block_bytes)
            if not chunk:
                break
            self.stats.bytes += len(chunk)
            if skipping_long:
                nl = chunk.find(b"\n")
                if nl < 0:
                    continue
                # The over-long line ends here: keep its cut head as one line of its own.
                chunk = b"\n" + chunk[nl + 1 :]
                skipping_long = False
            block = carry + chunk if carry else chunk
            cut = block.rfind(b"\n")
            if cut < 0:
                carry = block
                if len(carry) > MAX_KEPT_LINE:
                    carry = carry[:MAX_KEPT_LINE]
                    skipping_long = True
                    self.stats.long_lines_cut += 1
                continue
            carry = block[cut + 1 :]
            body = block[: cut + 1]
            if len(carry) > MAX_KEPT_LINE:
                carry = carry[:MAX_KEPT_LINE]
                skipping_long = True
                self.stats.long_lines_cut += 1
            n_lines = body.count(b"\n")
            picks = list(self._select(body, line_base, n_lines, find, bring_next))
            bring_next = bool(picks) and picks[-1][0] == line_base + n_lines and _introduces_next(picks[-1][1])
            for item in held:
                recent.append(item[0])
                yield item
            held = picks
            # Keep the tail of the source for the end; the last lines say how a rank ended.
            self._remember_tail(body, line_base, n_lines, tail)
            line_base += n_lines
        if carry:
            line_base += 1
            tail.append((line_base, carry))
            if bring_next or find(carry):
                held.append((line_base, carry))
        self.stats.lines = line_base
        self.stats.last_line = line_base
        done = set(recent)
        final = {n: raw for n, raw in held}
        for n, raw in tail:
            if n not in done:
                final.setdefault(n, raw)
        for n in sorted(final):
            yield n, final[n]

    def _select(
        self, body: bytes, line_base: int, n_lines: int, find: Callable[[bytes], list[int]], bring_first: bool = False
    ) -> Iterator[tuple[int, bytes]]:
        starts: set[int] = {0} if bring_first else set()
        for pos in find(body):
            starts.add(body.rfind(b"\n", 0, pos) + 1)
        if line_base < self.head_lines:
            pos = 0
            for _ in range(min(self.head_lines - line_base, n_lines)):
                starts.add(pos)
                pos = body.find(b"\n", pos) + 1
                if pos == 0:
                    break
        if not starts:
            return
        ordered = sorted(starts)
        extra: list[int] = []
        for start in ordered:
            end = body.find(b"\n", start)
            # A line ending in ':' ("Last error:", "Root Cause ...:") introduces the next line.
            if _introduces_next(body[start:end]) and end + 1 < len(body):
                extra.append(end + 1)
        if extra:
            ordered = sorted(starts.union(extra))
        counted_to = 0
        lineno = line_base
        for start in ordered:
            lineno += body.count(b"\n", counted_to, start)
            counted_to = start
            end = body.find(b"\n", start)
            yield lineno + 1, body[start:end]

    def _remember_tail(self, body: bytes, line_base: int, n_lines: int, tail: deque[tuple[int, bytes]]) -> None:
        want = self.tail_lines
        if want <= 0:
            return
        end = len(body) - 1  # index of the final newline
        lines: list[bytes] = []
        pos = end
        while len(lines) < want and pos > 0:
            start = body.rfind(b"\n", 0, pos) + 1
            lines.append(body[start:pos])
            pos = start - 1
        last = line_base + n_lines
        for offset, raw in enumerate(reversed(lines)):
            tail.append((last - len(lines) + 1 + offset, raw))

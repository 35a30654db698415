"""No module outside the catalog (triage/engine/signatures/) holds a message literal that decides a
cause. The format parsers recognise formats and pull identity out of lines; the rules combine the
catalog's meanings; neither keeps its own table of what a message means.

A *message literal* is text of a failure message as some catalog sample has it, used where the code
decides something: a string of two words or more compared with `in` / `==` / `startswith` /
`endswith` or kept in a module-level table, or a regular expression that matches a sample and
either captures nothing (it only says "this wording") or captures constant text (a group that is an
alternation of wordings is a classifier, as `classify_warn`'s shm/socket tables were). A regular
expression whose groups capture variable parts (digits, names, addresses) extracts identity.

The literals that are structural (a format's own markers, launcher report fields) are listed in
ALLOWED with the reason each is structure; a new message literal fails the test until it is moved
into the catalog or listed here with a reason.
"""
from __future__ import annotations

import ast
import re
from pathlib import Path

try:  # Python 3.11+
    from re import _parser as sre_parse  # type: ignore[attr-defined]
except ImportError:  # pragma: no cover
    import sre_parse  # type: ignore[no-redef]

from triage.engine.signatures import CATALOG

ENGINE = Path(__file__).resolve().parents[2] / "triage" / "engine"
SCANNED = [p for p in sorted(ENGINE.rglob("*.py")) if "signatures" not in p.parts and "forensics" not in p.parts]
SAMPLES = tuple(s for sig in CATALOG for s in sig.samples)
SAMPLES_LOWER = tuple(s.lower() for s in SAMPLES)
_WORDS = re.compile(r"[A-Za-z]\S* +\S*[A-Za-z]")
_RE_FUNCS = {"compile", "search", "match", "fullmatch", "findall", "finditer", "sub", "split"}

# literal -> why it is structure, not meaning.
ALLOWED: dict[str, str] = {
    # NCCL's debug format (parsers/nccl.py)
    "NCCL (?:INFO|WARN|TRACE|CALL) ": "NCCL's log level marker: which lines are NCCL debug records",
    "NCCL version": "the version banner: identity (which NCCL)",
    "NCCL error": "c10d's NCCL error report format (file:line, result, version): the parser reads its fields",
    "NCCL Error": "the same report, capitalised by older torch",
    "NCCL WARN": "NCCL's own level: a WARN line is NCCL's warning, not a failure by itself",
    "Using network": "NCCL's transport selection line: which network plugin (identity)",
    "No device found": "NCCL's IB plugin init line: no IB device (a fact about the host, read as context)",
    "set by environment": "NCCL's 'VAR set by environment to X' line: settings (identity)",
    "shared memory": "NCCL's transport line 'via direct shared memory': which transport (structure)",
    "Abort COMPLETE": "NCCL's communicator phase from init.cc (start/complete/abort/destroy): lifecycle structure",
    # c10d (parsers/torch_c10d.py)
    "Last error:": "c10d's marker that NCCL's last WARN text follows on the next line (structure)",
    "client socket has failed to connect": "c10d socket.cpp's connect attempt: the parser reads the address and errno",
    "- retrying (try=": "TCPStore's retry record: an attempt, with its target (structure)",
    ", will retry": "socket.cpp's retry record: an attempt (structure)",
    "timed out": "guard for ProcessGroupNCCL's work timeout record, whose fields (op, seq, timeout) are read",
    "Watchdog caught": "ProcessGroupNCCL's work timeout record: op, sequence number, timeout (identity)",
    "timed out in blocking wait": "the same record when NCCL_BLOCKING_WAIT is set",
    "Caught collective operation timeout": "the same record, torch 1.x wording",
    # launchers and crash reports (parsers/process_exit.py, python_tb.py)
    "Root Cause (first observed failure)": "torchrun's failure table header: the fields below it name rank, host, exit",
    "exits with": "DeepSpeed launcher's exit record: return code and local rank (identity)",
    "Traceback \\(most recent call last\\):": "CPython's traceback header: the block structure",
    "Received sigquit from a child process": "sglang's launcher: a child process died (structure of its crash report)",
    "Fatal Python error: (?P<what>Segmentation fault|Bus error|Aborted)|Segmentation fault(?: \\(core dumped\\))?"
    "|Bus error \\(core dumped\\)": "CPython faulthandler's and the shell's crash reports: the signal they name",
    "Fatal Python error: (?P<what>Floating point exception|Illegal instruction)":
        "CPython faulthandler's crash report: the signal it names (SIGFPE, SIGILL)",
    "(?:\\[Rank \\d+\\] )?(?:(?P<fn>nccl\\w+) )?comm (?P<comm>0x[0-9a-f]+) rank (?P<rank>\\d+) nranks (?P<nranks>\\d+)"
    " cudaDev (?P<dev>\\d+)(?: nvmlDev (?P<nvml>\\d+))? busId (?P<bus>[0-9a-f]+)(?P<rest>.*?)- "
    "(?P<phase>Init START|Init COMPLETE|Abort COMPLETE|Destroy COMPLETE)":
        "NCCL's communicator init line: rank, size, device, bus id and the lifecycle phase (identity)",
    # launchers.py: the literal each of its extraction regexes needs, checked before them
    "nccl library": "guard: vLLM's 'Failed to load NCCL library from <path>' (the library path is read)",
    "not defined": "guard: \"name 'ncclX' is not defined\" (the symbol is read)",
    "driver version": "guard: a 'Driver Version: N' banner (the version is read)",
    "cuda version": "guard: a 'CUDA Version: N' banner (the version is read)",
}


def _groups(items: object, out: list[list[tuple[object, object]]]) -> None:
    """Every capture group's parsed contents, nested ones too."""
    for op, av in items:  # type: ignore[attr-defined]
        if str(op) == "SUBPATTERN" and av[0] is not None:
            out.append(list(av[3]))
        for sub in av if isinstance(av, (list, tuple)) else ():
            for s in (sub,) if isinstance(sub, sre_parse.SubPattern) else sub if isinstance(sub, (list, tuple)) else ():
                if isinstance(s, sre_parse.SubPattern):
                    _groups(s, out)


def _constant(items: object) -> bool:
    """The parsed pattern matches constant text only (literals, alternations of literals)."""
    for op, av in items:  # type: ignore[attr-defined]
        name = str(op)
        if name == "LITERAL" or (name == "IN" and all(str(o) == "LITERAL" for o, _ in av)):
            continue
        if name == "BRANCH" and all(_constant(b) for b in av[1]):
            continue
        if name == "SUBPATTERN" and _constant(av[3]):
            continue
        return False
    return True


def _wordings(group: list[tuple[object, object]]) -> bool:
    """The group captures message wordings: constant text of two words or more, or an
    alternation of which two branches or more are such wordings (a table in a group)."""
    if _constant(group):
        return bool(_WORDS.search(_text(group)))
    branches = [av[1] for op, av in group if str(op) == "BRANCH"]  # type: ignore[index]
    return any(sum(1 for b in alts if _constant(b) and _WORDS.search(_text(b))) >= 2 for alts in branches)


def _constant_group(pattern: str) -> bool | None:
    """None: no capture group; True: some group captures message wordings (see _wordings);
    False: every group captures a variable part or a one-word field value (a level, a unit, a
    field name)."""
    try:
        parsed = sre_parse.parse(pattern)
    except re.error:
        return None
    groups: list[list[tuple[object, object]]] = []
    _groups(parsed, groups)
    if not groups:
        return None
    return any(_wordings(g) for g in groups)


def _text(items: object) -> str:
    """The literal text of a parsed (constant) group, its alternatives joined by '|'."""
    out = []
    for op, av in items:  # type: ignore[attr-defined]
        name = str(op)
        if name == "LITERAL":
            out.append(chr(av))
        elif name == "IN":
            out.append(chr(av[0][1]))
        elif name == "BRANCH":
            out.append("|".join(_text(b) for b in av[1]))
        elif name == "SUBPATTERN":
            out.append(_text(av[3]))
    return "".join(out)


def _literal_words(pattern: str) -> bool:
    """The pattern's own text has a run of two words (escapes and character classes aside)."""
    bare = re.sub(r"\\.|\[[^\]]*\]|\(\?P?<\w+>|\(\?:", "", pattern)
    return bool(_WORDS.search(bare))


def _in_sample(text: str) -> bool:
    low = text.lower()
    return any(low in s for s in SAMPLES_LOWER)


def _regex_decides(pattern: str) -> bool:
    try:
        rx = re.compile(pattern)
    except re.error:
        return False
    if not any(rx.search(s) for s in SAMPLES):
        return False
    groups = _constant_group(pattern)
    return bool(groups) or (groups is None and _literal_words(pattern))


def message_literals(source: str) -> set[str]:
    """The message literals of one module's source (see the module docstring)."""
    tree = ast.parse(source)
    plain: set[str] = set()
    regexes: set[str] = set()

    def strings(node: ast.AST) -> list[str]:
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            return [node.value]
        if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
            return [e.value for e in node.elts if isinstance(e, ast.Constant) and isinstance(e.value, str)]
        return []

    for node in ast.walk(tree):
        if isinstance(node, ast.Compare):
            for side in (node.left, *node.comparators):
                plain.update(strings(side))
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            if node.func.attr in ("startswith", "endswith"):
                for arg in node.args:
                    plain.update(strings(arg))
            elif (node.func.attr in _RE_FUNCS and isinstance(node.func.value, ast.Name) and node.func.value.id == "re"
                  and node.args):
                regexes.update(strings(node.args[0]))
    for stmt in tree.body:  # module-level tables of texts
        value = stmt.value if isinstance(stmt, (ast.Assign, ast.AnnAssign)) else None
        target = stmt.targets[0] if isinstance(stmt, ast.Assign) else getattr(stmt, "target", None)
        if isinstance(target, ast.Name) and target.id.startswith("GATE_"):
            # A parser's declaration of what the scan gate must let through (test_gate_build
            # checks they are the gate's only structural keywords): which lines to read, not
            # what they mean.
            continue
        if isinstance(value, (ast.Tuple, ast.List, ast.Set)):
            plain.update(strings(value))
        elif isinstance(value, ast.Dict):
            for key in value.keys:
                if key is not None:
                    plain.update(strings(key))
    found = {t for t in plain if _WORDS.search(t) and _in_sample(t)}
    return found | {p for p in regexes if _regex_decides(p)}


def test_no_module_outside_the_catalog_decides_what_a_message_means() -> None:
    found: dict[str, list[str]] = {}
    for path in SCANNED:
        for literal in message_literals(path.read_text(encoding="utf-8")):
            found.setdefault(literal, []).append(str(path.relative_to(ENGINE)))
    unexplained = {k: v for k, v in found.items() if k not in ALLOWED}
    assert not unexplained, (
        "message literals outside triage/engine/signatures/ (move the meaning into a catalog entry, or list the "
        f"literal in ALLOWED with why it is structure): {unexplained}")
    stale = set(ALLOWED) - set(found)
    assert not stale, f"ALLOWED lists literals no module holds any more: {sorted(stale)}"


PLANTED = '''
import re
_TRUNC = re.compile(r"[Mm]essage truncated")
_SHM = re.compile(r"(?P<what>Error while (?:creating|attaching to) shared memory segment|Call to posix_fallocate failed)")
DOWNSTREAM_TEXT = ("remote process exited", "Connection reset")
_STORE = re.compile(r"(?P<what>DistStoreError|recvValueWithTimeout failed|Socket Timeout|server socket .* has timed out)")
_PEER = re.compile(r"Got completion from peer (?P<peer>\\\\S+) with status=(?P<status>\\\\d+)")

def classify(msg):
    if "No space left on device" in msg:
        return "shm_exhausted"
    if msg.startswith("Duplicate GPU detected"):
        return "device_ordinal"
    return None
'''


def test_the_check_finds_a_planted_table_and_lets_identity_extraction_pass() -> None:
    found = message_literals(PLANTED)
    assert "[Mm]essage truncated" in found  # a wording test with no capture
    assert any(p.startswith("(?P<what>Error while") for p in found)  # a group of constant wordings
    assert {"remote process exited", "Connection reset"} <= found  # a module-level table
    assert any(p.startswith("(?P<what>DistStoreError") for p in found)  # wordings in a group, one variable
    assert {"No space left on device", "Duplicate GPU detected"} <= found  # `in` and startswith
    # The IB completion regex captures the peer and the status: identity, not meaning.
    assert not any(p.startswith("Got completion") for p in found)

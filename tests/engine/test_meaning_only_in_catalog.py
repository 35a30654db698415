"""No module outside the catalog (triage/engine/signatures/) decides what a message means, nor
decides by a cause's name: the format parsers recognise formats and pull identity out of lines,
the rules combine the catalog's meanings, the fleet reads the catalog's traits and severities.

The check (meaning_check.py) reads the AST of every module of triage/engine and triage/fleet,
forensics/ and fleet/ included, and reports every string constant, wherever it stands, that is a
catalog sample's wording or a regex matching one, an entry id read into, or a cause compared
against. meaning_allowed.py lists the structural ones with their reasons; anything else fails,
and so does a listed literal no module holds any more.
"""
from __future__ import annotations

import pytest
from meaning_allowed import ALLOWED
from meaning_check import TRIAGE, Report, reports, scan, scanned


def unexplained(found: set[Report]) -> list[Report]:
    return sorted(r for r in found if r.literal not in ALLOWED.get(r.module, {}))


def test_no_module_outside_the_catalog_holds_meaning() -> None:
    found = scan()
    left = unexplained(found)
    assert not left, (
        "meaning outside triage/engine/signatures/ (move it into a catalog entry, a cause trait or a fix of "
        "signatures/data/, or list the literal in meaning_allowed.py with why it is structure):\n"
        + "\n".join(f"  {r.module}: {r.form}: {r.literal!r}" for r in left))
    held = {(r.module, r.literal) for r in found}
    stale = sorted((module, literal) for module, table in ALLOWED.items() for literal in table
                   if (module, literal) not in held)
    assert not stale, f"meaning_allowed.py lists literals no module holds any more: {stale}"


def test_every_module_outside_the_catalog_is_read() -> None:
    names = {p.relative_to(TRIAGE).as_posix() for p in scanned()}
    assert {"engine/verdict.py", "engine/rules/signature.py", "engine/forensics/ras.py",
            "engine/forensics/flight_recorder.py", "engine/parsers/nccl.py", "fleet/fingerprint.py"} <= names
    assert not any(n.startswith("engine/signatures/") or "/migrations/" in n for n in names)


# Each form a module could hide meaning in, as a rule would write it; (form, literal) is what the
# check must report. Wordings are the catalog samples' (the NCCL, c10d and CUDA messages).
PLANTED = [
    ("direct comparison", 'def f(msg):\n    return "No space left on device" in msg\n',
     "text", "No space left on device"),
    ("startswith", 'def f(msg):\n    return msg.startswith("Duplicate GPU detected")\n',
     "text", "Duplicate GPU detected"),
    ("module-level tuple", 'DOWNSTREAM = ("remote process exited", "unrelated words")\n',
     "text", "remote process exited"),
    ("re.compile", 'import re\n_T = re.compile(r"[Mm]essage truncated")\n', "regex", "[Mm]essage truncated"),
    ("function-local table", 'def f(m):\n    table = {"Duplicate GPU detected": 1}\n    return table.get(m)\n',
     "text", "Duplicate GPU detected"),
    (".find()", 'def f(line):\n    return line.find("Got completion from peer") >= 0\n',
     "text", "Got completion from peer"),
    ("frozenset", 'WORDS = frozenset({"unhandled system error"})\n', "text", "unhandled system error"),
    ("from re import compile", 'from re import compile as c\n_P = c(r"Got completion from peer \\S+ with")\n',
     "regex", "Got completion from peer \\S+ with"),
    ("regex with one capture group", 'import re\n_P = re.compile(r"Got completion from peer (\\S+)")\n',
     "regex", "Got completion from peer (\\S+)"),
    ("f-string's constant part", 'def f(peer):\n    return f"Got completion from peer {peer} with"\n',
     "text", "Got completion from peer "),
    ("cause compared", 'def f(finding):\n    return finding.cause == "oom"\n', "cause", "oom"),
    ("cause in a table", '_SHARED = ("network", "rendezvous_hang")\n\ndef f(c):\n    return c in _SHARED\n',
     "cause", "rendezvous_hang"),
    ("cause through a name", 'MINE = "shm_exhausted"\n\ndef f(e):\n    return e.data.get("cause") == MINE\n',
     "cause", "shm_exhausted"),
    ("cause in match/case", 'def f(c):\n    match c:\n        case "network":\n            return 1\n    return 0\n',
     "cause", "network"),
    ("cause as a dispatch key", 'HANDLERS = {"p2p_unsupported": print}\n', "cause", "p2p_unsupported"),
    ("entry id searched", 'def f(e):\n    return "system" in str(e.data.get("sig"))\n', "entry id", "system"),
    ("entry id compared", 'def f(sig):\n    return sig.id == "torch.elastic.group_finished"\n',
     "entry id", "torch.elastic.group_finished"),
    ("entry area named", 'def f(facts):\n    return read_as(facts, [], "x", area="nccl.ib")\n', "entry id", "nccl.ib"),
    ("rule id prefix", 'def f(finding):\n    return finding.rule.startswith("collective_timeout_straggler.lag")\n',
     "entry id", "collective_timeout_straggler.lag"),
]


@pytest.mark.parametrize(("form", "source", "kind", "literal"), PLANTED, ids=[p[0] for p in PLANTED])
@pytest.mark.parametrize("module", ["engine/rules/planted.py", "engine/forensics/planted.py", "fleet/planted.py"])
def test_a_planted_literal_fails_the_check_in_every_form(form: str, source: str, kind: str, literal: str,
                                                         module: str) -> None:
    found = reports(source, module)
    assert Report(module, kind, literal) in found, (form, sorted(found))
    assert Report(module, kind, literal) in unexplained(found)


# A rule that picks a confidence itself, or decides by one: the ranker derives it (ranking.py).
PLANTED_CONFIDENCE = [
    ("keyword", 'def f(c):\n    return Finding(cause=c, confidence="high")\n', "high"),
    ("conditional keyword", 'def f(c, x):\n    return Finding(cause=c, confidence="medium" if x else "low")\n', "low"),
    ("assigned", 'def f(x):\n    confidence = "high" if x else "medium"\n    return confidence\n', "medium"),
    ("attribute", 'def f(finding):\n    finding.confidence = "low"\n', "low"),
    ("through a name", 'SURE = "high"\n\ndef f(c):\n    return Finding(cause=c, confidence=SURE)\n', "high"),
    ("dict key", 'def f():\n    return {"confidence": "medium"}\n', "medium"),
    ("catalog's read", 'def f(e):\n    return e.data.get("confidence") != "low"\n', "low"),
]


@pytest.mark.parametrize(("form", "source", "literal"), PLANTED_CONFIDENCE, ids=[p[0] for p in PLANTED_CONFIDENCE])
def test_a_confidence_a_rule_picks_fails_the_check(form: str, source: str, literal: str) -> None:
    found = reports(source, "engine/rules/planted.py")
    assert Report("engine/rules/planted.py", "confidence", literal) in unexplained(found), (form, sorted(found))
    # Outside the rules the words are the ranker's and the verdict's own (ranking.py, verdict.py).
    assert not any(r.form == "confidence" for r in reports(source, "engine/planted.py"))


# What the fleet once held: one-word regexes pulling a value out of a message the catalog reads
# (the Xid code, the NIC). The fleet reads no program's format of its own (the engine gives who
# and where, the catalog entry's groups the values), so there one word is enough to report it.
FLEET_PLANTED = [
    ("the Xid code", 'import re\nXID_RE = re.compile(r"\\bXid\\s*(?:\\([^)]*\\))?\\s*:?\\s*(\\d+)", re.I)\n',
     "\\bXid\\s*(?:\\([^)]*\\))?\\s*:?\\s*(\\d+)"),
    ("the NIC", 'import re\nNIC_RE = re.compile(r"\\b((?:mlx\\d|hfi\\d|efa)_?\\d+(?::\\d+)?)\\b")\n',
     "\\b((?:mlx\\d|hfi\\d|efa)_?\\d+(?::\\d+)?)\\b"),
    ("a segfault deciding a drain", 'import re\n\ndef f(t):\n    return re.search(r"Segmentation\\s+fault", t)\n',
     "Segmentation\\s+fault"),
]


@pytest.mark.parametrize(("form", "source", "literal"), FLEET_PLANTED, ids=[p[0] for p in FLEET_PLANTED])
def test_a_one_word_regex_on_a_message_fails_the_check_in_the_fleet(form: str, source: str, literal: str) -> None:
    found = reports(source, "fleet/planted.py")
    assert Report("fleet/planted.py", "regex", literal) in unexplained(found), (form, sorted(found))
    # A format parser's one-word field regexes (a record's `pid=`, an Xid record's code) are its
    # format's, checked by the two-word rule there.
    assert Report("engine/parsers/planted.py", "regex", literal) not in reports(source, "engine/parsers/planted.py")


# What a format parser could write to give its record a meaning (meaning_check.parser_reports).
PLANTED_IN_PARSERS = [
    ("severity keyword", 'def parse(ctx, state):\n    return [ctx.record("x", severity="error")]\n', "severity"),
    ("cause keyword", 'def parse(ctx, state):\n    return [ctx.record("x", cause="oom")]\n', "cause"),
    ("severity set", 'def parse(ctx, state):\n    ev = ctx.record("x")\n    ev.severity = "fatal"\n    return [ev]\n',
     "severity"),
    ("class in the data", 'def parse(ctx, state):\n    ev = ctx.record("x")\n    ev.data["fault_class"] = "hw"\n'
     '    return [ev]\n', "fault_class"),
    ("role in a dict", 'def parse(ctx, state):\n    return [ctx.record("x", **{"role": "fault"})]\n', "role"),
    ("setdefault", 'def parse(ctx, state):\n    ev = ctx.record("x")\n    ev.data.setdefault("confidence", "high")\n'
     '    return [ev]\n', "confidence"),
    ("the engine's Event", 'from ..model import Event\n\ndef parse(ctx, state):\n    return [Event("x", "", 1, "")]\n',
     "Event"),
    ("Event renamed", 'from ..model import Event as E\n', "Event"),
]


@pytest.mark.parametrize(("form", "source", "name"), PLANTED_IN_PARSERS, ids=[p[0] for p in PLANTED_IN_PARSERS])
def test_a_parser_that_gives_a_record_a_meaning_fails_the_check(form: str, source: str, name: str) -> None:
    module = "engine/parsers/planted.py"
    found = reports(source, module)
    assert Report(module, "meaning field", name) in unexplained(found), (form, sorted(found))
    # Outside the parsers the same names are the engine's own (the reader gives events their severity).
    assert not any(r.form == "meaning field" for r in reports(source, "engine/reader_planted.py"))


def test_the_parsers_yield_records_with_no_meaning_field() -> None:
    """The typing-level half of the check: what a parser returns (model.Record) has no field that
    could carry a cause, a class or a severity, and the parsers' signature says they return it
    (mypy --strict holds every parser to it)."""
    import typing
    from dataclasses import fields

    from triage.engine.model import MEANING_FIELDS, Event, Record
    from triage.engine.parsers import ALWAYS, EXCLUSIVE, Parser
    from triage.engine.parsers.base import LineCtx

    assert not MEANING_FIELDS & {f.name for f in fields(Record)}
    assert "severity" in {f.name for f in fields(Event)}  # the engine's reading, made by the reader
    assert typing.get_type_hints(LineCtx.record)["return"] is Record
    assert typing.get_args(Parser)[1] == list[Record]
    for parse in EXCLUSIVE + ALWAYS:
        assert typing.get_type_hints(parse)["return"] == list[Record], parse.__module__


def test_a_real_module_with_a_planted_line_fails_it() -> None:
    path = TRIAGE / "engine" / "verdict.py"
    module = "engine/verdict.py"
    clean = reports(path.read_text(encoding="utf-8"), module)
    assert not unexplained(clean)
    planted = path.read_text(encoding="utf-8") + '\n\ndef _planted(f):\n    return f.cause in ("oom", "network")\n'
    assert {r.literal for r in unexplained(reports(planted, module))} == {"oom", "network"}


def test_what_is_not_meaning_passes() -> None:
    source = '''
"""A docstring may quote "No space left on device" and "Got completion from peer": it decides nothing."""
import re
_RANK = re.compile(r"(?P<rank>\\d+)")   # identity with no wording
LABEL = "rank states"                     # wording no catalog sample holds
def f(finding):
    return finding.cause == other_name and finding.confidence == "high"
'''
    assert reports(source, "engine/fine.py") == set()
    # In a rule only the confidence compared is: the ranker derives it (test above).
    assert reports(source, "engine/rules/fine.py") == {Report("engine/rules/fine.py", "confidence", "high")}

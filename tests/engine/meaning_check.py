"""The checker behind test_meaning_only_in_catalog.py: where, outside the catalog, code holds meaning.

It reads the compiled program, not its layout: the AST of every module of triage/engine (the
catalog's own package aside) and of triage/fleet (its migrations aside), and looks at every
string constant wherever it stands (a comparison, a module or function-local table, a frozenset,
a `.find()`, a `re.compile` however imported, an f-string's constant parts), docstrings aside.
A constant is reported when

- `text`: it holds two words or more and is found (any case) inside a catalog sample: the code
  recognises a message by its wording;
- `regex`: it compiles, its own text has two words or more, and it matches a catalog sample,
  whatever its capture groups: the code recognises a message by a pattern. In triage/fleet/,
  which reads no program's format of its own (the engine gives who and where, the catalog
  entry's groups the values a line carries), one word is enough (a regex taking
  the code after `Xid`, or an `mlx5_<n>` NIC name, pulls a value out of a message the catalog reads);
- `entry id`: it names an entry or a dotted area of entries (`"nccl.ib"`), or it is compared
  with, searched in, or tested as a prefix of an entry id or a rule id (`"system" in sig.id`,
  `data.get("sig") == "x"`): the code reads meaning into an id;
- `cause`: it names a cause of the vocabulary and is compared against (==, !=, in, not in, a
  match/case value), held in a tuple, list or set (a table of causes), or is a key of a dict
  literal (a dispatch table): the code decides by cause;
- `confidence` (in a rule, engine/rules/): it is a confidence (`high`, `medium`, `low`) given to
  a `confidence` keyword, assigned to a name or attribute `confidence`, held under a `confidence`
  key of a dict literal, or compared against: a rule picking or reading a confidence itself.
  The ranker (engine/ranking.py) derives every finding's confidence from its culprit line's
  catalog entry and the facts the rule reports (model.Support).

In a format parser (engine/parsers/) it also reports, as `meaning field`, whatever would give a
record a meaning: a keyword argument, an attribute set, a subscript set or a dict key named
for one of model.MEANING_FIELDS (`ctx.record(..., severity="error")`, `ev.severity = ...`,
`data["cause"] = ...`), and any use of the name `Event` (a parser yields model.Record, which
has no such field; the reader makes events). The parsers' allowed list holds none of these.

Each report is (module path relative to triage/, form, the constant). The test lists the
structural ones, each with its reason; anything else fails it.
"""
from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from triage.engine.model import CAUSES, MEANING_FIELDS
from triage.engine.signatures import CATALOG, CONFIDENCES, RAISED_IN
from triage.engine.signatures.literals import required_literals

TRIAGE = Path(__file__).resolve().parents[2] / "triage"
_WORDS = re.compile(r"[A-Za-z]\S* +\S*[A-Za-z]")
_WORD = re.compile(r"[A-Za-z]{2,}")  # one word: enough for a regex in a module that reads no format
FLEET = "fleet/"
# What a regex's own text is once escapes, classes and group openers are taken out.
_REGEX_SYNTAX = re.compile(r"\\.|\[[^\]]*\]|\(\?P?<\w+>|\(\?[:=!i]+|[()|?*+{}^$]")
_ID_ATTRS = frozenset({"id", "rule"})  # attributes that hold an entry id or a rule id
_ID_KEYS = frozenset({"sig", "rule"})  # event data / finding keys that hold one
_RULES = "engine/rules/"  # the modules a confidence literal is reported in
_CONFIDENCE = "confidence"
_SEARCHES = frozenset({"startswith", "endswith", "find", "rfind", "index", "rindex", "count", "removeprefix",
                       "removesuffix", "partition", "rpartition", "split"})


@dataclass(frozen=True, order=True)
class Report:
    module: str  # relative to triage/
    form: str  # text | regex | entry id | cause | confidence
    literal: str


def scanned() -> list[Path]:
    engine = [p for p in sorted((TRIAGE / "engine").rglob("*.py")) if "signatures" not in p.parts]
    fleet = [p for p in sorted((TRIAGE / "fleet").rglob("*.py")) if "migrations" not in p.parts]
    return engine + fleet


@cache
def _samples() -> tuple[tuple[str, ...], str]:
    samples = tuple(s for sig in CATALOG + RAISED_IN for s in sig.samples)
    return samples, "\n".join(samples).lower()


@cache
def _id_prefixes() -> frozenset[str]:
    out: set[str] = set()
    for sig in CATALOG + RAISED_IN:
        parts = sig.id.split(".")
        out.update(".".join(parts[:n]) for n in range(2, len(parts) + 1))
    return frozenset(out)


def names_entry(text: str) -> bool:
    """An entry's id or a dotted area of ids (`nccl.ib`), with or without the trailing dot."""
    return text.rstrip(".") in _id_prefixes()


def in_sample(text: str) -> bool:
    return bool(_WORDS.search(text)) and text.lower() in _samples()[1]


def matches_sample(pattern: str, *, one_word: bool = False) -> bool:
    if one_word:  # a word and the syntax of a regex (an escape, a class, a group, an operator)
        if not _WORD.search(_REGEX_SYNTAX.sub(" ", pattern)) or not _REGEX_SYNTAX.search(pattern):
            return False
    elif not _WORDS.search(_REGEX_SYNTAX.sub(" ", pattern).replace("  ", " ")) or not _WORDS.search(
            _REGEX_SYNTAX.sub("", pattern)):
        return False
    try:
        rx = re.compile(pattern)
    except (re.error, RecursionError, OverflowError):
        return False
    samples, joined = _samples()
    try:
        needed = required_literals(pattern)
    except (re.error, RecursionError, OverflowError):  # pragma: no cover - compiled above
        needed = ()
    if needed and not any(lit in joined for lit in needed):
        return False
    return any(rx.search(s) for s in samples)


def _docstrings(tree: ast.AST) -> set[int]:
    out: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                out.add(id(first.value))
    return out


def _constants(node: ast.AST) -> Iterator[str]:
    for sub in ast.walk(node):
        if isinstance(sub, ast.Constant) and isinstance(sub.value, str):
            yield sub.value


def _holds_id(node: ast.AST) -> bool:
    """The expression reads an entry id or a rule id: `x.id`, `f.rule`, `e.data.get("sig")`, `d["rule"]`."""
    for sub in ast.walk(node):
        if isinstance(sub, ast.Attribute) and sub.attr in _ID_ATTRS:
            return True
        if isinstance(sub, ast.Call) and isinstance(sub.func, ast.Attribute) and sub.func.attr == "get" and sub.args:
            arg = sub.args[0]
            if isinstance(arg, ast.Constant) and arg.value in _ID_KEYS:
                return True
        if isinstance(sub, ast.Subscript) and isinstance(sub.slice, ast.Constant) and sub.slice.value in _ID_KEYS:
            return True
    return False


def _bound(tree: ast.AST) -> dict[str, list[str]]:
    """The string constants each name is bound to anywhere in the module (`X = "a"`, `T = ("a",
    "b")`, `S = frozenset({...})`): a constant compared through a name is still compared."""
    out: dict[str, list[str]] = {}
    for node in ast.walk(tree):
        if isinstance(node, (ast.Assign, ast.AnnAssign)) and node.value is not None:
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for t in targets:
                if isinstance(t, ast.Name) and _only_constants(node.value):
                    out.setdefault(t.id, []).extend(_constants(node.value))
    return out


def _only_constants(node: ast.AST) -> bool:
    """A constant, a tuple, list, set or dict of them, or a frozenset/set/tuple call of such."""
    if isinstance(node, ast.Constant):
        return True
    if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
        return all(_only_constants(e) for e in node.elts)
    if isinstance(node, ast.Dict):
        return all(k is None or _only_constants(k) for k in node.keys) and all(map(_only_constants, node.values))
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ("frozenset", "set", "tuple"):
        return all(_only_constants(a) for a in node.args)
    return False


def _resolved(node: ast.AST, bound: dict[str, list[str]]) -> list[str]:
    """The string constants `node` stands for: its own, and those of the names it uses."""
    found = list(_constants(node))
    for sub in ast.walk(node):
        if isinstance(sub, ast.Name) and sub.id in bound:
            found.extend(bound[sub.id])
    return found


def reports(source: str, module: str) -> set[Report]:
    """Every place in `source` (the module `module`) where the code holds meaning (module doc)."""
    tree = ast.parse(source)
    skip = _docstrings(tree)
    bound = _bound(tree)
    out: set[Report] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in skip:
            text = node.value
            if names_entry(text):
                out.add(Report(module, "entry id", text))
            elif in_sample(text):
                out.add(Report(module, "text", text))
            elif matches_sample(text, one_word=module.startswith(FLEET)):
                out.add(Report(module, "regex", text))
        if isinstance(node, ast.Compare):
            sides = (node.left, *node.comparators)
            out.update(Report(module, "cause", c) for side in sides for c in _resolved(side, bound) if c in CAUSES)
            if any(_holds_id(s) for s in sides):
                out.update(Report(module, "entry id", c) for s in sides if not _holds_id(s)
                           for c in _resolved(s, bound))
        elif isinstance(node, (ast.Tuple, ast.List, ast.Set)):
            # A table of causes, however it is used later (`cause in _SHARED`).
            out.update(Report(module, "cause", e.value) for e in node.elts
                       if isinstance(e, ast.Constant) and e.value in CAUSES)
        elif isinstance(node, ast.MatchValue):
            out.update(Report(module, "cause", c) for c in _constants(node) if c in CAUSES)
        elif isinstance(node, ast.Dict):
            out.update(Report(module, "cause", c) for k in node.keys if k is not None for c in _constants(k)
                       if c in CAUSES)
        elif (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in _SEARCHES
              and _holds_id(node.func.value)):
            out.update(Report(module, "entry id", c) for a in node.args for c in _resolved(a, bound))
    if module.startswith(_RULES):
        out.update(Report(module, _CONFIDENCE, c) for c in _confidences(tree, bound))
    if module.startswith(PARSERS):
        out |= parser_reports(tree, module)
    return out


PARSERS = "engine/parsers/"
_ENGINE_EVENT = "Event"  # the engine's reading of a record (model.Event): never a parser's


def parser_reports(tree: ast.AST, module: str) -> set[Report]:
    """What in a format parser would give its records a meaning (module doc: `meaning field`)."""
    out: set[Report] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.keyword) and node.arg in MEANING_FIELDS:
            out.add(Report(module, "meaning field", node.arg))
        elif (isinstance(node, ast.Attribute) and node.attr in MEANING_FIELDS
              and isinstance(node.ctx, (ast.Store, ast.Del))):
            out.add(Report(module, "meaning field", node.attr))
        elif (isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Constant)
              and node.slice.value in MEANING_FIELDS and isinstance(node.ctx, (ast.Store, ast.Del))):
            out.add(Report(module, "meaning field", str(node.slice.value)))
        elif isinstance(node, ast.Dict):
            out.update(Report(module, "meaning field", str(k.value)) for k in node.keys
                       if isinstance(k, ast.Constant) and k.value in MEANING_FIELDS)
        elif (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
              and node.func.attr in ("setdefault", "__setitem__") and node.args
              and isinstance(node.args[0], ast.Constant) and node.args[0].value in MEANING_FIELDS):
            out.add(Report(module, "meaning field", str(node.args[0].value)))
        elif ((isinstance(node, ast.Name) and node.id == _ENGINE_EVENT)
              or (isinstance(node, ast.alias) and _ENGINE_EVENT in (node.name, node.asname))
              or (isinstance(node, ast.Attribute) and node.attr == _ENGINE_EVENT)):
            out.add(Report(module, "meaning field", _ENGINE_EVENT))
    return out


def _names_confidence(node: ast.AST) -> bool:
    return ((isinstance(node, ast.Name) and node.id == _CONFIDENCE)
            or (isinstance(node, ast.Attribute) and node.attr == _CONFIDENCE))


def _confidences(tree: ast.AST, bound: dict[str, list[str]]) -> Iterator[str]:
    """The confidence literals a module gives a finding or decides by: `confidence="high"`,
    `confidence = ...`, `f.confidence = ...`, `{"confidence": ...}`, and any comparison with one."""
    held: list[ast.AST] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.keyword) and node.arg == _CONFIDENCE:
            held.append(node.value)
        elif isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign)) and node.value is not None:
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            if any(_names_confidence(t) for t in targets):
                held.append(node.value)
        elif isinstance(node, ast.Dict):
            held.extend(v for k, v in zip(node.keys, node.values, strict=True)
                        if isinstance(k, ast.Constant) and k.value == _CONFIDENCE)
        elif isinstance(node, ast.Compare):
            held.extend((node.left, *node.comparators))
    for value in held:
        yield from (c for c in _resolved(value, bound) if c in CONFIDENCES)


def scan() -> set[Report]:
    out: set[Report] = set()
    for path in scanned():
        out |= reports(path.read_text(encoding="utf-8"), path.relative_to(TRIAGE).as_posix())
    return out

#!/usr/bin/env python
"""Dump the diagnose JSON of every corpus case, and compare two dumps: what a change to the
engine does to the real logs' verdicts, cards, tables and timelines.

    .venv/bin/python tools/corpus_json.py dump /tmp/before          # on the old tree
    .venv/bin/python tools/corpus_json.py dump /tmp/after           # on the new one
    .venv/bin/python tools/corpus_json.py compare /tmp/before /tmp/after [--ignore first_failure.identity_from]

Cases: every <shared>/corpus/real/*/log.txt and every folder of <shared>/corpus/healthy/
(NCCL_TRIAGE_SHARED or /work/shared).
"""
from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from triage.engine import diagnose  # noqa: E402


def cases(shared: Path) -> list[tuple[str, Path]]:
    corpus = shared / "corpus"
    out = [(p.parent.name, p) for p in sorted((corpus / "real").glob("*/log.txt"))]
    return out + [(f"healthy-{p.name}", p) for p in sorted((corpus / "healthy").iterdir()) if p.is_dir()]


def dump(out: Path, shared: Path) -> None:
    out.mkdir(parents=True, exist_ok=True)
    for name, path in cases(shared):
        try:
            doc: dict[str, Any] = diagnose(path).to_dict()
        except Exception as exc:  # noqa: BLE001 - a case that fails is part of the dump
            doc = {"error": repr(exc)}
        (out / f"{name}.json").write_text(json.dumps(doc, indent=1, sort_keys=True, default=str))


def _drop(doc: Any, path: list[str]) -> None:
    if not path or not isinstance(doc, dict):
        return
    if len(path) == 1:
        doc.pop(path[0], None)
    else:
        _drop(doc.get(path[0]), path[1:])


def compare(before: Path, after: Path, ignore: list[str]) -> int:
    differ = []
    for old in sorted(before.glob("*.json")):
        new = after / old.name
        a, b = json.loads(old.read_text()), json.loads(new.read_text()) if new.exists() else None
        for key in ignore:
            _drop(a, key.split("."))
            _drop(b, key.split("."))
        if a != b:
            differ.append(old.stem)
    total = len(list(before.glob("*.json")))
    print(f"{len(differ)} of {total} cases differ" + (": " + ", ".join(differ) if differ else ""))
    return 1 if differ else 0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="what", required=True)
    d = sub.add_parser("dump")
    d.add_argument("out", type=Path)
    c = sub.add_parser("compare")
    c.add_argument("before", type=Path)
    c.add_argument("after", type=Path)
    c.add_argument("--ignore", action="append", default=[], help="a dotted key left out of the comparison")
    args = parser.parse_args()
    shared = Path(os.environ.get("NCCL_TRIAGE_SHARED", "/work/shared"))
    if args.what == "dump":
        dump(args.out, shared)
    else:
        raise SystemExit(compare(args.before, args.after, args.ignore))


if __name__ == "__main__":
    main()

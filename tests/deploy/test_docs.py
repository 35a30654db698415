"""The documentation is self-contained: every file README.md, docs/ and the code's docstrings
point at is in the repository (no design notes or references kept elsewhere)."""
from __future__ import annotations

import re
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
# Names of the notes the docs were once copied from; the copies are docs/design.md,
# docs/log-formats.md, docs/log-formats-launchers.md and docs/log-examples.txt.
OUTSIDE = re.compile(r"(?<![\w/-])(?:DESIGN\.md|FORMATS\.md|LOG-FORMATS\.md|examples\.txt|DEVICE\.md|STYLE\.md)|/work/shared/reference|\.\./shared/(?!corpus)")
LINK = re.compile(r"\]\(([^)#\s]+)(?:#[^)]*)?\)")
DOC_PATH = re.compile(r"\bdocs/[\w.-]+\.(?:md|txt|json)\b")


def texts() -> dict[Path, str]:
    files = [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))]
    for folder in ("triage", "collectors", "bench", "scripts"):
        files += sorted((REPO / folder).rglob("*.py"))
    return {f: f.read_text(encoding="utf-8") for f in files}


def test_nothing_points_outside_the_repository() -> None:
    found = [f"{path.relative_to(REPO)}:{n}: {line.strip()}" for path, text in texts().items()
             for n, line in enumerate(text.splitlines(), 1) if OUTSIDE.search(line)]
    assert found == []


def test_every_linked_or_named_doc_exists() -> None:
    missing = []
    for path, text in texts().items():
        targets = set(DOC_PATH.findall(text))
        if path.suffix == ".md":
            targets |= {t for t in LINK.findall(text) if "://" not in t and not t.startswith("mailto:")}
        for target in targets:
            base = REPO if target.startswith("docs/") else path.parent
            if not (base / target).exists():
                missing.append(f"{path.relative_to(REPO)} -> {target}")
    assert missing == []

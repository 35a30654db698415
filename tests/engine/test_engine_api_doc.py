"""docs/engine-api.md lists every field of the diagnosis JSON: the list and the JSON of real
bundles (every scenario cause, with snapshots and NVML samples, and real corpus logs) must
name the same fields, both ways."""
from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from tests.engine.engine_corpus import shared_dir
from triage.engine import diagnose
from triage.scenarios import SCENARIO_CAUSES, build

REPO = Path(__file__).resolve().parents[2]
# Documents of their own schema (docs/bundle-format.md) or keyed by host: not walked into.
OPAQUE = {"versions", "snapshots", "health"}
# Real logs: a lone file without ranks named (rank_from), a torchrun crash, an ECC error.
CORPUS_CASES = ("nccl-1235", "pytorch-123070", "accelerate-1192")


def documented_fields() -> set[str]:
    text = (REPO / "docs" / "engine-api.md").read_text()
    block = text.split("## Every field of `to_dict()`", 1)[1]
    body = re.search(r"```text\n(.*?)```", block, re.DOTALL)
    assert body is not None, "the field list is missing from docs/engine-api.md"
    return {line.split()[0] for line in body.group(1).splitlines() if line.strip()}


def json_fields(value: Any, prefix: str = "") -> set[str]:
    out: set[str] = set()
    if isinstance(value, dict):
        for key, item in value.items():
            path = f"{prefix}.{key}" if prefix else key
            out.add(path)
            if path not in OPAQUE:
                out |= json_fields(item, path)
    elif isinstance(value, list):
        for item in value:
            out |= json_fields(item, prefix + "[]")
    return out


@pytest.fixture(scope="module")
def real_fields(tmp_path_factory: pytest.TempPathFactory) -> set[str]:
    root = tmp_path_factory.mktemp("api-doc")
    fields: set[str] = set()
    for cause in SCENARIO_CAUSES:
        fields |= json_fields(diagnose(str(build(cause, root / cause, seed=0))).to_dict())
    for case in CORPUS_CASES:
        fields |= json_fields(diagnose(str(shared_dir() / "corpus" / "real" / case)).to_dict())
    return fields


def test_every_field_of_the_json_is_documented(real_fields: set[str]) -> None:
    assert sorted(real_fields - documented_fields()) == []


def test_every_documented_field_exists(real_fields: set[str]) -> None:
    documented = documented_fields()
    assert "sources[].rank" in documented and "sources[].ranks" not in documented
    assert sorted(documented - real_fields) == []

"""Every file renamed, not only the archive or the top folder: every scenario and every corpus
case (real failures and healthy runs) with each file and folder under a random name, in
another order, packed as .tar.gz and .zip, gives the same cause, rank, host, pid, GPU and times
as the bundle as it was written. Only the layouts programs write and that say what they are
keep their names (torchrun's attempt_N/<local_rank>/, torch's nccl_trace_rank_<N>): see
tests/bundle_forms.renamed_files."""
from __future__ import annotations

import random
import shutil
from pathlib import Path
from typing import Any

import pytest
from engine_corpus import corpus_cases, healthy_cases

from tests.bundle_forms import files_of, renamed_forms
from triage.engine import diagnose
from triage.scenarios import EXTRA_SCENARIOS, SCENARIO_CAUSES, build

CASES = corpus_cases() + healthy_cases()


def answer(d: dict[str, Any], old_name: dict[str, str]) -> dict[str, Any]:
    """The diagnosis minus the names it was read under (mapped back to the original ones)."""
    def source(name: Any) -> Any:
        return old_name.get(name, name)

    ff = dict(d["first_failure"] or {})
    if ff:
        ff["source"] = source(ff.get("source"))
        ff.pop("time_estimate_basis", None)  # names the file it estimated from
    return {
        "findings": [{"cause": f["cause"], "rule": f["rule"], "confidence": f["confidence"], "ranks": f["ranks"],
                      "hosts": f["hosts"],
                      "evidence": sorted((source(e["source"]), e["line"], e["text"]) for e in f["evidence"])}
                     for f in d["findings"]],
        "first_failure": ff,
        "ranks": d["ranks"],
    }


def assert_same_renamed(bundle: Path, out: Path, seed: int) -> dict[str, Any]:
    rng = random.Random(seed)
    names: list[str] = []
    if bundle.is_dir():  # as sent: without the scenario's answer (expected.json)
        sent = out / "as-written"
        for f in files_of(bundle):
            (sent / f.relative_to(bundle)).parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(f, sent / f.relative_to(bundle))
    written = diagnose(str(sent if bundle.is_dir() else bundle)).to_dict()
    base = {} if bundle.is_dir() else {bundle.name: bundle.name}
    want = answer(written, base)
    for form, path, mapping in renamed_forms(bundle, out, rng, names):
        d = diagnose(str(path)).to_dict()
        got = answer(d, mapping)
        assert got == want, f"{bundle}: {form} differs from the bundle as written"
        ff = d["first_failure"] or {}
        for where in [ff.get("host")] + [r["host"] for r in d["ranks"]]:
            assert where is None or where not in names, (bundle, form, where)
    return written


@pytest.mark.parametrize("cause", SCENARIO_CAUSES + EXTRA_SCENARIOS)
@pytest.mark.parametrize("seed", (0, 1))
def test_every_scenario_says_the_same_with_every_file_renamed(tmp_path: Path, cause: str, seed: int) -> None:
    d = assert_same_renamed(build(cause, tmp_path / "built", seed=seed), tmp_path / "renamed", seed)
    if cause != "unknown":
        assert d["findings"], cause  # the comparison is of a verdict, not of two empty answers


@pytest.mark.parametrize("case", CASES, ids=[f"{c.parent.name}/{c.name}" for c in CASES])
def test_every_corpus_case_says_the_same_with_its_file_renamed(tmp_path: Path, case: Path) -> None:
    assert_same_renamed(case / "log.txt", tmp_path / "renamed", len(case.name))

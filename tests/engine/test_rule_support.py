"""No rule tuned to one log: for every cause rule, the corpus cases and synthetic scenarios it fires
on (any finding, not only the verdict). A rule that fires on exactly one of them restates that
case; it must be generalised from the programs' messages (then it fires wherever they appear) or
become a catalog entry (then its samples test it). Catalog findings (`signature.<id>`) are the
catalog's, tested entry by entry in test_catalog_verdicts.py."""
from __future__ import annotations

import functools
import tempfile
from collections import defaultdict
from pathlib import Path

from engine_corpus import corpus_cases

from triage.engine import diagnose
from triage.scenarios import SCENARIO_CAUSES, build


@functools.cache
def rule_support() -> dict[str, frozenset[str]]:
    fires: dict[str, set[str]] = defaultdict(set)
    for case in corpus_cases():
        for f in diagnose(case / "log.txt").to_dict()["findings"]:
            fires[f["rule"]].add(case.name)
    with tempfile.TemporaryDirectory() as tmp:
        for cause in SCENARIO_CAUSES:
            for seed in (0, 1):
                folder = build(cause, Path(tmp) / f"{cause}-{seed}", seed=seed)
                for f in diagnose(folder).to_dict()["findings"]:
                    fires[f["rule"]].add(f"scenario:{cause}:{seed}")
    return {rule: frozenset(cases) for rule, cases in fires.items() if not rule.startswith("signature.")}


def test_the_rules_fire_on_the_corpus_at_all() -> None:
    support = rule_support()
    assert len(corpus_cases()) >= 80
    assert len(support) >= 10, support


def test_no_rule_fires_on_exactly_one_case() -> None:
    single = {rule: sorted(cases) for rule, cases in rule_support().items() if len(cases) == 1}
    listing = "\n".join(f"{rule}: {len(cases)} {sorted(cases)[:6]}" for rule, cases in sorted(rule_support().items()))
    assert not single, f"rules that fire on one case only: {single}\nall rules:\n{listing}"

"""No rule tuned to one log: for every cause rule, the distinct real logs and the distinct kinds of
synthetic scenario it fires on (any finding, not only the verdict). Two corpus cases with the
same log are one log, and the seeds of one scenario kind are one kind: a scenario's seeds vary
its names and numbers, not its story. A rule that fires on one of them only restates that case;
it must be generalised from the programs' messages (then it fires wherever they appear) or become
a catalog entry (then its samples test it). Catalog findings (`signature.<id>`) are the
catalog's, tested entry by entry in test_catalog_verdicts.py."""
from __future__ import annotations

import functools
import hashlib
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
        log = hashlib.sha256((case / "log.txt").read_bytes()).hexdigest()[:12]
        for f in diagnose(case / "log.txt").to_dict()["findings"]:
            fires[f["rule"]].add(f"log:{log}")
    with tempfile.TemporaryDirectory() as tmp:
        for cause in SCENARIO_CAUSES:
            for seed in (0, 1):
                folder = build(cause, Path(tmp) / f"{cause}-{seed}", seed=seed)
                for f in diagnose(folder).to_dict()["findings"]:
                    fires[f["rule"]].add(f"scenario:{cause}")
    return {rule: frozenset(cases) for rule, cases in fires.items() if not rule.startswith("signature.")}


def test_the_rules_fire_on_the_corpus_at_all() -> None:
    support = rule_support()
    assert len(corpus_cases()) >= 80
    assert len(support) >= 10, support


# Rules whose only support is their own scenario kind: no real log of the corpus has what they read.
# Open, not accepted: each needs a real log that shows it, or the rule goes (the cross-host version
# diff is one of the generic combinators; the other two read one message family each and belong in
# the catalog). The test fails when one of them gains support, so the list only shrinks.
WITHOUT_A_REAL_LOG = {
    "version_mismatch.across_hosts": "versions differing across hosts: no corpus log has two hosts' banners",
    "rendezvous_hang.clients_missing": "c10d's 'N/M clients joined' store timeout: no corpus log prints it",
    "p2p_unsupported.iommu_fault": "a kernel IOMMU fault under a P2P hang: no corpus log has the kernel log",
}


def test_no_rule_fires_on_exactly_one_case() -> None:
    single = {rule: sorted(cases) for rule, cases in rule_support().items() if len(cases) == 1}
    listing = "\n".join(f"{rule}: {len(cases)} {sorted(cases)[:6]}" for rule, cases in sorted(rule_support().items()))
    assert set(single) == set(WITHOUT_A_REAL_LOG), (
        f"rules that fire on one real log or scenario kind only: {single}\nall rules:\n{listing}")
    assert all(cases[0].startswith("scenario:") for cases in single.values()), single

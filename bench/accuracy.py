"""Verdict accuracy: per-cause precision, recall and F1 over the real corpus, the healthy logs
and the synthetic scenarios, against a 20-line first-match keyword table in the same run.

    python bench/accuracy.py [--shared ../shared] [--no-scenarios] [--no-loso] [--ablate] [--json out.json]

Calibration: per confidence of the verdict (high, medium, low, no finding), how many cases and
how often findings[0].cause is the label and is acceptable, on the corpus and on
leave-one-source-out. The aim: high right on the label >= 95%, medium >= 80%; low is for a line
nothing confirmed.

A real case counts as *acceptable* when findings[0].cause is in its meta.json `acceptable`
(or it has no finding / only a low one and `unknown` is acceptable), and as *label* when it
equals `primary_cause`. Healthy logs count as right when nothing above `low` is found.

Leave-one-source-out: the corpus is grouped by the project whose thread a case comes from
(nccl, pytorch, deepspeed, vllm, ...). For each group, every catalog entry with a sample found
word for word in that group's logs is switched off (as if those logs had never been seen while
writing the catalog), and so is every cause rule whose only support is that group's cases (the
rule's findings are dropped: a rule no other project's log and no synthetic scenario needs was
written for that project); the group's cases are then diagnosed again. It measures how much
the verdicts lean on wording and rules drawn from the corpus. It only sees samples copied from a
log: an entry written from the program's format string is never switched off.

Decisive-entry ablation (--ablate): for each case, the catalog entry behind the verdict (the
catalog finding's own, or the one reading the verdict's first evidence line) is switched off and
the case is diagnosed again. An unseen log often words the
decisive message differently or comes from a version the entry does not cover; the verdict then
stands only where the engine has a second route to the cause (a sibling entry of the family, a
cause rule over roles and ranks).
"""
from __future__ import annotations

import argparse
import json
import re
import sys
import tempfile
from collections import defaultdict
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from triage.engine import diagnose  # noqa: E402
from triage.engine.model import CAUSES  # noqa: E402

# The baseline the hidden-set measurement used: first match over the whole text wins.
KEYWORD_TABLE: list[tuple[str, str]] = [
    (r"out of memory|OutOfMemoryError|oom-kill|Killed process", "oom"),
    (r"invalid device ordinal|Duplicate GPU|CUDA_VISIBLE_DEVICES", "device_ordinal"),
    (r"/dev/shm|shared memory|Bus error|SIGBUS|posix_fallocate|No space left", "shm_exhausted"),
    (r"Xid|ECC|fallen off the bus|NVLink|uncorrectable", "hardware_fault"),
    (r"peer access|P2P|IOMMU|ACS", "p2p_unsupported"),
    (r"version mismatch|driver version is insufficient|no kernel image|ncclMaxSharedMem", "version_mismatch"),
    (r"NET/IB|ibv_|Got completion|NET/Socket|SOCKET_IFNAME|No route to host|Connection reset|Connection refused|socket",
     "network"),
    (r"TCPStore|[Rr]endezvous|MASTER_ADDR|clients joined|store", "rendezvous_hang"),
    (r"Watchdog caught collective operation timeout|Timeout\(ms\)|timed out|desync", "collective_timeout_straggler"),
    (r"Traceback|Segmentation fault|SIGSEGV|exitcode|Error", "rank_crash"),
]


def keyword_verdict(text: str) -> str:
    for pattern, cause in KEYWORD_TABLE:
        if re.search(pattern, text):
            return cause
    return "unknown"


def engine_verdict(path: Path) -> tuple[str, str | None, Any]:
    result = diagnose(path).to_dict()
    findings = result["findings"]
    if not findings:
        return "unknown", None, result
    top = findings[0]
    return top["cause"], top["confidence"], result


def score_case(got: str, confidence: str | None, acceptable: list[str]) -> bool:
    if got in acceptable:
        return True
    return "unknown" in acceptable and (got == "unknown" or confidence == "low")


def source_of(case: Path) -> str:
    """The project of the thread: the case folder is named <project>-<issue>."""
    return re.sub(r"-\d+$", "", case.name)


def rule_support(real: list[Path], scenarios: bool = True) -> dict[str, set[str]]:
    """For each cause rule (not the catalog's `signature.*`), the projects whose cases it fires on
    (any finding), and 'scenarios' where a synthetic scenario needs it."""
    support: dict[str, set[str]] = defaultdict(set)
    for case in real:
        for f in diagnose(case / "log.txt").to_dict()["findings"]:
            support[f["rule"]].add(source_of(case))
    if scenarios:
        from triage.scenarios import SCENARIO_CAUSES, build

        with tempfile.TemporaryDirectory() as tmp:
            for cause in SCENARIO_CAUSES:
                for seed in (0, 1):
                    for f in diagnose(build(cause, Path(tmp) / f"{cause}{seed}", seed=seed)).to_dict()["findings"]:
                        support[f["rule"]].add("scenarios")
    return {rule: where for rule, where in support.items() if not rule.startswith("signature.")}


def leave_one_source_out(real: list[Path]) -> list[dict[str, Any]]:
    from triage.engine import pipeline, reader
    from triage.engine.rules import run_rules
    from triage.engine.signatures import CATALOG, readings
    from triage.engine.signatures.matcher import CatalogMatcher

    groups: dict[str, list[Path]] = defaultdict(list)
    for case in real:
        groups[source_of(case)].append(case)
    support = rule_support(real)
    original = reader.matcher
    out = []
    try:
        for source, cases in sorted(groups.items()):
            text = "\n".join((c / "log.txt").read_text(errors="replace") for c in cases)
            seen = {sig.id for sig in CATALOG if any(s.strip() and s.strip() in text for s in sig.samples)}
            reduced = CatalogMatcher(tuple(sig for sig in CATALOG if sig.id not in seen))
            # What the switched-off entries would have read in each case: the lines a miss lost.
            off_matcher = CatalogMatcher(tuple(sig for sig in CATALOG if sig.id in seen)) if seen else None
            reader.matcher = lambda prefer=None, m=reduced: m  # type: ignore[assignment]
            readings.matcher = reader.matcher  # type: ignore[assignment]
            rules_off = {rule for rule, where in support.items() if where == {source}}
            pipeline.run_rules = lambda facts, off=rules_off: [  # type: ignore[assignment]
                f for f in run_rules(facts) if f.rule not in off]
            for case in cases:
                meta = json.loads((case / "meta.json").read_text())
                got, conf, result = engine_verdict(case / "log.txt")
                log = (case / "log.txt").read_text(errors="replace")
                lost: set[str] = set()
                if off_matcher is not None:
                    for line in log.splitlines():
                        lost.update(sig.id for sig in off_matcher.matches(line)
                                    if sig.role in ("fault", "symptom") and sig.cause)
                kw = keyword_verdict(log)
                out.append({"source": source, "case": case.name, "entries_off": len(seen),
                            "rules_off": sorted(rules_off), "label": meta["primary_cause"],
                            "acceptable": meta["acceptable"], "engine": got, "confidence": conf,
                            "rule": (result["findings"][0]["rule"] if result["findings"] else None),
                            "ok": score_case(got, conf, meta["acceptable"]),
                            "keyword_ok": score_case(kw, "high", meta["acceptable"]),
                            "keyword_label": kw == meta["primary_cause"], "entries_lost": sorted(lost)})
    finally:
        reader.matcher = original
        readings.matcher = original  # type: ignore[assignment]
        pipeline.run_rules = run_rules
    return out


def prf(pairs: list[tuple[str, str]]) -> dict[str, tuple[float, float, float, int]]:
    out = {}
    for cause in list(CAUSES) + ["unknown"]:
        tp = sum(1 for want, got in pairs if want == cause and got == cause)
        fp = sum(1 for want, got in pairs if want != cause and got == cause)
        fn = sum(1 for want, got in pairs if want == cause and got != cause)
        support = tp + fn
        if support == 0 and fp == 0:
            continue
        p = tp / (tp + fp) if tp + fp else 0.0
        r = tp / support if support else 0.0
        f = 2 * p * r / (p + r) if p + r else 0.0
        out[cause] = (p, r, f, support)
    return out


def ablate_decisive(real: list[Path]) -> list[dict[str, Any]]:
    """For each case, switch off the catalog entry behind the verdict and diagnose it again: does
    the engine have a second way to an acceptable cause (a sibling entry of the family, a rule over
    roles and ranks)? It does not depend on how samples are worded, so it keeps measuring where
    LOSO has nothing left to switch off."""
    from triage.engine import reader
    from triage.engine.signatures import CATALOG, readings
    from triage.engine.signatures.matcher import CatalogMatcher, matcher

    full = matcher()
    original = reader.matcher
    out = []
    try:
        for case in real:
            meta = json.loads((case / "meta.json").read_text())
            findings = diagnose(case / "log.txt").to_dict()["findings"]
            if not findings:
                continue
            # The entry behind the verdict: the catalog finding's own, else the one that reads the
            # verdict's first evidence line. Other entries stay: they are the second routes.
            top = findings[0]
            decisive = set()
            if top["rule"].startswith("signature."):
                decisive.add(top["rule"].removeprefix("signature."))
            elif top["evidence"]:
                read = full.best(top["evidence"][0]["text"])
                if read is not None and read.sig.role in ("fault", "symptom") and read.sig.cause:
                    decisive.add(read.sig.id)
            if not decisive:
                continue
            reduced = CatalogMatcher(tuple(sig for sig in CATALOG if sig.id not in decisive))
            reader.matcher = lambda prefer=None, m=reduced: m  # type: ignore[assignment]
            readings.matcher = reader.matcher  # type: ignore[assignment]
            got, conf, result = engine_verdict(case / "log.txt")
            out.append({"case": case.name, "entries_off": sorted(decisive), "engine": got, "confidence": conf,
                        "rule": (result["findings"][0]["rule"] if result["findings"] else None),
                        "ok": score_case(got, conf, meta["acceptable"])})
    finally:
        reader.matcher = original
        readings.matcher = original  # type: ignore[assignment]
    return out


def print_ablation(rows: list[dict[str, Any]], verbose: bool) -> None:
    ok = sum(r["ok"] for r in rows)
    print(f"\ndecisive-entry ablation (the catalog entry behind the verdict switched off, case by case): "
          f"acceptable {ok}/{len(rows)} ({ok / len(rows):.0%}) of the cases whose verdict a catalog entry reads")
    if verbose:
        for r in rows:
            if not r["ok"]:
                print(f"    {r['case']:26s} -> {r['engine']}/{r['confidence']} ({r['rule']}) without "
                      f"{', '.join(r['entries_off'])}")


CONFIDENCE_LEVELS = ("high", "medium", "low", None)


def calibration(rows: list[dict[str, Any]]) -> dict[str, tuple[int, int, int]]:
    """Per confidence of the verdict (None: no finding): (cases, top finding is the label, top
    finding is acceptable). What a confidence is worth is how often it is right."""
    out: dict[str, tuple[int, int, int]] = {}
    for level in CONFIDENCE_LEVELS:
        sub = [r for r in rows if r["confidence"] == level]
        out[str(level or "none")] = (len(sub), sum(r["engine"] == r["label"] for r in sub),
                                     sum(r["engine"] in r["acceptable"] for r in sub))
    return out


def print_calibration(name: str, rows: list[dict[str, Any]]) -> None:
    """How often the verdict is right at each confidence; the aim: high >= 95%, medium >= 80%,
    and low only for a line nothing confirmed."""
    print(f"\ncalibration, {name}: confidence -> cases, top finding is the label, top finding is acceptable")
    for level, (n, label, ok) in calibration(rows).items():
        if n:
            print(f"  {level:6s} {n:3d}   label {label:3d} ({label / n:4.0%})   acceptable {ok:3d} ({ok / n:4.0%})")


def print_loso(loso: list[dict[str, Any]], verbose: bool) -> None:
    ok = sum(r["ok"] for r in loso)
    print(f"\nleave-one-source-out (catalog entries whose samples are in the left-out logs, and rules only "
          f"that project's cases need, switched off): "
          f"acceptable {ok}/{len(loso)} ({ok / len(loso):.0%})")
    by_source: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for r in loso:
        by_source[r["source"]].append(r)
    for source, items in by_source.items():
        misses = [f"{r['case']} -> {r['engine']}" for r in items if not r["ok"]]
        off = items[0]["rules_off"]
        print(f"  {source:22s} {sum(r['ok'] for r in items)}/{len(items)}  entries off {items[0]['entries_off']:3d}"
              f"  rules off {len(off)}{' (' + ', '.join(off) + ')' if off else ''}"
              f"{'  missed: ' + ', '.join(misses) if misses else ''}")
    if verbose:
        print("\n  LOSO misses and the switched-off fault/symptom entries that read their lines:")
        for r in loso:
            if not r["ok"]:
                lost = ", ".join(r["entries_lost"]) or "-"
                print(f"    {r['case']:26s} -> {r['engine']} ({r['rule']}); lost: {lost}")
    # The unseen measurement's floor is the keyword table on every cause: the same per label here.
    print("\n  LOSO per labelled cause: engine acceptable / label  |  keyword acceptable / label  | cases")
    by_label: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for r in loso:
        by_label[r["label"]].append(r)
    for cause, items in sorted(by_label.items()):
        e_ok = sum(r["ok"] for r in items)
        e_lab = sum(r["engine"] == cause for r in items)
        k_ok = sum(r["keyword_ok"] for r in items)
        k_lab = sum(r["keyword_label"] for r in items)
        flag = "  <- below keyword" if e_ok < k_ok or e_lab < k_lab else ""
        print(f"    {cause:30s} {e_ok:2d} / {e_lab:2d}  |  {k_ok:2d} / {k_lab:2d}  | {len(items)}{flag}")


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--shared", type=Path, default=None)
    parser.add_argument("--no-scenarios", action="store_true")
    parser.add_argument("--json", type=Path)
    parser.add_argument("-v", "--verbose", action="store_true")
    parser.add_argument("--no-loso", action="store_true", help="skip the leave-one-source-out run")
    parser.add_argument("--ablate", action="store_true",
                        help="also switch off, case by case, the catalog entry behind the verdict")
    args = parser.parse_args()
    shared = args.shared or next(p for p in (REPO.parent / "shared", Path("/work/shared")) if (p / "corpus").is_dir())
    real = sorted(p for p in (shared / "corpus" / "real").iterdir() if (p / "meta.json").is_file())
    healthy = sorted(p for p in (shared / "corpus" / "healthy").iterdir() if (p / "log.txt").is_file())

    rows = []
    eng_label: list[tuple[str, str]] = []
    kw_label: list[tuple[str, str]] = []
    for case in real:
        meta = json.loads((case / "meta.json").read_text())
        text = (case / "log.txt").read_text(errors="replace")
        got, conf, result = engine_verdict(case / "log.txt")
        kw = keyword_verdict(text)
        want_rank = meta.get("failing_rank_from_log")
        ff = result.get("first_failure") or {}
        rank_ok = ff.get("rank") == want_rank
        rows.append({
            "case": case.name, "label": meta["primary_cause"], "acceptable": meta["acceptable"],
            "engine": got, "confidence": conf, "rule": (result["findings"][0]["rule"] if result["findings"] else None),
            "engine_ok": score_case(got, conf, meta["acceptable"]), "keyword": kw,
            "keyword_ok": score_case(kw, "high", meta["acceptable"]),
            "want_rank": want_rank, "got_rank": ff.get("rank"), "rank_ok": rank_ok,
            "supports": meta.get("log_supports_label", "yes"),
        })
        eng_label.append((meta["primary_cause"], got))
        kw_label.append((meta["primary_cause"], kw))
    healthy_rows = []
    for case in healthy:
        got, conf, _ = engine_verdict(case / "log.txt")
        healthy_rows.append({"case": case.name, "engine": got, "confidence": conf,
                             "quiet": got == "unknown" or conf == "low"})

    scen_pairs: list[tuple[str, str]] = []
    if not args.no_scenarios:
        from triage.scenarios import SCENARIO_CAUSES, build

        with tempfile.TemporaryDirectory() as tmp:
            for cause in SCENARIO_CAUSES:
                for seed in (0, 1):
                    folder = build(cause, Path(tmp), seed=seed)
                    got, _conf, _ = engine_verdict(folder)
                    scen_pairs.append((cause, got))

    n = len(rows)
    acc = sum(r["engine_ok"] for r in rows)
    lab = sum(r["engine"] == r["label"] for r in rows)
    kacc = sum(r["keyword_ok"] for r in rows)
    klab = sum(r["keyword"] == r["label"] for r in rows)
    ranks = [r for r in rows if r["want_rank"] is not None]
    nulls = [r for r in rows if r["want_rank"] is None]
    print(f"real corpus: {n} cases")
    print(f"  engine : acceptable {acc}/{n} ({acc / n:.0%}), label {lab}/{n} ({lab / n:.0%}), "
          f"failing rank {sum(r['rank_ok'] for r in ranks)}/{len(ranks)}, "
          f"no rank where the log names none {sum(r['rank_ok'] for r in nulls)}/{len(nulls)}")
    print(f"  keyword: acceptable {kacc}/{n} ({kacc / n:.0%}), label {klab}/{n} ({klab / n:.0%})")
    # The label counts only where the log can show it: meta.json's log_supports_label says
    # whether an expert could reach the thread's label from the log alone (yes / weak / no).
    for level in (("yes",), ("yes", "weak")):
        sub = [r for r in rows if r["supports"] in level]
        e_lab = sum(r["engine"] == r["label"] for r in sub)
        k_lab = sum(r["keyword"] == r["label"] for r in sub)
        print(f"  label where the log supports it ({' or '.join(level)}): engine {e_lab}/{len(sub)} "
              f"({e_lab / len(sub):.0%}), keyword {k_lab}/{len(sub)} ({k_lab / len(sub):.0%})")
    quiet = sum(r["quiet"] for r in healthy_rows)
    print(f"healthy: {quiet}/{len(healthy_rows)} quiet (nothing above low)")
    if scen_pairs:
        ok = sum(a == b for a, b in scen_pairs)
        print(f"scenarios: {ok}/{len(scen_pairs)} cause right")
    print("\nper cause over real corpus labels (+ scenarios):  engine P/R/F1  |  keyword P/R/F1  | support")
    e = prf(eng_label + scen_pairs)
    k = prf(kw_label + scen_pairs)
    for cause in sorted(set(e) | set(k)):
        ep, er, ef, sup = e.get(cause, (0, 0, 0, 0))
        kp, kr, kf, ksup = k.get(cause, (0, 0, 0, 0))
        print(f"  {cause:30s} {ep:.2f} {er:.2f} {ef:.2f}  |  {kp:.2f} {kr:.2f} {kf:.2f}  | {max(sup, ksup)}")
    misses = [r for r in rows if not r["engine_ok"] or not r["rank_ok"]]
    if misses or args.verbose:
        print("\nmisses:" if misses else "")
        for r in (rows if args.verbose else misses):
            print(f"  {r['case']:28s} got {r['engine']}/{r['confidence']} ({r['rule']}) acceptable {r['acceptable']} "
                  f"rank {r['got_rank']} want {r['want_rank']} | keyword {r['keyword']}")
    for r in healthy_rows:
        if not r["quiet"]:
            print(f"  healthy {r['case']}: {r['engine']}/{r['confidence']}")
    print_calibration("real corpus", rows)
    loso: list[dict[str, Any]] = []
    if not args.no_loso:
        loso = leave_one_source_out(real)
        print_loso(loso, args.verbose)
        print_calibration("leave-one-source-out", loso)
    ablation: list[dict[str, Any]] = []
    if args.ablate:
        ablation = ablate_decisive(real)
        print_ablation(ablation, args.verbose)
    if args.json:
        args.json.write_text(json.dumps({"real": rows, "healthy": healthy_rows, "scenarios": scen_pairs, "loso": loso,
                                         "ablation": ablation},
                                        indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

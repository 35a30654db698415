"""Cause-specific prose lives in the catalog: a rule's finding whose line the catalog reads as the
finding's own cause carries that entry's fix with the line's values filled in; the rule's own
fix is only for what the catalog does not read that way (another cause, a catch-all, no line)."""
from __future__ import annotations

from pathlib import Path

import pytest

from triage.engine import diagnose
from triage.engine.facts import Facts
from triage.engine.model import Event
from triage.engine.rules.signature import BY_ID, catalog_fix
from triage.engine.structured import StructuredDocs

OWN = "the rule's own fix"


def _with_meaning(sig_id: str, groups: dict[str, str] | None = None, device: int | None = None) -> tuple[Facts, Event]:
    sig = BY_ID[sig_id]
    line = Event(kind="parsed", source="rank0.log", line=7, text="...", order=7, device=device)
    meaning = Event(kind="signature", source="rank0.log", line=7, text="...", order=7, device=device,
                    data={"sig": sig.id, "cause": sig.cause, "role": sig.role, "confidence": sig.confidence,
                          "priority": sig.priority, "groups": groups or {}})
    facts = Facts(events=[line, meaning], sources=[], docs=StructuredDocs(), problems=[])
    facts.meaning.setdefault(line.source, {})[line.line] = meaning
    return facts, line


def test_the_catalog_entrys_fix_with_the_lines_values() -> None:
    facts, line = _with_meaning("torch.cuda.oom", {"requested": "564.00 MiB"})
    fix = catalog_fix(facts, line, "oom", OWN)
    assert fix == BY_ID["torch.cuda.oom"].fix.replace("{requested}", "564.00 MiB")


def test_an_unknown_value_stays_a_visible_placeholder() -> None:
    facts, line = _with_meaning("cuda.rt.ecc_uncorrectable", device=None)
    assert "-i <device>" in catalog_fix(facts, line, "hardware_fault", OWN)
    facts, line = _with_meaning("cuda.rt.ecc_uncorrectable", device=3)
    assert "-i 3" in catalog_fix(facts, line, "hardware_fault", OWN)


@pytest.mark.parametrize(("sig_id", "cause"), [
    ("shell.killed", "rank_crash"),  # the catalog reads the line as another cause (the OOM killer)
    ("torch.exc.python_generic", "rank_crash"),  # a catch-all has nothing specific to say
])
def test_the_rules_own_fix_where_the_catalog_says_nothing_specific_of_that_cause(sig_id: str, cause: str) -> None:
    facts, line = _with_meaning(sig_id)
    assert catalog_fix(facts, line, cause, OWN) == OWN


def test_the_rules_own_fix_for_a_line_the_catalog_does_not_know_or_no_line() -> None:
    facts = Facts(events=[], sources=[], docs=StructuredDocs(), problems=[])
    line = Event(kind="parsed", source="rank0.log", line=1, text="...")
    assert catalog_fix(facts, line, "oom", OWN) == OWN
    assert catalog_fix(facts, None, "oom", OWN) == OWN


def test_a_rule_finding_end_to_end_carries_the_filled_catalog_fix(tmp_path: Path) -> None:
    log = tmp_path / "rank1.log"
    log.write_text("[rank1]: " + BY_ID["torch.cuda.oom"].samples[0] + "\n")
    top = diagnose(log).findings[0]
    assert top.rule == "oom.cuda_oom"
    assert top.fix.startswith("The GPU had no room for 564.00 MiB.")


def test_a_fix_fills_the_identity_known_and_words_away_what_is_not() -> None:
    from triage.engine.model import RankInfo
    from triage.engine.rules.signature import fill

    facts = Facts(events=[], sources=[], docs=StructuredDocs(), problems=[])
    facts.ranks[3] = RankInfo(rank=3, host="mycl-g2", pid=2203, device=3)
    line = Event(kind="signature", source="a.log", line=1, text="...", rank=3, data={"groups": {}})
    template = "Process {process} (pid {pid}) crashed on {host}; its rank died:\n$ gdb -p {pid}\n$ nvidia-smi -i {device}"
    # The rank's pid, host and GPU from the rank table; no process name anywhere: worded away.
    assert fill(template, line, facts) == (
        "Process (pid 2203) crashed on mycl-g2; its rank died:\n$ gdb -p 2203\n$ nvidia-smi -i 3")
    alone = Event(kind="signature", source="a.log", line=1, text="...", data={"groups": {}})
    told = fill(template, alone, facts)
    # Nothing known: no '<process>' in prose; a command keeps a visible argument to give it.
    assert told.split("\n")[0] == "Process crashed on its host; its rank died:", told
    assert "<process>" not in told and "<pid>" not in told.split("\n")[0]
    assert told.split("\n")[1:] == ["$ gdb -p <pid>", "$ nvidia-smi -i <device>"]


def test_the_stragglers_py_spy_line_gets_the_lagging_ranks_pid(tmp_path: Path) -> None:
    from triage.engine.rules.collective_timeout_straggler import PY_SPY

    timeout = ("{host}:{pid}:{pid} [{r}] NCCL INFO ncclCommInitRank comm 0x1 rank {r} nranks 2 cudaDev {r} busId {r}1000 "
               "commId 0x1 - Init COMPLETE\n")
    (tmp_path / "a.log").write_text(
        timeout.format(host="node-a", pid=4242, r=0)
        + "[rank0]:[E1202 14:22:07.000000000 ProcessGroupNCCL.cpp:684] [Rank 0] Watchdog caught collective operation "
          "timeout: WorkNCCL(SeqNum=5, OpType=ALLREDUCE, NumelIn=1, NumelOut=1, Timeout(ms)=600000) ran for 600026 "
          "milliseconds before timing out.\n")
    (tmp_path / "b.log").write_text(timeout.format(host="node-b", pid=5151, r=1) + "[rank1]: step 4 done\n")
    d = diagnose(tmp_path).to_dict()
    straggler = next(f for f in d["findings"] if f["cause"] == "collective_timeout_straggler")
    assert straggler["ranks"] == [1], straggler
    assert PY_SPY not in straggler["fix"]
    assert "py-spy dump --pid 5151   # rank 1 on node-b" in straggler["fix"]
    assert all("<pid" not in f["fix"] for f in d["findings"])

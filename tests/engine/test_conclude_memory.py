"""What conclude lets go of before the timeline is drawn, and what the timeline shares: the
diagnosis is the same, and what was let go is not asked for again by mistake."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from triage.engine.facts import build_facts
from triage.engine.parallel import read_state
from triage.engine.pipeline import diagnose

WATCHDOG = (
    "host-{h}:{pid}:{pid} [{d}] NCCL INFO ncclCommInitRank comm 0x55 rank {r} nranks 4 cudaDev {d} nvmlDev {d} "
    "busId {d}8000 commId 0x1 - Init START\n"
    "[rank{r}]:[E1202 14:32:01.123456 ProcessGroupNCCL.cpp:616] [Rank {r}] Watchdog caught collective operation "
    "timeout: WorkNCCL(SeqNum=120, OpType=ALLREDUCE, NumelIn=1000, NumelOut=1000, Timeout(ms)=600000) ran for "
    "600010 milliseconds before timing out.\n"
)


def _bundle(tmp_path: Path) -> Path:
    for r in range(4):
        (tmp_path / f"rank{r}.log").write_text(WATCHDOG.format(h=r // 2, pid=4000 + r, d=r % 2, r=r))
    return tmp_path


def test_released_facts_refuse_the_rules_questions(tmp_path: Path) -> None:
    state = read_state(_bundle(tmp_path), workers=1)
    facts = build_facts(state.collected, state.problems)
    assert facts.kind("nccl_init") and facts.all_last_words()
    facts.release_indexes()
    for ask in (lambda: facts.kind("nccl_init"), lambda: facts.meaning_of(facts.events[0]), facts.all_last_words):
        with pytest.raises(RuntimeError):
            ask()


def test_ranks_ending_alike_share_their_segments_and_print_the_same(tmp_path: Path) -> None:
    d = diagnose(_bundle(tmp_path), workers=1, year=2026)
    rows = d.timeline["ranks"]
    firsts = [row["segments"][0] for row in rows]
    assert len(rows) == 4 and all(s is firsts[0] for s in firsts)
    plain = json.loads(json.dumps(d.to_dict()))
    assert plain["timeline"]["ranks"][0]["segments"] == [dict(s) for s in rows[0]["segments"]]

"""Durations that say what they are: the watchdog's timeout is named as the timeout, and the
hang is measured from the first wait to the last line (never the timeout passed off as the hang)."""
from __future__ import annotations

from pathlib import Path

from triage.engine import diagnose
from triage.engine.model import duration_text


def _timeout(rank: int, when: str = "14:32:01.123456") -> str:
    return (f"[rank{rank}]:[E1202 {when} ProcessGroupNCCL.cpp:616] [Rank {rank}] Watchdog caught collective operation timeout: "
            "WorkNCCL(SeqNum=120, OpType=ALLREDUCE, NumelIn=1000, NumelOut=1000, Timeout(ms)=600000) ran for 600010 "
            "milliseconds before timing out.\n")


def _verdict(tmp_path: Path, files: dict[str, str]) -> dict:
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    findings = diagnose(tmp_path).to_dict()["findings"]
    assert findings[0]["rule"] == "collective_timeout_straggler.timeout", findings[0]
    return findings[0]


def test_a_job_that_hung_for_hours_says_so_and_names_the_timeout(tmp_path: Path) -> None:
    # The collective began 600 s before the watchdog line (14:22:01); the last line is 21:00:00.
    last = "[rank0]:[W1202 21:00:00.000000 ProcessGroupNCCL.cpp:1200] [Rank 0] still waiting to be killed\n"
    verdict = _verdict(tmp_path, {"rank0.log": _timeout(0) + last, "rank1.log": _timeout(1)})
    assert verdict["title"] == "Collective timeout: ALLREDUCE #120 (timeout 600 s, hung 6 h 38 min)"
    assert "the job hung 6 h 38 min from the first wait to the last line" in verdict["detail"]
    assert "after 600 s" not in verdict["title"] + verdict["detail"]


def test_without_times_only_the_timeout_is_given(tmp_path: Path) -> None:
    line = ("[E ProcessGroupNCCL.cpp:587] [Rank {r}] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=7, "
            "OpType=ALLREDUCE, Timeout(ms)=1800000) ran for 1800318 milliseconds before timing out.\n")
    verdict = _verdict(tmp_path, {"rank0.log": line.format(r=0), "rank1.log": line.format(r=1)})
    assert verdict["title"].endswith("(timeout 1800 s)") and "hung" not in verdict["title"]


def test_durations_read_like_a_person_says_them() -> None:
    assert duration_text(0.1) == "0.1 s" and duration_text(2.35) == "2.35 s"
    assert duration_text(75) == "1 min 15 s" and duration_text(3600) == "1 h" and duration_text(25_260) == "7 h 1 min"


def test_a_sub_second_lead_is_kept(tmp_path: Path) -> None:
    fault = ("[rank1]:[E1202 14:22:01.100000 ProcessGroupNCCL.cpp:1414] [PG ID 0 PG GUID 0(default_pg) Rank 1] "
             "Process group watchdog thread terminated with exception: CUDA error: an illegal memory access was encountered\n")
    other = ("[rank0]:[E1202 14:22:01.200000 ProcessGroupNCCL.cpp:1700] [PG ID 0 PG GUID 0(default_pg) Rank 0] Process group "
             "watchdog thread terminated with exception: NCCL error: remote process exited or there was a network error\n")
    (tmp_path / "rank1.log").write_text(fault)
    (tmp_path / "rank0.log").write_text(other)
    timeline = diagnose(tmp_path).to_dict()["timeline"]
    assert timeline["first_failure"]["rank"] == 1
    assert timeline["first_failure"]["label"].endswith("failed at 14:22:01.100000, 0.1 s before the others stopped")

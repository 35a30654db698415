"""Absence as evidence: the rank of the group that did not report what the others did is named,
with NCCL (with and without sequence numbers) and gloo; nobody is named when nothing singles one
rank out."""
from __future__ import annotations

from pathlib import Path

import pytest

from triage.engine import diagnose


def _init(r: int, world: int) -> str:
    return (f"[rank{r}]:node-a:{4200 + r}:{4300 + r} [{r}] NCCL INFO ncclCommInitRank comm 0x55a{r} rank {r} nranks {world} "
            f"cudaDev {r} nvmlDev {r} busId {0x18 + r:x}000 commId 0x1 - Init COMPLETE\n")


def _step(r: int, second: int) -> str:
    return f"[rank{r}]:2026-12-02 14:{second // 60:02d}:{second % 60:02d},100 INFO step 41 loss 2.31\n"


WATCHDOG_SEQ = ("[rank{r}]:[E1202 14:32:01.123456789 ProcessGroupNCCL.cpp:616] [Rank {r}] Watchdog caught collective "
                "operation timeout: WorkNCCL(SeqNum=120, OpType=ALLREDUCE, NumelIn=1000, NumelOut=1000, "
                "Timeout(ms)=600000) ran for 600010 milliseconds before timing out.\n")
# torch 1.x: no sequence number, no process group on the line.
WATCHDOG_OLD = ("[rank{r}]:[E ProcessGroupNCCL.cpp:587] [Rank {r}] Watchdog caught collective operation timeout: "
                "WorkNCCL(OpType=ALLREDUCE, Timeout(ms)=1800000) ran for 1800123 milliseconds before timing out.\n")


def _gloo_failure(r: int, call: str, error: str) -> str:
    return "".join(f"[rank{r}]: {line}\n" for line in (
        "Traceback (most recent call last):",
        '  File "/work/train.py", line 64, in _train',
        f"    dist.{call}(tensor)" if call != "barrier" else "    dist.barrier()",
        '  File "/usr/lib/python3/site-packages/torch/distributed/c10d_logger.py", line 83, in wrapper',
        "    return func(*args, **kwargs)",
        f'  File "/usr/lib/python3/site-packages/torch/distributed/distributed_c10d.py", line 3252, in {call}',
        "    work.wait()",
        f"RuntimeError: {error}",
    ))


GLOO_TIMEOUT = "[/pytorch/third_party/gloo/gloo/transport/tcp/unbound_buffer.cc:78] Timed out waiting 4000ms for recv operation to complete"
GLOO_CLOSED = "[/pytorch/third_party/gloo/gloo/transport/tcp/pair.cc:553] Connection closed by peer [127.0.0.1]:7051"


def _write(tmp_path: Path, text: str) -> dict:
    (tmp_path / "job.log").write_text(text)
    return diagnose(str(tmp_path)).to_dict()


@pytest.mark.parametrize("watchdog", [WATCHDOG_SEQ, WATCHDOG_OLD], ids=["seq", "no-seq"])
@pytest.mark.parametrize("silent", [0, 2, 3])
def test_nccl_the_rank_that_did_not_time_out_is_named(tmp_path: Path, watchdog: str, silent: int) -> None:
    text = "".join(_init(r, 4) for r in range(4)) + "".join(_step(r, 40 + r) for r in range(4))
    text += _step(silent, 50).replace("step 41 loss 2.31", "loading shard 17 from /data")
    text += "".join(watchdog.format(r=r) for r in range(4) if r != silent)
    d = _write(tmp_path, text)
    top = d["findings"][0]
    assert (top["rule"], top["ranks"]) == ("collective_timeout_straggler.laggard", [silent]), top
    ff = d["first_failure"]
    assert ff["rank"] == silent and "loading shard 17" in ff["text"] and ff["time"].endswith("14:00:50.100000")
    assert ff["pid"] == 4200 + silent and ff["host"] == "node-a"
    assert {r["rank"]: r["state"] for r in d["ranks"]}[silent] == "silent"


def test_nobody_is_named_when_every_rank_timed_out(tmp_path: Path) -> None:
    text = "".join(_init(r, 4) for r in range(4)) + "".join(WATCHDOG_OLD.format(r=r) for r in range(4))
    d = _write(tmp_path, text)
    assert d["findings"][0]["rule"] == "collective_timeout_straggler.timeout"
    assert d["findings"][0]["ranks"] == [] and d["first_failure"]["rank"] is None


def test_nobody_is_named_when_half_the_world_is_silent(tmp_path: Path) -> None:
    text = "".join(_init(r, 4) for r in range(4)) + "".join(WATCHDOG_OLD.format(r=r) for r in (0, 1))
    d = _write(tmp_path, text)
    assert d["findings"][0]["rule"] != "collective_timeout_straggler.laggard"
    assert d["first_failure"]["rank"] is None


@pytest.mark.parametrize("own", [GLOO_TIMEOUT, GLOO_CLOSED], ids=["it-timed-out-too", "its-peers-left"])
def test_gloo_the_rank_in_another_collective_is_named(tmp_path: Path, own: str) -> None:
    text = "".join(_step(r, 40 + r) for r in range(3))
    text += _gloo_failure(0, "all_reduce", GLOO_TIMEOUT) + _gloo_failure(2, "all_reduce", GLOO_TIMEOUT)
    text += _gloo_failure(1, "barrier", own)
    d = _write(tmp_path, text)
    top = d["findings"][0]
    assert (top["rule"], top["ranks"]) == ("collective_timeout_straggler.laggard", [1]), top
    assert "barrier() while the others waited in all_reduce()" in top["detail"]


def test_gloo_the_rank_that_stopped_is_named_whatever_its_peers_saw(tmp_path: Path) -> None:
    text = "".join(_step(r, 40 + r) for r in range(4))
    text += _gloo_failure(0, "all_reduce", GLOO_CLOSED) + _gloo_failure(1, "all_reduce", GLOO_TIMEOUT)
    text += _gloo_failure(3, "all_reduce", GLOO_TIMEOUT)
    d = _write(tmp_path, text)
    top = d["findings"][0]
    assert (top["rule"], top["ranks"]) == ("collective_timeout_straggler.laggard", [2]), top
    assert d["first_failure"]["rank"] == 2 and "step 41" in d["first_failure"]["text"]


def _torchrun_root(rank: int, pid: int, *, also: int | None = None) -> str:
    # `also`: another rank in the table's Failures, in the same second as the Root Cause.
    failures = ["  <NO_OTHER_FAILURES>"] if also is None else [
        "[1]:", "  time      : 2026-12-02_14:32:05", "  host      : node-a", f"  rank      : {also} (local_rank: {also})",
        f"  exitcode  : 1 (pid: {pid + also})", "  error_file: <N/A>",
        "  traceback : To enable traceback see: https://pytorch.org/docs/stable/elastic/errors.html"]
    return "\n".join([
        "torch.distributed.elastic.multiprocessing.errors.ChildFailedError: ", "=" * 60, "train.py FAILED", "-" * 60,
        "Failures:", *failures, "-" * 60, "Root Cause (first observed failure):", "[0]:",
        "  time      : 2026-12-02_14:32:05", "  host      : node-a", f"  rank      : {rank} (local_rank: {rank})",
        f"  exitcode  : 1 (pid: {pid})", "  error_file: <N/A>",
        "  traceback : To enable traceback see: https://pytorch.org/docs/stable/elastic/errors.html", "=" * 60, ""])


@pytest.mark.parametrize("first", ["timed_out", "closed", "tied"])
def test_torchruns_first_observed_failure_is_told_whatever_it_printed(tmp_path: Path, first: str) -> None:
    # Rank 2 is stuck; ranks 1 and 3 time out. torchrun saw rank 0 exit first: it had timed out
    # too, or (the CI run under load) printed only that its peer closed the connection, no
    # timeout of its own. The detail says which. (Rank 0 with no line at all is a rank that
    # exited first, code 1: rank_crash.exit, another story.)
    text = "".join(_step(r, 40 + r) for r in range(4))
    text += _gloo_failure(1, "all_reduce", GLOO_TIMEOUT) + _gloo_failure(3, "all_reduce", GLOO_TIMEOUT)
    # "tied": rank 3 failed in the same second as the Root Cause, so the table orders nothing
    # (the CI run of stall-4-2): torchrun still said rank 0, and the detail still answers it.
    if first == "closed":
        text += _gloo_failure(0, "all_reduce", GLOO_CLOSED)
    else:
        text += _gloo_failure(0, "all_reduce", GLOO_TIMEOUT)
    d = _write(tmp_path, text + _torchrun_root(0, 4100, also=3 if first == "tied" else None))
    top = d["findings"][0]
    assert (top["rule"], top["ranks"]) == ("collective_timeout_straggler.laggard", [2]), top
    told = "torchrun's 'first observed failure' is rank 0, which "
    said = {"timed_out": "only timed out waiting", "closed": "printed no timeout, only: ", "tied": "only timed out waiting"}
    assert told + said[first] in top["detail"], top["detail"]
    assert "rank 2 is the one the others waited for" in top["detail"]


DUMP = ("[rank{r}]:[E1213 17:24:49.{ns} ProcessGroupNCCL.cpp:1858] [PG ID 0 PG GUID 0(default_pg) Rank {r}] Received a "
        "{rest}")
STATUS = ("[rank0]:[E1213 17:24:49.082111648 ProcessGroupNCCL.cpp:2241] [PG ID 0 PG GUID 0(default_pg) Rank 0]  failure "
          "detected by watchdog at work sequence id: 716 PG status: last enqueued work: 747, last completed work: 715\n")


def test_a_rank_whose_cut_line_is_printed_where_a_timeout_report_is_is_not_silent(tmp_path: Path) -> None:
    # Rank 1's line is cut after 'Received a': glog's file:line is that of rank 0's dump-signal
    # line, so it printed that message (its own timeout or the signal it was sent): not silent.
    whole = "dump signal due to a collective timeout from this local rank and we will try our best to dump the debug info."
    text = (STATUS + DUMP.format(r=0, ns="328237228", rest=whole) + "\n"
            + DUMP.format(r=1, ns="331433657", rest="").rstrip() + "\n")
    d = _write(tmp_path, text)
    assert d["findings"][0]["cause"] == "collective_timeout_straggler"
    assert d["first_failure"]["rank"] is None
    # Rank 1's last line another message (its step log): silent at the timeout, named by absence.
    d = _write(tmp_path, STATUS + DUMP.format(r=0, ns="328237228", rest=whole) + "\n" + _step(1, 100))
    assert d["first_failure"]["rank"] == 1

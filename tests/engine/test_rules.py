"""Rules on small multi-rank bundles written the way real jobs write them: the culprit is the
rank whose own fault came first, whatever wording or path the fault took to the log."""
from __future__ import annotations

from pathlib import Path

from triage.engine import diagnose

WATCHDOG_TIMEOUT = (
    "[rank{r}]:[E1202 14:32:01.123456789 ProcessGroupNCCL.cpp:616] [Rank {r}] Watchdog caught collective operation timeout: "
    "WorkNCCL(SeqNum=120, OpType=ALLREDUCE, NumelIn=1000, NumelOut=1000, Timeout(ms)=600000) ran for 600010 milliseconds before timing out.\n"
    "[rank{r}]:[E1202 14:32:01.124456789 ProcessGroupNCCL.cpp:1664] [PG ID 0 PG GUID 0(default_pg) Rank {r}] Exception (either an error "
    "or timeout) detected by watchdog at work: 120, last enqueued NCCL work: 120, last completed NCCL work: 119.\n"
)


def watchdog_fault(rank: int, cuda_error: str) -> str:
    return (
        f"[rank{rank}]:[E1202 14:22:01.123456789 ProcessGroupNCCL.cpp:1414] [PG ID 0 PG GUID 0(default_pg) Rank {rank}] "
        f"Process group watchdog thread terminated with exception: CUDA error: {cuda_error}\n"
        "terminate called after throwing an instance of 'c10::DistBackendError'\n"
        f"  what():  [PG ID 0 PG GUID 0(default_pg) Rank {rank}] Process group watchdog thread terminated with exception: CUDA error: {cuda_error}\n"
    )


def bundle(tmp_path: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    return tmp_path


def test_a_kernel_fault_found_by_the_watchdog_is_that_ranks_crash(tmp_path: Path) -> None:
    path = bundle(tmp_path, {
        "rank3.log": watchdog_fault(3, "an illegal memory access was encountered"),
        "rank1.log": WATCHDOG_TIMEOUT.format(r=1),
        "rank0.log": WATCHDOG_TIMEOUT.format(r=0),
    })
    d = diagnose(path).to_dict()
    assert d["findings"][0]["cause"] == "rank_crash"
    assert d["first_failure"]["rank"] == 3
    states = {r["rank"]: r["state"] for r in d["ranks"]}
    assert states[3] == "crashed" and states[1] == "errored"


def test_an_ecc_error_found_by_the_watchdog_is_a_hardware_fault(tmp_path: Path) -> None:
    path = bundle(tmp_path, {
        "rank5.log": watchdog_fault(5, "uncorrectable ECC error encountered"),
        "rank0.log": WATCHDOG_TIMEOUT.format(r=0),
    })
    d = diagnose(path).to_dict()
    assert d["findings"][0]["cause"] == "hardware_fault"
    assert d["first_failure"]["rank"] == 5


def test_nccl_2_30_ib_completion_wording(tmp_path: Path) -> None:
    line = (
        "[2026-05-05 06:16:47] node-b:4242:4300 [2] transport/net_ib/p2p.cc:512 (ncclIbCompletionCheck) NCCL WARN "
        "NET/IB: Got completion from peer 10.0.0.7<51234> with status=IBV_WC_RETRY_EXC_ERR(12) opcode=IBV_WC_RECV(128) "
        "vendor_err=129 localGid ::ffff:10.0.0.8 remoteGid ::ffff:10.0.0.7 hca mlx5_1\n"
    )
    init = (
        "node-b:4242:4280 [2] NCCL INFO ncclCommInitRankConfig comm 0x55a1 rank 10 nranks 16 cudaDev 2 nvmlDev 2 "
        "busId 3b000 commId 0x9f3c1e2d4b5a6978 - Init COMPLETE\n"
    )
    d = diagnose(bundle(tmp_path, {"nccl_node-b_4242.log": init + line})).to_dict()
    verdict = d["findings"][0]
    assert verdict["cause"] == "network" and verdict["rule"] == "network.ib_completion_error"
    assert d["first_failure"]["rank"] == 10 and d["first_failure"]["host"] == "node-b"
    assert d["first_failure"]["time"] == "2026-05-05T06:16:47"


def test_a_raised_timeout_is_called_out_when_a_rank_crashed(tmp_path: Path) -> None:
    slow = WATCHDOG_TIMEOUT.format(r=0).replace("Timeout(ms)=600000", "Timeout(ms)=7200000")
    crash = "[rank2]: Traceback (most recent call last):\n[rank2]:   File \"train.py\", line 9, in <module>\n[rank2]: KeyError: 'labels'\n"
    d = diagnose(bundle(tmp_path, {"rank0.log": slow, "rank2.log": crash})).to_dict()
    assert d["findings"][0]["cause"] == "rank_crash" and d["first_failure"]["rank"] == 2
    assert any("Raising the timeout never fixes a crashed rank" in n for n in d["notes"])


def test_no_nccl_lines_says_what_is_unknown(tmp_path: Path) -> None:
    d = diagnose(bundle(tmp_path, {"train.log": "epoch 1 loss 2.3\nepoch 2 loss 2.1\n"})).to_dict()
    assert d["findings"] == []
    assert any("NCCL_DEBUG=INFO was probably not set" in n for n in d["notes"])

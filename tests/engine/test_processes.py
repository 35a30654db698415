"""One identity record per process (engine/processes.py): each value with where it came from,
and the rank table, the first failure's card and the fix texts saying what the record says."""
from __future__ import annotations

from pathlib import Path

from triage.engine.bundle import Limits
from triage.engine.facts import build_facts
from triage.engine.partial import parse_members
from triage.engine.pipeline import diagnose


def _facts(path: Path):  # type: ignore[no-untyped-def]
    state = parse_members(path, limits=Limits())
    return build_facts(state.collected, state.problems)


def _init(host: str, pid: int, rank: int, dev: int, world: int = 4) -> str:
    return (f"{host}:{pid}:{pid + 7} [{dev}] NCCL INFO ncclCommInitRank comm 0x55a{rank} rank {rank} nranks {world} "
            f"cudaDev {dev} nvmlDev {dev} busId {0x18 + dev:x}000 commId 0x1 - Init COMPLETE\n")


def test_nccl_lines_give_host_pid_device_bus_and_the_local_rank(tmp_path: Path) -> None:
    log = tmp_path / "job.log"
    log.write_text("".join(_init(h, 4200 + r, r, r % 2) for r, h in enumerate(("node-a", "node-a", "node-b", "node-b"))))
    procs = _facts(log).processes
    assert sorted(procs) == [0, 1, 2, 3]
    p = procs[3]
    assert (p.host, p.pid, p.device, p.bus_id, p.local_rank) == ("node-b", 4203, 1, "19000", 1)
    assert p.provenance() == {"rank": "nccl", "host": "nccl", "pid": "nccl", "device": "nccl_init",
                              "bus_id": "nccl_init", "local_rank": "nccl_local"}


def test_torchrun_table_gives_the_pid_and_local_rank_the_lines_do_not(tmp_path: Path) -> None:
    log = tmp_path / "job.log"
    log.write_text("\n".join([
        "[rank4]: RuntimeError: CUDA error: an illegal memory access was encountered",
        "torch.distributed.elastic.multiprocessing.errors.ChildFailedError: ",
        "============================================================",
        "train.py FAILED",
        "------------------------------------------------------------",
        "Failures:",
        "  <NO_OTHER_FAILURES>",
        "------------------------------------------------------------",
        "Root Cause (first observed failure):",
        "[0]:",
        "  time      : 2023-08-01_01:06:47",
        "  host      : node-c",
        "  rank      : 4 (local_rank: 0)",
        "  exitcode  : 1 (pid: 208585)",
        "  error_file: <N/A>",
        "  traceback : To enable traceback see: https://pytorch.org/docs/stable/elastic/errors.html",
        "============================================================",
    ]) + "\n")
    facts = _facts(log)
    p = facts.processes[4]
    assert (p.pid, p.pid_from) == (208585, "launcher_table")
    assert (p.local_rank, p.local_rank_from) == (0, "launcher_table")
    assert facts.ranks[4].pid == 208585  # the rank table reads the record
    d = diagnose(log).to_dict()
    assert d["first_failure"]["rank"] == 4 and d["first_failure"]["pid"] == 208585
    # The card says where its pid came from: not its own line, the launcher's table.
    assert d["first_failure"]["identity_from"]["pid"] == "launcher_table"


def test_nvml_snapshot_gives_the_uuid_of_the_gpu_on_ncclS_bus(tmp_path: Path) -> None:
    import json
    (tmp_path / "rank0.log").write_text(_init("node-a", 4200, 0, 0, world=1))
    (tmp_path / "snapshot.json").write_text(json.dumps({
        "schema": "nccl-triage/snapshot@1", "host": {"hostname": "node-a"},
        "nvml": {"gpus": [{"index": 0, "pci_bus_id": "00000000:18:00.0", "uuid": "GPU-aaaa"},
                          {"index": 1, "pci_bus_id": "00000000:19:00.0", "uuid": "GPU-bbbb"}]}}))
    p = _facts(tmp_path).processes[0]
    assert (p.uuid, p.uuid_from) == ("GPU-aaaa", "nvml")


def test_mpirun_report_gives_the_pid_and_node_of_a_rank_its_lines_name(tmp_path: Path) -> None:
    log = tmp_path / "job.log"
    log.write_text("[1,8]<stderr>:RuntimeError: CUDA error: an illegal memory access was encountered\n"
                   "mpirun noticed that process rank 8 with PID 4242 on node node-b exited on signal 11 "
                   "(Segmentation fault).\n")
    p = _facts(log).processes[8]
    assert (p.pid, p.pid_from, p.host, p.host_from) == (4242, "launcher_report", "node-b", "launcher_report")

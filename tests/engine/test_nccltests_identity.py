"""nccl-tests' own identity: the device table its root rank prints, and the failure trail each
failing process prints (identity nccltests.rank_table / nccltests.failure, parsers/nccltests.py).
The lines are as nccl-tests' src/common.cu, src/util.cu and src/common.h print them."""
from __future__ import annotations

from pathlib import Path

import pytest

from triage.engine import diagnose

HEADER = "# nThread 1 nGpus 1 minBytes 8 maxBytes 134217728 step: 2(factor) warmup iters: 5 iters: 20 validation: 1"
# >= v2.14.1: domain:bus:device; v2.13.4 - v2.14.0: the bus alone; before: no Group column.
NEW = "#  Rank {r:2d} Group  0 Pid {pid:6d} on {host:>10s} device {d:2d} [0000:{bus}:00] NVIDIA H100 80GB HBM3"
OLD = "#   Rank {r:2d} Pid {pid:6d} on {host:>10s} device {d:2d} [0x{bus}] Tesla V100-SXM2-32GB"
# Four processes of one GPU each, two a host (mpirun -np 4 ... -g 1).
PROCS = [(0, 888380, "g0009", 0, "1b"), (1, 888381, "g0009", 1, "29"), (2, 888386, "g0010", 0, "1b"),
         (3, 888387, "g0010", 1, "29")]


def _run(tmp_path: Path, table: str, lines: list[str], procs=PROCS) -> dict:
    rows = [table.format(r=r, pid=pid, host=host, d=d, bus=bus) for r, pid, host, d, bus in procs]
    (tmp_path / "all_reduce_perf.out").write_text("\n".join([HEADER, "#", "# Using devices", *rows, *lines]) + "\n")
    return diagnose(tmp_path).to_dict()


def test_the_table_lists_every_rank_with_its_process_gpu_and_pci_address(tmp_path):
    d = _run(tmp_path, NEW, ["#       size         count      type   redop    root     time   algbw   busbw #wrong"])
    ranks = {r["rank"]: (r["host"], r["pid"], r["device"]) for r in d["ranks"]}
    assert ranks == {r: (host, pid, dev) for r, pid, host, dev, _bus in PROCS}
    assert d["findings"] == [] and d["first_failure"] is None


@pytest.mark.parametrize("table", [NEW, OLD], ids=["v2.14.1+", "before"])
def test_a_failed_call_and_its_trail_name_the_process_and_so_the_rank(tmp_path, table):
    d = _run(tmp_path, table, ["g0010: Test CUDA failure common.cu:941 'invalid device ordinal'",
                               " .. g0010 pid 888386: Test failure common.cu:891",
                               " .. g0010 pid 888386: Test failure all_reduce.cu:90"])
    ff = d["first_failure"]
    assert (d["findings"][0]["cause"], ff["rank"], ff["host"], ff["pid"], ff["device"]) == (
        "device_ordinal", 2, "g0010", 888386, 0)
    assert ff["identity_from"]["device"] == "nccl_tests"


def test_the_bus_of_the_new_table_form_is_the_ranks(tmp_path):
    d = _run(tmp_path, NEW, ["g0010:888387:888400 [1] transport/net_ib.cc:839 NCCL WARN NET/IB : Got completion "
                             "with error 12, opcode 1, len 0, vendor err 129"])
    ff = d["first_failure"]
    assert (ff["rank"], ff["device"], ff["bus_id"]) == (3, 1, "0000:29:00")


def test_the_old_form_names_no_bus(tmp_path):
    d = _run(tmp_path, OLD, ["g0010:888387:888400 [1] transport/net_ib.cc:839 NCCL WARN NET/IB : Got completion "
                             "with error 12, opcode 1, len 0, vendor err 129"])
    ff = d["first_failure"]
    assert (ff["rank"], ff["device"], ff["bus_id"]) == (3, 1, None)


def test_the_gpu_of_a_process_with_several_names_its_rank(tmp_path):
    # One process driving four GPUs (-g 4): its pid is every rank's; NCCL's '[dev]' tells them apart.
    procs = [(r, 15833, "node-a", r, f"{0x1b + r:02x}") for r in range(4)]
    d = _run(tmp_path, NEW, ["node-a:15833:15900 [2] enqueue.cc:1560 NCCL WARN Cuda failure 'an illegal memory "
                             "access was encountered'"], procs)
    assert (d["first_failure"]["rank"], d["first_failure"]["device"]) == (2, 2)


def test_a_failure_naming_only_a_host_of_several_ranks_names_no_rank(tmp_path):
    procs = [(r, 15833, "node-a", r, f"{0x1b + r:02x}") for r in range(4)]
    d = _run(tmp_path, NEW, ["node-a: Test NCCL failure common.cu:777 'unhandled system error'",
                             " .. node-a pid 15833: Test failure common.cu:891"], procs)
    ff = d["first_failure"]
    assert (ff["host"], ff["pid"], ff["rank"]) == ("node-a", 15833, None)


def test_the_same_message_on_two_ranks_with_no_time_names_neither(tmp_path):
    # Every GPU of the run prints NCCL's shared-memory complaint: file order is not failure order.
    procs = [(0, 4766, "GENOA-06", 0, "21"), (1, 4766, "GENOA-06", 1, "61")]
    d = _run(tmp_path, NEW, ["GENOA-06:4766:4780 [0] NCCL INFO ncclMaxSharedMem 82240 exceeds device/fn "
                             "maxSharedMem 79856",
                             "GENOA-06:4766:4781 [1] NCCL INFO ncclMaxSharedMem 82240 exceeds device/fn "
                             "maxSharedMem 79856"], procs)
    assert d["findings"][0]["cause"] == "version_mismatch"
    assert d["first_failure"]["rank"] is None
    assert "followed it" not in d["summary"]

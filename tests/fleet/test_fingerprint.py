"""The fingerprint, on diagnosis JSON as the engine stores it (no database, no engine run)."""
from __future__ import annotations

import copy
import dataclasses
from typing import Any

import pytest

from triage.engine.signatures import BY_ID, CATALOG
from triage.engine.signatures import cause as traits
from triage.fleet import fingerprint
from triage.fleet.fingerprint import fingerprint_of, job_family, normalise_message

XID = "[1827565.535076] NVRM: Xid (PCI:0000:5d:00): 79, pid=383662, name=python, GPU has fallen off the bus."


def diagnosis(*, cause: str = "hardware_fault", rule: str = "hardware_fault.xid", host: str = "node-b",
              text: str = XID, rank: int | None = 7, device: int | None = 3, evidence: list[str] | None = None,
              snapshot_gpus: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    snapshots = []
    if snapshot_gpus is not None:
        snapshots = [{"host": {"hostname": host}, "nvml": {"gpus": snapshot_gpus}}]
    return {
        "schema": "nccl-triage/diagnosis@1",
        "findings": [{"cause": cause, "rule": rule, "confidence": "high", "title": "t", "detail": "", "fix": "",
                      "ranks": [rank] if rank is not None else [], "hosts": [host],
                      "evidence": [{"source": "s", "line": 1, "text": t} for t in (evidence or [text])]}],
        "first_failure": {"rank": rank, "host": host, "time": None, "source": "s", "line": 1, "text": text},
        "ranks": [{"rank": rank, "host": host, "device": device}] if rank is not None else [],
        "snapshots": snapshots,
    }


GPU3 = {"index": 3, "uuid": "GPU-aaaa-3", "pci_bus_id": "00000000:5D:00.0"}
GPU4 = {"index": 4, "uuid": "GPU-aaaa-4", "pci_bus_id": "00000000:9A:00.0"}


def test_the_same_fault_with_other_pids_times_and_ids_has_the_same_fingerprint() -> None:
    again = XID.replace("1827565.535076", "99.5").replace("383662", "12")
    first, second = fingerprint_of(diagnosis(text=XID)), fingerprint_of(diagnosis(text=again))
    assert first is not None and second is not None
    assert first.key == second.key
    assert first.family.startswith("Xid 79: ") and "383662" not in first.family


def test_another_xid_another_host_or_another_gpu_is_another_problem() -> None:
    base = fingerprint_of(diagnosis(snapshot_gpus=[GPU3, GPU4]))
    other_xid = fingerprint_of(diagnosis(text=XID.replace("): 79,", "): 48,"), snapshot_gpus=[GPU3, GPU4]))
    other_host = fingerprint_of(diagnosis(host="node-c", snapshot_gpus=[GPU3, GPU4]))
    other_gpu = fingerprint_of(diagnosis(text=XID.replace("5d:00", "9a:00"), snapshot_gpus=[GPU3, GPU4]))
    keys = {fp.key for fp in (base, other_xid, other_host, other_gpu) if fp is not None}
    assert len(keys) == 4


def test_the_gpu_is_its_uuid_from_the_snapshot_else_its_pci_bus_else_its_index() -> None:
    with_snapshot = fingerprint_of(diagnosis(snapshot_gpus=[GPU4, GPU3]))
    assert with_snapshot is not None and with_snapshot.gpu == "uuid:GPU-aaaa-3"
    assert with_snapshot.gpu_label == "GPU 3 (5d:00, GPU-aaaa-3)"
    no_snapshot = fingerprint_of(diagnosis())
    assert no_snapshot is not None and no_snapshot.gpu == "pci:5d:00"
    no_bus = fingerprint_of(diagnosis(cause="rank_crash", rule="rank_crash.signal",
                                      text="Fatal Python error: Segmentation fault"))
    assert no_bus is not None and no_bus.gpu == "dev:3"


def test_a_signature_id_in_the_verdict_is_the_message_family() -> None:
    fp = fingerprint_of(diagnosis(cause="network", rule="signature.nccl.ib.completion_error",
                                  text="node-b:1:2 [0] NCCL WARN NET/IB : Got completion from peer with status=12 hca mlx5_1"))
    assert fp is not None and fp.family == "signature.nccl.ib.completion_error"
    assert fp.nic == "mlx5_1" and fp.transport == "IB" and fp.machine_fault


def test_hosts_and_numbers_leave_the_family() -> None:
    line = "[2026-05-17 15:29:38] node-b:383662:383700 [3] NCCL WARN Cuda failure 'out of memory' at 0x7f3a, 2.5 GiB on node-b"
    assert normalise_message(line, hosts=["node-b"]) == "NCCL WARN Cuda failure 'out of memory' at <hex>, <size> on <host>"


def test_only_faults_of_the_machine_count_towards_drain() -> None:
    oom = fingerprint_of(diagnosis(cause="oom", rule="oom.cuda_oom", text="torch.OutOfMemoryError: CUDA out of memory."))
    exception = fingerprint_of(diagnosis(cause="rank_crash", rule="rank_crash.exception", text="KeyError: 'input_ids'"))
    segfault = fingerprint_of(diagnosis(cause="rank_crash", rule="rank_crash.signal",
                                        text="Signal 11 (SIGSEGV) received by PID 4242"))
    config_network = fingerprint_of(diagnosis(cause="network", rule="network.socket",
                                              text="socketStartConnect: Connect to 10.0.0.2<4242> failed : Connection refused"))
    xid = fingerprint_of(diagnosis())
    assert [fp.machine_fault for fp in (oom, exception, segfault, config_network, xid) if fp] == [False, False, True, False, True]


SEVERE = [sig for sig in CATALOG if sig.severity != "none" and sig.cause is not None and not traits(sig.cause).machine]


@pytest.mark.parametrize("sig", SEVERE, ids=[sig.id for sig in SEVERE])
def test_the_drain_decision_reads_the_entrys_severity(sig: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """A verdict of a cause the catalog does not count against the machine (the network, a crash)
    counts toward draining the host exactly where its entry sets a severity (a NIC named where the
    cause is placed by NIC), and not once the entry's severity is `none`."""
    data = diagnosis(cause=sig.cause, rule=f"signature.{sig.id}", text=sig.samples[0],
                     evidence=[sig.samples[0], "port mlx5_0:1"])
    fp = fingerprint_of(data)
    assert fp is not None and fp.machine_fault, sig.id
    assert fp.machine_reason.startswith(sig.title)
    monkeypatch.setitem(BY_ID, sig.id, dataclasses.replace(sig, severity="none"))
    monkeypatch.setattr(fingerprint, "matcher", lambda: _ReadsNothing())  # the verdict's own entry alone
    again = fingerprint_of(data)
    assert again is not None and not again.machine_fault, sig.id


class _ReadsNothing:
    def best(self, text: str) -> None:
        return None


def test_no_verdict_no_fingerprint() -> None:
    data = diagnosis()
    data["findings"] = []
    assert fingerprint_of(data) is None
    assert fingerprint_of(copy.deepcopy({"findings": [None]})) is None


def test_a_job_family_drops_its_array_and_attempt_suffix() -> None:
    assert job_family("4411_3") == job_family("4411_7") == "4411"
    assert job_family("pretrain.attempt-2") == job_family("pretrain.attempt-3") == "pretrain"
    assert job_family("pretrain-70b") == "pretrain-70b"

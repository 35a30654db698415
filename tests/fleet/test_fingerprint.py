"""The fingerprint, on diagnosis JSON as the engine stores it (no database, no engine run)."""
from __future__ import annotations

import copy
import dataclasses
from typing import Any

import pytest

from triage.engine.signatures import BY_ID, CATALOG
from triage.engine.signatures import cause as traits
from triage.engine.signatures.matcher import Match, matcher
from triage.engine.signatures.schema import SEVERITIES
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
                                  text="node-b:1:2 [0] NCCL WARN NET/IB : Got completion from peer 10.0.0.2<40000> with status=12 opcode=0 len=0 vendor err 129 (Recv) hca mlx5_1"))
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
# A line that names the NIC through its entry's groups and says nothing of the node itself
# (severity none): where a network verdict's own line names no NIC, the evidence places it.
NIC_LINE = next(s for sig in CATALOG if sig.cause == "network" and sig.severity == "none" for s in sig.samples
                if (found := matcher().best(s)) is not None and found.sig is sig and found.groups.get("hca"))


@pytest.mark.parametrize("sig", SEVERE, ids=[sig.id for sig in SEVERE])
def test_the_drain_decision_reads_the_entrys_severity(sig: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """A verdict of a cause the catalog does not count against the machine (the network, a crash)
    counts toward draining the host exactly where its entry sets a severity (a NIC named, by an
    entry's groups, where the cause is placed by NIC), and not once the entry's severity is `none`."""
    data = diagnosis(cause=sig.cause, rule=f"signature.{sig.id}", text=sig.samples[0],
                     evidence=[sig.samples[0], NIC_LINE])
    fp = fingerprint_of(data)
    assert fp is not None and fp.machine_fault and fp.severity == sig.severity, sig.id
    assert fp.machine_reason.startswith(sig.title)
    monkeypatch.setitem(BY_ID, sig.id, dataclasses.replace(sig, severity="none"))
    monkeypatch.setattr(fingerprint, "matcher", _Unsevered)  # and every entry reading its lines
    again = fingerprint_of(data)
    assert again is not None and not again.machine_fault and again.severity == "", sig.id
    assert again.nic == fp.nic  # the same groups read: only the severity went


class _Unsevered:
    """The catalog's matcher, every entry's severity set to none."""

    def best(self, text: str) -> Match | None:
        found = matcher().best(text)
        return None if found is None else Match(dataclasses.replace(found.sig, severity="none"), found.groups)


def test_no_verdict_no_fingerprint() -> None:
    data = diagnosis()
    data["findings"] = []
    assert fingerprint_of(data) is None
    assert fingerprint_of(copy.deepcopy({"findings": [None]})) is None


def test_a_job_family_drops_its_array_and_attempt_suffix() -> None:
    assert job_family("4411_3") == job_family("4411_7") == "4411"
    assert job_family("pretrain.attempt-2") == job_family("pretrain.attempt-3") == "pretrain"
    assert job_family("pretrain-70b") == "pretrain-70b"


def xid_line(code: int, *, bus: str = "5d", pid: int = 383662, words: str = "") -> str:
    """The kernel's Xid record (kernel_rc.c's format), as dmesg prints it."""
    return f"[1827565.535076] NVRM: Xid (PCI:0000:{bus}:00): {code}, pid={pid}, name=python, {words}".rstrip(", ")


@pytest.mark.parametrize(("code", "entry", "severity"), [
    (94, "xid.contained_error", ""),  # DCGM: application-contained, monitor only
    (79, "xid.fallen_off_bus", "drain"),  # DCGM_FR_FALLEN_OFF_BUS -> DCGM_ERROR_ISOLATE
    (48, "xid.ecc_dbe", "drain"),
    (63, "xid.page_retirement_event", "reset"),  # DCGM_ERROR_RESET
    (64, "xid.page_retirement_failure", "reset"),
])
def test_an_xid_counts_as_its_entry_says(code: int, entry: str, severity: str) -> None:
    """Every Xid is a fault of the machine seen (hardware_fault's trait `machine`); only those whose
    entry sets `severity` count toward drain or reset, and the code is the entry's `xid` group."""
    line = xid_line(code, words="Contained: SM (0x1). RST: No, D-RST: No" if code == 94 else "")
    found = matcher().best(line)
    assert found is not None and found.sig.id == entry and BY_ID[entry].severity == (severity or "none")
    fp = fingerprint_of(diagnosis(text=line))
    assert fp is not None and fp.machine_fault
    assert (fp.severity, fp.xid, fp.machine_reason, fp.pci) == (severity, code, f"Xid {code}", "5d:00")


def test_the_xid_code_is_the_entrys_and_the_bus_its_group() -> None:
    """"Xid 45 ... caused by previous Xid 149": the catalog reads the line as the Xid 149 entry
    (its one code), whichever number the line prints first; the bus is the entry's `bus_id`."""
    line = "kernel: NVRM: Xid (PCI:0000:dc:00): 45, pid=1818990, name=python3, Ch 00000001 caused by previous Xid 149"
    found = matcher().best(line)
    assert found is not None and found.sig.codes == (149,)
    for rule in ("signature.xid.nvlink_netir", "hardware_fault.xid"):
        fp = fingerprint_of(diagnosis(rule=rule, text=line))
        assert fp is not None and (fp.xid, fp.machine_reason, fp.pci) == (149, "Xid 149", "dc:00"), rule
    assert normalise_message(line).startswith("Xid 149: ")


def test_the_gpu_bus_the_engine_gives_comes_first_in_any_of_its_forms() -> None:
    for bus in ("5d000", "0000:5d:00.0", "00000000:5D:00.0"):
        data = diagnosis(text="torch.AcceleratorError: CUDA error: unspecified launch failure")
        data["first_failure"]["bus_id"] = bus
        fp = fingerprint_of(data)
        assert fp is not None and fp.pci == "5d:00", bus


@pytest.mark.parametrize(("line", "nic"), [
    ("node-b:1:2 [0] NCCL WARN NET/IB : mlx5_1:1 Got async error event: port error", "mlx5_1:1"),
    ("[ 9001.1] mlx5_ib: mlx5_0 port 1 state changed to DOWN", "mlx5_0:1"),
    ("[1.1] [node-b:1:0] ib_mlx5_log.c:171 UCX ERROR Remote access error on mlx5_2:1/IB (synd 0x13 vend 0x88)",
     "mlx5_2:1"),
    ("[ 9001.1] mlx5_core 0000:3b:00.0 ib0: Link down", "ib0"),
])
def test_the_nic_is_the_entrys_group(line: str, nic: str) -> None:
    found = matcher().best(line)
    assert found is not None and found.sig.cause == "network"
    fp = fingerprint_of(diagnosis(cause="network", rule=f"signature.{found.sig.id}", text=line))
    assert fp is not None and fp.nic == nic and fp.machine_fault and fp.severity == "drain"


def test_a_network_fault_placed_on_no_nic_is_not_the_machines() -> None:
    line = "node1:24141:24296 [2] transport/net_ib.cc:978 NCCL WARN NET/IB : Got completion from peer 10.0.0.2<40000> with error 12, opcode 0, len 0, vendor err 129 (Recv)"
    fp = fingerprint_of(diagnosis(cause="network", rule="signature.nccl.ib.completion_error", text=line))
    assert fp is not None and fp.nic == "" and not fp.machine_fault and fp.severity == ""


def test_the_fleet_names_the_catalogs_severities() -> None:
    assert set(SEVERITIES) == {fingerprint.DRAIN, fingerprint.RESET, fingerprint.NO_SEVERITY}
    assert fingerprint.NODE_SEVERITIES == ("drain", "reset")  # most severe first

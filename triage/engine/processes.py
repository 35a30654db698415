"""One identity record per process: rank, local rank, host, pid, GPU and PCI bus, each with
where it came from.

The record of a rank is made once, while the facts are built (facts._rank_table), from every
source the bundle has, in this order (a value is taken from the first source that gives it,
except NCCL's device and bus, which its world communicator's init line sets):

- NCCL's own lines (`host:pid:tid [dev]` prefixes and the init line of the world communicator,
  proxy and transport lines: facts._identify), `nccl`;
- the init line's `cudaDev` and `busId`, `nccl_init`;
- nccl-tests' device table (`#  Rank N Group G Pid P on HOST device D [BDF] NAME`, printed by
  its root rank for every rank: host, pid, CUDA device and, from v2.14.1, the PCI address),
  `nccl_tests`;
- the lines the rank printed (a launcher prefix `[rankN]:` / `[defaultN]:`, a file a manifest
  or a name gives a rank, ProcessGroupNCCL's `[Rank N]`), `log`;
- the launcher's tables: torchrun's failure table (local rank, pid), mpirun's and Hydra's exit
  reports (pid, host: the catalog's `culprit_rank` with `pid`), `launcher_table` /
  `launcher_report`;
- the collector manifest (a file's pid), `manifest`;
- the local rank from NCCL's `cudaDev` where it is the local rank on that host for every known
  process, `nccl_local`;
- the NVML snapshot of the host: the GPU's UUID where its PCI bus is the one NCCL names, `nvml`;
- what the first failure's line says of its process where nothing else did (its host:pid
  prefix, the launcher's line about its worker: verdict.set_rank_states), `first_failure`.

Kernel lines (Xid, NVRM) name a GPU by its PCI bus and sometimes a pid: they are joined to the
process on that bus of that host (facts._add_structured_events), and read no identity of their
own. The record is the compact per-process state the rank table (`facts.ranks`), the first
failure's card, the timeline, the fix texts and the fleet's GPU (through the diagnosis) read.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

# Where a value came from (the `*_from` fields): a short name, described in the module's text.
NCCL, NCCL_INIT, NCCL_TESTS, LOG, LAUNCHER_TABLE, LAUNCHER_REPORT, MANIFEST, NCCL_LOCAL, NVML, FIRST_FAILURE = (
    "nccl", "nccl_init", "nccl_tests", "log", "launcher_table", "launcher_report", "manifest", "nccl_local", "nvml",
    "first_failure")
FIELDS = ("rank", "local_rank", "host", "pid", "device", "bus_id", "uuid")


@dataclass(slots=True)
class Process:
    rank: int
    rank_from: str = LOG
    local_rank: int | None = None
    local_rank_from: str | None = None
    host: str | None = None
    host_from: str | None = None
    pid: int | None = None
    pid_from: str | None = None
    device: int | None = None
    device_from: str | None = None
    bus_id: str | None = None  # as the source wrote it (NCCL's busId '3b000')
    bus_from: str | None = None
    uuid: str | None = None
    uuid_from: str | None = None

    def offer(self, name: str, value: Any, how: str) -> None:
        """`value` for field `name` unless the record knows it already."""
        if value is not None and getattr(self, name) is None:
            setattr(self, name, value)
            setattr(self, _FROM[name], how)

    def set(self, name: str, value: Any, how: str) -> None:
        setattr(self, name, value)
        setattr(self, _FROM[name], how)

    def provenance(self) -> dict[str, str]:
        """Field -> where its value came from, for the fields known."""
        out = {"rank": self.rank_from}
        for name in FIELDS[1:]:
            if getattr(self, name) is not None:
                out[name] = getattr(self, _FROM[name])
        return out


_FROM = {name: ("bus_from" if name == "bus_id" else f"{name}_from") for name in FIELDS}


class Processes(dict[int, Process]):
    """rank -> its record."""

    def of(self, rank: int, how: str = LOG) -> Process:
        proc = self.get(rank)
        if proc is None:
            proc = self[rank] = Process(rank=rank, rank_from=how)
        return proc


def nvml_uuids(procs: Processes, snapshots: list[tuple[str, dict[str, Any]]], bus_key: Any, short_host: Any) -> None:
    """The GPU's UUID from its host's NVML snapshot, where the snapshot's GPU is on the PCI bus
    NCCL names for the process (never by index: CUDA_VISIBLE_DEVICES renumbers the devices)."""
    by_host: dict[str, dict[str, str]] = {}
    for _name, doc in snapshots:
        host = short_host((doc.get("host") or {}).get("hostname"))
        gpus = (doc.get("nvml") or {}).get("gpus") or []
        for gpu in gpus:
            if isinstance(gpu, dict) and gpu.get("uuid") and isinstance(gpu.get("pci_bus_id"), str):
                try:
                    by_host.setdefault(host or "", {})[bus_key(gpu["pci_bus_id"])] = str(gpu["uuid"])
                except ValueError:
                    continue
    if not by_host:
        return
    for proc in procs.values():
        if proc.host and proc.bus_id and proc.host in by_host:
            try:
                proc.offer("uuid", by_host[proc.host].get(bus_key(proc.bus_id)), NVML)
            except ValueError:
                continue

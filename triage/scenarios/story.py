"""Collects what each process, launcher and kernel printed, then writes the bundle.

Lines are added with the job time (seconds since start) at which they were printed; files are
written in that order, so a rank's file reads the way the process printed it. Texts carry their
own timestamps (or none), as the real formats do.
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from itertools import count
from pathlib import Path
from typing import Any

from . import formats as F
from .cluster import Host, Job, Rank

BENIGN_DMESG = (
    "nvidia: loading out-of-tree module taints kernel.",
    "nvidia-nvlink: Nvlink Core is being initialized, major device number 511",
    "NVRM: loading NVIDIA UNIX x86_64 Kernel Module  {driver}  Release Build  (dvs-builder@U16-I3-B03-4-3)",
    "nvidia-modeset: Loading NVIDIA Kernel Mode Setting Driver for UNIX platforms  {driver}",
)


@dataclass
class Exit:
    t: float
    code: int


@dataclass
class Story:
    job: Job
    out: dict[int, list[tuple[float, int, str]]] = field(default_factory=dict)
    nccl_file: dict[int, list[tuple[float, int, str]]] = field(default_factory=dict)
    agent: dict[str, list[tuple[float, int, str]]] = field(default_factory=dict)
    kernel: dict[str, list[tuple[float, int, str]]] = field(default_factory=dict)
    exits: dict[int, Exit] = field(default_factory=dict)
    error_files: dict[int, dict[str, Any]] = field(default_factory=dict)
    nvml: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    shm: dict[str, tuple[int, int]] = field(default_factory=dict)  # host -> (size, free)
    env: dict[str, dict[str, str]] = field(default_factory=dict)
    xids: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    ib_state: dict[str, str] = field(default_factory=dict)  # host -> state of its first HCA port
    gpu_ecc: dict[int, int] = field(default_factory=dict)  # rank -> uncorrected volatile count
    device_count: dict[str, int] = field(default_factory=dict)
    nccl_debug: bool = True  # False: NCCL_DEBUG was not set for this job
    _order: count[int] = field(default_factory=count)

    # ------------------------------------------------------------ adding lines
    def at(self, t: float) -> datetime:
        return self.job.at(t)

    def say(self, r: Rank, t: float, *lines: str) -> None:
        """What the process wrote to stdout/stderr."""
        bucket = self.out.setdefault(r.rank, [])
        for text in lines:
            # A message with embedded newlines is printed as several lines (and torchrun's tee
            # prefixes each of them).
            for line in text.split("\n"):
                bucket.append((t, next(self._order), line))

    def nccl(self, r: Rank, t: float, *lines: str) -> None:
        """NCCL debug output: its own file with NCCL_DEBUG_FILE, else the process's stdout."""
        if self.job.layout == "debug_file":
            bucket = self.nccl_file.setdefault(r.rank, [])
            for line in lines:
                bucket.append((t, next(self._order), line))
        else:
            self.say(r, t, *lines)

    def agent_say(self, host: Host, t: float, *lines: str) -> None:
        bucket = self.agent.setdefault(host.name, [])
        for line in lines:
            bucket.append((t, next(self._order), line))

    def kernel_say(self, host: Host, t: float, msg: str) -> None:
        self.kernel.setdefault(host.name, []).append((t, next(self._order), F.dmesg(host, self.at(t), msg)))

    def exit(self, r: Rank, t: float, code: int) -> None:
        if r.rank not in self.exits:
            self.exits[r.rank] = Exit(t, code)

    def alive(self, r: Rank, t: float) -> bool:
        e = self.exits.get(r.rank)
        return e is None or e.t > t

    def error_file(self, r: Rank, t: float, message: str, callstack: str) -> None:
        self.error_files[r.rank] = {"message": {"message": message, "extraInfo": {
            "py_callstack": callstack, "timestamp": str(int(self.at(t).timestamp()))}}}

    # ------------------------------------------------------------ writing
    def write(self, out_dir: Path, name: str, expected: dict[str, Any]) -> Path:
        bundle = Path(out_dir) / name
        bundle.mkdir(parents=True, exist_ok=True)
        self._cut_at_exit()
        for host in self.job.hosts:
            self._write_host(bundle, host)
        (bundle / "expected.json").write_text(json.dumps(expected, indent=2) + "\n", encoding="utf-8")
        return bundle

    def _cut_at_exit(self) -> None:
        """A process killed at t printed nothing after t."""
        for streams in (self.out, self.nccl_file):
            for rank, lines in streams.items():
                e = self.exits.get(rank)
                if e is not None:
                    streams[rank] = [x for x in lines if x[0] <= e.t]
        for rank in list(self.error_files):
            e = self.exits.get(rank)
            ts = int(self.error_files[rank]["message"]["extraInfo"]["timestamp"])
            if e is not None and ts > self.at(e.t).timestamp():
                del self.error_files[rank]

    def _write_host(self, bundle: Path, host: Host) -> None:
        d = bundle / host.name
        d.mkdir(parents=True, exist_ok=True)
        files: list[dict[str, Any]] = []
        agent = self.agent.get(host.name, [])
        if self.job.layout == "rank_logs":
            for r in host.ranks:
                if r.rank in self.out:
                    _write_lines(d / f"rank{r.rank}.log", self.out[r.rank])
                    files.append({"path": f"rank{r.rank}.log", "kind": "log", "rank": r.rank,
                                  "local_rank": r.local_rank, "pid": r.pid})
            if agent:
                _write_lines(d / "torchrun.log", agent)
                files.append({"path": "torchrun.log", "kind": "log"})
        else:
            merged = list(agent)
            for r in host.ranks:
                # torchrun --tee 3 prefixes every worker line with [<role><local_rank>]:
                merged += [(t, o, f"[default{r.local_rank}]:{line}") for t, o, line in self.out.get(r.rank, [])]
                if r.rank in self.nccl_file:
                    fname = f"nccl_{host.name}_{r.pid}.log"
                    _write_lines(d / fname, self.nccl_file[r.rank])
                    files.append({"path": fname, "kind": "nccl_debug", "rank": r.rank, "pid": r.pid})
            if merged:
                _write_lines(d / "torchrun.log", merged)
                files.append({"path": "torchrun.log", "kind": "log"})
        for r in host.ranks:
            if r.rank in self.error_files:
                (d / "elastic").mkdir(exist_ok=True)
                (d / "elastic" / f"error-{r.rank}.json").write_text(json.dumps(self.error_files[r.rank]), encoding="utf-8")
                files.append({"path": f"elastic/error-{r.rank}.json", "kind": "elastic_error", "rank": r.rank})
        boot = [(-1e9, i, F.dmesg(host, host.boot_time + timedelta(seconds=3.2 + i * 0.41),
                                  text.format(driver=host.driver))) for i, text in enumerate(BENIGN_DMESG)]
        _write_lines(d / "dmesg.txt", boot + self.kernel.get(host.name, []))
        files.append({"path": "dmesg.txt", "kind": "kernel_log"})
        if self.nvml.get(host.name):
            with (d / "nvml-samples.jsonl").open("w", encoding="utf-8") as fh:
                for sample in self.nvml[host.name]:
                    fh.write(json.dumps(sample) + "\n")
            files.append({"path": "nvml-samples.jsonl", "kind": "nvml_samples"})
        (d / "snapshot.json").write_text(json.dumps(self._snapshot(host), indent=2) + "\n", encoding="utf-8")
        files.append({"path": "snapshot.json", "kind": "snapshot"})
        end = self._end_time()
        manifest = {"schema": "nccl-triage/manifest@1", "job": self.job.job_id, "host": host.name,
                    "created_at": _z(end + timedelta(seconds=20)),
                    "collector": "nccl-triage-collectors 1.0", "files": files}
        (d / "manifest.json").write_text(json.dumps(manifest, indent=2) + "\n", encoding="utf-8")

    def _end_time(self) -> datetime:
        last = max((t for lines in (*self.out.values(), *self.agent.values()) for t, _, _ in lines), default=0.0)
        return self.at(last)

    def _snapshot(self, host: Host) -> dict[str, Any]:
        job = self.job
        size, free = self.shm.get(host.name, (68719476736 // 2, 34359738368 // 2 - 2**28))
        by_bus = {r.bus: r for r in host.ranks}
        gpus = []
        for i, bus in enumerate(host.gpu_buses):
            r = by_bus.get(bus)
            unc = self.gpu_ecc.get(r.rank, 0) if r else 0
            gpus.append({
                "index": i, "name": job.gpu_name, "uuid": f"GPU-{job.seed:04x}{host.index:02x}{i:02x}-6e1c-4f0a-9b7d-{bus:012x}",
                "pci_bus_id": f"00000000:{bus:02X}:00.0", "utilization_gpu": 0, "utilization_memory": 0,
                "memory_used": 4, "memory_total": job.gpu_mem, "temperature": 34 + i, "power_w": 71.5 + i,
                "clocks": {"sm": 345, "mem": 2619}, "throttle_reasons": ["GpuIdle"],
                "ecc": {"mode_current": True, "corrected_volatile": 0, "uncorrected_volatile": unc,
                        "corrected_aggregate": 2, "uncorrected_aggregate": unc},
                "remapped_rows": {"correctable": 0, "uncorrectable": 1 if unc else 0, "pending": bool(unc), "failure": False},
                "retired_pages": None,
                "nvlink": [{"link": k, "active": True, "errors": {"replay": 0, "recovery": 0, "crc_flit": 0, "crc_data": 0}} for k in range(2)],
                "pcie_replay_counter": 0, "processes": [],
            })
        env = {"CUDA_VISIBLE_DEVICES": ",".join(str(i) for i in range(len(host.gpu_buses))),
               "NCCL_DEBUG": "INFO", "NCCL_SOCKET_IFNAME": "eth0", "MASTER_ADDR": job.hosts[0].ip,
               "MASTER_PORT": "29500", "WANDB_API_KEY": "[redacted]"}
        if job.layout == "debug_file" and self.nccl_debug:
            env["NCCL_DEBUG_FILE"] = "/var/log/nccl/nccl_%h_%p.log"
        if not self.nccl_debug:
            del env["NCCL_DEBUG"]
        env.update(self.env.get(host.name, {}))
        ib = [{"device": f"mlx5_{k}", "port": 1, "state": "ACTIVE", "phys_state": "LinkUp",
               "rate": "400 Gb/sec (4X NDR)", "link_layer": "InfiniBand"} for k in range(2)] if job.net == "IB" else []
        if ib and host.name in self.ib_state:
            ib[0]["state"], ib[0]["phys_state"] = self.ib_state[host.name], "Polling"
        return {
            "schema": "nccl-triage/snapshot@1", "collected_at": _z(self._end_time() + timedelta(seconds=15)),
            "host": {"hostname": host.name, "boot_time": _z(host.boot_time), "kernel": "5.15.0-122-generic",
                     "container": host.name in self.shm,
                     "shm": {"path": "/dev/shm", "size_bytes": size, "free_bytes": free},
                     "infiniband": ib,
                     "interfaces": [{"name": "eth0", "addresses": [host.ip], "up": True}]},
            "nvml": {"available": True, "driver_version": host.driver, "cuda_driver_version": host.cuda,
                     "gpus": gpus},
            "versions": {"python": "3.11.9", "torch": host.torch, "cuda": host.cuda, "nccl": host.nccl,
                         "torch_device_count": self.device_count.get(host.name, len(host.gpu_buses))},
            "env": env,
            "xid": self.xids.get(host.name, []),
        }


def _z(t: datetime) -> str:
    return t.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def _write_lines(path: Path, lines: list[tuple[float, int, str]]) -> None:
    with path.open("w", encoding="utf-8") as fh:
        for _, _, text in sorted(lines, key=lambda x: (x[0], x[1])):
            fh.write(text + "\n")

"""The simulated job: hosts, GPUs, ranks and the software stack, drawn from a seed.

Everything a scenario prints about identity (host:pid:tid, cudaDev, busId, PCI addresses, NVML
bus ids, versions) comes from here, so the different files of a bundle agree with each other
the way they do on a real cluster.
"""
from __future__ import annotations

import random
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta

# (torch, cuda, nccl) as shipped together in the official wheels.
STACKS: tuple[tuple[str, str, str], ...] = (
    ("2.3.1+cu121", "12.1", "2.20.5"),
    ("2.4.1+cu124", "12.4", "2.20.5"),
    ("2.5.1+cu124", "12.4", "2.21.5"),
    ("2.6.0+cu126", "12.6", "2.21.5"),
    ("2.7.1+cu128", "12.8", "2.26.2"),
    ("2.8.0+cu128", "12.8", "2.27.3"),
)
DRIVERS = ("550.54.15", "550.127.05", "560.35.03", "570.124.06")
# PCI bus numbers of the 8 GPUs of common HGX boards (0000:<bus>:00.0).
GPU_BUSES = ((0x18, 0x2A, 0x3A, 0x5D, 0x9A, 0xAB, 0xBA, 0xDB), (0x1B, 0x29, 0x45, 0x4E, 0x9C, 0xAD, 0xC2, 0xCB))
HOST_STYLES = (("node-a", "node-b", "node-c", "node-d"), None)
GPU_NAMES = (("NVIDIA H100 80GB HBM3", 81559), ("NVIDIA A100-SXM4-80GB", 81920))


def version_tuple(text: str) -> tuple[int, ...]:
    core = text.split("+")[0]
    return tuple(int(p) for p in core.split(".") if p.isdigit())


@dataclass
class Host:
    name: str
    index: int
    ip: str
    boot_time: datetime
    torch: str
    cuda: str
    nccl: str
    driver: str
    gpu_buses: list[int]
    agent_pid: int
    ranks: list[Rank] = field(default_factory=list)

    @property
    def torch_v(self) -> tuple[int, ...]:
        return version_tuple(self.torch)

    @property
    def nccl_v(self) -> tuple[int, ...]:
        return version_tuple(self.nccl)


@dataclass
class Rank:
    rank: int
    local_rank: int
    host: Host
    pid: int
    device: int  # CUDA ordinal inside the process (what NCCL prints as [dev] and cudaDev)
    bus: int  # PCI bus number of its GPU
    comm: str  # NCCL comm pointer text

    @property
    def main_tid(self) -> int:
        return self.pid

    @property
    def init_tid(self) -> int:
        return self.pid + 37

    @property
    def proxy_tid(self) -> int:
        return self.pid + 41

    @property
    def busid(self) -> str:
        """NCCL's busId: PCI bus id in hex, no domain, no padding (0000:1b:00.0 -> 1b000)."""
        return f"{self.bus:x}000"

    @property
    def pci(self) -> str:
        """The Xid form: domain:bus:device, no function."""
        return f"0000:{self.bus:02x}:00"

    @property
    def nvml_bus_id(self) -> str:
        return f"00000000:{self.bus:02X}:00.0"


@dataclass
class Job:
    seed: int
    rng: random.Random
    job_id: str
    start: datetime
    hosts: list[Host]
    ranks: list[Rank]
    gpus_per_host: int
    net: str  # "IB" or "Socket"
    layout: str  # "rank_logs" (node/rankN.log) or "debug_file" (nccl_<host>_<pid>.log + torchrun log)
    timeout_ms: int
    comm_id: str
    gpu_name: str
    gpu_mem: int
    uses_numel: bool = True

    @property
    def world(self) -> int:
        return len(self.ranks)

    def at(self, seconds: float) -> datetime:
        return self.start + timedelta(seconds=seconds)


def make_job(seed: int, *, hosts: int | None = None, gpus_per_host: int | None = None,
             stack: tuple[str, str, str] | None = None, name_prefix: str | None = None) -> Job:
    rng = random.Random(seed)
    n_hosts = hosts if hosts is not None else 2
    gpus = gpus_per_host if gpus_per_host is not None else rng.choice((4, 4, 8))
    torch_v, cuda_v, nccl_v = stack if stack is not None else (STACKS[-2] if seed == 0 else rng.choice(STACKS))
    driver = rng.choice(DRIVERS)
    buses = rng.choice(GPU_BUSES)
    if seed == 0 and name_prefix is None and n_hosts <= 4:
        names = list(HOST_STYLES[0][:n_hosts])
    else:
        prefix = name_prefix or rng.choice(("gpu", "trn", "dgx", "hgx-h100"))
        base = rng.randint(1, 200)
        names = [f"{prefix}-{base + i:03d}" for i in range(n_hosts)]
    start = datetime(2026, rng.randint(1, 12), rng.randint(1, 28), rng.randint(0, 23),
                     rng.randint(0, 59), rng.randint(0, 59), tzinfo=UTC)
    job = Job(
        seed=seed, rng=rng, job_id=f"slurm-{rng.randint(10000, 99999)}", start=start, hosts=[],
        ranks=[], gpus_per_host=gpus, net=rng.choice(("IB", "IB", "Socket")),
        layout="rank_logs" if seed % 2 == 0 else "debug_file",
        timeout_ms=rng.choice((600000, 600000, 1800000)), comm_id=f"0x{rng.getrandbits(64):016x}",
        gpu_name="", gpu_mem=0,
    )
    job.gpu_name, job.gpu_mem = rng.choice(GPU_NAMES)
    for h, name in enumerate(names):
        host = Host(
            name=name, index=h, ip=f"10.{rng.randint(0, 40)}.{rng.randint(0, 255)}.{10 + h}",
            boot_time=start - timedelta(days=rng.randint(2, 40), seconds=rng.randint(0, 86400)),
            torch=torch_v, cuda=cuda_v, nccl=nccl_v, driver=driver,
            gpu_buses=list(buses[:gpus]), agent_pid=rng.randint(1000, 400000),
        )
        job.hosts.append(host)
        for lr in range(gpus):
            r = Rank(rank=h * gpus + lr, local_rank=lr, host=host, pid=host.agent_pid + 11 + lr * 3,
                     device=lr, bus=buses[lr], comm=f"0x{rng.getrandbits(44) | 0x550000000000:x}")
            host.ranks.append(r)
            job.ranks.append(r)
    return job

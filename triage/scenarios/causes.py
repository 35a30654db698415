"""One story per cause of the vocabulary (docs/design.md). Each returns the expected answer.

Conventions: the culprit is never rank 0 (an engine that guesses rank 0 must not pass by luck),
the fault happens a few minutes into training, and every other rank only shows what such a fault
really causes elsewhere (remote-peer errors, watchdog timeouts, SIGTERM from its agent).
"""
from __future__ import annotations

from collections.abc import Callable
from typing import Any

from . import common as C
from . import formats as F
from .cluster import STACKS, Job, Rank
from .story import Story

SITE = "/usr/local/lib/python3.11/dist-packages"
TRAIN_FRAMES = [
    (C.TRAIN_PY, 311, "<module>", "main()"),
    (C.TRAIN_PY, 287, "main", "loss = train_step(model, batch, optimizer)"),
]


def _culprit(job: Job) -> Rank:
    rng = job.rng
    host = job.hosts[rng.randrange(len(job.hosts))]
    candidates = [r for r in host.ranks if r.rank != 0]
    return rng.choice(candidates)


def _fault_time(job: Job) -> float:
    return C.INIT_DONE + job.rng.uniform(120.0, 400.0)


def _expect(cause: str, r: Rank | None, host: str | None = None) -> dict[str, Any]:
    return {"cause": cause, "rank": r.rank if r else None, "host": r.host.name if r else host}


def _die_with_exception(story: Story, r: Rank, t: float, frames: list[tuple[str, int, str, str]], last: list[str], *, hang: bool,
                        prefixed: bool = True) -> None:
    """Uncaught exception on r at t; the process exits (1) unless it hangs in teardown."""
    plain = F.traceback_lines(r, TRAIN_FRAMES + frames, last, prefixed=False)
    story.say(r, t, *F.traceback_lines(r, TRAIN_FRAMES + frames, last, prefixed=prefixed))
    story.error_file(r, t, last[0], "\n".join(plain) + "\n")
    if not hang:
        story.exit(r, t + 0.4, 1)


def _fallout(story: Story, culprit: Rank, t_fault: float, pending: C.Pending, *, hang: bool) -> None:
    """The rest of the job after the culprit stopped taking part in `pending`."""
    job = story.job
    if hang:
        # The culprit's process never exits (stuck tearing down CUDA/NCCL); everyone else waits in
        # the collective until the watchdog timeout, then aborts.
        for r in job.ranks:
            if r is not culprit:
                C.watchdog_timeout(story, r, pending, completed=pending.seq - 1)
    else:
        C.after_death(story, culprit, t_fault + 0.4)
    C.finish(story)


def _training(story: Story, until: dict[int, float] | float) -> None:
    job = story.job
    stops = until if isinstance(until, dict) else {r.rank: until for r in job.ranks}
    C.init(story)
    C.train(story, stops)


# ---------------------------------------------------------------- causes

def rank_crash(story: Story) -> dict[str, Any]:
    job = story.job
    culprit = _culprit(job)
    t = _fault_time(job)
    _training(story, t)
    pending = C.pending_at(story, t)
    variant = job.seed % 3
    if variant == 2:
        # Native crash: faulthandler output, SIGSEGV.
        story.say(culprit, t, "Fatal Python error: Segmentation fault", "",
                  f"Thread 0x00007f{job.rng.getrandbits(32):08x} (most recent call first):",
                  f'  File "{SITE}/flash_attn/flash_attn_interface.py", line 96 in _flash_attn_forward',
                  f'  File "{C.TRAIN_PY}", line 287 in main', f'  File "{C.TRAIN_PY}", line 311 in <module>')
        story.exit(culprit, t + 0.1, -11)
        _fallout(story, culprit, t, pending, hang=False)
    else:
        frames = [(C.TRAIN_PY, 142, "train_step", "batch = collate(next(data_iter))"),
                  ("/workspace/data.py", 77, "collate", 'ids = torch.stack([s["input_ids"] for s in samples])'),
                  ("/workspace/data.py", 77, "<listcomp>", 'ids = torch.stack([s["input_ids"] for s in samples])')]
        _die_with_exception(story, culprit, t, frames, ["KeyError: 'input_ids'"], hang=variant == 1)
        _fallout(story, culprit, t, pending, hang=variant == 1)
    return _expect("rank_crash", culprit)


def oom(story: Story) -> dict[str, Any]:
    job = story.job
    culprit = _culprit(job)
    t = _fault_time(job)
    _training(story, t)
    pending = C.pending_at(story, t)
    total = job.gpu_mem / 1024
    msg = (f"CUDA out of memory. Tried to allocate 1.96 GiB. GPU {culprit.device} has a total capacity of {total:.2f} GiB "
           f"of which 1.12 GiB is free. Process {culprit.pid} has {total - 1.14:.2f} GiB memory in use. Of the allocated memory "
           f"{total - 4.9:.2f} GiB is allocated by PyTorch, and 2.31 GiB is reserved by PyTorch but unallocated. If reserved but "
           "unallocated memory is large try setting PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True to avoid fragmentation.  "
           "See documentation for Memory Management  (https://pytorch.org/docs/stable/notes/cuda.html#environment-variables)")
    frames = [(C.TRAIN_PY, 151, "train_step", "logits = model(batch)"),
              (f"{SITE}/torch/nn/modules/module.py", 1762, "_call_impl", "return forward_call(*args, **kwargs)"),
              ("/workspace/model.py", 203, "forward", "return self.lm_head(h).float()")]
    hang = job.seed % 2 == 1
    _die_with_exception(story, culprit, t, frames, [f"{F.exception_type(culprit, 'oom')}: {msg}"], hang=hang)
    # NVML samples on the culprit's host: its GPU memory pinned at the ceiling before the fault.
    for k in range(8):
        ts = t - 70 + k * 10
        for r in culprit.host.ranks:
            used = job.gpu_mem - 1150 if r is culprit and ts > t - 30 else int(job.gpu_mem * 0.82)
            story.nvml.setdefault(r.host.name, []).append({
                "time": F_iso(story, ts), "host": r.host.name, "gpu": r.device, "pci_bus_id": r.nvml_bus_id,
                "util": 98 if ts < t else 0, "mem_used": used, "mem_total": job.gpu_mem})
    _fallout(story, culprit, t, pending, hang=hang)
    return _expect("oom", culprit)


def F_iso(story: Story, t: float) -> str:
    return story.at(t).strftime("%Y-%m-%dT%H:%M:%SZ")


def hardware_fault(story: Story) -> dict[str, Any]:
    job = story.job
    culprit = _culprit(job)
    t = _fault_time(job)
    _training(story, t + 0.3)
    C.pending_at(story, t)  # draws from the seeded stream like the other stories, keeping seeds stable
    code = (79, 48, 94, 95)[job.seed % 4]
    if code == 79:
        story.kernel_say(culprit.host, t, f"NVRM: GPU at PCI:{culprit.pci}: GPU-{job.seed:04x}{culprit.host.index:02x}{culprit.device:02x}-6e1c-4f0a-9b7d-{culprit.bus:012x}")
        xid = F.xid(culprit, 79, "GPU has fallen off the bus.")
        story.kernel_say(culprit.host, t, xid)
        story.kernel_say(culprit.host, t, f"NVRM: GPU 0000:{culprit.bus:02x}:00.0: GPU has fallen off the bus.")
        err_name, err_text = "cudaErrorLaunchFailure", "unspecified launch failure"
    else:
        body = {48: "An uncorrectable double bit error (DBE) has been detected on GPU in the framebuffer at partition 3, subpartition 0.",
                94: "Contained: SM (0x1). RST: No, D-RST: No",
                95: "Uncontained: LTC TAG (0x2, 0x1). RST: Yes, D-RST: No"}[code]
        xid = F.xid(culprit, code, body)
        story.kernel_say(culprit.host, t, xid)
        err_name, err_text = "cudaErrorECCUncorrectable", "uncorrectable ECC error encountered"
        story.gpu_ecc[culprit.rank] = 1
    story.xids.setdefault(culprit.host.name, []).append({"text": xid, "xid": code, "pci": culprit.pci})
    # The CUDA error surfaces on the culprit through NCCL and the watchdog, within a second.
    tc = t + 0.4
    story.nccl(culprit, tc, *F.nccl_warn(culprit, story.at(tc), "enqueue.cc:1560", f"Cuda failure '{err_text}'"),
               F.nccl_trail(culprit, "enqueue.cc:1595", 1))
    what = "\n".join(F.cuda_error_lines(err_name, err_text))
    C.abort_lines(story, culprit, tc + 0.1, what)
    for k in range(6):
        ts = t - 30 + k * 10
        story.nvml.setdefault(culprit.host.name, []).append({
            "time": F_iso(story, ts), "host": culprit.host.name, "gpu": culprit.device, "pci_bus_id": culprit.nvml_bus_id,
            "util": 97 if ts < t else None, "mem_used": 70100 if ts < t else None, "mem_total": job.gpu_mem})
    C.after_death(story, culprit, tc + 0.5)
    C.finish(story)
    return _expect("hardware_fault", culprit)


def collective_timeout_straggler(story: Story) -> dict[str, Any]:
    job = story.job
    culprit = _culprit(job)
    t = _fault_time(job)
    desync = job.seed % 2 == 1
    # The straggler's last progress line comes a step earlier than everyone else's.
    stops = {r.rank: t for r in job.ranks}
    stops[culprit.rank] = t - C.STEP_S * 2
    _training(story, stops)
    pending = C.pending_at(story, t)
    if desync:
        # Same SeqNum, different collective: the culprit took another code path.
        wrong = C.Pending(pending.seq, "BROADCAST", 1024, pending.t_enqueue + 0.05)
        C.watchdog_timeout(story, culprit, wrong, completed=pending.seq - 1)
        for r in job.ranks:
            if r is not culprit:
                C.watchdog_timeout(story, r, pending, completed=pending.seq - 1)
    else:
        # The straggler finished collective N-1 but never issued N (stuck in its data loader);
        # everyone else waits in N until their watchdog fires.
        app(story, culprit, stops[culprit.rank] + 1.0, "WARNING", "dataloader worker 3 is slow: waited 12.4 s for the next batch")
        first = None
        for r in job.ranks:
            if r is not culprit:
                tw = C.watchdog_timeout(story, r, pending, completed=pending.seq - 1)
                first = tw if first is None or tw < first else first
        assert first is not None  # the job has ranks other than the culprit
        if culprit.host.torch_v >= (2, 5):
            td = first + 0.2
            story.say(culprit, td, F.torch_cpp(culprit, culprit.host, story.at(td), "E", F.pg_nccl_src(culprit, "progress"),
                      f"{F.pg_prefix(culprit)}Received a dump signal due to a collective timeout from rank {job.ranks[0].rank if culprit.rank else 1} "
                      f"and we will try our best to dump the debug info. Last enqueued NCCL work: {pending.seq - 1}, last completed NCCL work: "
                      f"{pending.seq - 1}.This is most likely caused by incorrect usages of collectives, e.g., wrong sizes used across ranks, "
                      "the order of collectives is not same for all ranks or the scheduled collective, for some reason, didn't run. "
                      "Additionally, this can be caused by GIL deadlock or other reasons such as network errors or bugs in the "
                      "communications library (e.g. NCCL), etc. ", 0))
    C.finish(story)
    return _expect("collective_timeout_straggler", culprit)


def app(story: Story, r: Rank, t: float, level: str, msg: str) -> None:
    C.app(story, r, t, level, msg)


def version_mismatch(story: Story) -> dict[str, Any]:
    job = story.job
    odd = job.hosts[1 + job.rng.randrange(len(job.hosts) - 1)]
    other = [s for s in STACKS if s[2] != odd.nccl and s[0] != odd.torch]
    odd.torch, odd.cuda, odd.nccl = job.rng.choice(other)
    C.init(story, complete=False)
    # Bootstrap messages have a different size in the two NCCL builds: the first exchange fails.
    t = 6.5
    for r in job.ranks:
        tr = t + C.jitter(story, 0.05, 0.4)
        sizes = (4224, 4160) if r.host is odd else (4160, 4224)
        warn = f"Message truncated : received {sizes[0]} bytes instead of {sizes[1]}"
        story.nccl(r, tr, *F.nccl_warn(r, story.at(tr), "bootstrap.cc:150", warn, r.init_tid),
                   F.nccl_trail(r, "bootstrap.cc:611", 5, r.init_tid), F.nccl_trail(r, "init.cc:1316", 5, r.init_tid))
        frames = [(C.TRAIN_PY, 95, "setup", "dist.barrier(device_ids=[local_rank])"),
                  (f"{SITE}/torch/distributed/distributed_c10d.py", 4166, "barrier", "work = group.barrier(opts=opts)")]
        last = [f"torch.distributed.DistBackendError: NCCL error in: ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:2172, "
                f"{F.nccl_error_name(5)}, NCCL version {r.host.nccl}",
                F.NCCL_DETAIL[5], "Last error:", warn]
        _die_with_exception(story, r, tr + 0.1, frames, last, hang=False)
    C.finish(story)
    return _expect("version_mismatch", None, odd.name)


def device_ordinal(story: Story) -> dict[str, Any]:
    job = story.job
    host = job.hosts[job.rng.randrange(len(job.hosts))]
    if job.seed % 2 == 0:
        # CUDA_VISIBLE_DEVICES on this node hides a GPU; the last local rank asks for it.
        culprit = host.ranks[-1]
        visible = ",".join(str(i) for i in range(len(host.ranks) - 1))
        story.env[host.name] = {"CUDA_VISIBLE_DEVICES": visible}
        story.device_count[host.name] = len(host.ranks) - 1
        others = [r for r in job.ranks if r is not culprit]
        C.init(story, others, complete=False)
        t = 4.3
        C.app(story, culprit, t - 0.2, "INFO", f"local_rank {culprit.local_rank} world_size {job.world}: using device cuda:{culprit.local_rank}")
        frames = [(C.TRAIN_PY, 61, "setup", "torch.cuda.set_device(local_rank)"),
                  (f"{SITE}/torch/cuda/__init__.py", 478, "set_device", "torch._C._cuda_setDevice(device)")]
        _die_with_exception(story, culprit, t, frames,
                            [f"{F.exception_type(culprit, 'cuda')}: " + F.cuda_error_lines("cudaErrorInvalidDevice", "invalid device ordinal")[0]]
                            + F.cuda_error_lines("cudaErrorInvalidDevice", "invalid device ordinal")[1:], hang=False, prefixed=False)
        C.finish(story)
        return _expect("device_ordinal", culprit)
    # LOCAL_RANK computed wrongly (rank % 2): two ranks share each GPU; NCCL refuses at init.
    a, b = host.ranks[0], host.ranks[1 if len(host.ranks) > 1 else 0]
    for r in host.ranks:
        r.device = r.local_rank % 2
        r.bus = host.gpu_buses[r.device]
    C.init(story, complete=False)
    t = 6.4
    for r in host.ranks:
        twin = next(x for x in host.ranks if x is not r and x.device == r.device)
        lo, hi = sorted((r.rank, twin.rank))
        warn = f"Duplicate GPU detected : rank {hi} and rank {lo} both on CUDA device {r.busid}"
        tr = t + C.jitter(story, 0.0, 0.2)
        story.nccl(r, tr, *F.nccl_warn(r, story.at(tr), "init.cc:870", warn, r.init_tid),
                   F.nccl_trail(r, "init.cc:1356", 5, r.init_tid))
        last = [f"torch.distributed.DistBackendError: NCCL error in: ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:2172, "
                f"{F.nccl_error_name(5)}, NCCL version {r.host.nccl}", F.NCCL_DETAIL[5], "Last error:", warn]
        _die_with_exception(story, r, tr + 0.1, [(C.TRAIN_PY, 95, "setup", "dist.barrier(device_ids=[local_rank])")], last, hang=False)
    C.finish(story)
    del a, b
    return _expect("device_ordinal", None, host.name)


def shm_exhausted(story: Story) -> dict[str, Any]:
    job = story.job
    culprit = _culprit(job)
    host = culprit.host
    story.shm[host.name] = (67108864, 1835008)
    story.env[host.name] = {"NCCL_P2P_DISABLE": "1"}
    C.init(story, complete=False)
    t = 6.2
    seg = f"/dev/shm/nccl-{''.join(job.rng.choice('abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789') for _ in range(6))}"
    warn = f"Error while creating shared memory segment {seg} (size 9637888), error: No space left on device (28)"
    story.nccl(culprit, t, *F.nccl_warn(culprit, story.at(t), "misc/shmutils.cc:56", warn, culprit.init_tid),
               F.nccl_trail(culprit, "transport/shm.cc:114", 2, culprit.init_tid),
               F.nccl_trail(culprit, "transport.cc:33", 2, culprit.init_tid), F.nccl_trail(culprit, "init.cc:1263", 2, culprit.init_tid))
    frames = [(C.TRAIN_PY, 95, "setup", "dist.barrier(device_ids=[local_rank])")]

    def backend_error(r: Rank, text: str) -> list[str]:
        return [f"torch.distributed.DistBackendError: NCCL error in: ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:2172, "
                f"{F.nccl_error_name(2)}, NCCL version {r.host.nccl}", F.NCCL_DETAIL[2], "Last error:", text]
    _die_with_exception(story, culprit, t + 0.1, frames, backend_error(culprit, warn), hang=False)
    # Its local peers were attaching to its segment: the file is gone when they look.
    for r in host.ranks:
        if r is culprit:
            continue
        tr = t + C.jitter(story, 0.25, 0.6)
        w = f"Error while attaching to shared memory segment {seg} (size 0), error: No such file or directory (2)"
        story.nccl(r, tr, *F.nccl_warn(r, story.at(tr), "misc/shmutils.cc:106", w, r.init_tid),
                   F.nccl_trail(r, "transport/shm.cc:160", 2, r.init_tid))
        _die_with_exception(story, r, tr + 0.1, frames, backend_error(r, w), hang=False)
    C.finish(story)
    return _expect("shm_exhausted", culprit)


def rendezvous_hang(story: Story) -> dict[str, Any]:
    job = story.job
    missing = job.hosts[1 + job.rng.randrange(len(job.hosts) - 1)]
    master = job.hosts[0]
    wrong_ip = f"10.{job.rng.randint(41, 99)}.0.1"
    story.env[missing.name] = {"MASTER_ADDR": wrong_ip}
    joined = [r for r in job.ranks if r.host is not missing]
    for r in joined:
        C.app(story, r, 4.0 + r.local_rank * 0.05, "INFO", f"local_rank {r.local_rank} world_size {job.world}: using device cuda:{r.device}")
    # The missing node's agent cannot reach the store: it retries, then gives up.
    for k in range(3):
        tk = 3.0 + k * 31.7
        story.agent_say(missing, tk, F.torch_cpp(None, missing, story.at(tk), "W", "TCPStore.cpp:340",
                        f"[c10d] TCP client failed to connect/validate to host {wrong_ip}:29500 - retrying (try={k}, timeout=900000ms, "
                        f"delay=31712ms): The client socket has timed out after 900000ms while trying to connect to ({wrong_ip}, 29500).",
                        0))
    t_store = 4.2 + 601.0
    r0 = job.ranks[0]
    frames = [(C.TRAIN_PY, 58, "setup", 'dist.init_process_group("nccl", timeout=timedelta(minutes=10))'),
              (f"{SITE}/torch/distributed/rendezvous.py", 199, "_create_c10d_store", "return TCPStore(")]
    _die_with_exception(story, r0, t_store, frames,
                        [f"torch.distributed.DistStoreError: Timed out after 601 seconds waiting for clients. "
                         f"{len(joined)}/{job.world} clients joined."], hang=False, prefixed=False)
    tm = 903.0
    story.agent_say(missing, tm, F.torch_cpp(None, missing, story.at(tm), "E", "socket.cpp:1019",
                    f"[c10d] The client socket has timed out after 900000ms while trying to connect to ({wrong_ip}, 29500).",
                    0),
                    "torch.distributed.DistNetworkError: The client socket has timed out after 900000ms while trying to connect to "
                    f"({wrong_ip}, 29500).")
    del master
    C.finish(story, skip={missing.name})  # its workers never started: nothing to stop there
    return _expect("rendezvous_hang", None, missing.name)


def p2p_unsupported(story: Story) -> dict[str, Any]:
    job = story.job
    host = job.hosts[job.rng.randrange(len(job.hosts))]
    C.init(story, p2p="P2P/IPC/read")
    t = C.INIT_DONE + 0.5
    pending = C.Pending(1, "ALLREDUCE", 1, t)
    for r in job.ranks:
        C.app(story, r, t - 0.2, "INFO", "model wrapped in DDP; starting epoch 0")
    for k, r in enumerate(host.ranks):
        addr = 0xEA13A000 + k * 0x40000
        story.kernel_say(host, t + 0.02 + k * 0.001,
                         f"nvidia 0000:{r.bus:02x}:00.0: AMD-Vi: Event logged [IO_PAGE_FAULT domain=0x00{0x0f + k:02x} "
                         f"address=0x00000000{addr:08x} flags=0x0020]")
    story.kernel_say(host, t + 0.05, "AMD-Vi: IOMMU event log overflow")
    for r in job.ranks:
        C.watchdog_timeout(story, r, pending, enqueued=1, completed=0)
    C.finish(story)
    return _expect("p2p_unsupported", None, host.name)


def network(story: Story) -> dict[str, Any]:
    job = story.job
    if job.seed % 2 == 0 or len(job.hosts) < 2:
        # A HCA port drops mid-training: the rank using it gets IB retry-exceeded first.
        job.net = "IB"
        culprit = _culprit(job)
        t = _fault_time(job)
        _training(story, t + 1.0)
        story.ib_state[culprit.host.name] = "DOWN"
        story.kernel_say(culprit.host, t - 0.5, "mlx5_core 0000:0c:00.0: mlx5_port_module_event:1131:(pid 0): Module 0, status: unplugged")
        story.kernel_say(culprit.host, t - 0.4, "mlx5_core 0000:0c:00.0 ibp12s0: Link down")
        peer = next(r for r in job.ranks if r.host is not culprit.host)
        warn = (f"NET/IB : Got completion from peer {peer.host.ip}<{43000 + peer.local_rank}> with status=12 opcode=0 len=0 "
                f"vendor err 129 (Send) localGid ::ffff:{culprit.host.ip} remoteGids::ffff:{peer.host.ip} hca mlx5_0")
        story.nccl(culprit, t, *F.nccl_warn(culprit, story.at(t), "transport/net_ib.cc:1696", warn, culprit.proxy_tid),
                   F.nccl_trail(culprit, "transport/net.cc:1272", 6, culprit.proxy_tid),
                   F.nccl_trail(culprit, "proxy.cc:736", 6, culprit.proxy_tid, " [Proxy Thread]"))
        what = (f"NCCL error: remote process exited or there was a network error, NCCL version {culprit.host.nccl}\n"
                f"{F.NCCL_DETAIL[6]}\nLast error:\n{warn}")
        C.abort_lines(story, culprit, t + 0.2, what)
        C.after_death(story, culprit, t + 0.6)
        C.finish(story)
        return _expect("network", culprit)
    # Wrong interface on one node: IB absent, sockets bound to docker0, peers cannot connect to it.
    job.net = "Socket"
    bad = job.hosts[1 + job.rng.randrange(len(job.hosts) - 1)]
    story.env[bad.name] = {"NCCL_SOCKET_IFNAME": "docker0"}
    C.init(story, complete=False)
    t = 6.8
    for r in job.ranks:
        if r.host is bad:
            continue
        target = bad.ranks[r.local_rank % len(bad.ranks)]
        tr = t + C.jitter(story, 0.0, 0.3)
        warn = f"socketStartConnect: Connect to 172.17.0.1<{45000 + target.local_rank}> failed : Connection refused"
        story.nccl(r, tr, *F.nccl_warn(r, story.at(tr), "misc/socket.cc:484", warn, r.init_tid),
                   F.nccl_trail(r, "misc/socket.cc:567", 2, r.init_tid), F.nccl_trail(r, "transport/net_socket.cc:339", 2, r.init_tid),
                   F.nccl_trail(r, "init.cc:1263", 2, r.init_tid))
        last = [f"torch.distributed.DistBackendError: NCCL error in: ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:2172, "
                f"{F.nccl_error_name(2)}, NCCL version {r.host.nccl}", F.NCCL_DETAIL[2], "Last error:", warn]
        _die_with_exception(story, r, tr + 0.1, [(C.TRAIN_PY, 95, "setup", "dist.barrier(device_ids=[local_rank])")], last, hang=False)
    C.finish(story)
    return _expect("network", None, bad.name)


def unknown(story: Story) -> dict[str, Any]:
    """No NCCL_DEBUG, no error: the logs just stop and the scheduler cancels the job."""
    job = story.job
    story.nccl_debug = False
    t = _fault_time(job)
    for r in job.ranks:
        C.app(story, r, 4.0 + r.local_rank * 0.05, "INFO", f"local_rank {r.local_rank} world_size {job.world}: using device cuda:{r.device}")
    C.train(story, {r.rank: t for r in job.ranks})
    C.finish(story)
    return {"cause": "unknown", "rank": None, "host": None}


BUILDERS: dict[str, Callable[[Story], dict[str, Any]]] = {
    "rank_crash": rank_crash,
    "oom": oom,
    "version_mismatch": version_mismatch,
    "device_ordinal": device_ordinal,
    "shm_exhausted": shm_exhausted,
    "hardware_fault": hardware_fault,
    "collective_timeout_straggler": collective_timeout_straggler,
    "rendezvous_hang": rendezvous_hang,
    "p2p_unsupported": p2p_unsupported,
    "network": network,
}
EXTRA_BUILDERS: dict[str, Callable[[Story], dict[str, Any]]] = {"unknown": unknown}

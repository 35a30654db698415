"""The parts every story shares: NCCL init, training progress, and how a job falls apart.

A failure story is: init (t≈5 s) → training steps → the culprit's fault → downstream symptoms
on the other ranks (remote-peer errors or watchdog timeouts) → each node's torchrun agent
SIGTERMs its survivors and prints its ChildFailedError block (`finish`).
"""
from __future__ import annotations

from collections.abc import Set as AbstractSet
from dataclasses import dataclass

from . import formats as F
from .cluster import Host, Rank
from .story import Story

TRAIN_PY = "/workspace/train.py"
STEP_S = 0.9  # wall seconds per training step
COLLS_PER_STEP = 3  # DDP gradient buckets: sequence numbers advance this much per step
INIT_DONE = 12.0


@dataclass
class Pending:
    """A collective every rank was in (or should have been in) when things went wrong."""
    seq: int
    op: str
    numel: int
    t_enqueue: float


def app(story: Story, r: Rank, t: float, level: str, msg: str) -> None:
    """The training script's own Python logging line (asctime has a date, comma, milliseconds)."""
    when = story.at(t)
    story.say(r, t, f"{when:%Y-%m-%d %H:%M:%S},{when.microsecond // 1000:03d} - {level} - train.py - [rank {r.rank}] {msg}")


def jitter(story: Story, lo: float, hi: float) -> float:
    return story.job.rng.uniform(lo, hi)


def init(story: Story, ranks: list[Rank] | None = None, *, p2p: str = "P2P/CUMEM/read",
         complete: bool = True) -> None:
    job = story.job
    for r in ranks if ranks is not None else job.ranks:
        t = 4.0 + r.local_rank * 0.05 + r.host.index * 0.2
        app(story, r, t, "INFO", f"local_rank {r.local_rank} world_size {job.world}: using device cuda:{r.device}")
        bare, info = F.nccl_banner(r)
        t += 1.0
        story.nccl(r, t, F.bootstrap_line(r), F.nccl_info(r, f"cudaDriverVersion {_driver_int(r)}"))
        if bare is not None:
            story.say(r, t, bare)
            if job.layout == "debug_file":
                story.nccl(r, t, info)
        else:
            story.nccl(r, t, info)
        tid = r.init_tid
        if job.net == "IB":
            story.nccl(r, t + 0.1,
                       F.nccl_info(r, f"NET/IB : Using [0]mlx5_0:1/IB [1]mlx5_1:1/IB [RO]; OOB eth0:{r.host.ip}<0>", tid),
                       F.nccl_info(r, "Using network IB", tid))
        else:
            story.nccl(r, t + 0.1,
                       F.nccl_info(r, "NET/IB : No device found.", tid),
                       F.nccl_info(r, f"NET/Socket : Using [0]eth0:{r.host.ip}<0>", tid),
                       F.nccl_info(r, "Using network Socket", tid))
        story.nccl(r, t + 0.2, F.init_line(r, job.world, job.comm_id, "START"),
                   F.nccl_info(r, f"comm {r.comm} rank {r.rank} nRanks {job.world} nNodes {len(job.hosts)} "
                                  f"localRanks {job.gpus_per_host} localRank {r.local_rank} MNNVL 0", tid))
        if r.rank == 0:
            ring = "".join(f" {x:4d}" for x in range(job.world))
            story.nccl(r, t + 0.25, *(F.nccl_info(r, f"Channel {c:02d}/02 :{ring}", tid) for c in range(2)))
        if not complete:
            continue
        story.nccl(r, t + 0.3, *_channel_lines(story, r, p2p))
        rings = "Connected all rings, use ring PXN 0 GDR 1" if r.host.nccl_v >= (2, 24) else "Connected all rings"
        story.nccl(r, t + 0.5, F.nccl_info(r, rings, tid), F.nccl_info(r, "Connected all trees", tid),
                   F.init_line(r, job.world, job.comm_id, "COMPLETE"))
        if r.host.nccl_v >= (2, 22):
            story.nccl(r, t + 0.5, F.nccl_info(r, f"Init timings - ncclCommInitRankConfig: rank {r.rank} nranks {job.world} total 1.84 "
                                                  "(kernels 0.21, alloc 0.12, bootstrap 0.03, allgathers 0.01, topo 0.35, graphs 0.02, connections 1.08, rest 0.02)", tid))


def _driver_int(r: Rank) -> int:
    major, minor = r.host.cuda.split(".")
    return int(major) * 1000 + int(minor) * 10


def _channel_lines(story: Story, r: Rank, p2p: str) -> list[str]:
    job = story.job
    n = job.world
    nxt = job.ranks[(r.rank + 1) % n]
    prv = job.ranks[(r.rank - 1) % n]
    out = []
    for ch in range(2):
        if nxt.host is r.host:
            out.append(F.nccl_info(r, f"Channel {ch:02d}/0 : {r.rank}[{r.device}] -> {nxt.rank}[{nxt.device}] via {p2p}", r.init_tid))
        else:
            net = f"NET/IB/{ch}/GDRDMA" if job.net == "IB" else f"NET/Socket/{ch}"
            out.append(F.nccl_info(r, f"Channel {ch:02d}/0 : {r.rank}[{r.device}] -> {nxt.rank}[{nxt.device}] [send] via {net}", r.proxy_tid))
        if prv.host is not r.host:
            net = f"NET/IB/{ch}/GDRDMA" if job.net == "IB" else f"NET/Socket/{ch}"
            out.append(F.nccl_info(r, f"Channel {ch:02d}/0 : {prv.rank}[{prv.device}] -> {r.rank}[{r.device}] [receive] via {net}", r.proxy_tid))
    return out


def train(story: Story, until: dict[int, float], *, start: float = INIT_DONE, log_every: int = 10) -> None:
    """Training progress lines on each rank up to its own stop time."""
    for r in story.job.ranks:
        stop = until.get(r.rank)
        if stop is None:
            continue
        step = 1
        t = start
        while t < stop:
            if step % log_every == 0 or step == 1:
                app(story, r, t, "INFO", f"step {step} loss {2.9 / (1 + step / 400):.4f} lr 3.0e-04 tokens/s {41000 + (step * 37) % 900}")
            step += 1
            t += STEP_S


def step_at(t: float) -> int:
    return int((t - INIT_DONE) / STEP_S) + 1


def pending_at(story: Story, t: float, op: str = "ALLREDUCE", numel: int | None = None) -> Pending:
    """The gradient all-reduce of the step running at time t."""
    step = step_at(t)
    return Pending(seq=step * COLLS_PER_STEP, op=op, numel=numel or story.job.rng.choice((26214400, 4821568, 13107200)),
                   t_enqueue=t - 0.15)


def abort_lines(story: Story, r: Rank, t: float, what: str) -> None:
    """The watchdog's teardown after it caught something: SIGABRT (-6) shortly after."""
    host = r.host
    when = story.at(t)
    ns = 0
    story.say(r, t,
              F.torch_cpp(r, host, when, "E", F.pg_nccl_src(r, "teardown"), f"[Rank {r.rank}] Some NCCL operations have failed or timed out. Due to the asynchronous nature of CUDA kernels, subsequent GPU operations might run on corrupted/incomplete data.", ns),
              F.torch_cpp(r, host, when, "E", F.pg_nccl_src(r, "teardown"), f"[Rank {r.rank}] To avoid data inconsistency, we are taking the entire process down.", ns + 7000),
              F.torch_cpp(r, host, when, "E", F.pg_nccl_src(r, "terminated"), f"{F.pg_prefix(r)}Process group watchdog thread terminated with exception: {what}", ns + 21000),
              "terminate called after throwing an instance of 'c10::DistBackendError'",
              f"  what():  {F.pg_prefix(r)}Process group watchdog thread terminated with exception: {what}")
    story.exit(r, t + 0.4, -6)


def watchdog_timeout(story: Story, r: Rank, p: Pending, *, enqueued: int | None = None,
                     completed: int | None = None, op: str | None = None) -> float:
    """Rank r's watchdog fires on collective p; returns when."""
    job = story.job
    t = p.t_enqueue + job.timeout_ms / 1000 + jitter(story, 0.02, 0.09)
    ran = int(job.timeout_ms + (t - p.t_enqueue - job.timeout_ms / 1000) * 1000)
    work = F.work_repr(p.seq, op or p.op, p.numel, job.timeout_ms)
    msg = f"[Rank {r.rank}] Watchdog caught collective operation timeout: {work} ran for {ran} milliseconds before timing out."
    when = story.at(t)
    ns = 0
    story.say(r, t,
              F.torch_cpp(r, r.host, when, "E", F.pg_nccl_src(r, "timeout"), msg, ns),
              F.torch_cpp(r, r.host, when, "E", F.pg_nccl_src(r, "progress"),
                          F.watchdog_progress(r, p.seq, p.seq if enqueued is None else enqueued,
                                              p.seq - 1 if completed is None else completed), ns + 40000))
    abort_lines(story, r, t + 0.05, msg)
    return t


def remote_error(story: Story, r: Rank, dead: Rank, t: float) -> None:
    """What a rank sees when a peer it talks to over the network has died."""
    job = story.job
    tid = r.proxy_tid
    if job.net == "IB":
        warn = (f"NET/IB : Got completion from peer {dead.host.ip}<{40000 + dead.local_rank * 7}> with status=12 "
                f"opcode=0 len=0 vendor err 129 (Recv) localGid ::ffff:{r.host.ip} remoteGids::ffff:{dead.host.ip} hca mlx5_0")
        story.nccl(r, t, *F.nccl_warn(r, story.at(t), "transport/net_ib.cc:1696", warn, tid),
                   F.nccl_trail(r, "transport/net.cc:1272", 6, tid), F.nccl_trail(r, "proxy.cc:736", 6, tid, " [Proxy Thread]"))
    else:
        warn = f"socketProgress: Connection closed by remote peer {dead.host.name}<{41000 + dead.local_rank * 3}>"
        story.nccl(r, t, *F.nccl_warn(r, story.at(t), "misc/socket.cc:57", warn, tid),
                   F.nccl_trail(r, "misc/socket.cc:776", 6, tid), F.nccl_trail(r, "transport/net_socket.cc:474", 6, tid),
                   F.nccl_trail(r, "transport/net.cc:1181", 6, tid), F.nccl_trail(r, "proxy.cc:1494", 6, tid, " [Proxy Thread]"))
    what = (f"NCCL error: remote process exited or there was a network error, NCCL version {r.host.nccl}\n"
            f"{F.NCCL_DETAIL[6]}\nLast error:\n{warn}")
    abort_lines(story, r, t + 0.2, what)


def after_death(story: Story, dead: Rank, t_dead: float) -> None:
    """Remote ranks next to the dead one in the ring notice it through NCCL and abort."""
    job = story.job
    delay = (18.0, 32.0) if job.net == "IB" else (0.3, 1.5)  # IB retries exhaust slowly
    for r in job.ranks:
        if r.host is dead.host or not story.alive(r, t_dead):
            continue
        # Ring neighbours on other hosts are the ones whose connection breaks.
        if abs(r.rank - dead.rank) in (1, job.world - 1) or r.local_rank == dead.local_rank:
            remote_error(story, r, dead, t_dead + jitter(story, *delay))


def finish(story: Story, *, entrypoint: str = "train.py", skip: AbstractSet[str] = frozenset()) -> None:
    """Each torchrun agent: notice the first failed worker, SIGTERM the rest, print the summary."""
    job = story.job
    last = max((t for lines in story.out.values() for t, _, _ in lines), default=INIT_DONE)
    for host in job.hosts:
        if host.name in skip:
            continue
        failed = sorted((story.exits[r.rank].t, r.rank) for r in host.ranks
                        if r.rank in story.exits and story.exits[r.rank].code != 0)
        if not failed:
            _cancelled(story, host, last + 30.0)
            continue
        notice = failed[0][0] + jitter(story, 0.1, 0.9)
        for r in host.ranks:
            if story.alive(r, notice):
                story.agent_say(host, notice, F.elastic(host, story.at(notice), "W", f"Sending process {r.pid} closing signal SIGTERM"))
                story.exits.pop(r.rank, None)
                story.exit(r, notice + 0.05, -15)
        noticed = [(t, rk) for t, rk in failed if t <= notice]
        entries = []
        for t, rk in noticed:
            r = job.ranks[rk]
            ef = story.error_files.get(rk)
            when = story.at(t)
            if ef is not None:
                when = when.fromtimestamp(int(ef["message"]["extraInfo"]["timestamp"]), tz=when.tzinfo)
            path = f"/tmp/torchelastic_{job.seed:04x}{host.index}/none_{job.job_id}/attempt_0/{r.local_rank}/error.json" if ef else None
            entries.append((when, F.failure_entry(0, when, host, rk, r.local_rank, story.exits[rk].code, r.pid, path,
                                                 ef["message"]["extraInfo"]["py_callstack"] if ef else None)))
        entries.sort(key=lambda e: e[0])
        root_rank = job.ranks[noticed[0][1]]
        story.agent_say(host, notice + 0.1, F.elastic(host, story.at(notice + 0.1), "E",
                        f"failed (exitcode: {story.exits[root_rank.rank].code}) local_rank: {root_rank.local_rank} "
                        f"(pid: {root_rank.pid}) of binary: {F.PY_BINARY}"))
        root = entries[0][1]
        others = [[f"[{i}]:"] + e[1][1:] for i, e in enumerate(entries[1:], start=1)]
        story.agent_say(host, notice + 0.2, *_torchrun_traceback(), *F.child_failed_block(entrypoint, root, others))


def _cancelled(story: Story, host: Host, t: float) -> None:
    """No worker failed on this host: the scheduler cancels the job and the agent stops them."""
    when = story.at(t)
    story.agent_say(host, t, F.elastic(host, when, "W", "Received Signals.SIGTERM death signal, shutting down workers"))
    for r in host.ranks:
        if story.alive(r, t):
            story.agent_say(host, t, F.elastic(host, when, "W", f"Sending process {r.pid} closing signal SIGTERM"))
            story.exits.pop(r.rank, None)
            story.exit(r, t + 0.05, -15)
    story.agent_say(host, t + 0.3, *_torchrun_traceback()[:-1], "    result = agent.run()",
                    f"torch.distributed.elastic.multiprocessing.api.SignalException: Process {host.agent_pid} got signal: 15")


def _torchrun_traceback() -> list[str]:
    pkg = "/usr/local/lib/python3.11/dist-packages/torch/distributed"
    return ["Traceback (most recent call last):",
            '  File "/usr/local/bin/torchrun", line 8, in <module>', "    sys.exit(main())",
            f'  File "{pkg}/elastic/multiprocessing/errors/__init__.py", line 355, in wrapper', "    return f(*args, **kwargs)",
            f'  File "{pkg}/run.py", line 919, in main', "    run(args)",
            f'  File "{pkg}/launcher/api.py", line 263, in launch_agent', "    raise ChildFailedError("]

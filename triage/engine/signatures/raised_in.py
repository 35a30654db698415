"""What a generic exception means by where it was raised: a RuntimeError, TimeoutError, ValueError
or OSError says nothing on its own, but the module whose frame raised it (the traceback's last
frame) says what the program was doing. Read only where no specific entry reads the exception's
own message, and never above `medium`: the module is context, not the message.

Drawn from the code layout of torch 2.x (site-packages/torch): which modules do what.
- torch/distributed/elastic/rendezvous/: the elastic agent's rendezvous (api.py, the c10d /
  etcd / static-TCP backends and handlers, utils.py's endpoint parsing). A C++ TCPStore error
  surfaces in the Python frame that created or called the store: c10d_rendezvous_backend.py's
  _create_tcp_store, _call_store.
- torch/distributed/rendezvous.py: init_process_group's init_method handlers (env://, tcp://,
  file://), which create the c10d store (_create_c10d_store) and read MASTER_ADDR/PORT.
- torch/distributed/elastic/utils/distributed.py: create_c10d_store, the agent's TCPStore
  server and clients (the port it binds, the retries to connect).
Not torch/distributed/elastic/utils/store.py: its barrier serves the store's start (rendezvous),
the agents' exit barrier (a peer that failed) and checkpoint barriers alike; its frame alone
does not say which.
- torch/cuda/memory.py: the caching allocator's Python API (caching_allocator_alloc,
  mem_get_info, set_per_process_memory_fraction, the allocator hooks and their cudaError checks).
- The elastic agent's worker monitoring, below its run loop (agent/server/api.py _invoke_run):
  LocalElasticAgent._monitor_workers (agent/server/local_elastic_agent.py: the pids, pcontext.wait(0),
  the D-state check), PContext._poll / _capture_process_failures (multiprocessing/api.py: a worker
  that exited non-zero becomes a ProcessFailure), and ProcessFailure.__post_init__ /
  _get_error_data / _set_no_reply_file (multiprocessing/errors/__init__.py: reading the failed
  worker's error file; torch logs 'Failed to parse reply file' and re-raises). Read on any frame
  of the traceback, since the last is often the stdlib's (json.load of a file the worker was
  still writing). Only those functions: errors/__init__.py's `wrapper` (@record) is in every
  worker's own traceback, and _invoke_run also calls the rendezvous and the exit barrier.
"""
from __future__ import annotations

import re
from functools import cache

from .schema import Signature

# Exception types that name no cause by themselves: builtins the modules above raise, and the
# torch.distributed base classes c10d's C++ raises through them (DistError, DistNetworkError,
# DistStoreError, as `torch.distributed.DistNetworkError: ...`).
_GENERIC = (r"^(?:[A-Za-z_]\w*\.)*(?:RuntimeError|TimeoutError|ValueError|OSError|ConnectionError|"
            r"ConnectionRefusedError|ConnectionResetError|DistError|DistNetworkError|DistStoreError)(?::|$)")
_T = "torch 1.9-2.13"
# Any exception type: in the agent's monitoring, the place says more than the type.
_ANY_TYPE = r"^(?:[A-Za-z_]\w*\.)*[A-Za-z_]\w*(?::|$)"
_RDZV_FIX = (
    "The exception's own message is generic; it was raised in torch.distributed's rendezvous, while the "
    "processes were finding each other (creating or joining the c10d store, parsing the endpoint). Check that "
    "the endpoint is the master's address as every node resolves it, the port is free there and open between "
    "the nodes, and every node was started with the same --rdzv-id/--nnodes:\n"
    "$ echo $MASTER_ADDR $MASTER_PORT   # or --rdzv-endpoint: reachable from every node?\n"
    "$ nc -zv $MASTER_ADDR $MASTER_PORT"
)

SIGNATURES: tuple[Signature, ...] = (
    Signature(
        id="torch.raised_in.rendezvous",
        patterns=(_GENERIC,),
        raised_in=(r"torch/distributed/elastic/rendezvous/", r"torch/distributed/rendezvous\.py:",
                   r"torch/distributed/elastic/utils/distributed\.py:"),
        cause="rendezvous_hang",
        # As the rendezvous's own errors (torch.elastic.rdzv_connection, rdzv_state_corrupt): the
        # store may have gone with the node that hosted it, so another node's fault comes first.
        role="symptom",
        confidence="medium",
        title="A generic error raised in torch.distributed's rendezvous (creating or joining the c10d store)",
        fix=_RDZV_FIX,
        origin=f"raised in torch/distributed/elastic/rendezvous/*, torch/distributed/rendezvous.py, "
               f"torch/distributed/elastic/utils/distributed.py ({_T})",
        samples=("RuntimeError: connect() timed out. Original timeout was 60000 ms.",
                 "torch.distributed.DistNetworkError: The client socket has timed out after 900000ms"),
        literals=("error",),
    ),
    Signature(
        id="torch.raised_in.cuda_memory",
        patterns=(_GENERIC,),
        raised_in=(r"torch/cuda/memory\.py:",),
        cause="oom",
        role="fault",
        confidence="low",
        title="A generic error raised in torch.cuda's memory allocator API",
        fix=("The exception's own message is generic; it was raised in torch.cuda.memory (the caching allocator's "
             "API: allocating, freeing, querying free memory, a per-process memory fraction). Check the GPU's "
             "memory use at that point and what else holds memory on it:\n"
             "$ nvidia-smi --query-gpu=index,memory.used,memory.total --format=csv\n"
             "$ nvidia-smi --query-compute-apps=pid,used_memory --format=csv"),
        origin=f"raised in torch/cuda/memory.py ({_T})",
        samples=("RuntimeError: CUDA error: 2. cudaMallocManaged",),
        literals=("error",),
    ),
    Signature(
        id="torch.raised_in.elastic_agent_monitor",
        patterns=(_ANY_TYPE,),
        raised_in=(r"torch/distributed/elastic/agent/server/\S+\.py:\d+ in _monitor_workers$",
                   r"torch/distributed/elastic/multiprocessing/api\.py:\d+ in (?:_poll|_capture_process_failures)$",
                   r"torch/distributed/elastic/multiprocessing/errors/__init__\.py:\d+ in "
                   r"(?:__post_init__|_get_error_data|_set_no_reply_file)$"),
        in_any_frame=True,
        # The agent polls its workers and builds a failure record only for one that exited
        # non-zero: it was relaying a worker's failure when it crashed, and its own exception
        # (here instead of the failure report) says nothing of which worker or why. A rank's own
        # evidence (its exception, a signal exit, its silence) comes first.
        cause="rank_crash",
        role="symptom",
        confidence="low",
        title="torchrun (the elastic agent) crashed while collecting its workers' failures",
        fix=("torchrun itself raised while it was collecting a failed worker's exit (reading its error file, "
             "polling the worker processes), so it printed no failure report: the worker that failed first, and "
             "why, are in the ranks' own output. Read each rank's stderr/stdout (torchrun --log-dir, or --tee 3) "
             "and error files for the first traceback, signal exit or rank that went silent:\n"
             "$ ls <log-dir>/<run-id>/attempt_*/*/   # stdout.log, stderr.log, error.json per local rank\n"
             "$ dmesg -T | grep -iE 'killed process|out of memory'   # a worker killed with no last words"),
        origin=f"raised in torch/distributed/elastic/agent/server/local_elastic_agent.py _monitor_workers, "
               f"multiprocessing/api.py _poll/_capture_process_failures, multiprocessing/errors/__init__.py "
               f"ProcessFailure ({_T})",
        samples=("json.decoder.JSONDecodeError: Expecting value: line 1 column 1 (char 0)",
                 "PermissionError: [Errno 13] Permission denied: '/tmp/torchelastic_x/attempt_0/0/error.json'"),
        literals=("error",),
    ),
)


@cache
def _compiled() -> tuple[re.Pattern[str], tuple[tuple[Signature, re.Pattern[str], re.Pattern[str]], ...]]:
    """Any entry's place in one expression (most frames are the program's own: one search says
    so), then each entry's places and exception types."""
    anywhere = re.compile("|".join(p for sig in SIGNATURES for p in sig.raised_in))
    return anywhere, tuple((sig, re.compile("|".join(sig.raised_in)), re.compile("|".join(sig.patterns)))
                           for sig in SIGNATURES)


def raised_in(exception: str, frame: str, stack: tuple[str, ...] = ()) -> Signature | None:
    """The entry that reads `exception` (the exception line, without any launcher prefix) by the
    file of `frame`, the traceback's last frame ('path:line in function'), or for an
    `in_any_frame` entry by any frame of `stack` (the frames above it), if any."""
    anywhere, entries = _compiled()
    if anywhere.search(frame) is None and not any(anywhere.search(f) for f in stack):
        return None
    for sig, places, types in entries:
        frames = (frame, *stack) if sig.in_any_frame else (frame,)
        if any(places.search(f) for f in frames) and types.search(exception):
            return sig
    return None

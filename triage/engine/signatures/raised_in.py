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
)


@cache
def _compiled() -> tuple[re.Pattern[str], tuple[tuple[Signature, re.Pattern[str], re.Pattern[str]], ...]]:
    """Any entry's place in one expression (most frames are the program's own: one search says
    so), then each entry's places and exception types."""
    anywhere = re.compile("|".join(p for sig in SIGNATURES for p in sig.raised_in))
    return anywhere, tuple((sig, re.compile("|".join(sig.raised_in)), re.compile("|".join(sig.patterns)))
                           for sig in SIGNATURES)


def raised_in(exception: str, frame: str) -> Signature | None:
    """The entry that reads `exception` (the exception line, without any launcher prefix) by the
    file of `frame`, the traceback's last frame ('path:line in function'), if any."""
    anywhere, entries = _compiled()
    if anywhere.search(frame) is None:
        return None
    for sig, places, types in entries:
        if places.search(frame) and types.search(exception):
            return sig
    return None

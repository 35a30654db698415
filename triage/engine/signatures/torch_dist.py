"""Signatures of the texts torch.distributed's Python code raises when a run fails: the elastic
rendezvous backends (c10d store, etcd, file), the store barrier, the asynchronous checkpointer
(DCP), collective_utils, RPC, and the program errors FSDP / DTensor / pipelining raise.

Drawn from torch 2.13's torch/distributed/**/*.py (`raise Class("...")` texts, as the last line
of a traceback prints them: `Class: message`); see tools/catalog_coverage.py for which texts
count as failures. Variable parts are written as `\\d+`, `\\S+`, `.*`.
"""
from __future__ import annotations

from .schema import Signature

_RDZV = "torch/distributed/elastic/rendezvous"
_DCP = "torch/distributed/checkpoint"
_RDZV_FIX = (
    "\n$ echo $MASTER_ADDR $MASTER_PORT   # or --rdzv-endpoint: reachable from every node?\n"
    "$ nc -zv $MASTER_ADDR $MASTER_PORT"
)

SIGNATURES: tuple[Signature, ...] = (
    # ------------------------------------------------------------------ import / build
    Signature(
        id="torch.dist.c_init_failed",
        patterns=(r"Failed to initialize torch\.distributed(?:\.autograd|\.rpc(?:\._testing)?)?\s*$",),
        cause="other",
        role="fault",
        confidence="medium",
        title="torch.distributed could not initialise its C++ part (a build without it, or a broken install)",
        fix=("`import torch.distributed` ran the C++ initialisation and it failed: a torch build without "
             "distributed support (some macOS/Windows or custom builds), or a torch install whose Python and C++ parts "
             "do not match (two torch versions mixed in one environment):\n"
             "$ python -c 'import torch, torch.distributed as d; print(torch.__version__, d.is_available())'\n"
             "$ pip list 2>/dev/null | grep -i torch"),
        origin="torch/distributed/__init__.py, autograd/__init__.py, rpc/__init__.py (1.8-2.13)",
        samples=("RuntimeError: Failed to initialize torch.distributed",
                 "[rank1]: RuntimeError: Failed to initialize torch.distributed.rpc"),
        priority=60,
    ),
    Signature(
        id="torch.dist.no_gpu_visible",
        patterns=(
            r"ROCm/CUDA not available .{1,3} cannot detect GPU architecture",
            r"instantiation requires the presence of \S+ device but couldn't find",
        ),
        cause="device_ordinal",
        role="fault",
        confidence="medium",
        title="A distributed component needs a GPU and this process sees none",
        fix=("The process sees no device of the type it needs (empty or wrong CUDA_VISIBLE_DEVICES, a container "
             "started without GPUs, a driver problem):\n$ echo $CUDA_VISIBLE_DEVICES; nvidia-smi -L\n"
             "$ python -c 'import torch; print(torch.cuda.device_count())'"),
        origin="torch/distributed/_symmetric_memory/_rocshmem_triton.py, torch/distributed/tensor/_random.py (2.5-2.13)",
        samples=("RuntimeError: ROCm/CUDA not available — cannot detect GPU architecture",
                 "RuntimeError: OffsetBasedRNGTracker instantiation requires the presence of cuda device but couldn't find."),
        priority=60,
    ),
    # ------------------------------------------------------------------ elastic rendezvous backends
    Signature(
        id="torch.elastic.rdzv_state_corrupt",
        patterns=(r"The (?:rendezvous )?state(?: object)? is corrupt\. See inner exception",),
        cause="rendezvous_hang",
        role="symptom",
        confidence="medium",
        title="The elastic rendezvous state in the store could not be read back",
        fix=("The rendezvous state the agents share through the store (c10d or etcd) did not decode: agents of "
             "different torch versions on one rendezvous id, two jobs sharing --rdzv-id and endpoint, or a store "
             "restarted mid-rendezvous. Use a fresh --rdzv-id per job and the same torch on every node:"
             + _RDZV_FIX),
        origin=f"{_RDZV}/c10d_rendezvous_backend.py, etcd_rendezvous_backend.py, dynamic_rendezvous.py (1.9-2.13)",
        samples=("torch.distributed.elastic.rendezvous.api.RendezvousStateError: The state object is corrupt. See inner exception for details.",
                 "RendezvousStateError: The rendezvous state is corrupt. See inner exception for details."),
        priority=70,
    ),
    Signature(
        id="torch.elastic.rdzv_filestore_failed",
        patterns=(r"The file creation for C10d store has failed\. See inner exception",),
        cause="rendezvous_hang",
        role="fault",
        confidence="medium",
        title="The rendezvous could not create its file store (--rdzv-backend=c10d with a file endpoint)",
        fix=("The c10d rendezvous backend with a FileStore could not create its file: the path must be on a file "
             "system every node shares and can write, and must not be left over from an earlier run:\n"
             "$ ls -ld $(dirname <rdzv file path>); df -h <rdzv file path>"),
        origin=f"{_RDZV}/c10d_rendezvous_backend.py _create_file_store (1.10-2.13)",
        samples=("torch.distributed.elastic.rendezvous.api.RendezvousError: The file creation for C10d store has failed. See inner exception for details.",),
        priority=70,
    ),
    Signature(
        id="torch.elastic.rdzv_error_type",
        # The classes say what failed whatever the message (api.py: RendezvousError "the base type
        # for rendezvous errors", RendezvousConnectionError "the connection to a rendezvous backend
        # has failed", RendezvousStateError "the state of a rendezvous is corrupt"); the specific
        # messages above read their lines first. Closed, timeout and graceful exit have their own
        # meanings (torch.py) or none.
        patterns=(r"\bRendezvous(?:Connection|State)?Error(?::|\s*$)",),
        cause="rendezvous_hang",
        role="symptom",
        confidence="medium",
        title="The elastic rendezvous failed (its backend could not be reached or read)",
        fix=("The elastic agent's rendezvous raised one of its own errors: the c10d/etcd backend at --rdzv-endpoint "
             "could not be reached, or its state could not be read. The inner exception (above it in the log) says "
             "how; check the endpoint from every node:" + _RDZV_FIX),
        origin=f"{_RDZV}/api.py exception classes, raised by c10d_rendezvous_backend.py, etcd_rendezvous_backend.py, "
               "etcd_rendezvous.py, dynamic_rendezvous.py (1.9-2.13)",
        samples=("torch.distributed.elastic.rendezvous.api.RendezvousConnectionError: The connection to the c10d store "
                 "was lost",
                 "RendezvousError: Unexpected state of EtcdRendezvousHandler, worker needs to die."),
        priority=45,
    ),
    Signature(
        id="torch.elastic.etcd_failed",
        patterns=(
            r"Timed out waiting for etcd server to be ready",
            r"Etcd server process exited with the code: -?\d+",
            r"Timeout while waiting for keys in EtcdStore",
            r"Key \S+ not found in EtcdStore",
            r"Unexpected state of EtcdRendezvousHandler, worker needs to die",
        ),
        cause="rendezvous_hang",
        role="fault",
        confidence="medium",
        title="The etcd rendezvous backend failed: the etcd server did not start, died, or keys never came",
        fix=("With --rdzv-backend=etcd(-v2) the agents meet through an etcd server. It did not come up, exited, or "
             "the keys the other agents should write never arrived (they never joined). Check the server and that "
             "every node reaches it:\n$ etcdctl --endpoints=$RDZV_ENDPOINT endpoint health"),
        origin=f"{_RDZV}/etcd_server.py, etcd_store.py (1.9-2.13)",
        samples=("TimeoutError: Timed out waiting for etcd server to be ready!",
                 "LookupError: Timeout while waiting for keys in EtcdStore"),
        priority=70,
    ),
    Signature(
        id="torch.elastic.no_socket",
        patterns=(r"(?:RuntimeError|OSError): Failed to create a socket\s*$",),
        cause="rendezvous_hang",
        role="fault",
        confidence="low",
        title="The elastic launcher could not open a socket for the rendezvous or master port",
        fix=("torchrun looks for a free port (for the master store or the etcd server) by binding a socket on every "
             "address of this host; none worked: the host has no usable address, or every port in the range is "
             "taken. Pass a port explicitly:\n$ torchrun --master-port 29500 ...   # or --rdzv-endpoint host:port\n"
             "$ ip -br addr; ss -ltn | wc -l"),
        origin="torch/distributed/elastic/utils/distributed.py get_free_port, elastic/utils/api.py, "
               f"{_RDZV}/etcd_server.py find_free_port (1.9-2.13)",
        samples=("RuntimeError: Failed to create a socket",),
        priority=55,
    ),
    Signature(
        id="torch.elastic.members_not_joined",
        patterns=(
            r"timed out waiting for all \d+ members to join",
            r"Timed out waiting on barrier on rank \d+, for key prefix: ",
        ),
        extract=r"(?:all (?P<world_size>\d+) members|missing_ranks=(?P<ranks>\[[^\]]*\]))",
        cause="rendezvous_hang",
        role="symptom",
        confidence="medium",
        title="Not every rank reached the store barrier in time",
        fix=("This rank waited on the store for the others and some never arrived (they crashed, hang, or never "
             "started; missing ranks: {ranks}). Look at the missing ranks' logs first; if none started, the store "
             "address is not reachable from them:" + _RDZV_FIX),
        origin="torch/distributed/elastic/utils/distributed.py _check_full_rank, elastic/utils/store.py barrier (1.9-2.13)",
        samples=("torch.distributed.DistStoreError: Timed out waiting on barrier on rank 0, for key prefix: torchelastic/agent/barrier (world_size=4, missing_ranks=[2, 3], timeout=0:05:00)",
                 "TimeoutError: timed out waiting for all 8 members to join"),
        priority=70,
    ),
    Signature(
        id="torch.elastic.timer_server_gone",
        patterns=(r"Could not send the FileTimerRequest because FileTimerServer is not available",),
        cause="other",
        role="fault",
        confidence="low",
        title="The elastic agent's watchdog timer server is not running",
        fix=("The worker asked the agent's FileTimerServer (TORCHELASTIC_TIMER_FILE) to arm a timer and nothing "
             "listened on the pipe: the agent died, or the file path differs between agent and worker:\n"
             "$ echo $TORCHELASTIC_TIMER_FILE; ls -l $TORCHELASTIC_TIMER_FILE"),
        origin="torch/distributed/elastic/timer/file_based_local_timer.py (2.0-2.13)",
        samples=("BrokenPipeError: Could not send the FileTimerRequest because FileTimerServer is not available.",),
        priority=60,
    ),
    # ------------------------------------------------------------------ asynchronous checkpoint (DCP)
    Signature(
        id="torch.dcp.async_process_dead",
        patterns=(
            r"Checkpoint background process is dead\. Exit code: -?\d+",
            r"Timed out after \d+s while waiting for response from checkpointer process pid: \d+",
        ),
        extract=r"(?:Exit code: (?P<exitcode>-?\d+)|pid: (?P<pid>\d+))",
        cause="other",
        role="fault",
        confidence="medium",
        title="The asynchronous checkpoint process died or stopped answering",
        fix=("torch.distributed.checkpoint's async_save runs a background process that writes the checkpoint; it "
             "exited or hung. A negative exit code is a signal (-9: killed, often the host OOM killer). Check the "
             "host's memory and the checkpoint directory's space:\n$ dmesg -T | grep -iE 'killed process|oom' | tail\n"
             "$ df -h <checkpoint dir>"),
        origin=f"{_DCP}/_async_process_executor.py (2.7-2.13)",
        samples=("RuntimeError: Checkpoint background process is dead. Exit code: -9",
                 "RuntimeError: Timed out after 1800s while waiting for response from checkpointer process pid: 41230"),
        priority=70,
    ),
    Signature(
        id="torch.dcp.staging_persist_failed",
        patterns=(r"Failed to persist state_dict from rank \d+ to rank \d+: ",),
        cause="other",
        role="fault",
        confidence="medium",
        title="Checkpoint staging could not write a partner rank's state_dict to local storage",
        fix=("DCP's staging keeps a copy of a partner rank's state_dict on this node and could not write it (the "
             "error follows on the line): local disk full or not writable:\n$ df -h /tmp $TMPDIR"),
        origin=f"{_DCP}/staging.py (2.9-2.13)",
        samples=("RuntimeError: Failed to persist state_dict from rank 3 to rank 2: [Errno 28] No space left on device",),
        priority=65,
    ),
    Signature(
        id="torch.dcp.checkpoint_mismatch",
        patterns=(
            r"Checkpoint file not found at ",
            r"Target tensor size=.* dtype=\S+ does not match source tensor size=",
            r"Checkpoint at \S+ is missing keys: ",
            r"Missing key in checkpoint state_dict: ",
            r"RuntimeError: Missing key: ",
            r"Missing optimizer state for parameter '\S+' in checkpoint",
            r"Number of local shards \(\d+\) does not match number of local shards metadata",
        ),
        cause="other",
        role="fault",
        confidence="high",
        title="The checkpoint being loaded is missing or does not fit the model (keys, shapes, shards)",
        fix=("torch.distributed.checkpoint found no file, a missing key, or a tensor of another size or dtype than the "
             "model's: the checkpoint is incomplete (a save that died half-way) or from another model or parallel "
             "layout. Check the checkpoint directory is complete (.metadata plus every rank's shard files) and the "
             "model configuration matches the one that saved it:\n$ ls -la <checkpoint dir> | head"),
        origin=f"{_DCP}/*.py (default_planner, state_dict, _hf_* readers), _shard/sharded_tensor/api.py (2.2-2.13)",
        samples=("RuntimeError: Missing key in checkpoint state_dict: model.layers.0.mlp.weight.",
                 "RuntimeError: Target tensor size=torch.Size([4096, 1024]) dtype=torch.bfloat16 does not match source tensor size=torch.Size([4096, 2048]) dtype=torch.bfloat16 for key lm_head.weight"),
        priority=65,
    ),
    Signature(
        id="torch.dist.library_missing",
        patterns=(r"(?:NVSHMEM|rocSHMEM) device library (?:not found|'\S*' not found)",),
        cause="other",
        role="fault",
        confidence="high",
        title="Symmetric memory needs the NVSHMEM / rocSHMEM device library, and it is not installed",
        fix="Install the library for this CUDA/ROCm (pip install nvidia-nvshmem-cu12) or point to it (NVSHMEM_HOME, ROCSHMEM_LIB_DIR).",
        origin="torch/distributed/_symmetric_memory/_nvshmem_triton.py, _rocshmem_triton.py (2.8-2.13)",
        samples=("RuntimeError: NVSHMEM device library not found. Searched: ['/usr/local/lib/python3.11/site-packages/nvidia/nvshmem/lib']",),
        priority=65,
    ),
    Signature(
        id="torch.dist.uneven_inputs",
        patterns=(
            r"Rank \d+ exhausted all inputs\.",
            r"Detected at least one rank that exhausted inputs\. Throwing across all ranks",
        ),
        cause="collective_timeout_straggler",
        role="fault",
        confidence="high",
        title="Uneven inputs: a rank ran out of data before the others (Join with throw_on_early_termination)",
        fix=("The ranks did not get the same number of batches; with Join(throw_on_early_termination=True) every "
             "rank raises when one runs out. Give every rank the same number of steps (DistributedSampler with "
             "drop_last=True), or let Join shadow the missing collectives."),
        origin="torch/distributed/algorithms/join.py (1.10-2.13)",
        samples=("RuntimeError: Detected at least one rank that exhausted inputs. Throwing across all ranks.",
                 "RuntimeError: Rank 3 exhausted all inputs."),
        priority=70,
    ),
    # ------------------------------------------------------------------ collectives run from Python
    Signature(
        id="torch.dist.rank_function_failed",
        patterns=(r"all_gather failed with exception ",),
        cause="rank_crash",
        role="symptom",
        confidence="medium",
        title="A function torch.distributed ran on every rank raised on one of them",
        fix=("collective_utils.all_gather ran a function on each rank and gathered the results; a rank's call raised "
             "(the exception is on the line). Every rank raises this: the rank whose own traceback shows the "
             "original error is the one to fix."),
        origin="torch/distributed/collective_utils.py all_gather (2.4-2.13)",
        samples=("RuntimeError: all_gather failed with exception FileNotFoundError(2, 'No such file or directory')",),
        priority=60,
    ),
    Signature(
        id="torch.rpc.followers_timed_out",
        patterns=(r"Followers .+ timed out in _all_gather after [\d.]+ seconds",),
        extract=r"Followers (?P<ranks>.+?) timed out",
        cause="collective_timeout_straggler",
        role="symptom",
        confidence="medium",
        title="RPC: some workers did not answer the leader's all-gather in time",
        fix=("The RPC leader waited for workers {ranks} (at init or at shutdown) and they did not answer: they are "
             "hung, dead, or still busy. Look at those workers' logs first."),
        origin="torch/distributed/rpc/api.py _all_gather (1.8-2.13)",
        samples=("RuntimeError: Followers ['worker1', 'worker3'] timed out in _all_gather after 5.00 seconds. The first exception is Timeout",),
        priority=65,
    ),
    Signature(
        id="torch.rpc.remote_exception",
        patterns=(r"Failed to create original exception type\. Error msg was ",),
        cause="rank_crash",
        role="symptom",
        confidence="low",
        title="RPC: the remote worker raised, and its exception could not be rebuilt here",
        fix="The function this worker called over RPC raised on the remote worker (its message is on the line): the remote worker's traceback has the cause.",
        origin="torch/distributed/rpc/internal.py _handle_exception (1.8-2.13)",
        samples=("RuntimeError: Failed to create original exception type. Error msg was __init__() missing 1 required positional argument Original exception on remote side was CUDA out of memory.",),
        priority=55,
    ),
    Signature(
        id="torch.debug.workers_unresponsive",
        patterns=(r"All workers failed to respond",),
        cause=None,
        role="context",
        confidence="medium",
        title="torch.distributed's debug server got no answer from any worker",
        fix="The debug handler asked every worker for its state (flight recorder, stacks) and none answered: they are hung, dead, or their debug server is off.",
        origin="torch/distributed/debug/_debug_handlers.py (2.10-2.13)",
        samples=("RuntimeError: All workers failed to respond",),
        priority=40,
    ),
    # ------------------------------------------------------------------ errors in the program
    Signature(
        id="torch.dist.program_error",
        patterns=(
            r"(?:collect|replace)_grad_tensors exceeded max depth \(\d+\), likely due to a circular reference",
            r"Loss for microbatch \d+ is not available\. Available losses for microbatches",
            r"Mesh lookup failed: callback returned None for mesh_dim_names",
            r"Sharding propagation failed on op ",
            r"fallback strategy is unable to handle (?:view ops|ops with List\[Tensor\] output)",
            r"P2P warm-up voting failed",
            r"Could not find sharded_tensor_id: \d+ in map",
            r"Tensor with dimensions: .* does not have first dimension divisible by world_size",
            r"It seems that we cannot capture your model as a full graph",
            r"Mesh not found in cache for mesh_dim_names=",
            r"Number of submodules in pipe graph \d+ does not match number of stages",
            r"PipeliningMetadataError: Stage id of \S+ not found",
            r"Cannot unflatten tensor with _StridedShard placement: split_factor=",
            r"PG \S+ was not found while torch\.compile tracing",
        ),
        cause="rank_crash",
        role="fault",
        confidence="medium",
        title="FSDP / DTensor / pipelining raised on an error in the program",
        fix=("A distributed wrapper (FSDP, DTensor sharding propagation, a pipeline schedule, ShardedTensor) met a "
             "model, op or schedule it cannot handle, and this rank stopped with the exception. The message names "
             "the op or structure; the same code fails the same way on every run, so it is the program (or torch "
             "version) to change, not the machines."),
        origin="torch/distributed/fsdp/_common_utils.py, tensor/_sharding_prop.py, tensor/_ops/utils.py, "
               "pipelining/schedules.py, pipelining/_utils.py, _shard/sharded_tensor/api.py (2.0-2.13)",
        samples=("RuntimeError: Sharding propagation failed on op aten.mm.default.",
                 "[rank2]: RuntimeError: Loss for microbatch 3 is not available. Available losses for microbatches: [0, 1, 2]"),
        priority=55,
    ),
    Signature(
        id="torch.dist.internal_check",
        patterns=(
            r", local rank mapping mismatch, expected: ",
            r"Unable to perform re-?rendezvous using \S+ method",
            r"(?:rank|world_size) argument \S+ doesn't match pg (?:rank|size) ",
            r"The rendezvous backend '\S*' does not match the requested backend",
        ),
        cause="other",
        role="fault",
        confidence="low",
        title="torch.distributed found its launch arguments or state inconsistent",
        fix=("The launcher's per-local-rank settings did not cover every local rank, init_rpc got a rank or world "
             "size other than the process group's, a rendezvous handler is not the backend asked for, or an "
             "init_method's rendezvous was asked for a second time in one process (init_process_group called again "
             "after a failure). Restart the process instead of re-initialising; check the launcher arguments."),
        origin="torch/distributed/elastic/multiprocessing/api.py _validate_full_rank, torch/distributed/rendezvous.py, "
               "rpc/backend_registry.py, elastic/rendezvous/api.py (1.8-2.13)",
        samples=("RuntimeError: log_line_prefixes, local rank mapping mismatch, expected: {0, 1}, actual: {0}",
                 "RuntimeError: Unable to perform re-rendezvous using tcp:// method"),
        priority=55,
    ),
)

"""Signatures of the texts training and serving frameworks raise when a run fails: DeepSpeed
(launcher, elasticity, checkpoint engines, offload helper processes), Megatron core and training
(distributed checkpointing, DDP buffers), SGLang's runtime (disaggregated KV transfer, device
communicators, the scheduler's managers, device queries), vLLM's distributed layer (disaggregated
KV / encoder-cache transfer, store barriers, expert-parallel scaling, weight transfer) and executors.

Drawn from `raise Class("...")` texts, as the last line of a traceback prints them: DeepSpeed and
Megatron-LM at their fetched heads (deepspeed/**, megatron/core/**, megatron/training/**), SGLang
0.5.10's wheel (sglang/srt/**), vLLM 0.34.0's wheel (vllm/distributed/**, vllm/v1/executor, worker, engine). See tools/catalog_coverage.py for which texts count as failures.
"""
from __future__ import annotations

from .schema import Signature

_DS = "DeepSpeed"
_MG = "Megatron-LM"
_SGL = "SGLang sglang/srt"
_CKPT_CHECK = "\n$ df -h <checkpoint dir>; dmesg -T | grep -iE 'killed process|oom' | tail"

SIGNATURES: tuple[Signature, ...] = (
    # ------------------------------------------------------------------ checkpoint writers and readers
    Signature(
        id="deepspeed.ckpt.engine_failed",
        patterns=(
            r"\[\S*\] Checkpoint process died unexpectedly\. Check logs for OOM",
            r"\[\S*\] Checkpoint commit timed out after \d+ seconds",
            r"An error occurred while initializing DataStates Checkpoint Engine",
            r"Expert checkpoint file is corrupt: key '\S*' not found in ",
            r"Expert checkpoint file not found: ",
            r"Checkpoint module state did not match the model outside AutoEP expert parameters",
            r"Missing AutoEP\+AutoTP folding metadata in folded checkpoint",
            r"AutoEP ZeRO-3 checkpoint metadata references expert parameters that are missing",
        ),
        cause="other",
        role="fault",
        confidence="medium",
        title="DeepSpeed's checkpoint engine failed, or the checkpoint is incomplete or does not fit the model",
        fix=("The asynchronous checkpoint engine (DataStates / decoupled) lost its writer process or timed out "
             "committing, or a checkpoint file misses a key. A writer that died is often the host OOM killer; a "
             "commit that times out, a slow or full file system:" + _CKPT_CHECK),
        origin=f"{_DS} deepspeed/runtime/checkpoint_engine/*.py, deepspeed/runtime/engine.py (0.14-0.18)",
        samples=("RuntimeError: [rank3] Checkpoint process died unexpectedly. Check logs for OOM or other errors in the checkpoint subprocess.",
                 "RuntimeError: Expert checkpoint file is corrupt: key 'module' not found in /ckpt/global_step100/expert_0_mp_rank_00_model_states.pt"),
        priority=65,
    ),
    Signature(
        id="megatron.ckpt.failed",
        patterns=(
            r"RuntimeError: Worker failure: ",
            r"Checkpoint integrity verification failed for \d+ file\(s\) in ",
            r"Cannot verify checkpoint mismatch with ckpt_sharded_metadata=None",
            r"Cannot load a GPT checkpoint into this hybrid model",
            r"Could not find a save_state for the train_iterator",
            r"Could not read (?:metadata|log-probs) member ",
            r"Missing (?:object )?shards after fully parallel loading: ",
            r"Missing loaded item shard: ",
        ),
        cause="other",
        role="fault",
        confidence="medium",
        title="Megatron could not write or load a distributed checkpoint",
        fix=("A worker of the asynchronous file-system writer failed (its error follows), or a checkpoint did not "
             "verify or does not fit the model being loaded. For a write, check space and the writer's memory; for a "
             "load, that the checkpoint is complete and from the same model configuration:" + _CKPT_CHECK),
        origin=f"{_MG} megatron/core/dist_checkpointing/strategies/filesystem_async.py, dist_checkpointing/*.py, megatron/training/*.py",
        samples=("RuntimeError: Worker failure: OSError(28, 'No space left on device')",
                 "megatron.core.dist_checkpointing.core.CheckpointingException: Checkpoint integrity verification failed for 2 file(s) in /ckpt/iter_0001000:"),
        priority=65,
    ),
    # ------------------------------------------------------------------ helper processes beside the ranks
    Signature(
        id="deepspeed.offload.helper_failed",
        patterns=(
            r"SuperOffload CPU optimizer timeout after \d+ seconds",
            r"ZenFlow optimizer process (?:exited during a step|failed to become ready)",
            r"RuntimeError: Error in worker process: ",
        ),
        cause="other",
        role="fault",
        confidence="medium",
        title="A DeepSpeed helper process (CPU optimizer, ZenFlow, a worker) died or stopped answering",
        fix=("The rank waits on a process of its own (the offloaded CPU optimizer, ZenFlow's optimizer, a worker) "
             "that exited or deadlocked. Its own traceback is above in the log; an exit without one is often the "
             "host OOM killer:\n$ dmesg -T | grep -iE 'killed process|oom' | tail"),
        origin=f"{_DS} deepspeed/runtime/superoffload/*.py, deepspeed/runtime/zenflow/*.py, deepspeed/runtime/*.py (0.17-0.18)",
        samples=("RuntimeError: ZenFlow optimizer process exited during a step (likely an error or OOM in the optimizer process -- check its traceback above) instead of completing the update. Aborting to avoid hanging distributed training.",
                 "RuntimeError: SuperOffload CPU optimizer timeout after 600 seconds. This indicates a deadlock or critical performance issue in the CPU optimizer."),
        priority=65,
    ),
    # ------------------------------------------------------------------ environment
    Signature(
        id="deepspeed.env.requirement_missing",
        patterns=(
            r"Unable to run elasticity on target deepspeed version of \S+, currently \S+",
            r"Unable to import apex/amp, please make sure it is installed",
            r"DS_PIN_MEMORY_BACKEND=native requires the pin_memory op, which failed to build/load",
            r"Current torch version does not have .*api \(torch\.__version__",
        ),
        cause="version_mismatch",
        role="fault",
        confidence="medium",
        title="DeepSpeed's configuration needs a package, op or version this environment does not have",
        fix=("The config asks for something the installed software lacks (a DeepSpeed version for elasticity, apex "
             "for amp, a JIT-built op that did not build). Compare the versions on every node and rebuild the ops:\n"
             "$ ds_report\n$ pip list 2>/dev/null | grep -iE 'deepspeed|apex|torch'"),
        origin=f"{_DS} deepspeed/elasticity/elasticity.py, deepspeed/runtime/engine.py, deepspeed/runtime/utils.py",
        samples=("deepspeed.elasticity.config.ElasticityError: Unable to run elasticity on target deepspeed version of 0.12.0, currently 0.16.4",),
        priority=60,
    ),
    Signature(
        id="megatron.env.requirement_missing",
        patterns=(
            r"\[GTP\] .* require PyTorch >= \S+",
            r"TE CPU offload is not available",
            r"requires FusedAdam from TransformerEngine, but not found",
            r"custom CUDA extension fused_weight_gradient_mlp_cuda module is not found",
            r"The 'nvidia_resiliency_ext' module is required for local checkpointing but was not found",
        ),
        cause="version_mismatch",
        role="fault",
        confidence="medium",
        title="Megatron's options need a PyTorch, Transformer Engine, APEX or NVRx this environment does not have",
        fix=("An option needs a newer PyTorch or a Transformer Engine feature that is not installed here. Check the "
             "versions on every node:\n$ python -c 'import torch, transformer_engine as te; print(torch.__version__, te.__version__)'"),
        origin=f"{_MG} megatron/core/pipeline_parallel/fine_grained_activation_offload.py, megatron/core/tensor_parallel/*.py",
        samples=("RuntimeError: TE CPU offload is not available",),
        priority=60,
    ),
    Signature(
        id="deepspeed.launcher.no_gpus",
        patterns=(r"Unable to proceed, no GPU resources available",),
        cause="device_ordinal",
        role="fault",
        confidence="medium",
        title="The DeepSpeed launcher found no GPU to run on",
        fix=("No hostfile was given and this node shows no accelerator, or --include/--exclude left nothing:\n"
             "$ nvidia-smi -L; echo $CUDA_VISIBLE_DEVICES\n$ cat /job/hostfile   # or your --hostfile"),
        origin=f"{_DS} deepspeed/launcher/runner.py main (0.3-0.18)",
        samples=("RuntimeError: Unable to proceed, no GPU resources available",),
        priority=70,
    ),
    Signature(
        id="sglang.device.unavailable",
        patterns=(
            r"torch_npu detected, but NPU device is not available or visible",
            r"torch\.xpu is not available\.",
            r"torch\.cuda\.mem_get_info\(\) fallback also failed: ",
        ),
        cause="device_ordinal",
        role="fault",
        confidence="medium",
        title="SGLang could not see or query the accelerator it was started for",
        fix=("The server process sees no device of the kind it needs, or cannot ask it for its memory (empty or wrong "
             "visible-devices variable, a container started without the device):\n"
             "$ echo $CUDA_VISIBLE_DEVICES $ASCEND_RT_VISIBLE_DEVICES; nvidia-smi -L"),
        origin=f"{_SGL}/utils/common.py get_device / get_available_gpu_memory (0.4-0.5.10)",
        samples=("RuntimeError: torch_npu detected, but NPU device is not available or visible.",),
        priority=60,
    ),
    Signature(
        id="sglang.device.query_failed",
        patterns=(
            r"(?:rocm-smi|hl-smi|mthreads-gmi) (?:error: |not found\. Ensure)",
            r"An error occurred while getting device capability of hpu",
            r"Unexpected error running 'lscpu'",
        ),
        cause="other",
        role="fault",
        confidence="low",
        title="SGLang's query of the device (an smi tool, lscpu) failed",
        fix="The vendor tool SGLang runs to read the device's memory or the CPU layout failed or is missing in this image:\n$ which rocm-smi hl-smi mthreads-gmi lscpu",
        origin=f"{_SGL}/utils/common.py (0.4-0.5.10)",
        samples=("RuntimeError: rocm-smi error: rocm-smi: command not found",),
        priority=55,
    ),
    # ------------------------------------------------------------------ SGLang: disaggregated KV transfer
    Signature(
        id="sglang.disagg.transfer_failed",
        patterns=(
            r"(?:Ascend|Mooncake) Transfer Engine initialization failed",
            r"\[Staging\] (?:KV transfer via staging buffer failed|Bulk RDMA transfer failed with ret=)",
            r"NIXL memory registration failed for \w+ tensors",
            r"(?:KVSender failed to (?:create|post) transfer|Failed to (?:create|post) (?:sliced KV|Mamba state) transfer|KVSender transfer encountered an error)",
        ),
        cause="network",
        role="fault",
        confidence="medium",
        title="SGLang's KV-cache transfer between prefill and decode servers failed (RDMA transfer engine)",
        fix=("Prefill/decode disaggregation moves the KV cache over RDMA (Mooncake, NIXL, Ascend); its engine did not "
             "start, could not register memory, or a transfer failed. Check the RDMA devices and that both servers "
             "reach each other over them:\n$ ibv_devinfo | grep -E 'hca_id|state'\n$ ulimit -l   # must be unlimited "
             "for memory registration"),
        origin=f"{_SGL}/disaggregation/mooncake/conn.py, nixl/conn.py, common/staging_handler.py, ascend/transfer_engine.py, distributed/device_communicators/mooncake_transfer_engine.py (0.4.7-0.5.10)",
        samples=("Exception: NIXL memory registration failed for kv tensors",
                 "RuntimeError: [Staging] Bulk RDMA transfer failed with ret=-1. src_ptr=0x7f00, dst_ptr=0x7e00, size=4096. The decode staging buffer may not be properly registered."),
        priority=65,
    ),
    Signature(
        id="sglang.disagg.prefill_dead",
        patterns=(r"Transfer thread failed because of .*\. Prefill instance with bootstrap_port=\d+ is dead",),
        cause="rank_crash",
        role="symptom",
        confidence="medium",
        title="SGLang decode server: the prefill server it fetches KV caches from is dead",
        fix="The decode side lost its prefill server: look at the prefill server's own log for why it exited.",
        origin=f"{_SGL}/disaggregation/mooncake/conn.py (0.4.7-0.5.10)",
        samples=("RuntimeError: Transfer thread failed because of ConnectionResetError. Prefill instance with bootstrap_port=8998 is dead.",),
        priority=70,
    ),
    Signature(
        id="sglang.disagg.config_mismatch",
        patterns=(
            r"(?:Page size|KV cache dtype) mismatch: prefill server has \w+=\S+, but decode server has",
            r"State index length mismatch: prefill=\d+, dst=\d+",
        ),
        cause="other",
        role="fault",
        confidence="high",
        title="SGLang's prefill and decode servers were started with different KV-cache settings",
        fix="Start the prefill and the decode servers with the same --page-size and --kv-cache-dtype (and the same model and parallel layout).",
        origin=f"{_SGL}/disaggregation/common/conn.py, nixl/conn.py (0.5-0.5.10)",
        samples=("RuntimeError: Page size mismatch: prefill server has page_size=16, but decode server has page_size=1. Both servers must use the same --page-size value.",),
        priority=75,
    ),
    Signature(
        id="sglang.mem.pool_exhausted",
        patterns=(
            r"HiSparse host mem pool alloc failed for \d+ ",
            r"HiSparse _grow_device_buffers failed",
            r"\[Staging\] Chunk staging allocation permanently failed",
            r"Decode status not found for request \S+\. It may be due to the request being evicted",
        ),
        cause="oom",
        role="fault",
        confidence="medium",
        title="An SGLang memory pool (HiSparse host pool, disaggregation staging ring) ran out",
        fix=("A pre-sized pool could not hold the request: give the pool more memory or serve shorter requests "
             "(SGLANG_DISAGG_STAGING_POOL_SIZE_MB for the staging ring; the HiSparse host pool size; --mem-fraction-static)."),
        origin=f"{_SGL}/managers/hisparse_coordinator.py, disaggregation/decode.py, disaggregation/mooncake/conn.py (0.5.9-0.5.10)",
        samples=("RuntimeError: HiSparse host mem pool alloc failed for 4096 tokens",),
        priority=65,
    ),
    # ------------------------------------------------------------------ SGLang: device communicators and launch
    Signature(
        id="sglang.comm.p2p_test_failed",
        patterns=(r"Error happened when batch testing peer-to-peer access from ",),
        cause="p2p_unsupported",
        role="fault",
        confidence="medium",
        title="SGLang's peer-to-peer test between GPUs crashed (custom all-reduce check)",
        fix=("Before enabling its custom all-reduce, SGLang copies between GPU pairs in a subprocess; that test "
             "failed, so peer-to-peer access is broken on this node (IOMMU/ACS, driver). Check, or run without it:\n"
             "$ nvidia-smi topo -p2p r\n$ python -m sglang.launch_server ... --disable-custom-all-reduce"),
        origin=f"{_SGL}/distributed/device_communicators/custom_all_reduce_utils.py can_actually_p2p (0.3-0.5.10)",
        samples=("RuntimeError: Error happened when batch testing peer-to-peer access from [0, 0, 1] to [1, 2, 2]:",),
        priority=70,
    ),
    Signature(
        id="sglang.comm.library_error",
        patterns=(r"RuntimeError: (?:CUDART|NCCL) error: ",),
        cause="rank_crash",
        role="symptom",
        confidence="low",
        title="SGLang's ctypes wrapper of CUDA or NCCL returned an error",
        fix=("SGLang calls libcudart / libnccl directly (custom all-reduce, pynccl) and one call failed; the error "
             "string on the line names it (an illegal memory access, a peer that exited, an unhandled system error). "
             "Find the first rank that failed:\n$ NCCL_DEBUG=INFO CUDA_LAUNCH_BLOCKING=1 <your launch command>"),
        origin=f"{_SGL}/distributed/device_communicators/cuda_wrapper.py, pynccl_wrapper.py, utils/common.py (0.3-0.5.10)",
        samples=("RuntimeError: NCCL error: remote process exited or there was a network error",
                 "RuntimeError: CUDART error: an illegal memory access was encountered"),
        priority=30,
    ),
    Signature(
        id="sglang.launch.ports_not_received",
        patterns=(r"Failed to receive worker ports from node 0 within timeout",),
        cause="rendezvous_hang",
        role="symptom",
        confidence="medium",
        title="SGLang multi-node launch: this node never got the worker ports from node 0",
        fix=("Node 0 shares its ports with the other nodes at start-up through --dist-init-addr; they never came: node "
             "0 failed to start or is not reachable at that address:\n$ nc -zv <dist-init-addr host> <port>"),
        origin=f"{_SGL}/managers/data_parallel_controller.py (0.4-0.5.10)",
        samples=("RuntimeError: Failed to receive worker ports from node 0 within timeout",),
        priority=70,
    ),
    Signature(
        id="sglang.engine.init_failed",
        patterns=(r"RuntimeError: Initialization failed\. Please see the error messages above",),
        cause="rank_crash",
        role="symptom",
        confidence="low",
        title="SGLang engine initialization failed (the cause is printed above)",
        fix="A scheduler or detokenizer process failed while starting: the first traceback above, from that process, is the cause.",
        origin=f"{_SGL}/entrypoints/engine.py _launch_subprocesses (0.4-0.5.10)",
        samples=("RuntimeError: Initialization failed. Please see the error messages above.",),
        priority=55,
    ),
    Signature(
        id="sglang.cpu_graph_capture_failed",
        patterns=(r"Capture CPU graph failed: ",),
        cause="rank_crash",
        role="fault",
        confidence="low",
        title="SGLang could not capture its CPU graph",
        fix="Capturing the model's CPU graph (torch.compile on CPU) failed; the reason follows on the line. Run without it to confirm, then report it with the model and versions.",
        origin=f"{_SGL}/model_executor/cpu_graph_runner.py (0.5-0.5.10)",
        samples=("Exception: Capture CPU graph failed: RuntimeError('unsupported operator')",),
        priority=55,
    ),
    Signature(
        id="sglang.runtime.internal_failed",
        patterns=(
            r"Failed to stop HiCache storage threads cleanly",
            r"Stop storage threads failed; detach aborted",
            r"RuntimeError: Publisher is closed",
            r"Failed to (?:read JSON file|parse JSON content from file) ",
            r"Cannot get host and port information from \S+, error: ",
            r"RuntimeError: Error while loading data ",
        ),
        cause="other",
        role="fault",
        confidence="low",
        title="An SGLang service thread or configuration read failed (HiCache storage, KV events, a config file)",
        fix="A part of the server outside the model (HiCache storage threads, the KV-event publisher, a JSON config, an address) failed; the text names it. Check that file or service and the server arguments.",
        origin=f"{_SGL}/managers/cache_controller.py, disaggregation/kv_events.py, encode_server.py, distributed/device_communicators/mooncake_transfer_engine.py, model_executor/mindspore_runner.py (0.4-0.5.10)",
        samples=("RuntimeError: Failed to read JSON file /etc/mooncake.json: [Errno 2] No such file or directory",),
        priority=50,
    ),
    Signature(
        id="sglang.encode.request_error",
        patterns=(r"(?:BadRequestError: (?:Failed to process mm items|Bad request error)|InternalError: Internal encoding error): ",),
        cause=None,
        role="context",
        confidence="medium",
        title="SGLang's encode server failed one request (multimodal items)",
        fix="One request's multimodal items could not be processed; the server answered that request with an error and goes on.",
        origin=f"{_SGL}/disaggregation/encode_server.py (0.5.9-0.5.10)",
        samples=("sglang.srt.disaggregation.encode_server.BadRequestError: Failed to process mm items: cannot identify image file",),
        priority=40,
    ),
    Signature(
        id="sglang.test_crash",
        patterns=(r"Test crash after stream_output called \d+ times",),
        cause="rank_crash",
        role="fault",
        confidence="high",
        title="SGLang's crash-injection test hook stopped the scheduler on purpose",
        fix="A test variable asked SGLang to crash after N outputs (fault-injection testing); unset it for real runs:\n$ env | grep -i SGLANG_TEST",
        origin=f"{_SGL}/managers/scheduler_output_processor_mixin.py (0.5-0.5.10)",
        samples=("RuntimeError: Test crash after stream_output called 100 times",),
        priority=70,
    ),
    Signature(
        id="frameworks.config.invalid",
        patterns=(
            r"ElasticityConfigError: (?:Elasticity config missing |'\S+' is missing from config json)",
            r"ds_autoep_layers entry is invalid: missing fields",
            r"AutoEP checkpointing requires a single EP group size, but found multiple groups",
            r"AutoEP expert ZeRO Stage 3 subgroup is missing an expert-parallel group name",
            r"EnvironmentError: (?:local_)?rank number doesn't match!",
            r"YAML file not found: ",
            r"Exception: Missing argument \S+ for \S+ config",
            r"engine_info_bootstrap_port \d+ is already in use",
        ),
        cause="other",
        role="fault",
        confidence="high",
        title="The framework's configuration is incomplete or inconsistent (DeepSpeed, Megatron, SGLang)",
        fix=("A config file, field or argument is missing, or the launcher's rank variables disagree with what the "
             "framework discovered (DeepSpeed with MPI discovery), or two server instances on one node asked for the "
             "same port. The message names the field; fix the config or the launch command."),
        origin=f"{_DS} deepspeed/elasticity/config.py, deepspeed/comm/comm.py mpi_discovery, deepspeed/runtime/**; "
               f"{_MG} megatron/training/*.py; {_SGL}/entrypoints/engine.py",
        samples=("EnvironmentError: rank number doesn't match!",
                 "deepspeed.elasticity.config.ElasticityConfigError: 'micro_batch_sizes' is missing from config json, please add it if running an elastic training job."),
        priority=60,
    ),
    # ------------------------------------------------------------------ errors in the program
    Signature(
        id="frameworks.program_error",
        patterns=(
            r"offloaded activation \S+ is no longer tracked\. backward\(\) must run before",
            r"Unable to retake inference workspace",
            r"HybridEngine CUDA graph: generation exceeded the declared length",
            r"RuntimeError: tracing error at step \d+",
            r"Failed to remap (?:grouped NVFP4 rowwise|high-precision TE GroupedTensor parameter) storage into DDP param_data",
            r"Muon QKV split shape mismatch: ",
            r"\[GTP\] get_wgrad_tensor called again before the previous symmetric wgrad buffer was consumed",
            r"_get_attr_wrapped_model couldn't find attribute ",
            r"Missing gradient for FSDP parameter ",
            r"GTP wgrad shape \S+ does not match ring view ",
            r"\[GTP\] RegisteredLIFOPool exhausted during CUDA-graph capture",
        ),
        cause="rank_crash",
        role="fault",
        confidence="medium",
        title="DeepSpeed / Megatron raised on a model, schedule or option it cannot handle",
        fix=("The framework met a state of the program it cannot go on from (an activation freed too early, a "
             "buffer layout it cannot remap, a generation longer than declared, a model attribute missing), and this "
             "rank stopped. The same code fails the same way on every run: change the option or model code it names, "
             "or the framework version."),
        origin=f"{_DS} deepspeed/runtime/**, {_MG} megatron/core/distributed/param_and_grad_buffer.py, megatron/core/optimizer/*.py, megatron/training/*.py",
        samples=("RuntimeError: Muon QKV split shape mismatch: grad_shape=torch.Size([3072, 1024]), split_shapes=[1024, 1024, 512]",
                 "RuntimeError: Unable to retake inference workspace."),
        priority=55,
    ),
    # ------------------------------------------------------------------ vLLM: distributed layer, KV transfer, executors
    Signature(
        id="vllm.kv_transfer.failed",
        patterns=(
            r"Initialize MooncakeDistributedStore failed",
            r"Mooncake (?:Transfer ?Engine initialization|batch memory (?:un)?registration|register_buffer|unregister_buffer|EC source registration) failed",
            r"Mooncake (?:sender listener|bootstrap server) exited (?:before becoming ready|during startup)",
            r"Mooncake lookup timed out", r"Failed to register \S+ with the Mooncake bootstrap server",
            r"Failed to connect to metadata server: ",
            r"EC Mooncake control channel failed to (?:start|bind)", r"Mooncake EC push to \S+ failed",
            r"Could not discover every EC consumer shard", r"Timed out waiting for EC mmap file",
            r"EC reservation is missing a confirmed shard address", r"Could not cancel EC reservation",
            r"\bEmbeddingStore(?:Operation)?Error: ",
            r"NIXL (?:EPLB init failed|transfer failed with state)", r"Failed to decode Nixl(?:HandshakePayload|AgentMetadata)",
            r"MoRI could not open a session", r"MoRIIOError: Failed to register local memory", r"MoRIIO discovery heartbeat exited",
            r"moriio_common\.(?:TransferError|HandshakeError): ", r"handshake failed, unexpected msg type", r"MORI UMBP (?:failed to register KV storage|transfer timed out)",
            r"KV offload sync load job \S+ failed", r"Failed to reset the KV connector cache",
            r"Worker failed with KV connector output",
        ),
        cause="network",
        role="fault",
        confidence="medium",
        title="vLLM's KV-cache / encoder-cache transfer between instances failed (Mooncake, NIXL, MoRIIO)",
        fix=("Disaggregated serving moves KV caches (and encoder caches) between prefill and decode instances over "
             "RDMA; the transfer engine did not start, could not register memory or reach its bootstrap / metadata "
             "server, or a transfer or handshake failed. Check the RDMA devices, that the instances reach each other "
             "and the bootstrap server, and the memory-lock limit:\n$ ibv_devinfo | grep -E 'hca_id|state'\n"
             "$ ulimit -l   # must be unlimited for memory registration\n$ nc -zv <bootstrap host> <port>"),
        origin=("vllm 0.34.0 distributed/kv_transfer/kv_connector/v1/{mooncake,nixl,moriio,offloading}/*.py, "
                "distributed/ec_transfer/**, distributed/mooncake_store.py, distributed/eplb/nixl*.py"),
        samples=("RuntimeError: Mooncake TransferEngine initialization failed.",
                 "vllm.distributed.kv_transfer.kv_connector.v1.moriio.moriio_common.TransferError: MoRIIO batch wait failed (3): timeout",
                 "RuntimeError: Failed to register prefill-0 with the Mooncake bootstrap server at 10.0.0.5:8998 after 5 attempts."),
        priority=65,
    ),
    Signature(
        id="vllm.kv_transfer.config_mismatch",
        patterns=(
            r"NIXL compatibility hash mismatch\. Local: ", r"Remote NIXL agent engine ID mismatch",
            r"hybrid READ block group count mismatch", r"missing mamba recurrent-state block ids",
            r"Reserved EC size does not match tensor", r"NIXL EPLB (?:metadata key|nbytes_per_expert) mismatch",
            r"embedding tensor shape mismatch for ", r"resolved different nccl_m2n destinations",
            r"HiSparse request-state mapping does not match max_num_seqs",
            r"Model: .* mismatch with new model ",
        ),
        cause="other",
        role="fault",
        confidence="high",
        title="vLLM instances or ranks that exchange caches or weights were started with different configurations",
        fix=("The two sides of a transfer (prefill and decode instances, EPLB ranks, inference workers) disagree on "
             "the model, vLLM version, dtype, KV-cache layout or parallel layout. Start them from the same image "
             "with the same model and arguments:\n$ python -c 'import vllm; print(vllm.__version__)'   # on every instance"),
        origin="vllm 0.34.0 distributed/kv_transfer/kv_connector/v1/{nixl,moriio}/*.py, distributed/ec_transfer/**, distributed/eplb/*.py, distributed/weight_transfer/*.py",
        samples=("RuntimeError: Remote NIXL agent engine ID mismatch. Expected prefill-0,received decode-1.",
                 "vllm.distributed.kv_transfer.kv_connector.v1.moriio.moriio_common.MoRIIOError: MoRIIO hybrid READ block group count mismatch: local=2, remote=3"),
        priority=75,
    ),
    Signature(
        id="vllm.kv_transfer.library_missing",
        patterns=(
            r"\b(?:NIXL|MoRIIO|Mooncake) is (?:not available|unavailable)",
            r"MORI UMBP Python bindings are unavailable",
            r"EPLB communicator '\w+' requested but (?:unavailable|NIXL is unavailable)",
        ),
        cause="other",
        role="fault",
        confidence="medium",
        title="vLLM was asked for a transfer library (NIXL, Mooncake, MoRIIO) this environment does not have",
        fix=("The KV connector or EPLB communicator in the configuration needs a package that is not installed (or "
             "not importable) in this image. Install it, or choose another connector:\n"
             "$ python -c 'import nixl, mooncake'   # the one the config names"),
        origin="vllm 0.34.0 distributed/kv_transfer/kv_connector/v1/*, distributed/eplb/*.py",
        samples=("RuntimeError: NIXL is not available", "RuntimeError: EPLB communicator 'nixl' requested but NIXL is unavailable."),
        priority=60,
    ),
    Signature(
        id="vllm.dist.store_barrier_failed",
        patterns=(r"Failed to broadcast barrier_id", r"Failed to signal barrier (?:arrival|departure)",
                  r"Barrier (?:departure )?timed out after \S+ seconds"),
        cause="rendezvous_hang",
        role="symptom",
        confidence="medium",
        title="vLLM's store-based barrier failed or timed out (a rank never arrived, or the store is gone)",
        fix=("vLLM's StatelessProcessGroup synchronises its ranks through a TCP store; a rank did not arrive in time "
             "or the store could not be reached. Look for the rank that failed or is slower to start, and check that "
             "every rank reaches the store's address:\n$ nc -zv <master addr> <port>"),
        origin="vllm 0.34.0 distributed/utils.py StatelessProcessGroup.barrier",
        samples=("RuntimeError: Barrier timed out after 300.00 seconds", "RuntimeError: Failed to signal barrier arrival"),
        priority=60,
    ),
    Signature(
        id="vllm.dist.nccl_unique_id_failed",
        patterns=(r"failed to load the NCCL library for unique-id rendezvous", r"NCCL4Py unique-id generation failed"),
        cause="version_mismatch",
        role="fault",
        confidence="medium",
        title="vLLM could not load NCCL to create its communicator's unique id",
        fix=("The NCCL library vLLM loads for its own communicators is missing or does not match. Point it at the "
             "NCCL PyTorch ships:\n$ export VLLM_NCCL_SO_PATH=$(python -c 'import nvidia.nccl, os; "
             "print(os.path.join(nvidia.nccl.__path__[0], \"lib\", \"libnccl.so.2\"))')"),
        origin="vllm 0.34.0 distributed/device_communicators/pynccl_wrapper.py, distributed/weight_transfer/nccl*.py",
        samples=("RuntimeError: failed to load the NCCL library for unique-id rendezvous",),
        priority=70,
    ),
    Signature(
        id="vllm.dist.no_rdma_for_ep",
        patterns=(r"DeepEPv2 requires NCCL GIN", r"DeepEPv2 communicator properties query failed",
                  r"/sys/class/infiniband not found or not a directory"),
        cause="network",
        role="fault",
        confidence="medium",
        title="vLLM's expert-parallel communication needs InfiniBand / GPU-initiated networking this node lacks",
        fix=("DeepEP's kernels need IBGDA-capable InfiniBand NICs and drivers (NCCL GIN); this node shows none, or "
             "the container does not see them:\n$ ls /sys/class/infiniband; ibv_devinfo\n"
             "# containers: pass the RDMA devices (--device=/dev/infiniband) and the host's drivers"),
        origin="vllm 0.34.0 distributed/device_communicators/all2all.py, distributed/*net* helpers",
        samples=("RuntimeError: DeepEPv2 requires NCCL GIN (GPU-Initiated Networking). This usually means IBGDA-capable InfiniBand NICs or drivers are not available. See tools/ep_kernels/README.md for requirements.",
                 "RuntimeError: /sys/class/infiniband not found or not a directory"),
        priority=70,
    ),
    Signature(
        id="vllm.elastic_ep.timeout",
        patterns=(r"Timed out waiting for (?:external EEP handshake server|rank 0 to publish external Elastic EP"
                  r"|external Elastic EP (?:ranks to prepare|drains)|all old ranks to finish external Elastic EP)",
                  r"External Elastic EP scaling failed while waiting for ranks"),
        cause="rendezvous_hang",
        role="symptom",
        confidence="medium",
        title="vLLM elastic expert-parallel scaling: the other ranks did not join in time",
        fix=("Scaling the expert-parallel group waits for every old and new rank; one never got there (it failed to "
             "start, or cannot reach rank 0). Read the log of the rank that is missing."),
        origin="vllm 0.34.0 distributed/elastic_ep/*.py",
        samples=("TimeoutError: Timed out waiting for external Elastic EP ranks to prepare.",),
        priority=60,
    ),
    Signature(
        id="vllm.executor.worker_failed",
        patterns=(r"Worker failed with error '.*', please check the stack trace above", r"One or more workers failed",
                  r"Worker \S+ failed to initialize: ", r"RuntimeError: Executor failed\.", r"CUDA checkpoint executor failed",
                  r"Input socket thread died during startup", r"Frontend process failed during engine core initialization",
                  r"Async EPLB worker failed on at least one rank", r"Failed to initialize (?:PyNccl|Nixl)EplbCommunicator"),
        cause="rank_crash",
        role="symptom",
        confidence="low",
        title="vLLM: a worker failed (its own traceback, above, has the cause)",
        fix="A worker process raised or died; its first traceback (or the kernel log, for a killed process) is the cause:\n$ dmesg -T | grep -iE 'killed process|xid' | tail",
        origin="vllm 0.34.0 v1/executor/multiproc_executor.py, abstract.py, cuda_checkpoint_executor.py, v1/engine/core.py, core_client.py, utils.py, distributed/eplb/*.py",
        samples=("RuntimeError: Worker failed with error 'CUDA error: an illegal memory access was encountered', please check the stack trace above for the root cause",
                 "RuntimeError: Worker 3 failed to initialize: NCCL error: unhandled system error"),
        priority=35,
    ),
    Signature(
        id="vllm.executor.startup_timeout",
        patterns=(r"Timed out waiting for (?:new )?engine core processes to start",),
        cause="rendezvous_hang",
        role="symptom",
        confidence="low",
        title="vLLM: the engine core processes did not come up in time",
        fix=("The engine waited VLLM_ENGINE_READY_TIMEOUT_S for its core processes: weights still loading (a slow file "
             "system, a large model), or a worker stuck in NCCL set-up waiting for a rank that never came. Read the "
             "workers' last lines; raise the timeout only when they are still loading:\n$ export VLLM_ENGINE_READY_TIMEOUT_S=1800"),
        origin="vllm 0.34.0 v1/engine/utils.py wait_for_engine_startup",
        samples=("TimeoutError: Timed out waiting for engine core processes to start. This is often caused by slow weight loading for large models. Waited 600s (configured by VLLM_ENGINE_READY_TIMEOUT_S). To increase the timeout, set the environment variable: VLLM_ENGINE_READY_TIMEOUT_S=<seconds>",),
        priority=55,
    ),
    Signature(
        id="vllm.executor.device_indices",
        patterns=(r"Error computing (?:assigned_physical_gpu_ids|device indices for \S+): local range",),
        cause="device_ordinal",
        role="fault",
        confidence="medium",
        title="vLLM could not map its workers to the visible GPUs",
        fix=("The data-parallel rank's range of local GPUs does not fit the GPUs this process sees "
             "(CUDA_VISIBLE_DEVICES shorter than the layout asks for):\n$ echo $CUDA_VISIBLE_DEVICES; nvidia-smi -L"),
        origin="vllm 0.34.0 v1/engine/utils.py",
        samples=('Exception: Error computing device indices for CUDA_VISIBLE_DEVICES: local range: [4, 8) base value: "0,1,2,3"',),
        priority=65,
    ),
    Signature(
        id="vllm.weight_transfer.failed",
        patterns=(r"nccl_m2n (?:local runtime preflight|worker update) failed", r"nccl_m2n metadata group is unavailable",
                  r"trainer rank zero sent an invalid round error", r"weight source yielded \d+ parameters, but metadata declared",
                  r"Sharded RDT engine could not find trainer actor", r"RDT background post-processing failed",
                  r"the sharer packing this chunk failed: ", r"auxiliary output (?:publication failed|store is closed)"),
        cause="other",
        role="fault",
        confidence="low",
        title="vLLM's weight update from the trainer (or an auxiliary output store) failed",
        fix=("In RL-style runs vLLM receives new weights from the trainer over NCCL or Ray; the transfer set-up or an "
             "update failed (the trainer side's log usually says why). Check that the trainer and vLLM ranks run the "
             "same model and parallel layout and reach each other."),
        origin="vllm 0.34.0 distributed/weight_transfer/*.py, distributed/aux_output_connector/*.py",
        samples=("RuntimeError: nccl_m2n worker update failed on trainer rank zero: connection reset",),
        priority=55,
    ),
)

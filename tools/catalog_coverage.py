"""How much of what the programs print when they fail has a catalog entry, per source.

    python tools/catalog_coverage.py [--mirror /work/.mirror] [--torch DIR] [--sglang WHEEL] [--vllm WHEEL]
                                     [--gaps SOURCE] [--json out.json]

Reads the fetched sources read-only (git directories without a work tree: `git show HEAD:path`)
and the installed torch package:
- NCCL (`NVIDIA+nccl`): every `WARN("...")` format string in src/, and the `INFO(...)` ones
  that report a failure (fail, error, unable, cannot, retry, timeout, ...). NCCL's Windows port
  is left out (src/os/windows*.cc and the `#if/#elif defined(NCCL_OS_WINDOWS)` branches of the
  other files): the clusters this triages run Linux.
- PyTorch c10d: the message texts compiled into libtorch_cpu.so / libtorch_cuda.so (`strings`),
  kept where they speak of the distributed layer (store, socket, rank, process group, NCCL,
  Gloo, collective, rendezvous, watchdog) and of a failure, less the usage rules (as for the
  Python raise texts below: "invalid root rank", "... is not supported") and the profiler's
  (kineto's) IPC-fabric socket texts that sit beside them (the CPU wheel has no
  libtorch_cuda.so: ProcessGroupNCCL's texts are then missing from this row, not from the catalog);
- Python raise texts (torch.distributed; DeepSpeed's comm, launcher, elasticity, runtime and
  utils; Megatron core's distributed, parallel_state, pipeline_parallel, tensor_parallel,
  optimizer and dist_checkpointing, and megatron/training; with --sglang, SGLang's runtime):
  see "Python raise texts" below;
- Open MPI (`open-mpi+ompi`): opal/util/stacktrace.c's signal-handler lines and the first line
  of each topic of the help files NCCL jobs meet (MPI API, errors, TCP BTL);
- Abseil (`abseil+abseil-cpp`): the failure signal handler's and CHECK's texts;
- CPython faulthandler: its fixed texts (Python/faulthandler.c, Python/traceback.c).
- NVRM, the NVIDIA kernel driver (`NVIDIA+open-gpu-kernel-modules`): the lines a release build
  prints to the kernel log (RM's `NV_PRINTF` at LEVEL_ERROR / LEVEL_FATAL, kernel-open's
  `nv_printf` / `NV_DEV_PRINTF` at NV_DBG_ERRORS), kept where they report a failure of the GPU a
  job runs on (see NVRM_TOPICS: the GPU lost or needing a reset, its firmware failing, memory
  errors, NVLink / fabric faults, the adapter or module not coming up, the RC watchdog, a fatal
  PCIe error), less the driver's own bookkeeping (its allocations, address spaces, register keys,
  parameter checks) and the display, vGPU and Tegra paths; and the NV_STATUS codes of these
  failures as its assertion lines print them. Xid lines are the Xid table's (signatures/data/xid.toml);
  the NVLink core library's own prints (NVLINK_PRINT) are compiled out of release builds
  (src/common/nvlink/interface/nvlink.h) and never reach a kernel log.
- with --vllm, vLLM's raise texts (its distributed layer, executors, worker and engine core: see
  VLLM_ROOTS) and the warnings of its collectives that announce a fallback (a fast path off,
  falling back to NCCL or Gloo: `survivable` or `harmless` entries in the catalog); with --sglang,
  the same reader on SGLang's collectives (SGLANG_FALLBACK_ROOTS), its lines as SGLang's logger
  prints them (`[<date> <time> TP0] <text>`).
Not read: TensorRT-LLM (no source here: its wheel is over a GB).

Each message becomes a line as the program prints it (printf/`{}` placeholders filled with
plausible values; a Python raise as the last line of its traceback, `Class: first line of the
message`), and the catalog matcher reads it. A message "has an entry" when the entry that reads
it says something about THIS message: not a catch-all (a context entry without a cause of
priority 10 or less, such as nccl.warn.generic), and not a generic entry that reads any
line of the same shape (the entry that reads `RuntimeError: <made-up words>` is
torch.exc.runtime_error_generic: it counts for no RuntimeError's message; an entry that reads
the exception class and says what it means, such as RendezvousTimeoutError's, does count).

Python raise texts: a message is a failure message when it reports that the run failed (a
timeout, a lost peer, a failed store or socket call, a checkpoint that does not load, a worker
that exited), i.e. a text a user meets in a crashed job's log. Left out, and why:
- the classes that report a wrong argument, a missing feature or a programming error caught by
  a check (ValueError, TypeError, NotImplementedError, AssertionError, KeyError, IndexError,
  AttributeError, ImportError): the job stops at once, at the same line on every rank, and the
  traceback says which argument; there is nothing for triage to find across ranks; and the
  control-flow exceptions a module's own loop catches to try again (`*Retry*`);
- texts without a word of runtime failure (timed out, failed, error, unable, could not, lost,
  refused, closed, exited, dead, abort, mismatch, exhausted, not found, missing, in use, "doesn't
  have ... built in", ...), and texts that spell out a usage rule
  ("cannot specify both", "must be", "is not supported", "Invalid <argument>", "please use");
- modules that do not run inside a training job: torch/distributed/_tools (estimators and
  trackers), flight_recorder (the offline dump analyser), _local_tensor (a test mode),
  examples, benchmarks and docs scripts; and the branches that only run on Windows or macOS.
"""
from __future__ import annotations

import argparse
import ast
import builtins
import json
import re
import subprocess
import sys
import zipfile
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from triage.engine.signatures.matcher import matcher  # noqa: E402

# A catch-all: a context entry without a cause that reads every line of its kind (nccl.warn.generic).
# Context entries between this and schema.CATCH_ALL_PRIORITY name the parts of a report whose
# header another entry reads (Open MPI's `Signal code:`, faulthandler's thread headers): they count.
CATCH_ALL = 10
# A generic entry: one that reads any line of a frame (schema.py: generic catch-alls 10-30).
GENERIC_PRIORITY = 30

_PRINTF = re.compile(r"%[-+ #0]*\d*(?:\.\d+)?(?:hh|h|ll|l|z|j|t|L)?([diouxXeEfgGcspn%])|%(?:PRI\w+|\" *PRI\w+ *\")")
_FILL = {"d": "3", "i": "3", "u": "3", "o": "7", "x": "1f", "X": "1F", "e": "1.0", "E": "1.0", "f": "1.0",
         "g": "1", "G": "1", "c": "x", "s": "mlx5_0", "p": "0x7f00", "n": "", "%": "%"}
_FAILURE = re.compile(r"(?i)\b(?:fail|failed|failure|error|unable|cannot|can't|could not|couldn't|retry|retrying|"
                      r"timed out|timeout|invalid|mismatch|abort|not supported|exceeded|denied|refused|lost"
                      r"|unreachable)\b")
_DISTRIBUTED = re.compile(r"TCPStore|\bstore\b|[Ss]ocket|[Pp]rocess ?[Gg]roup|NCCL|[Gg]loo|[Cc]ollective|[Rr]endezvous"
                          r"|[Ww]atchdog|"
                          r"[Bb]arrier|world[ _]size|c10d|[Cc]ommunicator|(?:peer|root|src|dst) rank")
_C_STRING = re.compile(r'"((?:[^"\\]|\\.)*)"')

# Python raise texts (see the module docstring).
_USAGE_CLASSES = frozenset({"ValueError", "TypeError", "NotImplementedError", "AssertionError", "KeyError",
                            "IndexError", "AttributeError", "ImportError", "ModuleNotFoundError"})
_RUNTIME_FAILURE = re.compile(
    r"(?i)\b(?:timed? ?out|timeout|fail(?:s|ed|ure|ing)?|errors?|unable|could not|couldn't|cannot (?:connect|reach|"
    r"open|find|load|read|write|create|access)|lost|refused|reset|closed|exited|exit(?:ed)? with|died|dead|"
    r"terminat\w+|crash\w*|abort\w*|hang|hung|mismatch\w*|not respond\w*|unreachable|killed|signal|exceeded|"
    r"corrupt\w*|out of memory|no space|unavailable|not available|exhausted|not found|missing|(?:already )?in use|"
    r"do(?:es)?n't have|does not have|not built|not in the environment|but found|do(?:es)?n't match|does not match|"
    r"needs to die)\b")
_USAGE_TEXT = re.compile(
    r"(?i)cannot specify both|\bmust (?:be|have|not|specify|provide|call|set)\b|\bshould (?:be|have|not)\b|"
    r"\bis not supported\b|\bnot supported\b|\bnot (?:yet )?implemented\b|^invalid\b|\bplease (?:use|call|set|"
    r"specify|pass|provide)\b|\bcan only be\b|\bonly supports?\b|\bexpect(?:ed|ing)\b.* (?:got|but)\b|"
    r"cannot be (?:None|empty|used)|logic error|internal error")
_NOT_IN_A_JOB = ("/_tools/", "/flight_recorder/", "/_local_tensor/", "/examples/", "/benchmarks/", "/docs/",
                 "/tests/", "/test/", "/fr_trace")


def _git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(repo), *args], capture_output=True, text=True, check=False).stdout


def fill(fmt: str) -> str:
    """A printf / fmt format string as a line a program would print."""
    text = fmt.replace('\\"', '"').replace("\\n", " ").replace("\\t", " ")
    text = _PRINTF.sub(lambda m: _FILL.get(m.group(1) or "s", "x"), text)
    text = re.sub(r"\{[^{}]*\}", "3", text).strip()
    # A message that ends where the program appends a value ('invalid root rank: ' << rank,
    # '... failed to pass monitoredBarrier in ' << ms << " ms") gets one.
    return text + " 3" if re.search(r"(?::|\b(?:in|after|with|rank|Rank))$", text) else text


def _call_strings(source: str, call: str) -> list[str]:
    """The format string of each `CALL("...", ...)` in C/C++ source (adjacent literals joined)."""
    out = []
    # `"... (%" PRId64 "s)"`: the <inttypes.h> macro is a conversion of its own (`%lds`).
    source = re.sub(r'"\s*PRI[diouxX]\w*\s*"', "ld", source)
    for m in re.finditer(rf"\b{call}\s*((?:\"(?:[^\"\\]|\\.)*\"\s*(?:[A-Z_]+\s*)?)+)", source):
        parts = _C_STRING.findall(m.group(1))
        out.append("".join(parts))
    return out


def without_windows(source: str) -> str:
    """C/C++ source without the `#if defined(NCCL_OS_WINDOWS)` / `#elif defined(...)` branches."""
    out: list[str] = []
    stack: list[bool] = []  # per open #if: is the current branch the Windows one
    for line in source.splitlines():
        d = line.strip()
        windows = "NCCL_OS_WINDOWS" in d and "!" not in d
        if d.startswith("#if"):
            stack.append(windows and "defined" in d)
        elif d.startswith("#elif") and stack:
            stack[-1] = windows
        elif d.startswith("#else") and stack:
            stack[-1] = False
        elif d.startswith("#endif") and stack:
            stack.pop()
        elif not any(stack):
            out.append(line)
    return "\n".join(out)


def nccl_messages(repo: Path) -> dict[str, list[str]]:
    warns: list[str] = []
    infos: list[str] = []
    for path in _git(repo, "ls-tree", "-r", "--name-only", "HEAD", "--", "src").split():
        if not path.endswith((".cc", ".cu", ".h", ".cpp")) or "windows" in path.rsplit("/", 1)[-1]:
            continue  # NCCL's Windows port: not on the GPU clusters this triages
        source = without_windows(_git(repo, "show", f"HEAD:{path}"))
        warns += _call_strings(source, r"WARN\(\s*")
        infos += [s for s in _call_strings(source, r"INFO\(\s*NCCL_\w+(?:\s*\|\s*NCCL_\w+)*\s*,\s*")
                  if _FAILURE.search(s)]
    # Where a format's %s is a word or a name the source itself passes (a ternary's literals, a
    # library macro, a `name` macro argument), that value, so the line reads as NCCL prints it.
    values = {"Error while %s shared memory segment %s": ("%s", "creating", 1),
              "nvmlInit%s() failed": ("%s", "_v2", 1),
              "Failed to open %s - %s": ("%s", "libgdrapi.so.2", 1),  # gdrwrap.cc: GDRAPI_LIBNAME
              "ncclOsDlsym failed on %s - %s": ("%s", "gdr_open", 1),  # gdrwrap.cc: a gdr_* symbol
              "ncclOsSocketProgressOpt: Call to %s %s": ("%s", "recv from", 1),
              "NET/MLX5: Call to ": ("Call to ", "Call to mlx5dv_get_data_direct_sysfs_path failed with error %s", 1)}
    warns = [next((w.replace(a, b, n) for k, (a, b, n) in values.items() if w.startswith(k)), w) for w in warns]
    # As NCCL prints them: its prefix, the source location, the level.
    return {"nccl WARN": ["gpu-a:4242:4300 [0] src/x.cc:1 NCCL WARN " + m for m in _unique(warns)],
            "nccl INFO (failures)": ["gpu-a:4242:4300 [0] NCCL INFO " + m for m in _unique(infos)]}


def c10d_messages(torch_dir: Path) -> dict[str, list[str]]:
    texts: list[str] = []
    for lib in sorted((torch_dir / "lib").glob("libtorch_c*.so")):
        out = subprocess.run(["strings", "-n", "16", str(lib)], capture_output=True, text=True, check=False).stdout
        lines = out.splitlines()
        # The profiler's (kineto's) IPC-fabric client speaks of sockets too: not the distributed layer.
        kineto = {i + d for i, x in enumerate(lines) if "/kineto/" in x for d in range(-6, 7)}
        for i, line in enumerate(lines):
            if (i in kineto or "_ZN" in line or "INTERNAL ASSERT" in line or line.count(" ") < 3 or "(Tensor" in line
                    or not _FAILURE.search(line) or not _DISTRIBUTED.search(line) or _USAGE_TEXT.search(line)):
                continue  # (usage rules, as for the Python raise texts below)
            texts.append(line.strip())
    files = [(str(p.relative_to(torch_dir.parent)), p.read_text(errors="replace"))
             for p in sorted((torch_dir / "distributed").rglob("*.py"))]
    return {"c10d (libtorch strings)": _unique(texts), "torch.distributed raise": python_failures(files)}


# ------------------------------------------------------------------ Python raise texts
def _text(node: ast.expr | None) -> str | None:
    """The constant text of a message expression, with `{}` where a value goes."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr):
        return "".join(v.value if isinstance(v, ast.Constant) and isinstance(v.value, str) else "{}"
                       for v in node.values)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        left, right = _text(node.left), _text(node.right)
        if left is None and right is None:
            return None
        return (left if left is not None else "{}") + (right if right is not None else "{}")
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mod):
        return _text(node.left)
    if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "format"):
        return _text(node.func.value)
    return None


def _linux_nodes(node: ast.AST) -> Iterator[ast.AST]:
    """The nodes of the tree, less the branches that only run on Windows or macOS
    (`if IS_WINDOWS:`, `if sys.platform == "win32":`)."""
    yield node
    if isinstance(node, ast.If) and re.search(r"(?i)windows|win32|darwin|macos", ast.unparse(node.test)):
        children: list[ast.AST] = [node.test, *node.orelse]
    else:
        children = list(ast.iter_child_nodes(node))
    for child in children:
        yield from _linux_nodes(child)


def _raises(source: str) -> Iterator[tuple[str, str]]:
    """(exception class, message) of each `raise Class("...")` with a constant message."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return
    for node in _linux_nodes(tree):
        if not (isinstance(node, ast.Raise) and isinstance(node.exc, ast.Call) and node.exc.args):
            continue
        func = node.exc.func
        name = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else None
        text = _text(node.exc.args[0])
        # `raise _error("...")`: a function that builds the exception; which class, it does not say.
        if name and name[0].isupper() and text:
            yield name, text


def _classes(files: Iterable[tuple[str, str]]) -> dict[str, tuple[str, str]]:
    """Exception class name -> (its module, its builtin base) from the class definitions."""
    found: dict[str, tuple[str, str]] = {}
    for path, source in files:
        module = path.removesuffix(".py").removesuffix("/__init__").replace("/", ".")
        for m in re.finditer(r"^class (\w+)\(([\w.]+)", source, flags=re.M):
            found.setdefault(m.group(1), (module, m.group(2).rsplit(".", 1)[-1]))
    return found


def _printed(name: str, classes: dict[str, tuple[str, str]]) -> str:
    """The class as a traceback's last line names it: builtins bare, others module-qualified."""
    if isinstance(getattr(builtins, name, None), type):
        return name
    if name.startswith("Dist") and name.endswith("Error"):
        return f"torch.distributed.{name}"  # c10d's exception types (torch/csrc/distributed/c10d/exception.h)
    return f"{classes[name][0]}.{name}" if name in classes else name


def _usage_class(name: str, classes: dict[str, tuple[str, str]]) -> bool:
    if "Retry" in name:
        return True  # a control-flow exception its own loop catches to try again (EtcdRendezvousRetryImmediately)
    seen = set()
    while name not in _USAGE_CLASSES and name in classes and name not in seen:
        seen.add(name)
        name = classes[name][1]
    return name in _USAGE_CLASSES


def python_failures(files: list[tuple[str, str]]) -> list[str]:
    """The raise texts of these (path, source) files that report a runtime failure, as the last
    line of their traceback prints them (see the module docstring for what is left out)."""
    classes = _classes(files)
    out: list[str] = []
    for path, source in files:
        if any(part in f"/{path}" for part in _NOT_IN_A_JOB):
            continue
        for name, text in _raises(source):
            first = next((ln.strip() for ln in text.splitlines() if ln.strip()), "")
            if (_usage_class(name, classes) or not _RUNTIME_FAILURE.search(text) or _USAGE_TEXT.search(first)
                    or len(re.sub(r"\{\}|\W", "", first)) < 8):
                continue
            out.append(f"{_printed(name, classes)}: {first}")
    return _unique(out)


def _mirror_files(repo: Path, roots: tuple[str, ...]) -> list[tuple[str, str]]:
    paths = _git(repo, "ls-tree", "-r", "--name-only", "HEAD", "--", *roots).split()
    return [(p, _git(repo, "show", f"HEAD:{p}")) for p in paths if p.endswith(".py")]


def deepspeed_messages(repo: Path) -> dict[str, list[str]]:
    roots = ("deepspeed/comm", "deepspeed/launcher", "deepspeed/elasticity", "deepspeed/runtime", "deepspeed/utils")
    return {"DeepSpeed raise (comm, launcher, runtime)": python_failures(_mirror_files(repo, roots))}


def megatron_messages(repo: Path) -> dict[str, list[str]]:
    roots = ("megatron/core/distributed", "megatron/core/parallel_state.py", "megatron/core/pipeline_parallel",
             "megatron/core/dist_checkpointing", "megatron/core/tensor_parallel", "megatron/core/optimizer",
             "megatron/training")
    return {"Megatron raise (core parallel, ckpt, training)": python_failures(_mirror_files(repo, roots))}


# SGLang's serving runtime: its distributed layer (pynccl, custom all-reduce, the parallel state),
# the scheduler and its managers, the model runner, the disaggregation transfer and the launch.
SGLANG_ROOTS = ("sglang/srt/distributed/", "sglang/srt/managers/", "sglang/srt/model_executor/",
                "sglang/srt/disaggregation/", "sglang/srt/entrypoints/engine.py", "sglang/srt/utils/common.py")


# vLLM's distributed layer (pynccl and its wrapper, custom all-reduce, parallel_state, the
# disaggregated KV / encoder-cache transfer, expert-parallel load balancing, weight transfer), its
# executors and GPU worker, and the engine core processes that run them.
VLLM_ROOTS = ("vllm/distributed/", "vllm/v1/executor/", "vllm/v1/worker/gpu_worker.py", "vllm/v1/worker/worker_base.py",
              "vllm/v1/engine/core.py", "vllm/v1/engine/core_client.py", "vllm/v1/engine/utils.py")
# Where vLLM and SGLang choose their collectives' path: the fallback warnings counted are these
# files' (less the CPU, XPU, HPU and NPU communicators: not on the GPU clusters this triages).
VLLM_FALLBACK_ROOTS = ("vllm/distributed/device_communicators/", "vllm/distributed/parallel_state.py")
SGLANG_FALLBACK_ROOTS = ("sglang/srt/distributed/device_communicators/", "sglang/srt/distributed/parallel_state.py")
# A warning that says the program goes on another way: a fast path switched off, a fallback;
# also a check's result 'treat(ed) as disabled', a communicator 'not available', and the
# 'To silence this warning, specify --disable-...' that SGLang and vLLM append to a path they dropped.
_FALLBACK = re.compile(r"(?i)\b(?:is|are|be|been|being) disabled\b|\bdisabling\b|fall(?:ing|s)? ?back|\binstead\b"
                       r"|will not be used|won't be used|\bskipping\b|\btreat(?:ed)? as disabled\b"
                       r"|\bcommunicator is not available\b|\bto silence this warning\b")
_WARN_CALLS = frozenset({"warning", "warning_once", "warn"})


def _keyword_values(files: list[tuple[str, str]]) -> dict[str, list[str]]:
    """Keyword argument name -> the string constants the callers in these files pass for it
    (`cls_name="CustomAllreduce"`): the values a message's leading `{cls_name}` takes."""
    found: dict[str, list[str]] = {}
    for _, source in files:
        try:
            tree = ast.parse(source)
        except SyntaxError:
            continue
        for node in ast.walk(tree):
            if isinstance(node, ast.keyword) and node.arg and isinstance(node.value, ast.Constant) \
                    and isinstance(node.value.value, str):
                found.setdefault(node.arg, []).append(node.value.value)
    return found


def _named(message: ast.expr, text: str, values: dict[str, list[str]]) -> list[str]:
    """`text` once per value its leading f-string name takes (`f"{cls_name} is disabled ..."`,
    cls_name passed as a constant by the callers), so the line reads as the program prints it."""
    head = message.values[0] if isinstance(message, ast.JoinedStr) and message.values else None
    if (isinstance(head, ast.FormattedValue) and isinstance(head.value, ast.Name)
            and values.get(head.value.id) and text.startswith("{}")):
        return [v + text[2:] for v in dict.fromkeys(values[head.value.id])]
    return [text]


VLLM_LINE = "WARNING 12-04 10:00:02 [{file}:{line}] {text}"  # vLLM's logger format
SGLANG_LINE = "[2026-12-04 10:00:02 TP0] {text}"  # SGLang's configure_logger: '[%(asctime)s{prefix}] %(message)s'


def python_fallbacks(files: list[tuple[str, str]], line_format: str = VLLM_LINE) -> list[str]:
    """The warnings of these (path, source) files that announce a fallback (`logger.warning(...)`,
    `warnings.warn(...)` whose text says a path is disabled or falls back), as the program's log
    line prints them (`line_format`: vLLM's `WARNING <date> <time> [<file>:<line>] <text>` by default)."""
    out: list[str] = []
    values = _keyword_values(files)
    for path, source in files:
        if any(part in f"/{path}" for part in _NOT_IN_A_JOB):
            continue
        try:
            tree = ast.parse(source)
        except SyntaxError:
            continue
        for node in _linux_nodes(tree):
            if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                    and node.func.attr in _WARN_CALLS and node.args):
                continue
            text = _text(node.args[0])
            if text and _FALLBACK.search(text):
                for named in _named(node.args[0], " ".join(text.split()), values):
                    out.append(line_format.format(file=path.rsplit("/", 1)[-1], line=node.lineno, text=named))
    return _unique(out)


def _wheel_files(wheel: Path, roots: tuple[str, ...]) -> list[tuple[str, str]]:
    """The .py files under `roots` of a wheel read in place (a zip: nothing installed or run)."""
    with zipfile.ZipFile(wheel) as z:
        return [(n, z.read(n).decode("utf-8", "replace")) for n in z.namelist()
                if n.endswith(".py") and n.startswith(roots)]


def _fallback_files(files: list[tuple[str, str]], roots: tuple[str, ...]) -> list[tuple[str, str]]:
    """The files under `roots` where a program chooses its collectives' path, less the CPU, XPU,
    HPU and NPU communicators (not on the GPU clusters this triages)."""
    return [(p, text) for p, text in files if p.startswith(roots)
            and not p.rsplit("/", 1)[-1].startswith(("cpu_", "xpu_", "hpu_", "npu_"))]


def wheel_messages(wheel: Path) -> dict[str, list[str]]:
    """SGLang's raise texts and fallback warnings (`pip download --no-deps --only-binary :all: sglang==X`)."""
    files = _wheel_files(wheel, SGLANG_ROOTS)
    version = wheel.name.split("-")[1]
    return {f"SGLang raise ({version})": python_failures(files),
            f"SGLang fallback warnings ({version})": python_fallbacks(_fallback_files(files, SGLANG_FALLBACK_ROOTS),
                                                                      SGLANG_LINE)}


def vllm_messages(wheel: Path) -> dict[str, list[str]]:
    """vLLM's raise texts and fallback warnings (`pip download --no-deps --only-binary :all: vllm==X`)."""
    files = _wheel_files(wheel, VLLM_ROOTS)
    version = wheel.name.split("-")[1]
    return {f"vLLM raise ({version})": python_failures(files),
            f"vLLM fallback warnings ({version})": python_fallbacks(_fallback_files(files, VLLM_FALLBACK_ROOTS))}


def ompi_messages(repo: Path) -> dict[str, list[str]]:
    stack = _git(repo, "show", "HEAD:opal/util/stacktrace.c")
    handler = [s.replace("HOSTFORMAT", "") for s in re.findall(r'HOSTFORMAT\s*"((?:[^"\\]|\\.)*)"', stack)]
    # The values a SIGSEGV report carries (strsignal, si_code text), as the handler prints them.
    values = {"Signal: %s (%d)": "Signal: Segmentation fault (11)",
              "Signal code: %s (%d)": "Signal code: Address not mapped (1)",
              "Associated errno: %s (%d)": "Associated errno: Unknown error 0 (0)"}
    handler = ["[gpu-n07:04411] " + fill(next((v for k, v in values.items() if s.startswith(k)), s))
               for s in handler if len(s.strip()) > 6 and not s.startswith("[%s")]
    help_lines = []
    for path in ("ompi/mpi/help-mpi-api.txt", "ompi/errhandler/help-mpi-errors.txt",
                 "opal/mca/btl/tcp/help-mpi-btl-tcp.txt"):
        text = _git(repo, "show", f"HEAD:{path}")
        for block in re.split(r"^\[[^\]]+\]\s*$", text, flags=re.M)[1:]:
            first = next((ln.strip() for ln in block.splitlines() if ln.strip() and not ln.startswith("#")), "")
            if first:
                help_lines.append(first)
    return {"Open MPI signal handler": _unique(handler), "Open MPI help texts": _unique(help_lines)}


def abseil_messages(repo: Path) -> dict[str, list[str]]:
    handler = _git(repo, "show", "HEAD:absl/debugging/failure_signal_handler.cc")
    fmts = [s for s in _C_STRING.findall(handler) if "received at time" in s]
    names = re.findall(r'\{SIG\w+, "(SIG\w+)"', handler)
    lines = [fill(f).replace("mlx5_0", n) for f in fmts if "%s" in f for n in names]
    lines += [fill(f) for f in fmts if "%s" not in f]
    return {"Abseil failure signal handler": _unique(lines + ["*** Check failure stack trace: ***",
                                                              "F1204 10:00:00.000000  4242 x.cc:12] Check failed: ok "
                                                              "(0 vs. 1)"])}


# ------------------------------------------------------------------ NVRM (the NVIDIA kernel driver)
# Where the driver's kernel-log lines come from: RM (src/nvidia, NV_PRINTF at LEVEL_ERROR or
# LEVEL_FATAL, the levels a release build prints: nvlog_printf.c nvDbg_PrintMsg) and the Linux
# interface layer (kernel-open/nvidia and RM's unix arch: nv_printf / NV_DEV_PRINTF at NV_DBG_ERRORS).
NVRM_ROOTS = ("src/nvidia", "kernel-open/nvidia")
# Not on a training node's GPU: display, vGPU / virtualization, Tegra SoC platform code, and the
# driver's own unit tests.
NVRM_AWAY = ("/disp/", "/vgpu/", "/virtualization/", "/griddisplayless/", "nv-dsi", "nv-platform", "nv-gpio",
             "nv-clk", "nv-i2c", "nv-imp", "nv-bpmp", "nv-backlight", "/tegra", "/test")
_STR = r'((?:"(?:[^"\\]|\\.)*"\s*(?:[A-Za-z_]\w*(?:\([^()]*\))?\s*)?)+)'
_NVRM_CALLS = (
    # (call, how the line starts in the kernel log)
    (re.compile(r"\bNV_PRINTF\(\s*LEVEL_(?:ERROR|FATAL)\s*,\s*" + _STR), "rm"),
    (re.compile(r"\bNV_PRINTF_EX\(\s*\w+\s*,\s*LEVEL_(?:ERROR|FATAL)\s*,\s*NV_PRINTF_ADD_PREFIX\(\s*" + _STR), "rm"),
    (re.compile(r"\bnv_printf\(\s*NV_DBG_ERRORS\s*,\s*" + _STR), "raw"),
    (re.compile(r"\bNV_DEV_PRINTF(?:_STATUS)?\(\s*NV_DBG_ERRORS\s*,\s*\w+\s*,\s*(?:\w+\s*,\s*)?" + _STR), "dev"),
)
# What a multi-GPU job meets: the GPU lost or needing a reset, its firmware (GSP, FSP, SEC2,
# PMU) failing, timing out or crashing, uncorrectable memory errors and row remapping, NVLink /
# C2C / fabric faults, the adapter or the module failing to come up, the RC watchdog, the PCIe
# path failing. Each topic names the thing and how it failed.
_FAILED = r"(?i:fail\w*|error|timed? ?out|timeout|halt\w*|unresponsive|crash\w*|stuck|cannot|bugcheck|fatal)"
NVRM_TOPICS = {
    "GPU lost": r"fallen off the bus|GPU (?:is |was )?lost|lost from the bus|(?:back )?on the bus|appear on the bus",
    "reset": r"reset (?:is )?required|requires? (?:a )?(?:GPU )?reset|\bFLR\b.*fail|fullchip reset failed"
             r"|recovery action",
    "firmware": rf"(?:\bGSP|\bFSP|\bSEC2|\bPMU|RISC-?V|[Ff]alcon|LibOS|FWSEC|\bGFW|\bFMC)\b.*{_FAILED}"
                rf"|{_FAILED}.*(?:\bGSP|\bFSP|\bSEC2|\bPMU|RISC-?V|[Ff]alcon|LibOS|FWSEC|\bGFW|\bFMC)\b"
                r"|[Hh]eartbeat|CrashCat|entered into ICD|RM cannot boot|GSP-RM is slow",
    "memory": rf"\bECC\b|[Uu]ncorrect|\bDBE\b|[Rr]ow.?[Rr]emap|page retire|[Pp]oison|[Uu]ncontained|\bHBM\b"
              rf"|memory training.*{_FAILED}",
    "NVLink": rf"(?i:nvlink|\bNVL\b|\bALI\b|link training|\bC2C\b|nvswitch|fabric|\bNVLE\b|imex)"
              rf"(?:.*{_FAILED}|.*[Dd]egrad)"
              rf"|{_FAILED}.*(?i:nvlink|\bALI\b|link training|\bC2C\b|nvswitch|fabric probe)",
    "init": r"RmInitAdapter|rm_init_adapter|probe routine|No NVIDIA devices probed|power cables"
            r"|failed to initiali[sz]e module|VBIOS boot failed|bailing out|devinit failed",
    "RC watchdog": r"RC watchdog|GPU is probably locked|robust channel recovery|\bRC all\b",
    "PCIe": r"(?i)(?:BAR\d?|PCIe?|config space).*(?:fatal|failed)|[Ss]tuck interrupt|[Ii]nterrupt is stuck",
}
# The driver's own bookkeeping and argument checks: what failed is a step inside the driver, and
# the line names no state of the GPU (an allocation of its structures, an address space, a
# register key, a parameter, a log buffer).
_NVRM_INTERNAL = re.compile(
    r"(?i)memdesc|va ?space|\bVAS\b|\baddr(?:ess)?\b|struct\b|regkey|param|buffer size|clamping|not POR"
    r"|compress|kind attr|refcount|peer ?id|instance block|\bbind|insert|debug info|sent following|loading gsp"
    r"|microcode v|buildid|note:|mailbox|dlstat|logging structures|gsp_log|sysmem|\begm\b|cliqueid|invalid"
    r"|unsupported|not supported|does(?:n't| not) support|not yet|should|input mask|enabling|disabling|skipping"
    r"|overriding|using |unknown|mapping|\bmap\b|garbage|mmutest|console|snoop|userd|scrub|semaphore|journal"
    r"|procfs|capabilit|registry|imex channels|\bopen\b|minor number 0x|notifier|get remote|get local"
    r"|RPC to (?:get|set)|execute GSP-RM GPC|CC secret|key rotation|auth tag|profiler|PM streamout|gsync"
    r"|vblank|suspend|resume|GC6|PWOK|EEPROM|azalia|hypervisor|alloc|nv-caps|log buffer|crypt|NVLE|SPDM"
    r"|during driver unload|NV2080_CTRL|unavailable|work item|clock boost|memConstructCommon|validation|\bobject\b"
    r"|heap|unregister|PDB|vGPU|USE_NVLINK_PEER|status info|device info|Uphy|failed to get|shutdown properties"
    r"|init disabled links")


def _enclosing_function(source: str, pos: int) -> str:
    """The name of the C function around `pos`, as RM's prefix prints it (`NVRM: GPU0 <name>: `)."""
    head = source[:pos]
    found = list(re.finditer(r"(?m)^([A-Za-z_]\w*)\s*\n\(|^[A-Za-z_][\w \t*]*?\b([A-Za-z_]\w*)\s*\([^;{}]*\)\s*\n?\{",
                             head))
    for m in reversed(found):
        name = m.group(1) or m.group(2)
        if name not in ("if", "for", "while", "switch", "return", "sizeof"):
            return name
    return "rmFunction"


def _show_many(repo: Path, paths: list[str]) -> Iterator[tuple[str, str]]:
    """(path, text) of each file at HEAD, read in one `git cat-file --batch`."""
    request = "".join(f"HEAD:{p}\n" for p in paths).encode()
    out = subprocess.run(["git", "-C", str(repo), "cat-file", "--batch"], input=request, capture_output=True,
                         check=False).stdout
    pos = 0
    for path in paths:
        end = out.index(b"\n", pos)
        header = out[pos:end].split()
        if len(header) < 3 or header[1] != b"blob":  # noqa: PLR2004 - '<sha> blob <size>'
            pos = end + 1
            continue
        size = int(header[2])
        yield path, out[end + 1:end + 1 + size].decode("utf-8", "replace")
        pos = end + 1 + size + 1


def nvrm_lines(path: str, source: str) -> list[str]:
    """The failure lines of one driver source file, as the kernel log shows them (see NVRM_TOPICS)."""
    if any(part in f"/{path}" for part in NVRM_AWAY):
        return []
    out: list[str] = []
    for call, kind in _NVRM_CALLS:
        for m in call.finditer(source):
            fmt = "".join(_C_STRING.findall(m.group(1)))
            prefix = {"rm": f"NVRM: GPU0 {_enclosing_function(source, m.start())}: ",
                      "dev": "NVRM: GPU 0000:3b:00.0: ", "raw": ""}[kind]
            # One kernel-log line per '\n' of the format ('...installed in this system has\nNVRM: fallen off the bus').
            for i, part in enumerate(p for p in fmt.split("\\n") if p.strip()):
                if _NVRM_INTERNAL.search(part) or not any(re.search(rx, part) for rx in NVRM_TOPICS.values()):
                    continue
                out.append((prefix if i == 0 or not part.startswith("NVRM") else "") + part.strip())
    return out


# The NV_STATUS codes of these failures (kernel-open/common/inc/nvstatuscodes.h), as RM's assertion
# lines print them: nvAssertOkFailedNoLog's 'Assertion failed: %s (0x%08X) returned from ...' with
# nvstatusToString's '<text> [<name>]' (src/common/shared/nvstatus/nvstatus.c).
NVRM_STATUSES = re.compile(r"NV_ERR_(?:GPU_IS_LOST|GPU_IN_FULLCHIP_RESET|RESET_REQUIRED|ECC_ERROR|NVLINK_\w+_ERROR"
                           r"|NVLINK_FABRIC_FAILURE|FABRIC_MANAGER_NOT_PRESENT|FABRIC_STATE_OUT_OF_SYNC"
                           r"|MEMORY_TRAINING_FAILED|GPU_MEMORY_ONLINING_FAILURE|INSUFFICIENT_POWER)$")


def nvrm_messages(repo: Path) -> dict[str, list[str]]:
    paths = [p for p in _git(repo, "grep", "-l", "-E", "LEVEL_(ERROR|FATAL)|NV_DBG_ERRORS", "HEAD", "--",
                             *NVRM_ROOTS).split()]
    paths = [p.split(":", 1)[1] for p in paths if p.endswith((".c", ".h", ".cpp"))]
    lines = [line for path, source in _show_many(repo, paths) for line in nvrm_lines(path, source)]
    statuses = re.findall(r'NV_STATUS_CODE\((\w+),\s*0x([0-9A-Fa-f]+),\s*"([^"]*)"\)',
                          _git(repo, "show", "HEAD:kernel-open/common/inc/nvstatuscodes.h"))
    asserts = [f"NVRM: nvAssertOkFailedNoLog: Assertion failed: {text} [{name}] (0x{code}) returned from "
               f"pRmApi->Control(pRmApi, hClient, hObject, cmd, pParams, size) @ kernel_gsp.c:2520"
               for name, code, text in statuses if NVRM_STATUSES.match(name)]
    return {"NVRM error lines (GPU lost, reset, GSP, NVLink)": _unique(lines),
            "NVRM status codes in assertion lines": _unique(asserts)}


# CPython's fixed faulthandler / fatal-error texts (Python/faulthandler.c faulthandler_handlers[],
# Python/pylifecycle.c fatal_error): the signals it names and its thread headers.
FAULTHANDLER = ("Fatal Python error: Segmentation fault", "Fatal Python error: Bus error",
                "Fatal Python error: Aborted",
                "Fatal Python error: Floating point exception", "Fatal Python error: Illegal instruction",
                "Fatal Python error: PyThreadState_Get: the function must be called with the GIL held",
                "Current thread 0x00007f2d1e7fc740 (most recent call first):",
                "Thread 0x00007f2c8effd640 (most recent call first):")


def _unique(items: Iterable[str]) -> list[str]:
    seen: dict[str, None] = {}
    for item in items:
        if len(re.sub(r"%\S+|\{[^}]*\}|\W", "", item)) >= 8:  # some constant text to recognise
            seen.setdefault(item, None)
    return list(seen)


def _frame(line: str) -> str:
    """The same line with its message made up: what a generic entry for its shape reads."""
    for head in (" NCCL WARN ", " NCCL INFO "):
        if head in line:
            return line.split(head, 1)[0] + head + "qzx wvy kjq"
    m = re.match(r"([\w.]+(?:Error|Exception|Interrupt|Exit)): ", line)
    return f"{m.group(1)}: qzx wvy kjq" if m else "qzx wvy kjq"


def covered(message: str) -> str | None:
    """The id of the entry that reads this message for what it says, or None."""
    line = fill(message)
    found = matcher().best(line)
    if found is None:
        return None
    sig = found.sig
    if sig.role == "context" and sig.cause is None and sig.priority <= CATCH_ALL:
        return None  # a catch-all (nccl.warn.generic): it reads every WARN, and says nothing
    generic = matcher().best(_frame(line))
    if generic is not None and generic.sig.id == sig.id and sig.priority <= GENERIC_PRIORITY:
        return None  # reads any line of this shape (RuntimeError: ...): nothing about this message
    return sig.id


Reader = Callable[[Path], dict[str, list[str]]]


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--mirror", type=Path, default=Path("/work/.mirror"))
    parser.add_argument("--torch", type=Path, default=None, help="an installed torch package directory")
    parser.add_argument("--gaps", default=None, help="list the messages of this source that have no entry")
    parser.add_argument("--json", type=Path)
    parser.add_argument("--sglang", type=Path, default=None,
                        help="an SGLang wheel (pip download --no-deps --only-binary :all: sglang==0.5.10)")
    parser.add_argument("--vllm", type=Path, default=None,
                        help="a vLLM wheel (pip download --no-deps --only-binary :all: vllm==0.34.0)")
    args = parser.parse_args()
    torch_dir = args.torch
    if torch_dir is None:
        candidates = [REPO / ".venv/lib/python3.11/site-packages/torch",
                      Path("/work/main/.venv/lib/python3.11/site-packages/torch")]
        torch_dir = next((c for c in candidates if (c / "lib").is_dir()), None)
    sources: dict[str, list[str]] = {}
    readers: tuple[tuple[str, Reader], ...] = (
        ("NVIDIA+nccl", nccl_messages), ("open-mpi+ompi", ompi_messages), ("abseil+abseil-cpp", abseil_messages),
        ("deepspeedai+DeepSpeed", deepspeed_messages), ("NVIDIA+Megatron-LM", megatron_messages),
        ("NVIDIA+open-gpu-kernel-modules", nvrm_messages))
    missing = []
    for name, reader in readers:
        repo = args.mirror / name / "repo"
        if repo.is_dir():
            sources.update(reader(repo))
        else:
            missing.append(name)
    if torch_dir is not None:
        sources.update(c10d_messages(torch_dir))
    else:
        missing.append("torch")
    if args.sglang is not None:
        sources.update(wheel_messages(args.sglang))
    else:
        missing.append("SGLang (no --sglang wheel given)")
    if args.vllm is not None:
        sources.update(vllm_messages(args.vllm))
    else:
        missing.append("vLLM (no --vllm wheel given)")
    sources["CPython faulthandler"] = list(FAULTHANDLER)
    report = {}
    print(f"{'source':48s} {'messages':>8s} {'with entry':>10s} {'share':>6s}")
    for name, messages in sources.items():
        hits = {m: covered(m) for m in messages}
        n, k = len(messages), sum(1 for v in hits.values() if v)
        report[name] = {"messages": n, "covered": k, "gaps": [m for m, v in hits.items() if not v]}
        print(f"{name:48s} {n:8d} {k:10d} {k / n if n else 0:6.0%}")
        if args.gaps and args.gaps.lower() in name.lower():
            for m in report[name]["gaps"]:
                print(f"    gap: {m}")
    print("not read here: " + ", ".join(missing + [
        "TensorRT-LLM raise texts (no source fetched: its wheel is over a GB and its distributed layer, "
        "tensorrt_llm/_torch/distributed and executor, is not in the catalog either)",
        "NVRM lines printed by RM's GPU instance only ('NVRM: GPU0 ...') name no PCI id: the kernel parser "
        "places them on a rank only where the line names one"]))
    if args.json:
        args.json.write_text(json.dumps(report, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

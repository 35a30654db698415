"""How much of what the programs print when they fail has a catalog entry, per source.

    python tools/catalog_coverage.py [--mirror /work/.mirror] [--torch DIR] [--sglang WHEEL] [--gaps SOURCE]
                                     [--json out.json]

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


def wheel_messages(wheel: Path) -> dict[str, list[str]]:
    """The raise texts of a pure-Python wheel read in place (`pip download --no-deps
    --only-binary :all: sglang==X`: a zip, nothing installed or run)."""
    with zipfile.ZipFile(wheel) as z:
        files = [(n, z.read(n).decode("utf-8", "replace")) for n in z.namelist()
                 if n.endswith(".py") and n.startswith(SGLANG_ROOTS)]
    return {f"SGLang raise ({wheel.name.split('-')[1]})": python_failures(files)}


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
    args = parser.parse_args()
    torch_dir = args.torch
    if torch_dir is None:
        candidates = [REPO / ".venv/lib/python3.11/site-packages/torch",
                      Path("/work/main/.venv/lib/python3.11/site-packages/torch")]
        torch_dir = next((c for c in candidates if (c / "lib").is_dir()), None)
    sources: dict[str, list[str]] = {}
    readers: tuple[tuple[str, Reader], ...] = (
        ("NVIDIA+nccl", nccl_messages), ("open-mpi+ompi", ompi_messages), ("abseil+abseil-cpp", abseil_messages),
        ("deepspeedai+DeepSpeed", deepspeed_messages), ("NVIDIA+Megatron-LM", megatron_messages))
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
    sources["CPython faulthandler"] = list(FAULTHANDLER)
    report = {}
    print(f"{'source':44s} {'messages':>8s} {'with entry':>10s} {'share':>6s}")
    for name, messages in sources.items():
        hits = {m: covered(m) for m in messages}
        n, k = len(messages), sum(1 for v in hits.values() if v)
        report[name] = {"messages": n, "covered": k, "gaps": [m for m, v in hits.items() if not v]}
        print(f"{name:44s} {n:8d} {k:10d} {k / n if n else 0:6.0%}")
        if args.gaps and args.gaps.lower() in name.lower():
            for m in report[name]["gaps"]:
                print(f"    gap: {m}")
    print("not read here: " + ", ".join(missing + ["vLLM and TensorRT-LLM raise texts (no sources: too large to "
                                                   "fetch; vLLM's wheel is some hundreds of MB)",
                                                   "NVRM kernel strings (no driver source)"]))
    if args.json:
        args.json.write_text(json.dumps(report, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

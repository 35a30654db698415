"""How much of what the programs print when they fail has a catalog entry, per source.

    python tools/catalog_coverage.py [--mirror /work/.mirror] [--torch DIR] [--gaps SOURCE] [--json out.json]

Reads the fetched sources read-only (git directories without a work tree: `git grep HEAD`):
- NCCL (`NVIDIA+nccl`): every `WARN("...")` format string in src/, and the `INFO(...)` ones
  that report a failure (fail, error, unable, cannot, retry, timeout);
- PyTorch c10d: the message texts compiled into libtorch_cpu.so / libtorch_cuda.so (`strings`),
  kept where they speak of the distributed layer (store, socket, rank, process group, NCCL,
  Gloo, collective, rendezvous, watchdog) and of a failure; plus the `raise ...("...")` texts of
  torch/distributed/*.py;
- Open MPI (`open-mpi+ompi`): opal/util/stacktrace.c's signal-handler lines and the first line
  of each topic of the help files NCCL jobs meet (MPI API, errors, TCP BTL);
- Abseil (`abseil+abseil-cpp`): the failure signal handler's and CHECK's texts;
- CPython faulthandler: its fixed texts (Python/faulthandler.c, Python/traceback.c).

Each message becomes a line: printf/`{}` placeholders are filled with plausible values, and
the catalog matcher reads it. A message "has an entry" when an entry other than a catch-all
(a context entry of priority <= 10 with no cause, such as nccl.warn.generic) reads it. NCCL's
Windows port (src/os/windows.cc) is left out.
"""
from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
from collections.abc import Iterable
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from triage.engine.signatures.matcher import matcher  # noqa: E402

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
    for m in re.finditer(rf"\b{call}\s*((?:\"(?:[^\"\\]|\\.)*\"\s*(?:[A-Z_]+\s*)?)+)", source):
        parts = _C_STRING.findall(m.group(1))
        out.append("".join(parts))
    return out


def nccl_messages(repo: Path) -> dict[str, list[str]]:
    warns: list[str] = []
    infos: list[str] = []
    for path in _git(repo, "ls-tree", "-r", "--name-only", "HEAD", "--", "src").split():
        if not path.endswith((".cc", ".cu", ".h", ".cpp")) or path.endswith("windows.cc"):
            continue  # os/windows.cc: NCCL's Windows port, not on the GPU clusters this triages
        source = _git(repo, "show", f"HEAD:{path}")
        warns += _call_strings(source, r"WARN\(\s*")
        infos += [s for s in _call_strings(source, r"INFO\(\s*NCCL_\w+(?:\s*\|\s*NCCL_\w+)*\s*,\s*")
                  if _FAILURE.search(s)]
    # As NCCL prints them: its prefix, the source location, the level.
    return {"nccl WARN": ["gpu-a:4242:4300 [0] src/x.cc:1 NCCL WARN " + m for m in _unique(warns)],
            "nccl INFO (failures)": ["gpu-a:4242:4300 [0] NCCL INFO " + m for m in _unique(infos)]}


def c10d_messages(torch_dir: Path) -> dict[str, list[str]]:
    texts: list[str] = []
    for lib in sorted((torch_dir / "lib").glob("libtorch_c*.so")):
        out = subprocess.run(["strings", "-n", "16", str(lib)], capture_output=True, text=True, check=False).stdout
        for line in out.splitlines():
            if ("_ZN" in line or "INTERNAL ASSERT" in line or line.count(" ") < 3 or "(Tensor" in line
                    or not _FAILURE.search(line) or not _DISTRIBUTED.search(line)):
                continue
            texts.append(line.strip())
    py: list[str] = []
    for path in sorted((torch_dir / "distributed").rglob("*.py")):
        for m in re.finditer(r"raise \w+(?:\.\w+)*\(\s*f?[\"']([^\"'\n]{12,})[\"']", path.read_text(errors="replace")):
            if _FAILURE.search(m.group(1)):
                py.append(m.group(1))
    return {"c10d (libtorch strings)": _unique(texts), "torch.distributed raise": _unique(py)}


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


def covered(message: str) -> str | None:
    found = matcher().best(fill(message) if "%" in message or "{" in message else message)
    if found is None:
        return None
    sig = found.sig
    if sig.role == "context" and sig.cause is None and sig.priority <= 10:
        return None  # a catch-all (nccl.warn.generic): it reads every WARN, and says nothing
    return sig.id


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--mirror", type=Path, default=Path("/work/.mirror"))
    parser.add_argument("--torch", type=Path, default=None, help="an installed torch package directory")
    parser.add_argument("--gaps", default=None, help="list the messages of this source that have no entry")
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    torch_dir = args.torch
    if torch_dir is None:
        candidates = [REPO / ".venv/lib/python3.11/site-packages/torch",
                      Path("/work/main/.venv/lib/python3.11/site-packages/torch")]
        torch_dir = next((c for c in candidates if (c / "lib").is_dir()), None)
    sources: dict[str, list[str]] = {}
    for name, reader in (("NVIDIA+nccl", nccl_messages), ("open-mpi+ompi", ompi_messages),
                         ("abseil+abseil-cpp", abseil_messages)):
        repo = args.mirror / name / "repo"
        if repo.is_dir():
            sources.update(reader(repo))
        else:
            print(f"({name} not fetched: {repo} missing)")
    if torch_dir is not None:
        sources.update(c10d_messages(torch_dir))
    sources["CPython faulthandler"] = list(FAULTHANDLER)
    report = {}
    print(f"{'source':34s} {'messages':>8s} {'with entry':>10s} {'share':>6s}")
    for name, messages in sources.items():
        hits = {m: covered(m) for m in messages}
        n, k = len(messages), sum(1 for v in hits.values() if v)
        report[name] = {"messages": n, "covered": k, "gaps": [m for m, v in hits.items() if not v]}
        print(f"{name:34s} {n:8d} {k:10d} {k / n if n else 0:6.0%}")
        if args.gaps and args.gaps.lower() in name.lower():
            for m in report[name]["gaps"]:
                print(f"    gap: {m}")
    print("not fetched here (no sources to read): vLLM, SGLang, TensorRT-LLM, DeepSpeed, Megatron raise texts; NVRM "
          "strings")
    if args.json:
        args.json.write_text(json.dumps(report, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

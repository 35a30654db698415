"""torchrun (the elastic agent) can crash while collecting its workers' failures: it reads a
failed rank's error file while the rank is still writing it (json.load of an empty file, seen in
real gloo runs under CPU load) and raises from its monitoring code instead of printing the failure
report. The catalog reads such an exception by the agent's frames (signatures/data/raised_in.toml,
torch.raised_in.elastic_agent_monitor): the launcher relaying, not the first failure.

The traceback below is torchrun's own (torch 2.13, CPython 3.11), made by a worker that exits 1
leaving an empty error file, the state the race leaves; the ranks' lines are from a real
run_sigkill (triage/scenarios/gloo.py): rank 2 SIGKILLed itself at step 3, ranks 0 and 1 lost
their gloo peer."""
from __future__ import annotations

import json
from pathlib import Path

from triage.engine import diagnose

SITE = "/opt/venv/lib/python3.11/site-packages/torch/distributed"
PY = "/usr/lib/python3.11"
NEW = "signature.torch.raised_in.elastic_agent_monitor"


def _frames(*frames: tuple[str, int, str, str]) -> list[str]:
    out = []
    for path, line, func, code in frames:
        out.append(f'  File "{path}", line {line}, in {func}')
        if code:
            out.append(f"    {code}")
    return out


AGENT_CRASH = "\n".join([
    "Traceback (most recent call last):",
    '  File "<frozen runpy>", line 198, in _run_module_as_main',
    '  File "<frozen runpy>", line 88, in _run_code',
    *_frames(
        (f"{SITE}/run.py", 1032, "<module>", "main()"),
        (f"{SITE}/elastic/multiprocessing/errors/__init__.py", 367, "wrapper", "return f(*args, **kwargs)"),
        (f"{SITE}/run.py", 1028, "main", "run(args)"),
        (f"{SITE}/run.py", 1019, "run", "elastic_launch("),
        (f"{SITE}/launcher/api.py", 194, "__call__", "return launch_agent("),
        (f"{SITE}/launcher/api.py", 374, "launch_agent", "result = agent.run()"),
        (f"{SITE}/elastic/metrics/api.py", 134, "wrapper", "result = f(*args, **kwargs)"),
        (f"{SITE}/elastic/agent/server/api.py", 745, "run", "result = self._invoke_run(role)"),
        (f"{SITE}/elastic/agent/server/api.py", 924, "_invoke_run",
         "run_result = self._monitor_workers(self._worker_group)"),
        (f"{SITE}/elastic/metrics/api.py", 134, "wrapper", "result = f(*args, **kwargs)"),
        (f"{SITE}/elastic/agent/server/local_elastic_agent.py", 615, "_monitor_workers",
         "result = self._pcontext.wait(0)"),
        (f"{SITE}/elastic/multiprocessing/api.py", 622, "wait", "return self._poll()"),
        (f"{SITE}/elastic/multiprocessing/api.py", 984, "_poll", "self._capture_process_failures(done_local_ranks)"),
        (f"{SITE}/elastic/multiprocessing/api.py", 974, "_capture_process_failures",
         "self._failures[local_rank] = ProcessFailure("),
        ("<string>", 7, "__init__", ""),
        (f"{SITE}/elastic/multiprocessing/errors/__init__.py", 123, "__post_init__",
         "self.error_file_data = json.load(fp)"),
        (f"{PY}/json/__init__.py", 293, "load", "return loads(fp.read(),"),
        (f"{PY}/json/__init__.py", 346, "loads", "return _default_decoder.decode(s)"),
        (f"{PY}/json/decoder.py", 337, "decode", "obj, end = self.raw_decode(s, idx=_w(s, 0).end())"),
        (f"{PY}/json/decoder.py", 355, "raw_decode", 'raise JSONDecodeError("Expecting value", s, err.value) from None'),
    ),
    "json.decoder.JSONDecodeError: Expecting value: line 1 column 1 (char 0)",
]) + "\n"

GLOO = ("RuntimeError: [/__w/pytorch/pytorch/third_party/gloo/gloo/transport/tcp/pair.cc:553] Connection closed "
        "by peer [127.0.0.1]:14245. This is typically caused by a remote worker crashing. Check the logs of the "
        "remote worker before reporting an error. GLHF!")


def _rank_traceback(rank: int, exception: str) -> str:
    """A worker's own traceback under torchrun: its entry point runs inside @record's wrapper
    (errors/__init__.py), the same module the agent's ProcessFailure lives in."""
    return "".join(f"[rank{rank}]: {x}\n" for x in [
        "Traceback (most recent call last):",
        *_frames(
            ("/work/train.py", 92, "<module>", "main()"),
            (f"{SITE}/elastic/multiprocessing/errors/__init__.py", 367, "wrapper", "return f(*args, **kwargs)"),
            ("/work/train.py", 85, "main", "_train()"),
            ("/work/train.py", 65, "_train", "dist.all_reduce(tensor)"),
            (f"{SITE}/c10d_logger.py", 83, "wrapper", "return func(*args, **kwargs)"),
            (f"{SITE}/distributed_c10d.py", 3252, "all_reduce", "work.wait()"),
        ),
        exception,
    ])


def _findings(bundle: Path) -> list[tuple[str, str, str]]:
    return [(f.cause, f.confidence, f.rule) for f in diagnose(bundle).findings]


def test_the_launchers_traceback_alone_says_it_crashed_collecting_failures(tmp_path: Path) -> None:
    (tmp_path / "torchrun.stderr.log").write_text(AGENT_CRASH)
    found = _findings(tmp_path)
    assert found[:1] == [("rank_crash", "low", NEW)]
    verdict = diagnose(tmp_path).findings[0]
    assert "collecting its workers' failures" in verdict.title and "ranks' own output" in verdict.fix


def test_any_exception_raised_below_the_agents_monitoring_is_read_so(tmp_path: Path) -> None:
    # Not JSONDecodeError's wording: another type, raised in the agent's poll loop itself.
    lines = AGENT_CRASH.splitlines()
    cut = next(i for i, x in enumerate(lines) if "in _capture_process_failures" in x)
    text = "\n".join([*lines[:cut], "PermissionError: [Errno 13] Permission denied: '/tmp/x/attempt_0/0/error.json'"])
    (tmp_path / "torchrun.stderr.log").write_text(text + "\n")
    assert _findings(tmp_path)[:1] == [("rank_crash", "low", NEW)]


def test_a_ranks_exception_through_records_wrapper_is_its_own_crash(tmp_path: Path) -> None:
    # @record's wrapper is in errors/__init__.py, the module of the agent's ProcessFailure: a
    # worker's frames are its own, not the agent's.
    (tmp_path / "rank1.log").write_text(_rank_traceback(1, "ValueError: bad batch shape (3, 4)"))
    found = _findings(tmp_path)
    assert found[:1] == [("rank_crash", "high", "rank_crash.exception")]
    assert not any(f[2] == NEW for f in found)


def test_the_same_error_file_race_inside_a_rank_is_not_the_launchers(tmp_path: Path) -> None:
    # The json frames under a rank's own code (it read a file itself): no agent frame, no launcher crash.
    lines = AGENT_CRASH.splitlines()
    start = next(i for i, x in enumerate(lines) if "in __post_init__" in x)
    own = ["Traceback (most recent call last):", *_frames(("/work/train.py", 12, "load_config", "json.load(fp)")),
           *lines[start + 2:]]
    (tmp_path / "rank0.log").write_text("".join(f"[rank0]: {x}\n" for x in own))
    found = _findings(tmp_path)
    assert found[:1] == [("rank_crash", "high", "rank_crash.exception")]
    assert not any(f[2] == NEW for f in found)


def _launcher_crash_bundle(root: Path) -> Path:
    host = root / "node-a"
    (host / "logs").mkdir(parents=True)
    (host / "torchrun.stderr.log").write_text(
        _rank_traceback(0, GLOO).replace("[rank0]: ", "[default0]:[rank0]: ")
        + _rank_traceback(1, GLOO).replace("[rank1]: ", "[default1]:[rank1]: ")
        + "W1205 09:32:36.898000 21723 torch/distributed/elastic/multiprocessing/api.py:1028] "
          "Sending process 21726 closing signal SIGTERM\n"
        + AGENT_CRASH)
    for r in (0, 1):
        (host / "logs" / f"rank{r}.stderr.log").write_text(_rank_traceback(r, GLOO))
    (host / "logs" / "rank2.stdout.log").write_text(
        "2026-12-05 09:32:36,017 [rank2] INFO starting: mode=sigkill world_size=3 pid=21728\n"
        "2026-12-05 09:32:36,265 [rank2] INFO step 2 all_reduce done sum=3.0\n"
        "2026-12-05 09:32:36,815 [rank2] INFO step 3: failing on purpose (sigkill)\n")
    files = [{"path": "torchrun.stderr.log", "kind": "log"}] + [
        {"path": f"logs/rank{r}.stderr.log", "kind": "log", "rank": r} for r in (0, 1)] + [
        {"path": "logs/rank2.stdout.log", "kind": "log", "rank": 2}]
    (host / "manifest.json").write_text(json.dumps({
        "schema": "nccl-triage/manifest@1", "job": "gloo-sigkill", "host": "node-a", "files": files}))
    return root


def test_the_workers_evidence_comes_before_the_launchers_crash(tmp_path: Path) -> None:
    # No failure report: rank 2 is named by its peers' gloo errors and its own silence.
    diagnosis = diagnose(_launcher_crash_bundle(tmp_path))
    verdict = diagnosis.findings[0]
    assert (verdict.cause, verdict.rule, verdict.ranks, verdict.hosts) == (
        "rank_crash", "rank_crash.left_first", [2], ["node-a"])
    assert (diagnosis.first_failure or {}).get("rank") == 2
    # The launcher's own exception is neither the verdict nor the first failure.
    assert verdict.rule not in ("rank_crash.exception", NEW)
    assert "JSONDecodeError" not in verdict.title
    assert "JSONDecodeError" not in str((diagnosis.first_failure or {}).get("text"))

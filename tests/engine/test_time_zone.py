"""The same input gives the same JSON on any machine: `manage.py diagnose --json` on every
scenario and every corpus case (real failures and healthy runs) is byte-identical under
TZ=America/Los_Angeles and TZ=Asia/Kolkata to TZ=UTC, and an epoch (a torchelastic error
file's) is read as UTC, never in the reading machine's zone; a time whose year the bundle
does not write is null (with its `time_yearless`), never this machine's year."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from engine_corpus import corpus_cases, healthy_cases

from triage.scenarios import EXTRA_SCENARIOS, SCENARIO_CAUSES, build

REPO = Path(__file__).resolve().parents[2]
ZONES = ("UTC", "America/Los_Angeles", "Asia/Kolkata")

# Run in a fresh interpreter with TZ set, every bundle through the engine (as a library: bench,
# a notebook, anything that embeds it, in the machine's zone) and then through the real command.
# Django sets TZ to settings.TIME_ZONE when it starts, so the command alone would prove nothing;
# the zone must have taken effect before (a machine without the zone's tzdata would read it as
# UTC and prove nothing either).
_RUN = r"""
import io, json, sys, time
zone, want_offset = sys.argv[3], {"UTC": 0, "America/Los_Angeles": 8 * 3600, "Asia/Kolkata": -19800}[sys.argv[3]]
assert time.timezone == want_offset, f"TZ={zone} did not take effect (time.timezone={time.timezone}): is tzdata installed?"
from triage.engine import diagnose
paths = json.loads(open(sys.argv[1]).read())
out = {"engine:" + p: json.dumps(diagnose(p).to_dict(), ensure_ascii=False) for p in paths}
import django
from django.core.management import call_command
django.setup()
for path in paths:
    buf = io.StringIO()
    call_command("diagnose", path, "--json", stdout=buf)
    out["command:" + path] = buf.getvalue()
open(sys.argv[2], "w").write(json.dumps(out))
"""


def _error_file_bundle(root: Path) -> Path:
    """A worker's torchelastic error file and nothing else: its first failure's only time is
    the file's epoch."""
    root.mkdir(parents=True)
    (root / "error.json").write_text(json.dumps({"message": {
        "message": "RuntimeError: CUDA error: an illegal memory access was encountered",
        "extraInfo": {"py_callstack": "Traceback (most recent call last):\n  File \"train.py\", line 9, in <module>\n"
                                      "RuntimeError: CUDA error: an illegal memory access was encountered\n",
                      "timestamp": "1764598921"}}}))
    return root


def _yearless_bundle(root: Path) -> Path:
    """torch's C++ logger prints no year ('E1202 14:22:07'), nor does anything else here."""
    root.mkdir(parents=True)
    (root / "train.log").write_text(
        "[rank3]:[E1202 14:22:07.000000000 ProcessGroupNCCL.cpp:684] [Rank 3] Watchdog caught collective operation "
        "timeout: WorkNCCL(SeqNum=5, OpType=ALLREDUCE, NumelIn=1, NumelOut=1, Timeout(ms)=600000) ran for 600026 "
        "milliseconds before timing out.\n")
    return root


def _zoned_bundle(root: Path) -> Path:
    """kubectl logs --timestamps (UTC) of rank 0 beside a zone-less log of rank 1 on a host whose
    snapshot says UTC+1, and a journalctl short-unix line (an epoch): the stated zones are applied
    the same way whatever the reading machine's zone."""
    root.mkdir(parents=True)
    segv = "Fatal Python error: Segmentation fault"
    (root / "pod.log").write_text(f"2026-12-01T13:22:00Z [rank0]: step 10\n2026-12-01T13:22:03Z [rank0]: {segv}\n")
    (root / "train.log").write_text(f"[rank1]: [2026-12-01 14:21:59,000] step 10\n"
                                    f"[rank1]: [2026-12-01 14:22:01,000] {segv}\n")
    (root / "journal.txt").write_text("1796202664.123456 node-b kernel: NVRM: loaded\n")
    (root / "snapshot.json").write_text(json.dumps({"schema": "nccl-triage/snapshot@1", "host": {
        "hostname": "node-b", "boot_time": "2026-12-01T00:00:00Z", "timezone": {"utc_offset_seconds": 3600}}}))
    return root


@pytest.fixture(scope="module")
def outputs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict[str, str]]:
    root = tmp_path_factory.mktemp("tz")
    paths = [str(c / "log.txt") for c in corpus_cases() + healthy_cases()]
    for cause in SCENARIO_CAUSES + EXTRA_SCENARIOS:
        built = build(cause, root / "scenarios" / cause, seed=1)
        (built / "expected.json").unlink()
        paths.append(str(built))
    paths += [str(_error_file_bundle(root / "error-file")), str(_yearless_bundle(root / "yearless")),
              str(_zoned_bundle(root / "zoned"))]
    listing = root / "paths.json"
    listing.write_text(json.dumps(paths))
    got: dict[str, dict[str, str]] = {}
    for zone in ZONES:
        out = root / f"{zone.replace('/', '_')}.json"
        env = {**os.environ, "TZ": zone, "DJANGO_SETTINGS_MODULE": "triage.settings"}
        done = subprocess.run([sys.executable, "-c", _RUN, str(listing), str(out), zone], cwd=REPO, env=env,
                              capture_output=True, text=True, timeout=900, check=False)
        assert done.returncode == 0, done.stderr[-3000:]
        got[zone] = json.loads(out.read_text())
    assert len(got["UTC"]) == 2 * len(paths) > 260
    return got


@pytest.mark.parametrize("zone", ZONES[1:])
def test_diagnose_json_is_byte_identical_in_every_time_zone(outputs: dict[str, dict[str, str]], zone: str) -> None:
    differ = [path for path, text in outputs["UTC"].items() if outputs[zone][path] != text]
    assert not differ, f"TZ={zone} changes the JSON of {len(differ)} bundles, first {differ[0]}"


def _by_name(outputs: dict[str, dict[str, str]], zone: str, tail: str) -> dict:
    return json.loads(outputs[zone][next(p for p in outputs[zone] if p.startswith("engine:") and p.endswith(tail))])


@pytest.mark.parametrize("zone", ZONES)
def test_an_error_files_epoch_is_read_as_utc(outputs: dict[str, dict[str, str]], zone: str) -> None:
    d = _by_name(outputs, zone, "/error-file")
    ff = d["first_failure"]
    assert ff["time"] == "2025-12-01T14:22:01", ff  # 1764598921 in UTC
    assert ff["time_yearless"] is None


@pytest.mark.parametrize("zone", ZONES)
def test_a_time_without_a_year_is_unknown_not_this_years(outputs: dict[str, dict[str, str]], zone: str) -> None:
    d = _by_name(outputs, zone, "/yearless")
    ff = d["first_failure"]
    assert ff["time"] is None and ff["time_estimate"] is None, ff
    assert ff["time_yearless"] == "--12-02T14:22:07"
    assert [(r["rank"], r["first_time"], r["last_time"], r["state"]) for r in d["ranks"]] == [(3, None, None, "errored")]
    assert any("no year" in n for n in d["notes"])
    assert d["timeline"]["year_known"] is False


@pytest.mark.parametrize("zone", ZONES)
def test_stated_zones_are_applied_the_same_in_every_zone(outputs: dict[str, dict[str, str]], zone: str) -> None:
    # 13:22:03Z is 14:22:03 at the host's UTC+1: rank 1's crash at 14:22:01 local is the first.
    ff = _by_name(outputs, zone, "/zoned")["first_failure"]
    assert (ff["rank"], ff["time"]) == (1, "2026-12-01T14:22:01"), ff

"""Metamorphic tests: the verdict holds when the same log arrives wrapped differently.

Every real corpus case and every synthetic scenario is rewritten the ways logs get mangled on
their way to a bug report (launcher and CI prefixes added or removed, hosts and hex/PCI ids
masked, a traceback pasted newest-first, lines hard-wrapped at 120 columns, line numbers or
blank lines inserted, NCCL INFO lines dropped, captured by Kubernetes, journald or Docker's
json-file driver); the cause must not change. Packing the same
bundle as a folder, a .tar.gz with one top-level folder and a .zip must not change the cause
or the first failure's rank.
"""
from __future__ import annotations

import functools
import json
import re
import tarfile
import zipfile
from collections.abc import Callable
from pathlib import Path

import pytest
from engine_corpus import corpus_cases

from triage.engine import diagnose
from triage.scenarios import SCENARIO_CAUSES, build

CASES = corpus_cases()

_RANK_PREFIX = re.compile(r"^\[(?:rank|default|local)\d+\]:\s?")
_NCCL_HOST = re.compile(r"^(?P<pre>.*?)(?P<host>[A-Za-z][\w.-]*?)(?P<rest>:\d+:\d+ \[\d+\])")
_HEX = re.compile(r"0x[0-9a-fA-F]{4,}")
_PCI = re.compile(r"\b[0-9a-fA-F]{4}:[0-9a-fA-F]{2}:[0-9a-fA-F]{2}(?:\.\d)?\b")


def ci_prefix(lines: list[str]) -> list[str]:
    # One instant for every line: a CI runner's clock says when it relayed a line, which keeps
    # the lines' own order; made-up increasing times per file would reorder the files.
    return [f"2026-12-01T10:00:00.0000000Z {line}" for line in lines]


def pdsh_prefix(lines: list[str]) -> list[str]:
    return [f"gpu-node-17: {line}" for line in lines]


def strip_rank_prefix(lines: list[str]) -> list[str]:
    return [_RANK_PREFIX.sub("", line) for line in lines]


def mask_ids(lines: list[str]) -> list[str]:
    hosts: dict[str, str] = {}

    def host(m: re.Match[str]) -> str:
        name = hosts.setdefault(m["host"], f"masked-host-{len(hosts)}")
        return f"{m['pre']}{name}{m['rest']}"

    out = []
    for original in lines:
        line = _NCCL_HOST.sub(host, original, count=1)
        line = _HEX.sub("0x...", line)
        line = _PCI.sub("xxxx:xx:xx", line)
        out.append(line)
    return out


def newest_first(lines: list[str]) -> list[str]:
    """Each traceback pasted in reverse (the exception line first, then the frames upwards)."""
    out: list[str] = []
    block: list[str] | None = None
    for line in lines:
        if "Traceback (most recent call last)" in line:
            block = [line]
            continue
        if block is not None:
            block.append(line)
            if not line.startswith((" ", "\t")) and not _RANK_PREFIX.sub("", line).startswith((" ", "\t")):
                out.extend(reversed(block))
                block = None
            continue
        out.append(line)
    if block:
        out.extend(block)
    return out


def hard_wrap(lines: list[str]) -> list[str]:
    out = []
    for whole in lines:
        line = whole
        while len(line) > 120:
            out.append(line[:120])
            line = line[120:]
        out.append(line)
    return out


def line_numbers(lines: list[str]) -> list[str]:
    return [f"{i + 1:>5} | {line}" for i, line in enumerate(lines)]


def blank_lines(lines: list[str]) -> list[str]:
    return [x for line in lines for x in (line, "")]


def drop_nccl_info(lines: list[str]) -> list[str]:
    return [line for line in lines if "NCCL INFO" not in line]


def cri_container_log(lines: list[str]) -> list[str]:
    """A Kubernetes node's container log (/var/log/containers, CRI format): time, stream, tag."""
    return [f"2026-12-01T10:{i // 60 % 60:02d}:{i % 60:02d}.{i:09d}Z {'stdout' if i % 3 else 'stderr'} F {line}"
            for i, line in enumerate(lines)]


def journald_prefix(lines: list[str]) -> list[str]:
    """`journalctl -u train` of a systemd unit: syslog time, host, the process and its pid."""
    return [f"Dec 01 10:{i // 60 % 60:02d}:{i % 60:02d} gpu-node-7 python[4242]: {line}" for i, line in enumerate(lines)]


def docker_json_log(lines: list[str]) -> list[str]:
    """Docker's json-file log driver: one JSON object a line, the text escaped inside it."""
    return [json.dumps({"log": line + "\n", "stream": "stderr", "time": f"2026-12-01T10:00:{i % 60:02d}.000000000Z"})
            for i, line in enumerate(lines)]


TRANSFORMS: dict[str, Callable[[list[str]], list[str]]] = {
    "ci_prefix": ci_prefix,
    "pdsh_prefix": pdsh_prefix,
    "strip_rank_prefix": strip_rank_prefix,
    "mask_ids": mask_ids,
    "newest_first": newest_first,
    "hard_wrap": hard_wrap,
    "line_numbers": line_numbers,
    "blank_lines": blank_lines,
    "drop_nccl_info": drop_nccl_info,
}
# How a log is captured: each line gets the capture's own time. Applied to the corpus's single
# logs only; over a multi-file scenario these invented times would contradict the other files'
# clocks (a dmesg line stamped an hour later), which no real capture does.
CAPTURES: dict[str, Callable[[list[str]], list[str]]] = {
    "cri_container_log": cri_container_log,
    "journald_prefix": journald_prefix,
    "docker_json_log": docker_json_log,
}


def cause_of(path: Path) -> str:
    findings = diagnose(path).to_dict()["findings"]
    if not findings or findings[0]["confidence"] == "low" and findings[0]["cause"] not in _LOW_KEPT:
        return "unknown-or-low"
    return findings[0]["cause"]


_LOW_KEPT: set[str] = set()


@functools.cache
def original_cause(path: Path) -> str:
    """The verdict on an input as it is (a corpus log, a scenario bundle built once for this
    module): every rewrite of it is compared with this, so it is worked out once."""
    return cause_of(path)


def rewrite_tree(src: Path, dst: Path, transform: Callable[[list[str]], list[str]]) -> Path:
    if src.is_file():
        dst.mkdir(parents=True, exist_ok=True)
        out = dst / src.name
        out.write_text("\n".join(transform(src.read_text(errors="replace").splitlines())) + "\n")
        return out
    for path in sorted(src.rglob("*")):
        if not path.is_file():
            continue
        target = dst / path.relative_to(src)
        target.parent.mkdir(parents=True, exist_ok=True)
        data = path.read_bytes()
        if path.suffix in (".log", ".txt", ".out", ".err") and b"\x00" not in data[:4096]:
            target.write_text("\n".join(transform(data.decode(errors="replace").splitlines())) + "\n")
        else:
            target.write_bytes(data)
    return dst


# Known misses, each with why; strict, so the suite fails the day one of them passes.
REWRITE_MISSES: dict[tuple[str, str], str] = {}


def _rewrite_cases() -> list[object]:
    return [
        pytest.param(case, name, id=f"{case.name}-{name}",
                     marks=[pytest.mark.xfail(reason=REWRITE_MISSES[case.name, name], strict=True)]
                     if (case.name, name) in REWRITE_MISSES else [])
        for case in CASES for name in [*TRANSFORMS, *CAPTURES]
    ]


@pytest.mark.parametrize(("case", "name"), _rewrite_cases())
def test_corpus_verdict_holds(tmp_path: Path, case: Path, name: str) -> None:
    before = original_cause(case / "log.txt")
    after = cause_of(rewrite_tree(case / "log.txt", tmp_path / name, {**TRANSFORMS, **CAPTURES}[name]))
    if name == "drop_nccl_info" and _evidence_is_nccl_info(case / "log.txt"):
        # The only evidence was an INFO line: without it the log says nothing confident.
        assert after in (before, "unknown-or-low"), f"{case.name}: {before} became {after} after {name}"
        return
    assert after == before, f"{case.name}: {before} became {after} after {name}"


def _evidence_is_nccl_info(path: Path) -> bool:
    findings = diagnose(path).to_dict()["findings"]
    return bool(findings) and all("NCCL INFO" in e["text"] for e in findings[0]["evidence"])


@pytest.fixture(scope="module")
def scenario_bundles(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("meta-scenarios")
    return {cause: build(cause, root, seed=3) for cause in SCENARIO_CAUSES}


@pytest.mark.parametrize("name", list(TRANSFORMS))
@pytest.mark.parametrize("cause", SCENARIO_CAUSES)
def test_scenario_verdict_holds(tmp_path: Path, scenario_bundles: dict[str, Path], cause: str, name: str) -> None:
    bundle = scenario_bundles[cause]
    before = original_cause(bundle)
    assert before == cause
    after = cause_of(rewrite_tree(bundle, tmp_path / name, TRANSFORMS[name]))
    assert after == before, f"{cause}: became {after} after {name}"


def _pack_tar_gz(folder: Path, out: Path) -> Path:
    with tarfile.open(out, "w:gz") as tar:
        tar.add(folder, arcname=folder.name)  # one top-level folder, as `tar czf x.tgz dir/` makes
    return out


def _pack_zip(folder: Path, out: Path) -> Path:
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as zf:
        for path in sorted(folder.rglob("*")):
            if path.is_file():
                zf.write(path, f"{folder.name}/{path.relative_to(folder).as_posix()}")
    return out


@pytest.mark.parametrize("cause", SCENARIO_CAUSES)
def test_folder_tar_gz_and_zip_agree(tmp_path: Path, scenario_bundles: dict[str, Path], cause: str) -> None:
    folder = scenario_bundles[cause]
    results = {}
    for label, path in (("folder", folder), ("tar.gz", _pack_tar_gz(folder, tmp_path / "b.tar.gz")),
                        ("zip", _pack_zip(folder, tmp_path / "b.zip"))):
        d = diagnose(path).to_dict()
        results[label] = (d["findings"][0]["cause"] if d["findings"] else None,
                          d["findings"][0]["rule"] if d["findings"] else None,
                          (d["first_failure"] or {}).get("rank"))
    assert results["folder"][0] == cause
    assert results["tar.gz"] == results["folder"], results
    assert results["zip"] == results["folder"], results

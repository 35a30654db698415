"""Reading a folder on several processes (engine parallel.py) gives the diagnosis JSON of
reading it on one, byte for byte: on corpus logs put together, on every scenario, where a
flooding pattern makes runs read again, where light reading starts inside a later run, and
with compressed files that read more bytes than their size on disk."""
from __future__ import annotations

import gzip
import json
import os
import shutil
from pathlib import Path

import pytest
from engine_corpus import corpus_cases

from triage.engine import diagnose
from triage.engine.parallel import ReadStats, read_state
from triage.engine.pipeline import conclude
from triage.scenarios import EXTRA_SCENARIOS, SCENARIO_CAUSES, build

CASES = corpus_cases()


def _both(folder: Path, workers: int) -> tuple[str, str, ReadStats]:
    serial = json.dumps(diagnose(folder, workers=1).to_dict(), sort_keys=True)
    stats = ReadStats()
    state = read_state(folder, workers=workers, min_bytes=0, min_files=0, stats=stats)
    return serial, json.dumps(conclude([state]).to_dict(), sort_keys=True), stats


def _corpus_bundle(root: Path, cases: list[Path]) -> Path:
    for i, case in enumerate(cases):
        (root / f"part{i:03d}").mkdir(parents=True)
        shutil.copy(case / "log.txt", root / f"part{i:03d}" / "log.txt")
    return root


@pytest.mark.parametrize("workers", [2, 3])
def test_all_corpus_logs_as_one_bundle(tmp_path: Path, workers: int) -> None:
    serial, parallel, stats = _both(_corpus_bundle(tmp_path, CASES), workers)
    assert stats.parts == workers and not stats.serial_because
    assert parallel == serial


@pytest.mark.parametrize("start", range(0, 88, 8))
def test_corpus_logs_eight_at_a_time(tmp_path: Path, start: int) -> None:
    cases = CASES[start : start + 8]
    assert len(cases) >= 2
    serial, parallel, stats = _both(_corpus_bundle(tmp_path, cases), 2)
    assert stats.parts == 2
    assert parallel == serial


@pytest.mark.parametrize("cause", SCENARIO_CAUSES + EXTRA_SCENARIOS)
@pytest.mark.parametrize("seed", [0, 1])
def test_scenarios(tmp_path: Path, cause: str, seed: int) -> None:
    folder = build(cause, tmp_path, seed=seed)
    for workers in (2, 4):
        serial, parallel, stats = _both(folder, workers)
        assert stats.parts > 1 and not stats.serial_because
        assert parallel == serial, (cause, seed, workers)


def _warn_log(rank: int, lines: int) -> str:
    pre = f"node-{rank // 8:02d}:{4000 + rank}:{4100 + rank} [{rank % 8}] "
    out = [pre + "NCCL INFO NCCL version 2.21.5+cuda12.4"]
    for i in range(lines):
        # A WARN the catalog gives no meaning: the flood sampling alone decides what is read
        # (a catalog line also keeps per-entry state, and the parallel reader reads its region again).
        out.append(pre + f"misc/socket.cc:{560 + i % 7} NCCL WARN a warning the catalog does not know, printed again")
        out.append(pre + f"NCCL INFO AllReduce: opCount {i:x} sendbuff 0x7f00 recvbuff 0x7f01 count 1024 datatype 7 op 0 root 0 comm 0x55 [nranks=4] stream 0x56")
    if rank == 2:
        out.append(f"[rank{rank}]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 2 has a total capacity of 79.10 GiB")
    return "\n".join(out) + "\n"


def test_a_pattern_flooding_across_runs_reads_them_again(tmp_path: Path) -> None:
    # Each file holds the retry WARN in more than FLOOD_WINDOWS windows: the second run, read
    # from zero counts, parsed lines the serial reading only sampled.
    for rank in range(4):
        (tmp_path / f"rank{rank}.log").write_text(_warn_log(rank, 9000))
    serial, parallel, stats = _both(tmp_path, 2)
    assert stats.read_again >= 1
    assert parallel == serial


@pytest.mark.parametrize("files", [
    # The WARN once per file floods after eight files, but one line a region reads the same
    # flooding or not: nothing to read again.
    pytest.param(24, id="one_fault_line_a_file_is_not_read_again"),
    # Past 256 sources a bundle's later sources are read light (reader.LIGHT_AFTER_SOURCES):
    # the second run starts at source 150 and must switch at the same source.
    pytest.param(300, id="light_reading_starts_inside_a_later_run"),
])
def test_one_line_a_file_reads_the_same_in_two_runs(tmp_path: Path, files: int) -> None:
    for rank in range(files):
        (tmp_path / f"rank{rank:03d}.log").write_text(_warn_log(rank, 1))
    serial, parallel, stats = _both(tmp_path, 2)
    assert stats.parts == 2 and stats.read_again == 0
    assert parallel == serial


def test_compressed_files_before_a_run_read_it_again(tmp_path: Path) -> None:
    # A gzip'd log reads more bytes than its size on disk: the runs after it started from a
    # wrong byte count and are read again from the true one.
    for rank in range(6):
        data = _warn_log(rank, 50).encode()
        if rank < 3:
            (tmp_path / f"rank{rank}.log.gz").write_bytes(gzip.compress(data))
        else:
            (tmp_path / f"rank{rank}.log").write_bytes(data)
    serial, parallel, stats = _both(tmp_path, 3)
    assert stats.read_again >= 1
    assert parallel == serial


def test_an_archive_input_is_read_serially(tmp_path: Path) -> None:
    folder = build("oom", tmp_path / "b", seed=0)
    archive = shutil.make_archive(str(tmp_path / "bundle"), "gztar", folder)
    stats = ReadStats()
    state = read_state(archive, workers=2, min_bytes=0, min_files=0, stats=stats)
    assert stats.serial_because == "not a folder input"
    assert json.dumps(conclude([state]).to_dict(), sort_keys=True) == json.dumps(diagnose(archive, workers=1).to_dict(), sort_keys=True)


def test_a_folder_over_the_member_limit_is_read_serially(tmp_path: Path) -> None:
    from triage.engine.bundle import Limits

    for rank in range(6):
        (tmp_path / f"rank{rank}.log").write_text(_warn_log(rank, 1))
    stats = ReadStats()
    limits = Limits(max_members=4)
    state = read_state(tmp_path, limits=limits, workers=2, min_bytes=0, min_files=0, stats=stats)
    assert stats.serial_because.startswith("over a limit")
    whole = diagnose(tmp_path, limits=limits, workers=1).to_dict()
    assert json.dumps(conclude([state]).to_dict(), sort_keys=True) == json.dumps(whole, sort_keys=True)
    assert any("limit reached" in p for p in whole["problems"])


def _die(_part: object) -> None:
    os._exit(3)


def test_a_worker_that_dies_leaves_the_reading_to_one_process(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from triage.engine import parallel

    folder = build("network", tmp_path, seed=0)
    monkeypatch.setattr(parallel, "_read_part", _die)
    stats = ReadStats()
    state = read_state(folder, workers=2, min_bytes=0, min_files=0, stats=stats)
    assert stats.serial_because == "parallel reading failed (BrokenProcessPool)"
    whole = json.dumps(diagnose(folder, workers=1).to_dict(), sort_keys=True)
    assert json.dumps(conclude([state]).to_dict(), sort_keys=True) == whole


def test_one_line_in_two_windows_of_a_region_reads_again(tmp_path: Path) -> None:
    # The second run counts the retry WARN from zero: seven one-line files (windows 0-6), then
    # a file with it in two windows of one region, the 7th (one line, read whole on its own
    # count) and the 8th (flooding on its own count, so sampled: kept, as the region's first
    # sample). Serially the first run's window made the 7th flooding already: its line is
    # the sample and the 8th's is dropped. One line in the window, yet decisive.
    pre = "node-00:4000:4100 [0] "
    warn = pre + "misc/socket.cc:560 NCCL WARN NET/Socket : Call to connect returned Connection refused, retrying\n"
    fill = pre + "NCCL INFO AllReduce: opCount 1 sendbuff 0x7f00 recvbuff 0x7f01 count 1024 datatype 7 op 0 root 0 comm 0x55 [nranks=4] stream 0x56\n"
    (tmp_path / "a0.log").write_text(fill * 9000 + warn + fill * 40)
    for i in range(1, 8):
        (tmp_path / f"b{i}.log").write_text(fill * 3 + warn + fill * 40)
    (tmp_path / "c.log").write_text(fill * 3 + warn + fill * 1500 + warn + fill * 40)
    serial, parallel, stats = _both(tmp_path, 2)
    assert stats.parts == 2 and stats.files_read_again == 8
    assert parallel == serial

"""Hostile bundles: truncated archives, path traversal, links, devices, bombs, huge lines,
binary junk, bad encodings, hostile pickles (bundle.py, reader.py, structured.py)."""
from __future__ import annotations

import gzip
import io
import json
import os
import pickle
import tarfile
import time
import tracemalloc
import uuid
import zipfile
from pathlib import Path

import pytest

from triage.engine import BundleError, diagnose
from triage.engine.bundle import Budget, Limits, iter_members

OOM_LINE = (
    "[rank3]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 96.00 MiB. GPU 3 has a total capacity of "
    "79.15 GiB of which 64.94 MiB is free."
)
SHM_LINE = (
    "node-a:2143:2200 [1] misc/shmutils.cc:60 NCCL WARN Error while creating shared memory segment /dev/shm/nccl-abc "
    "(size 9637888), error: No space left on device (28)"
)


def _tarinfo(name: str, data: bytes) -> tuple[tarfile.TarInfo, io.BytesIO]:
    info = tarfile.TarInfo(name)
    info.size = len(data)
    info.mtime = 1700000000
    return info, io.BytesIO(data)


def _kinds(d) -> set[str]:
    return {f.cause for f in d.findings}


def _members(path: Path) -> tuple[list[tuple[str, bytes]], list[str]]:
    budget = Budget(Limits())
    out = []
    gen = iter_members(path, budget)
    try:
        for m in gen:
            out.append((m.name, m.stream.read()))
    finally:
        gen.close()
    return out, budget.problems


# --- truncation -------------------------------------------------------------------------------


def test_truncated_tar_gz_keeps_first_member(tmp_path):
    first = (OOM_LINE + "\n").encode()
    second = os.urandom(16) .hex().encode() * 20000 + b"\n"  # big enough to be cut in the middle
    raw = io.BytesIO()
    with tarfile.open(fileobj=raw, mode="w") as tar:
        tar.addfile(*_tarinfo("node-b/rank3.log", first))
        tar.addfile(*_tarinfo("node-b/rank4.log", second))
    full = gzip.compress(raw.getvalue())
    # cut in the middle of the second member's data
    tar_bytes = raw.getvalue()
    cut_plain = 512 + 512 + 512 + len(second) // 2
    assert cut_plain < len(tar_bytes)
    comp = gzip.compress(tar_bytes[:cut_plain])[:-8]  # the gzip stream as far as that point, no trailer
    path = tmp_path / "bundle.tar.gz"
    path.write_bytes(comp)
    assert len(comp) < len(full) or True
    d = diagnose(path)
    assert "oom" in _kinds(d)
    assert d.verdict is not None and d.verdict.cause == "oom"
    assert 3 in d.verdict.ranks
    assert d.problems, "the truncation must be reported"
    assert any("truncated" in p or "unreadable" in p or "EOF" in p or "end" in p.lower() for p in d.problems), d.problems


def test_truncated_tar_gz_cut_raw_bytes(tmp_path):
    """A real cut of the compressed file (upload interrupted), in the 2nd member."""
    first = (OOM_LINE + "\n").encode()
    second = b"".join(b"line %d of a long and boring log\n" % i for i in range(200000))
    raw = io.BytesIO()
    with tarfile.open(fileobj=raw, mode="w:gz") as tar:
        tar.addfile(*_tarinfo("rank3.log", first))
        tar.addfile(*_tarinfo("rank4.log", second))
    data = raw.getvalue()
    path = tmp_path / "cut.tar.gz"
    path.write_bytes(data[: len(data) // 2])
    d = diagnose(path)
    assert d.verdict is not None and d.verdict.cause == "oom"
    names = [s["name"] for s in d.sources]
    assert "rank3.log" in names
    assert d.problems and any("rank4.log" in p or "truncated" in p for p in d.problems), d.problems


def test_gzip_cut_mid_stream(tmp_path):
    body = (OOM_LINE + "\n").encode() + b"".join(b"filler line %d\n" % i for i in range(100000))
    data = gzip.compress(body)
    path = tmp_path / "rank3.log.gz"
    path.write_bytes(data[: len(data) // 2])
    d = diagnose(path)
    assert d.verdict is not None and d.verdict.cause == "oom"
    assert d.sources[0]["name"] == "rank3.log"
    assert d.problems, "a cut gzip must be reported"


# --- unsafe names and special members ----------------------------------------------------------


def test_tar_traversal_links_and_devices(tmp_path):
    token = uuid.uuid4().hex
    evil_rel = f"../../{token}-evil.log"
    abs_name = f"/tmp/{token}-abs.log"
    raw = io.BytesIO()
    with tarfile.open(fileobj=raw, mode="w") as tar:
        tar.addfile(*_tarinfo(evil_rel, (OOM_LINE + "\n").encode()))
        tar.addfile(*_tarinfo(abs_name, (SHM_LINE + "\n").encode()))
        tar.addfile(*_tarinfo("../../etc/passwd", b"root:x:0:0:root:/root:/bin/bash\n"))
        sym = tarfile.TarInfo("link.log")
        sym.type = tarfile.SYMTYPE
        sym.linkname = "/etc/shadow"
        tar.addfile(sym)
        hard = tarfile.TarInfo("hard.log")
        hard.type = tarfile.LNKTYPE
        hard.linkname = "/etc/passwd"
        tar.addfile(hard)
        dev = tarfile.TarInfo("zero")
        dev.type = tarfile.CHRTYPE
        dev.devmajor, dev.devminor = 1, 5
        tar.addfile(dev)
    path = tmp_path / "evil.tar"
    path.write_bytes(raw.getvalue())
    before = set(os.listdir(tmp_path))
    cwd_before = set(os.listdir(os.getcwd()))

    members, problems = _members(path)
    names = [n for n, _ in members]
    assert f"{token}-evil.log" in names
    assert f"tmp/{token}-abs.log" in names
    assert "etc/passwd" in names
    assert not any(".." in n.split("/") or n.startswith("/") for n in names)
    assert "link.log" not in names and "hard.log" not in names and "zero" not in names
    joined = "\n".join(problems)
    assert "link.log: link in archive skipped" in joined
    assert "hard.log: link in archive skipped" in joined
    assert "zero: device or special member skipped" in joined
    assert "unsafe path" in joined

    d = diagnose(path)
    assert {"oom", "shm_exhausted"} <= _kinds(d)
    # nothing was written anywhere
    assert not Path(abs_name).exists()
    assert not (tmp_path.parent.parent / f"{token}-evil.log").exists()
    assert not (Path(os.getcwd()).parent.parent / f"{token}-evil.log").exists()
    assert set(os.listdir(tmp_path)) == before
    assert set(os.listdir(os.getcwd())) == cwd_before


def test_zip_traversal_name_sanitised(tmp_path):
    token = uuid.uuid4().hex
    path = tmp_path / "evil.zip"
    with zipfile.ZipFile(path, "w") as z:
        z.writestr(f"../../{token}.log", OOM_LINE + "\n")
        z.writestr(f"/abs/{token}.log", SHM_LINE + "\n")
    members, problems = _members(path)
    assert sorted(n for n, _ in members) == sorted([f"{token}.log", f"abs/{token}.log"])
    assert any("unsafe path" in p for p in problems)
    assert not (tmp_path.parent.parent / f"{token}.log").exists()
    assert not Path(f"/abs/{token}.log").exists()


def test_directory_symlink_skipped(tmp_path):
    (tmp_path / "b").mkdir()
    (tmp_path / "b" / "rank3.log").write_text(OOM_LINE + "\n")
    (tmp_path / "b" / "secret.log").symlink_to("/etc/passwd")
    members, problems = _members(tmp_path / "b")
    assert [n for n, _ in members] == ["rank3.log"]
    assert any("secret.log: symbolic link skipped" in p for p in problems)


# --- bombs and huge inputs --------------------------------------------------------------------


def _zero_stream_zip(path: Path, size: int) -> None:
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED) as z, z.open("bomb.log", "w", force_zip64=True) as f:
        chunk = b"\0" * (1 << 20)
        for _ in range(size // len(chunk)):
            f.write(chunk)


def test_zip_bomb_stops_on_ratio(tmp_path):
    path = tmp_path / "bomb.zip"
    _zero_stream_zip(path, 200 * 1024 * 1024)
    assert path.stat().st_size < 1024 * 1024
    with zipfile.ZipFile(path, "a") as z:
        z.writestr("rank3.log", OOM_LINE + "\n")
    tracemalloc.start()
    t0 = time.monotonic()
    try:
        d = diagnose(path)
        problems = d.problems
    except BundleError as exc:
        problems = [str(exc)]
    elapsed = time.monotonic() - t0
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert any("compression ratio" in p for p in problems), problems
    assert elapsed < 10
    assert peak < 64 * 1024 * 1024


def test_gzip_bomb_stops_on_ratio(tmp_path):
    path = tmp_path / "rank3.log.gz"
    with gzip.open(path, "wb", compresslevel=9) as f:
        f.write((OOM_LINE.replace("[rank3]: ", "") + "\n").encode())  # not '[': see the bracket tests
        chunk = (b"x" * 1023 + b"\n") * 1024  # very repetitive text: ~1000:1
        for _ in range(200):
            f.write(chunk)
    assert path.stat().st_size < 1024 * 1024
    tracemalloc.start()
    t0 = time.monotonic()
    try:
        problems = diagnose(path).problems
    except BundleError as exc:
        problems = [str(exc)]
    elapsed = time.monotonic() - t0
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert elapsed < 10
    assert peak < 64 * 1024 * 1024
    # the first 64 KiB is text: read as a log, and the bomb is noticed
    assert any("compression ratio" in p for p in problems), problems


def test_fifty_megabyte_single_line(tmp_path):
    path = tmp_path / "rank3.log"
    with open(path, "wb") as f:
        f.write((OOM_LINE.replace("[rank3]: ", "") + "\n").encode())  # not '[': see the bracket tests
        chunk = b"A" * (1 << 20)
        for _ in range(50):
            f.write(chunk)
        f.write(b"\n")
        f.write(b"node-a:1:1 [0] NCCL INFO Using network Socket\n")
    tracemalloc.start()
    t0 = time.monotonic()
    d = diagnose(path)
    elapsed = time.monotonic() - t0
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert d.verdict is not None and d.verdict.cause == "oom"
    assert d.sources[0]["lines"] == 3
    net = [e for e in d.to_dict()["timeline"].get("events", [])]  # noqa: F841 - the timeline builds
    assert d.sources[0]["bytes"] == path.stat().st_size
    assert peak < 40 * 1024 * 1024, f"peak {peak / 2**20:.1f} MiB"
    assert elapsed < 15


# --- binary junk, encodings, HTML -----------------------------------------------------------


def test_binary_junk_skipped_with_note(tmp_path):
    (tmp_path / "core.bin").write_bytes(b"\0" + os.urandom(200_000))
    (tmp_path / "rank3.log").write_text(OOM_LINE + "\n")
    d = diagnose(tmp_path)
    assert d.verdict is not None and d.verdict.cause == "oom"
    assert any("core.bin: binary file skipped" in p for p in d.problems)
    kinds = {s["name"]: s["kind"] for s in d.sources}
    assert kinds["core.bin"] == "binary"


def test_binary_junk_alone_is_a_bundle_error(tmp_path):
    path = tmp_path / "junk.bin"
    path.write_bytes(b"\0" + os.urandom(100_000))
    with pytest.raises(BundleError, match="binary"):
        diagnose(path)


def test_non_utf8_ansi_and_progress_bars_decode_cleanly(tmp_path):
    data = (
        b"\x1b[31mnode-a:1:2 [1] misc/shmutils.cc:60 NCCL WARN Error while creating shared memory segment /dev/shm/nccl-\xd0\x8c\xff\xfe "
        b"(size 9637888), error: No space left on device (28)\x1b[0m\r\n"
        b"Epoch 1:  10%|#   | 1/10\rEpoch 1:  50%|#####     | 5/10\rEpoch 1: 100%|##########| 10/10 loss=\xff\n"
    )
    path = tmp_path / "rank1.log"
    path.write_bytes(data)
    d = diagnose(path)
    assert d.verdict is not None and d.verdict.cause == "shm_exhausted"
    text = d.verdict.evidence[0].text
    assert "\x1b" not in text and "\r" not in text
    assert text.startswith("node-a:1:2 [1] misc/shmutils.cc:60 NCCL WARN Error while creating")
    assert "\ufffd" in text  # invalid bytes shown as replacement characters
    json.dumps(d.to_dict(), ensure_ascii=False).encode("utf-8")  # serialisable as UTF-8
    last = d.to_dict()["sources"][0]
    assert last["lines"] == 2


def test_html_stays_text(tmp_path):
    line = '[rank0]: RuntimeError: CUDA error: invalid device ordinal <script>alert("x")</script> &amp; <b>'
    (tmp_path / "rank0.log").write_text(line + "\n")
    d = diagnose(tmp_path)
    out = json.dumps(d.to_dict(), ensure_ascii=False)
    assert '<script>alert(\\"x\\")</script> &amp; <b>' in out
    texts = [e.text for f in d.findings for e in f.evidence]
    assert line in texts


# --- pickles ---------------------------------------------------------------------------------


class _Evil:
    def __init__(self, target: str) -> None:
        self.target = target

    def __reduce__(self):
        return (os.system, (f"touch {self.target}",))


def test_hostile_pickle_refused_and_not_run(tmp_path):
    target = Path("/tmp") / f"pwned-{uuid.uuid4().hex}"
    blob = pickle.dumps({"version": "2.4", "entries": [], "x": _Evil(str(target))}, protocol=4)
    (tmp_path / "nccl_trace_rank_0").write_bytes(blob)
    (tmp_path / "rank3.log").write_text(OOM_LINE + "\n")
    d = diagnose(tmp_path)
    assert not target.exists(), "the pickle ran code"
    assert any("nccl_trace_rank_0: pickle refused" in p for p in d.problems), d.problems
    assert d.verdict is not None and d.verdict.cause == "oom"


def test_hostile_pickle_alone(tmp_path):
    target = Path("/tmp") / f"pwned-{uuid.uuid4().hex}"
    path = tmp_path / "trace.pkl"
    path.write_bytes(pickle.dumps(_Evil(str(target)), protocol=2))
    with pytest.raises(BundleError, match="pickle refused"):
        diagnose(path)
    assert not target.exists()


def test_legitimate_flight_recorder_pickle_is_read(tmp_path):
    from triage.engine.bundle import Budget, Limits, iter_members
    from triage.engine.facts import build_facts
    from triage.engine.reader import Collected, read_member
    from triage.engine.scan import prefilter
    from triage.engine.timeparse import Clock

    doc = {
        "version": "2.4",
        "pg_config": {"0": {"name": "0", "desc": "default_pg", "ranks": "[0, 1]"}},
        "pg_status": {"0": {"last_enqueued_collective": 12, "last_started_collective": 12, "last_completed_collective": 11}},
        "entries": [
            {"record_id": 10, "pg_id": 0, "collective_seq_id": 11, "profiling_name": "nccl:all_reduce", "state": "completed",
             "time_created_ns": 1700000000000000000, "is_p2p": False, "input_sizes": [[4]]},
            {"record_id": 11, "pg_id": 0, "collective_seq_id": 12, "profiling_name": "nccl:all_reduce", "state": "scheduled",
             "time_created_ns": 1700000001000000000, "is_p2p": False, "input_sizes": [[4]]},
        ],
    }
    (tmp_path / "nccl_trace_rank_1").write_bytes(pickle.dumps(doc, protocol=4))
    budget = Budget(Limits())
    collected = Collected()
    for m in iter_members(tmp_path, budget):
        read_member(m, collected, budget, prefilter(), Clock(year=2025))
    assert not budget.problems
    assert collected.sources[0].kind == "flight_recorder"
    facts = build_facts(collected, budget.problems)
    fr = facts.kind("fr_status")
    assert len(fr) == 1
    assert fr[0].rank == 1
    assert fr[0].seq == 11
    d = diagnose(tmp_path)
    assert not d.problems
    assert d.sources[0]["kind"] == "flight_recorder"


# --- nothing readable -------------------------------------------------------------------------


def test_empty_directory_is_a_bundle_error(tmp_path):
    (tmp_path / "empty").mkdir()
    with pytest.raises(BundleError):
        diagnose(tmp_path / "empty")


def test_missing_path_names_the_path(tmp_path):
    missing = tmp_path / "no-such-bundle.tar.gz"
    with pytest.raises(BundleError) as info:
        diagnose(missing)
    assert str(missing) in str(info.value)
    assert "\n" not in str(info.value)


def test_fifty_megabyte_line_in_a_log_starting_with_a_bracket(tmp_path):
    """'[rank3]: ...' first: the file looks like JSON by its first byte; memory must stay bounded."""
    path = tmp_path / "rank3.log"
    with open(path, "wb") as f:
        f.write((OOM_LINE + "\n").encode())
        chunk = b"A" * (1 << 20)
        for _ in range(50):
            f.write(chunk)
        f.write(b"\n")
    tracemalloc.start()
    d = diagnose(path)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert d.verdict is not None and d.verdict.cause == "oom"
    assert peak < 40 * 1024 * 1024, f"peak {peak / 2**20:.1f} MiB"


def test_log_over_64_mib_starting_with_a_bracket_is_read_to_the_end(tmp_path):
    path = tmp_path / "rank0.log"
    line = b"[rank0]: step %d loss 0.1 " + b"x" * 200 + b"\n"
    with open(path, "wb") as f:
        f.write(b"[rank0]: starting\n")
        i = 0
        while f.tell() < 66 * 2**20:
            f.write(b"".join(line % (i + k) for k in range(1000)))
            i += 1000
        f.write((OOM_LINE.replace("rank3", "rank0").replace("GPU 3", "GPU 0") + "\n").encode())
    d = diagnose(path)
    assert d.sources[0]["bytes"] == path.stat().st_size, d.problems
    assert d.verdict is not None and d.verdict.cause == "oom", d.problems

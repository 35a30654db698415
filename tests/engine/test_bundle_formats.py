"""Issue 14, points 5 and 6: NUL bytes do not make a log binary; the compressed formats users
have are read as streams under the same caps; what is not read says what it looks like."""
from __future__ import annotations

import bz2
import gzip
import io
import lzma
import os
import re
import zipfile
from pathlib import Path

import pytest
import zstandard

from tests.conftest import sample_log, tar_bytes
from triage.engine import BundleError, diagnose, open_source
from triage.engine.bundle import Budget, Limits, iter_members
from triage.engine.text import looks_binary
from triage.scenarios import build


def zip_bytes(files: dict[str, bytes]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in files.items():
            archive.writestr(name, data)
    return buffer.getvalue()


def zstd(data: bytes) -> bytes:
    return zstandard.ZstdCompressor().compress(data)


COMPRESSORS = {"xz": lzma.compress, "bz2": bz2.compress, "zst": zstd, "gz": gzip.compress}


# --- point 5: NUL bytes ----------------------------------------------------------------------

@pytest.fixture(scope="module")
def oom_bundle(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build("oom", tmp_path_factory.mktemp("oom"), seed=0)


def verdict(path: Path) -> tuple[str, list[int]]:
    result = diagnose(path).to_dict()
    return result["findings"][0]["cause"], result["findings"][0]["ranks"]


@pytest.mark.parametrize("damage", ["nul-in-head", "nul-tail", "nul-hole"])
def test_nul_bytes_in_the_culprits_log_do_not_change_the_verdict(oom_bundle: Path, damage: str, tmp_path: Path) -> None:
    cause, ranks = verdict(oom_bundle)
    assert cause == "oom"
    log = oom_bundle / "node-b" / f"rank{ranks[0]}.log"
    original = log.read_bytes()
    lines = original.split(b"\n")
    if damage == "nul-in-head":  # one NUL in the first 64 KiB
        damaged = b"\n".join(lines[:3]) + b"\x00" + b"\n".join(lines[3:])
    elif damage == "nul-tail":  # what a crash leaves: blocks allocated, never written
        damaged = original + b"\x00" * (3 * 1024 * 1024)
    else:  # a NUL hole in the middle of a line, the rest written after it
        middle = len(lines) // 2
        damaged = b"\n".join(lines[:middle]) + b"\x00" * 70_000 + b"\n".join(lines[middle:])
    try:
        log.write_bytes(damaged)
        result = diagnose(oom_bundle).to_dict()
    finally:
        log.write_bytes(original)
    assert (result["findings"][0]["cause"], result["findings"][0]["ranks"]) == (cause, ranks)
    source = next(s for s in result["sources"] if s["name"] == f"node-b/rank{ranks[0]}.log")
    assert source["kind"] != "binary"
    assert not any("binary" in p for p in result["problems"])


def test_text_is_read_around_a_nul_run(tmp_path: Path) -> None:
    path = tmp_path / "rank0.log"
    path.write_bytes(b"\x00\x00first line\nhalf a li\x00\x00\x00\x00rewritten line\n\x00\x00\x00")
    with open_source(path, "rank0.log") as stream:
        assert stream.read() == b"first line\nhalf a li\nrewritten line\n"


def test_binary_data_is_still_binary() -> None:
    assert looks_binary(os.urandom(65536))
    assert looks_binary(lzma.compress(os.urandom(1000) + b"x" * 100_000))
    assert not looks_binary(b"\x00" * 65536 + b"log\n")
    assert not looks_binary("Übergröße: 3 GiB\n".encode("latin-1") * 100)  # Latin-1 text stays text
    assert not looks_binary(b"\x1b[31mERROR\x1b[0m NCCL WARN\n" * 100)


# --- point 6: formats ------------------------------------------------------------------------

@pytest.mark.parametrize("kind", ["xz", "bz2", "zst", "gz"])
def test_compressed_tars_and_single_files_are_diagnosed(kind: str, tmp_path: Path) -> None:
    pack = COMPRESSORS[kind]
    tarball = tmp_path / f"node-a.tar.{kind}"
    tarball.write_bytes(pack(tar_bytes({"node-a/log.txt": sample_log()})))
    single = tmp_path / f"rank0.log.{kind}"
    single.write_bytes(pack(sample_log()))
    for path, source in ((tarball, "node-a/log.txt"), (single, "rank0.log")):
        result = diagnose(path).to_dict()
        assert result["findings"][0]["cause"] == "shm_exhausted", (path.name, result["problems"])
        assert [s["name"] for s in result["sources"]] == [source]


def test_a_zstd_file_of_several_frames_is_read_whole(tmp_path: Path) -> None:
    lines = sample_log().split(b"\n")
    half = len(lines) // 2
    path = tmp_path / "rank0.log.zst"
    path.write_bytes(zstd(b"\n".join(lines[:half]) + b"\n") + zstd(b"\n".join(lines[half:])))
    with open_source(path, "rank0.log") as stream:
        assert stream.read() == sample_log()


@pytest.mark.parametrize("kind", ["xz", "bz2", "zst"])
def test_the_same_caps_hold(kind: str, tmp_path: Path) -> None:
    bomb = tmp_path / f"bomb.log.{kind}"
    bomb.write_bytes(COMPRESSORS[kind](b"\n" * (40 * 1024 * 1024)))
    budget = Budget(Limits(max_ratio=100, ratio_grace_bytes=1024 * 1024))
    with pytest.raises(Exception, match="compression ratio above 100:1"):
        for member in iter_members(bomb, budget):
            while member.stream.read(1 << 20):
                pass
    total = tmp_path / f"big.tar.{kind}"
    total.write_bytes(COMPRESSORS[kind](tar_bytes({"a.log": os.urandom(3 * 1024 * 1024)})))
    with pytest.raises(Exception, match="larger than"):
        for member in iter_members(total, Budget(Limits(max_total_bytes=1024 * 1024))):
            while member.stream.read(1 << 20):
                pass


@pytest.mark.parametrize(("magic", "what"), [
    (b"7z\xbc\xaf\x27\x1c\x00\x04", "7-Zip archive"),
    (b"Rar!\x1a\x07\x01\x00", "RAR archive"),
    (b"\x04\x22\x4d\x18\x64\x40", "LZ4 frame (.lz4)"),
])
def test_an_unknown_format_says_what_it_looks_like(magic: bytes, what: str, tmp_path: Path) -> None:
    path = tmp_path / "logs.bin"
    path.write_bytes(magic + os.urandom(4096))
    with pytest.raises(BundleError, match=re.escape(f"logs.bin: unsupported archive format: {what}")):
        diagnose(path)
    # Inside an archive, the rest is still read and the odd one is named.
    mixed = tmp_path / "node-a.tar.gz"
    mixed.write_bytes(gzip.compress(tar_bytes({"node-a/log.txt": sample_log(), "node-a/more.x": magic + b"\x00" * 600})))
    result = diagnose(mixed).to_dict()
    assert result["findings"][0]["cause"] == "shm_exhausted"
    assert f"node-a/more.x: unsupported archive format: {what}" in result["problems"]


@pytest.mark.parametrize("kind", ["tar.gz", "tar.xz", "zip", "tar"])
def test_an_empty_archive_says_so(kind: str, tmp_path: Path) -> None:
    path = tmp_path / f"node-a.{kind}"
    if kind == "zip":
        path.write_bytes(zip_bytes({}))
    elif kind == "tar":
        path.write_bytes(tar_bytes({}))
    else:
        path.write_bytes(COMPRESSORS[kind.split(".")[1]](tar_bytes({})))
    with pytest.raises(BundleError, match="empty archive"):
        diagnose(path)


def test_an_empty_compressed_file_says_so(tmp_path: Path) -> None:
    path = tmp_path / "rank0.log.zst"
    path.write_bytes(zstd(b""))
    with pytest.raises(BundleError, match="empty zstd file"):
        diagnose(path)


def test_a_zip_in_a_tar_goes_through_a_bounded_spool_and_only_when_wanted(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import triage.engine.bundle as bundle_module

    inner = zip_bytes({"node-b/log.txt": sample_log(), "node-b/core.bin": os.urandom(8192)})
    path = tmp_path / "job.tar.xz"
    path.write_bytes(lzma.compress(tar_bytes({"node-b.zip": inner, "node-a/log.txt": b"hello\n"})))
    spools = []
    real = bundle_module.tempfile.TemporaryFile

    def counted(*args: object, **kwargs: object) -> object:
        spools.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(bundle_module.tempfile, "TemporaryFile", counted)
    open_before = _deleted_open_files()
    result = diagnose(path).to_dict()
    assert result["findings"][0]["cause"] == "shm_exhausted"
    assert "node-b.zip/node-b/log.txt" in [s["name"] for s in result["sources"]]
    assert len(spools) == 1
    # A log-viewer page for another source does not spool the zip.
    with open_source(path, "node-a/log.txt") as stream:
        assert stream.read() == b"hello\n"
    assert len(spools) == 1
    with open_source(path, "node-b.zip/node-b/log.txt") as stream:
        assert stream.read() == sample_log()
    assert len(spools) == 2
    # Over the spool's bound: skipped with a reason, the rest still read.
    budget = Budget(Limits(max_spool_bytes=1024))
    names = [m.name for m in iter_members(path, budget)]
    assert names == ["node-a/log.txt"]
    assert any("zip inside an archive larger than 1024 bytes" in p for p in budget.problems)
    # Nothing left open behind: the spools are closed (and so deleted).
    assert _deleted_open_files() <= open_before


def _deleted_open_files() -> set[str]:
    found = set()
    for fd in os.listdir("/proc/self/fd"):
        try:
            target = os.readlink(f"/proc/self/fd/{fd}")
        except OSError:
            continue
        if "(deleted)" in target:
            found.add(target)
    return found


def test_a_stored_bundle_that_cannot_be_read_is_named_by_its_label_not_its_server_path(tmp_path: Path) -> None:
    missing = tmp_path / "bundles" / "abc" / "rank0.log"
    with pytest.raises(BundleError) as caught:
        diagnose([("rank0.log", missing)])
    assert str(caught.value) == "rank0.log: no such file or directory"


def test_small_plain_files_read_whole_are_counted_as_streams_are(tmp_path: Path):
    # A small plain file of a folder is read whole in one call (bundle._small_plain); a larger
    # one, or one with a byte-order mark, goes the stream way. Both give the same bytes and
    # counts, and the bundle's byte limit stops the reading at the same read.
    from triage.engine.bundle import Budget, LimitExceeded, Limits, iter_members

    small, large = b"node-1:1:1 [0] NCCL INFO hello\n" * 3, b"x" * 70_000 + b"\n"
    (tmp_path / "a.log").write_bytes(small)
    (tmp_path / "b.log").write_bytes(b"\xef\xbb\xbf" + small)
    (tmp_path / "c.log").write_bytes(large)
    budget = Budget(Limits())
    read = {m.name: m.stream.read() for m in iter_members(tmp_path, budget)}
    assert read == {"a.log": small, "b.log": small, "c.log": large}
    assert (budget.members, budget.total_bytes) == (3, 2 * len(small) + 3 + len(large))
    for second in (small, b"\xef\xbb\xbf" + small):  # read whole, read as a stream
        folder = tmp_path / f"limit{len(second)}"
        folder.mkdir()
        (folder / "a.log").write_bytes(small)
        (folder / "b.log").write_bytes(second)
        members = iter_members(folder, Budget(Limits(max_total_bytes=len(small) + 10)))
        assert next(members).stream.read() == small
        with pytest.raises(LimitExceeded, match="bundle larger than"):
            next(members).stream.read()

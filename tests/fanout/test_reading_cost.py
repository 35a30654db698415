"""What reading in parts costs: a plain tar on disk (or read by ranges from a bucket) is
planned from its headers, and a part reads its own members, not a pass over the archive."""
from __future__ import annotations

import io
import tarfile
from pathlib import Path
from typing import BinaryIO

from triage.engine.partial import parse_members, plan_groups

SNIFF = 1024 * 1024 + 64 * 1024


class CountingFile(io.FileIO):
    """A file that counts the bytes read from it."""

    def __init__(self, path: Path) -> None:
        super().__init__(path, "rb")
        self.read_bytes = 0

    def read(self, size: int = -1) -> bytes:
        data = super().read(size)
        self.read_bytes += len(data)
        return data

    def readinto(self, buffer) -> int:  # type: ignore[no-untyped-def,override]
        n = super().readinto(buffer)
        self.read_bytes += n or 0
        return n  # type: ignore[return-value]


class Opened:
    """An engine Blob whose opened files can be asked what they read."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.name = path.name
        self.size = path.stat().st_size
        self.files: list[CountingFile] = []

    def open(self) -> BinaryIO:
        self.files.append(CountingFile(self.path))
        return self.files[-1]  # type: ignore[return-value]

    @property
    def read_bytes(self) -> int:
        return sum(f.read_bytes for f in self.files)


def _bundle(tmp_path: Path, members: int = 32, size: int = 1024 * 1024) -> Path:
    archive = tmp_path / "b.tar"
    line = b"2026-08-25 14:33:36,800 - INFO - train.py - [rank 0] step 183 loss 1.9897 lr 3.0e-04\n"
    with tarfile.open(archive, "w") as tar:
        for n in range(members):
            data = line * (size // len(line))
            info = tarfile.TarInfo(f"node-{n}/rank{n}.log")
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    return archive


def test_planning_reads_the_headers_and_a_part_reads_its_members(tmp_path: Path) -> None:
    archive = _bundle(tmp_path)
    blob = Opened(archive)
    groups = plan_groups([("b", blob)], target_bytes=4 * 1024 * 1024)
    assert len(groups) >= 8
    # The first MiB is read once to tell what the file is; after that, only headers.
    assert blob.read_bytes < SNIFF + 256 * 1024, f"planning read {blob.read_bytes} bytes of {blob.size}"

    blob = Opened(archive)
    state = parse_members([("b", blob)], set(groups[0]))
    assert {s.name for s in state.collected.sources} == set(groups[0])
    part_bytes = sum(s.bytes for s in state.collected.sources)
    assert blob.read_bytes < SNIFF + part_bytes + 256 * 1024, f"a part read {blob.read_bytes} bytes for {part_bytes}"

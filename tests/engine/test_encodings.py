"""Logs in UTF-16 / UTF-32 (by byte-order mark or by their NUL pattern) are read as text; a
file of nothing but a byte-order mark says it is empty; `manage.py diagnose` prints member names
and log text with their control characters escaped."""
from __future__ import annotations

import io
import zipfile
from pathlib import Path

import pytest
from engine_corpus import REPO  # noqa: F401 - puts the repository on the path like the other engine tests
from test_cli import run_cli

from triage.engine import BundleError, diagnose
from triage.engine.encoding import wide_encoding

XID = "[Mon Dec  1 14:22:01 2026] NVRM: Xid (PCI:0000:3b:00): 79, pid=1234, name=python, GPU has fallen off the bus.\n"
TEXT = "job starting on node-a\n" + XID + "job ended\n"


@pytest.mark.parametrize("encoding, data", [
    ("utf-16-le", TEXT.encode("utf-16")),  # Python writes the BOM, little-endian here
    ("utf-16-be", b"\xfe\xff" + TEXT.encode("utf-16-be")),
    ("utf-16-le", TEXT.encode("utf-16-le")),  # no BOM: told by the NUL pattern
    ("utf-16-be", TEXT.encode("utf-16-be")),
    ("utf-32-le", TEXT.encode("utf-32")),
    ("utf-32-be", TEXT.encode("utf-32-be")),
])
def test_a_wide_log_is_decoded_and_its_xid_found(encoding: str, data: bytes, tmp_path: Path) -> None:
    assert wide_encoding(data[:512]) == encoding
    path = tmp_path / "rank0.log"
    path.write_bytes(data)
    result = diagnose(path).to_dict()
    assert [f["rule"] for f in result["findings"]][:1] == ["hardware_fault.xid"]
    evidence = result["findings"][0]["evidence"][0]
    assert evidence["line"] == 2 and evidence["text"].startswith("[Mon Dec  1 14:22:01 2026] NVRM: Xid")
    assert result["problems"] == []


def test_plain_text_and_a_nul_filled_crash_tail_are_not_taken_for_utf16() -> None:
    assert wide_encoding(TEXT.encode()) is None
    assert wide_encoding(TEXT.encode() + b"\x00" * 4096) is None
    assert wide_encoding(b"\x00" * 512) is None
    assert wide_encoding(bytes(range(256)) * 2) is None


def test_a_utf8_byte_order_mark_is_dropped(tmp_path: Path) -> None:
    path = tmp_path / "rank0.log"
    path.write_bytes(b"\xef\xbb\xbf" + XID.encode())
    result = diagnose(path).to_dict()
    assert result["findings"][0]["evidence"][0]["text"].startswith("[Mon Dec")


@pytest.mark.parametrize("mark", [b"\xef\xbb\xbf", b"\xff\xfe", b"\xfe\xff\x00\x00"[:2]])
def test_a_log_of_nothing_but_a_byte_order_mark_says_it_is_empty(mark: bytes, tmp_path: Path) -> None:
    path = tmp_path / "rank0.log"
    path.write_bytes(mark)
    with pytest.raises(BundleError, match="rank0.log: empty file"):
        diagnose(path)
    # Inside a bundle, next to a real log, it is named in the problems.
    bundle = tmp_path / "node-a.zip"
    with zipfile.ZipFile(bundle, "w") as z:
        z.writestr("node-a/rank0.log", mark)
        z.writestr("node-a/rank1.log", XID)
    result = diagnose(bundle).to_dict()
    assert "node-a/rank0.log: empty file (nothing in it but a byte-order mark or NUL bytes)" in result["problems"]
    assert result["findings"][0]["rule"] == "hardware_fault.xid"


def test_the_cli_escapes_member_names_and_log_text(tmp_path: Path) -> None:
    forged = "x\nVERDICT  healthy  (forged)\x1b[2J.bin"
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as z:
        z.writestr(forged, bytes(range(256)) * 8)  # binary: named in the problems
        z.writestr("node-a/rank0.log", XID.replace("python", "py\x1b[31mthon"))
    bundle = tmp_path / "node-a.zip"
    bundle.write_bytes(buffer.getvalue())
    done = run_cli(str(bundle))
    assert done.returncode == 0, done.stderr
    assert "\x1b" not in done.stdout
    assert not any(line.startswith("VERDICT  healthy") for line in done.stdout.splitlines())
    assert "x\\nVERDICT  healthy  (forged)\\x1b[2J.bin" in done.stdout
    assert done.stdout.startswith("VERDICT  hardware_fault")

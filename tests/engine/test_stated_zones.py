"""Times whose lines state their zone (kubectl --timestamps, RFC 3339 offsets, journalctl
short-full / short-unix) are applied, timeparse's docstring says how: to the host's local wall
time where its snapshot gives its UTC offset, as instants where every timed line states a zone,
and as printed with a note where zoned and zone-less times mix with the offset unknown."""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from triage.engine import diagnose
from triage.engine.timeparse import stated_offset

_SEGV = "Fatal Python error: Segmentation fault"


def _snapshot(root: Path, offset: int | None) -> None:
    host: dict[str, Any] = {"hostname": "node-b", "boot_time": "2026-12-01T00:00:00Z"}
    if offset is not None:
        host["timezone"] = {"utc_offset_seconds": offset}
    (root / "snapshot.json").write_text(json.dumps({"schema": "nccl-triage/snapshot@1", "host": host}))


def _bundle(root: Path, pod: list[str], local: list[str], offset: int | None) -> dict[str, Any]:
    root.mkdir()
    (root / "pod.log").write_text("\n".join(pod) + "\n")
    if local:
        (root / "train.log").write_text("\n".join(local) + "\n")
    if offset is not None or local:
        _snapshot(root, offset)
    return diagnose(str(root)).to_dict()


# kubectl logs --timestamps of rank 0 (UTC) and a zone-less log of rank 1 on the same host, UTC+1:
# rank 1's crash at 14:22:01 local comes before rank 0's at 13:22:03Z (14:22:03 local).
_POD = ["2026-12-01T13:22:00.000000Z [rank0]: step 10", f"2026-12-01T13:22:03.000000Z [rank0]: {_SEGV}",
        "2026-12-01T13:22:05.000000Z [rank0]: step 11"]
_LOCAL = ["[rank1]: [2026-12-01 14:21:59,000] step 10", f"[rank1]: [2026-12-01 14:22:01,000] {_SEGV}"]


def test_a_zoned_time_becomes_the_hosts_local_time_with_its_offset_known(tmp_path: Path) -> None:
    d = _bundle(tmp_path / "b", _POD, _LOCAL, 3600)
    ff = d["first_failure"]
    assert (d["findings"][0]["cause"], ff["rank"], ff["time"]) == ("rank_crash", 1, "2026-12-01T14:22:01")
    assert not any("state their time's zone" in n for n in d["notes"])
    # The file's own times move with it: rank 0's last line is 14:22:05 local.
    assert {r["rank"]: r["last_time"] for r in d["ranks"]} == {0: "2026-12-01T14:22:05", 1: "2026-12-01T14:22:01"}


def test_zoned_and_local_times_mixed_with_the_offset_unknown_are_said_so(tmp_path: Path) -> None:
    d = _bundle(tmp_path / "b", _POD, _LOCAL, None)
    assert any("state their time's zone" in n for n in d["notes"])


def test_times_in_several_stated_zones_compare_as_instants(tmp_path: Path) -> None:
    # 14:22:03+01:00 is 13:22:03Z, before 13:22:04Z: rank 0 first, though printed later.
    pod = ["2026-12-01T13:22:00Z [rank1]: step 10", "2026-12-01T13:22:04Z [rank1]: " + _SEGV]
    other = ["2026-12-01T14:22:00+01:00 [rank0]: step 10", "2026-12-01T14:22:03+01:00 [rank0]: " + _SEGV]
    root = tmp_path / "b"
    root.mkdir()
    (root / "pod-a.log").write_text("\n".join(pod) + "\n")
    (root / "pod-b.log").write_text("\n".join(other) + "\n")
    d = diagnose(str(root)).to_dict()
    ff = d["first_failure"]
    assert (ff["rank"], ff["time"]) == (0, "2026-12-01T13:22:03")
    assert not any("state their time's zone" in n for n in d["notes"])


def test_one_stated_zone_stays_as_printed(tmp_path: Path) -> None:
    root = tmp_path / "b"
    root.mkdir()
    (root / "pod.log").write_text(f"2026-12-01T14:22:03+01:00 [rank0]: {_SEGV}\n")
    assert diagnose(str(root)).to_dict()["first_failure"]["time"] == "2026-12-01T14:22:03"


def test_stated_offsets() -> None:
    assert [stated_offset(t) for t in ("2026-12-01T10:00:00.000000005Z stderr F x", "2026-12-01T10:00:00-05:30 x",
                                       "2026-12-04T10:00:01+0100 node-b kernel: x", "Wed 2026-12-02 09:11:04 UTC n k: x",
                                       "1796202664.123456", "2026-12-02 09:11:04,123 - INFO - x",
                                       "Wed 2026-12-02 09:11:04 CET n k: x",
                                       "[E1202 09:11:04.123 PG.cpp:1] at 2026-12-02T09:11:04Z")] == [
        0, -19800, 3600, 0, 0, None, None, None]  # the last: the zone of a later time is not the first's


def test_journal_short_monotonic_and_short_unix_give_host_and_time(tmp_path: Path) -> None:
    xid = "NVRM: Xid (PCI:0000:3b:00): 79, pid=4242, name=python, GPU has fallen off the bus."
    root = tmp_path / "mono"
    root.mkdir()
    (root / "journal.txt").write_text(f"[   60.000000] node-b kernel: {xid}\n")
    _snapshot(root, 3600)
    ff = diagnose(str(root)).to_dict()["first_failure"]
    # Boot at 00:00:00Z, UTC+1: 60 s after boot is 01:01:00 local, the kernel's clock.
    assert (ff["host"], ff["time"], ff["time_clock"]) == ("node-b", "2026-12-01T01:01:00", "kernel")
    root = tmp_path / "unix"
    root.mkdir()
    (root / "journal.txt").write_text(f"1796202664.123456 node-b kernel: {xid}\n")
    ff = diagnose(str(root)).to_dict()["first_failure"]
    assert (ff["host"], ff["time"]) == ("node-b", "2026-12-02T09:11:04.123456")

"""Reading a bundle in parts and concluding once gives the verdict of reading it whole, also
after the parts went through storage (to_bytes/from_bytes)."""
from __future__ import annotations

from pathlib import Path

import pytest

from triage.engine import diagnose
from triage.engine.partial import PartialState, conclude, list_members, parse_members, plan_groups
from triage.scenarios import build


@pytest.mark.parametrize("cause", ["oom", "rank_crash", "collective_timeout_straggler", "network"])
def test_parts_conclude_to_the_whole_verdict(tmp_path: Path, cause: str) -> None:
    folder = build(cause, tmp_path, seed=1)
    whole = diagnose(folder).to_dict()
    groups = plan_groups(folder, target_bytes=1)  # at least one group per member
    assert len(groups) == len(list_members(folder)) > 1
    states = [PartialState.from_bytes(parse_members(folder, set(g)).to_bytes()) for g in groups]
    parts = conclude(states).to_dict()
    assert [f["rule"] for f in parts["findings"]] == [f["rule"] for f in whole["findings"]]
    assert parts["first_failure"] == whole["first_failure"]
    assert parts["ranks"] == whole["ranks"]


def test_a_small_input_is_one_group(tmp_path: Path) -> None:
    folder = build("oom", tmp_path, seed=0)
    assert len(plan_groups(folder, target_bytes=1 << 30)) == 1


def test_a_state_that_is_not_one_is_refused() -> None:
    import gzip

    with pytest.raises(ValueError):
        PartialState.from_bytes(gzip.compress(b'{"schema": "other"}'))


def test_groups_are_even_in_size_not_cut_in_reading_order(tmp_path: Path) -> None:
    # Eleven host folders of unequal size, about two targets in all: two groups of about half
    # each (dealt largest first), each in reading order, every member once.
    sizes = [9, 1, 1, 1, 1, 1, 8, 1, 1, 1, 1]
    for host, kib in enumerate(sizes):
        (tmp_path / f"host{host:02d}").mkdir()
        (tmp_path / f"host{host:02d}" / "rank.log").write_bytes(b"x" * 1023 + b"\n" * (kib * 1024 - 1023))
    total = sum(sizes) * 1024
    groups = plan_groups(tmp_path, target_bytes=total // 2 + 1)
    assert len(groups) == 2
    weights = [sum(sizes[int(name[4:6])] for name in group) for group in groups]
    assert abs(weights[0] - weights[1]) <= 1, (groups, weights)
    assert sorted(name for g in groups for name in g) == sorted(f"host{h:02d}/rank.log" for h in range(len(sizes)))
    for group in groups:
        assert group == sorted(group)

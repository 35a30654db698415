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

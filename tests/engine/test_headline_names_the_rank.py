"""The headline says the rank the first-failure card names: a rule writes its title from the
culprit line's own words ('an unidentified process' where the line names no rank); where the
verdict names the rank from elsewhere (torchrun's local-rank prefix on one node, a launcher's
report), the title and the summary say that rank too."""
from __future__ import annotations

from pathlib import Path

from triage.engine import diagnose

# torchrun --tee 3 of a rank that failed before init_process_group: '[default1]:' is the local
# rank, the single node makes it the global rank (verdict.infer_rank); no '[rankN]:' yet.
PREINIT = [
    "[default0]:2026-12-07 17:20:01,100 INFO loading shards",
    "[default1]:Traceback (most recent call last):",
    '[default1]:  File "/app/train.py", line 8, in <module>',
    "[default1]:    shard = open(path)",
    "[default1]:FileNotFoundError: [Errno 2] No such file or directory: '/data/shard-00001.bin'",
]


def test_the_title_names_the_rank_the_card_names(tmp_path: Path) -> None:
    (tmp_path / "job.log").write_text("\n".join(PREINIT) + "\n")
    d = diagnose(tmp_path).to_dict()
    assert (d["first_failure"]["rank"], d["first_failure"]["rank_from"]) == (1, "local rank on a single node")
    assert d["findings"][0]["title"].startswith("Rank 1 crashed first: FileNotFoundError")
    assert d["summary"].startswith("Rank 1 crashed first")
    assert "unidentified" not in d["summary"] + d["findings"][0]["detail"]


def test_a_line_no_one_names_stays_an_unidentified_process(tmp_path: Path) -> None:
    lines = [line.removeprefix("[default1]:") for line in PREINIT[1:]]
    (tmp_path / "job.log").write_text("\n".join(lines) + "\n")
    d = diagnose(tmp_path).to_dict()
    assert d["first_failure"]["rank"] is None
    assert d["summary"].startswith("An unidentified process crashed first")

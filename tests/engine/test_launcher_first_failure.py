"""torchrun's failure table (torch 2.x: torch/distributed/elastic/multiprocessing/errors,
_FAILURE_FORMAT_TEMPLATE) names the first observed failure: where the verdict is a process's
crash, that rank is the first failure unless a line's own time shows another rank's fault
earlier (a rank-prefixed traceback printed later, with no time of its own, does not)."""
from __future__ import annotations

from pathlib import Path

import pytest

from triage.engine import diagnose

_TABLE = """\
E1206 22:00:12.199000 3358 torch/distributed/elastic/multiprocessing/api.py:1002] failed (exitcode: -11) local_rank: 0 (pid: 3368) of binary: /usr/bin/python
Traceback (most recent call last):
  File "/usr/local/bin/torchrun", line 8, in <module>
    sys.exit(main())
torch.distributed.elastic.multiprocessing.errors.ChildFailedError:{space}
============================================================
train.py FAILED
------------------------------------------------------------
Failures:
[1]:
  time      : 2026-12-06_22:00:12
  host      : node-a
  rank      : 1 (local_rank: 1)
  exitcode  : 1 (pid: 3369)
  error_file: /tmp/torchelastic_x/none_y/attempt_0/1/error.json
  traceback : Traceback (most recent call last):
    File "train.py", line 67, in _train
      raise RuntimeError(f"training failed at step {{step}}") from e
  RuntimeError: training failed at step 3
{indent}
------------------------------------------------------------
Root Cause (first observed failure):
[0]:
  time      : 2026-12-06_22:00:12
  host      : node-a
  rank      : 0 (local_rank: 0)
  exitcode  : -11 (pid: 3368)
  error_file: <N/A>
  traceback : Signal 11 (SIGSEGV) received by PID 3368
============================================================
""".format(space=" ", indent="  ")  # torch prints both: a space after the colon, an indented blank

_BEFORE = """\
2026-12-06 22:00:11,541 INFO step 2 all_reduce done sum=2.0
2026-12-06 22:00:11,541 INFO step 2 all_reduce done sum=2.0
[rank1]: Traceback (most recent call last):
[rank1]:   File "train.py", line 67, in _train
[rank1]:     dist.all_reduce(tensor)
[rank1]: RuntimeError: [enforce fail at /pytorch/third_party/gloo/gloo/transport/tcp/pair.cc:446] op.preamble.length <= op.nbytes. 8 vs 4
"""


def _diagnose(tmp_path: Path, text: str) -> dict:
    (tmp_path / "job.log").write_text(text)
    return diagnose(str(tmp_path)).to_dict()


def test_the_tables_first_observed_failure_names_the_rank(tmp_path: Path) -> None:
    d = _diagnose(tmp_path, _BEFORE + _TABLE)
    assert d["findings"][0]["cause"] == "rank_crash"
    assert d["first_failure"]["rank"] == 0
    assert "SIGSEGV" in d["findings"][0]["title"]


@pytest.mark.parametrize("when", ["2026-12-06 22:00:11,900", "2026-12-06 22:00:12,300"])
def test_an_earlier_fault_by_time_on_another_rank_still_wins(tmp_path: Path, when: str) -> None:
    # Rank 1's own crash line carries a time: before the table's second it is the first fault;
    # within that second or after it the table's record stands.
    timed = _BEFORE + f"[rank1]: [{when}] Fatal Python error: Segmentation fault\n"
    d = _diagnose(tmp_path, timed + _TABLE)
    assert d["findings"][0]["cause"] == "rank_crash"
    assert d["first_failure"]["rank"] == (1 if when.endswith("11,900") else 0)


def test_a_crash_line_naming_no_rank_is_the_first_observed_failures_by_its_signal(tmp_path: Path) -> None:
    # Two nodes: faulthandler's dump names no rank; the table's Root Cause died of the same
    # signal (SIGSEGV) and no other failure did: that dump is rank 0's.
    table = (_TABLE.replace("host      : node-a\n  rank      : 1", "host      : node-b\n  rank      : 1")
             .replace("error_file: /tmp/torchelastic_x/none_y/attempt_0/1/error.json", "error_file: <N/A>"))
    crash = ("Fatal Python error: Segmentation fault\n\nCurrent thread 0x00007f0c2a1b4740 (most recent call first):\n"
             '  File "train.py", line 60 in _train\n')
    d = _diagnose(tmp_path, crash + _BEFORE + table)
    ff = d["first_failure"]
    assert (d["findings"][0]["cause"], ff["rank"], ff["text"]) == ("rank_crash", 0, "Fatal Python error: Segmentation fault")

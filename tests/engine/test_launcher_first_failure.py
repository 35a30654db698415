"""torchrun's failure table (torch 2.x: torch/distributed/elastic/multiprocessing/errors,
_FAILURE_FORMAT_TEMPLATE) names the first observed failure: where the verdict is a process's
crash, that rank is the first failure unless a line's own time shows another rank's fault
earlier (a rank-prefixed traceback printed later, with no time of its own, does not), and
where the table's times order its failures (torch takes the earliest whole second, a tie going
to the lowest rank)."""
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
  time      : 2026-12-06_22:00:13
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



def _entry(index: str, when: str, rank: int, exitcode: str, error_file: str, traceback: str) -> str:
    return (f"[{index}]:\n  time      : 2026-12-06_{when}\n  host      : node-a\n"
            f"  rank      : {rank} (local_rank: {rank})\n  exitcode  : {exitcode}\n"
            f"  error_file: {error_file}\n  traceback : {traceback}\n")


def _table2(failure: str, root: str) -> str:
    # torch's _FAILURE_FORMAT_TEMPLATE with one other failure and the Root Cause.
    rule = "-" * 60 + "\n"
    return ("torch.distributed.elastic.multiprocessing.errors.ChildFailedError: \n" + "=" * 60 + "\n"
            "train.py FAILED\n" + rule + "Failures:\n" + failure + rule
            + "Root Cause (first observed failure):\n" + root + "=" * 60 + "\n")


_ERROR_JSON = "/tmp/torchelastic_x/none_y/attempt_0/1/error.json"
_RANK0_SEGV = _entry("0", "22:00:12", 0, "-11 (pid: 3368)  (SIGSEGV)", "<N/A>",
                     "Signal 11 (SIGSEGV) received by PID 3368")


@pytest.mark.parametrize(("error_file", "stopped_pid"), [("<N/A>", 3369), (_ERROR_JSON, 3369), ("<N/A>", 3370)])
def test_a_root_cause_the_agent_stopped_itself_is_not_the_first_failure(tmp_path: Path, error_file: str,
                                                                         stopped_pid: int) -> None:
    # As torch 2.13 printed it in a real run (test_real_launchers): rank 0 died of SIGSEGV, the
    # agent then sent rank 1's process SIGTERM, and the table's Root Cause is rank 1, whose time
    # (from its error file, or one second earlier) came before the second in which the agent saw
    # rank 0 exit. The agent's line says it stopped rank 1: rank 1 did not fail first. Where the
    # agent stopped another process and both times are the agent's, the Root Cause stands.
    stop = (f"W1206 22:00:11.990000 3358 torch/distributed/elastic/multiprocessing/api.py:1028] "
            f"Sending process {stopped_pid} closing signal SIGTERM\n")
    root = _entry("1", "22:00:11", 1, "-15 (pid: 3369)  (SIGTERM)", error_file, "Signal 15 (SIGTERM) received by PID 3369")
    d = _diagnose(tmp_path, _BEFORE + stop + _table2(_RANK0_SEGV, root))
    assert d["findings"][0]["cause"] == "rank_crash"
    assert d["first_failure"]["rank"] == (0 if stopped_pid == 3369 else 1)


def test_an_exception_raised_from_a_peers_crash_is_not_the_first_failure(tmp_path: Path) -> None:
    # As torchrun with a slow --monitor-interval printed it: rank 0 died of SIGSEGV, rank 1's
    # all_reduce failed (its peer gone) and the application raised its own error from that, then
    # exited by itself. Rank 1's time is its error file's, rank 0's the agent's poll one second
    # later, so the table names rank 1. The chain says rank 1's error is the peer's crash.
    rank1 = ("[default1]:[rank1]: Traceback (most recent call last):\n"
             "[default1]:[rank1]:     dist.all_reduce(tensor)\n"
             "[default1]:[rank1]: RuntimeError: [/pytorch/third_party/gloo/gloo/transport/tcp/pair.cc:553] "
             "Connection closed by peer [127.0.0.1]:53899. This is typically caused by a remote worker crashing.\n"
             "[default1]:\n"
             "[default1]:[rank1]: The above exception was the direct cause of the following exception:\n"
             "[default1]:\n"
             "[default1]:[rank1]: Traceback (most recent call last):\n"
             '[default1]:[rank1]:   File "train.py", line 81, in _train\n'
             "[default1]:[rank1]: RuntimeError: training failed at step 3\n")
    crash = ("[default0]:Fatal Python error: Segmentation fault\n[default0]:\n"
             "[default0]:Current thread 0x00007fafff9c1b80 (most recent call first):\n"
             '[default0]:  File "train.py", line 64 in _train\n')
    root = _entry("1", "22:00:11", 1, "1 (pid: 3369)", _ERROR_JSON,
                  "Traceback (most recent call last):\n"
                  '    File "train.py", line 76, in _train\n      dist.all_reduce(tensor)\n'
                  "  RuntimeError: [/pytorch/third_party/gloo/gloo/transport/tcp/pair.cc:553] Connection closed by peer "
                  "[127.0.0.1]:53899. This is typically caused by a remote worker crashing.\n  \n"
                  "  The above exception was the direct cause of the following exception:\n  \n"
                  "  Traceback (most recent call last):\n"
                  '    File "train.py", line 81, in _train\n'
                  "  RuntimeError: training failed at step 3\n  \n")
    head = "2026-12-06 22:00:11,541 INFO step 2 all_reduce done sum=2.0\n"
    d = _diagnose(tmp_path, head + crash + rank1 + _table2(_RANK0_SEGV, root))
    assert d["findings"][0]["cause"] == "rank_crash"
    assert d["first_failure"]["rank"] == 0
    assert d["first_failure"]["text"] == "[default0]:Fatal Python error: Segmentation fault"


def test_an_exception_raised_from_an_exception_of_its_own_is_a_fault(tmp_path: Path) -> None:
    # The chain carries the reading of the exception it wraps, nothing else: a wrapper of rank 1's
    # own ValueError is rank 1's crash, before rank 0's peer-gone error.
    text = ("2026-12-06 22:00:11,541 INFO step 2 all_reduce done sum=2.0\n"
            "[rank1]: Traceback (most recent call last):\n"
            "[rank1]: ValueError: loss is NaN at step 3\n"
            "[rank1]: \n"
            "[rank1]: The above exception was the direct cause of the following exception:\n"
            "[rank1]: \n"
            "[rank1]: Traceback (most recent call last):\n"
            '[rank1]:   File "train.py", line 81, in _train\n'
            "[rank1]: RuntimeError: training failed at step 3\n"
            "[rank0]: Traceback (most recent call last):\n"
            "[rank0]: RuntimeError: [/pytorch/third_party/gloo/gloo/transport/tcp/pair.cc:553] "
            "Connection closed by peer [127.0.0.1]:53899. This is typically caused by a remote worker crashing.\n")
    d = _diagnose(tmp_path, text)
    assert d["findings"][0]["cause"] == "rank_crash"
    assert d["first_failure"]["rank"] == 1


def test_failures_in_the_same_second_are_no_order(tmp_path: Path) -> None:
    # Rank 2 raised; ranks 0 and 1 then lost their peer and raised too, all within one second, all
    # writing error files. torch's min() over equal times names rank 0, the first it recorded:
    # the table orders nothing, and the lines say rank 2 failed and the others lost it.
    lines = ("[rank2]: Traceback (most recent call last):\n"
             "[rank2]: ValueError: loss is NaN at step 3 (injected failure on rank 2)\n")
    for rank in (0, 1):
        lines += (f"[rank{rank}]: Traceback (most recent call last):\n"
                  f"[rank{rank}]: RuntimeError: [/pytorch/third_party/gloo/gloo/transport/tcp/pair.cc:553] "
                  "Connection closed by peer [127.0.0.1]:53899. This is typically caused by a remote worker crashing.\n")
    err = "/tmp/torchelastic_x/none_y/attempt_0/{}/error.json"
    failures = (_entry("1", "22:00:12", 1, "1 (pid: 3369)", err.format(1), "Traceback (most recent call last):")
                + "-" * 60 + "\n" + _entry("2", "22:00:12", 2, "1 (pid: 3370)", err.format(2),
                                            "Traceback (most recent call last):"))
    root = _entry("0", "22:00:12", 0, "1 (pid: 3368)", err.format(0), "Traceback (most recent call last):")
    d = _diagnose(tmp_path, _BEFORE.replace("[rank1]: RuntimeError: [enforce", "[rank1]: Ignored: [enforce")
                  + lines + _table2(failures, root))
    assert d["findings"][0]["cause"] == "rank_crash"
    assert d["first_failure"]["rank"] == 2


def test_a_tie_in_the_table_leaves_the_order_to_the_lines(tmp_path: Path) -> None:
    # Two processes of their own faults in the same second: the table's Root Cause is the lower
    # rank because torch recorded it first, not because it failed first; rank 2's error comes
    # first in the log.
    lines = ("[rank2]: Traceback (most recent call last):\n"
             "[rank2]: ValueError: loss is NaN at step 3 (injected failure on rank 2)\n"
             "[rank0]: Traceback (most recent call last):\n"
             "[rank0]: KeyError: 'labels'\n")
    err = "/tmp/torchelastic_x/none_y/attempt_0/{}/error.json"
    failures = _entry("2", "22:00:12", 2, "1 (pid: 3370)", err.format(2), "Traceback (most recent call last):")
    root = _entry("0", "22:00:12", 0, "1 (pid: 3368)", err.format(0), "Traceback (most recent call last):")
    d = _diagnose(tmp_path, lines + _table2(failures, root))
    assert d["findings"][0]["cause"] == "rank_crash"
    assert d["first_failure"]["rank"] == 2

"""Meaning comes from the catalog, identity from formats: the same message is understood in
any wrapper, a rank is named only where the log names it, exceptions are classified by their
own text, and generic messages carry no confidence they do not have."""
from __future__ import annotations

from pathlib import Path

import pytest

from triage.engine import diagnose
from triage.engine.reader import unwrap, wrap_width


def run(tmp_path: Path, lines: list[str], name: str = "log.txt") -> dict:
    path = tmp_path / name
    path.write_text("\n".join(lines) + "\n")
    return diagnose(path).to_dict()


MESSAGE = "Cuda failure 'invalid device ordinal'"


@pytest.mark.parametrize(
    "line, rank",
    [
        (f"NCCL WARN {MESSAGE}", None),
        (f"node-a:4242:4300 [3] NCCL WARN {MESSAGE}", None),  # [3] is a CUDA device, not a rank
        (f"node-a:4242:4300 [3] enqueue.cc:43 NCCL WARN {MESSAGE}", None),
        (f"[rank5]: node-a:4242:4300 [3] NCCL WARN {MESSAGE}", 5),
        (f"2026-12-01T10:00:00.123Z [rank5]: NCCL WARN {MESSAGE}", 5),
        ("node-a: Test CUDA failure common.cu:253 'invalid device ordinal'", None),
        ("RuntimeError: CUDA error: invalid device ordinal", None),
    ],
)
def test_one_message_in_any_wrapper(tmp_path: Path, line: str, rank: int | None) -> None:
    d = run(tmp_path, [line, "node-b: other host"])  # two hosts: no single-node inference
    top = d["findings"][0]
    assert top["cause"] == "device_ordinal", top
    assert top["rule"].startswith("signature.") or top["rule"].startswith("device_ordinal."), top
    assert d["first_failure"]["rank"] == rank


def test_masked_pci_id_xid_is_still_a_hardware_fault(tmp_path: Path) -> None:
    d = run(tmp_path, ["[1234567.890] NVRM: Xid (PCI:...): 79, pid=1234, GPU has fallen off the bus."])
    assert (d["findings"][0]["cause"], d["findings"][0]["confidence"]) == ("hardware_fault", "high")


@pytest.mark.parametrize(
    "line, cause",
    [
        ("RuntimeError: The server socket has failed to listen on any local network address. port: 29500, "
         "useIpv6: 0, code: -98, name: EADDRINUSE, message: address already in use", "rendezvous_hang"),
        ("torch.distributed.DistStoreError: Timed out after 901 seconds waiting for clients. 1/2 clients joined.", "rendezvous_hang"),
        ("RuntimeError: NCCL error in: ProcessGroupNCCL.cpp:1269, invalid usage, NCCL version 2.14.3\n"
         "ncclInvalidUsage: This usually reflects invalid usage of NCCL library.\n"
         "Last error:\nDuplicate GPU detected : rank 1 and rank 0 both on CUDA device 1000", "device_ordinal"),
        ("torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of 79.1 GiB", "oom"),
    ],
)
def test_exceptions_are_classified_by_their_content(tmp_path: Path, line: str, cause: str) -> None:
    d = run(tmp_path, ["Traceback (most recent call last):", '  File "train.py", line 3, in <module>', "    main()", *line.split("\n")])
    assert d["findings"][0]["cause"] == cause, d["findings"][0]
    assert d["findings"][0]["rule"] != "rank_crash.exception"


def test_an_exception_naming_nothing_is_a_crash_with_its_rule(tmp_path: Path) -> None:
    d = run(tmp_path, ["[rank1]: Traceback (most recent call last):", '[rank1]:   File "train.py", line 3, in <module>',
                       "[rank1]:     batch['input_ids']", "[rank1]: KeyError: 'input_ids'"])
    top = d["findings"][0]
    assert (top["cause"], top["rule"]) == ("rank_crash", "rank_crash.exception")
    assert d["first_failure"]["rank"] == 1


def test_a_bare_unhandled_system_error_is_low_and_says_what_to_collect(tmp_path: Path) -> None:
    d = run(tmp_path, ["RuntimeError: NCCL error in: /pytorch/torch/lib/c10d/ProcessGroupNCCL.cpp:825, unhandled system error, NCCL version 2.7.8"])
    assert d["findings"], "the message still points somewhere"
    assert all(f["confidence"] == "low" for f in d["findings"])
    assert d["first_failure"]["rank"] is None
    assert any("NCCL_DEBUG=INFO" in n and "dmesg" in n for n in d["notes"]), d["notes"]


def test_hard_wrapped_paste_is_unwrapped_with_file_line_numbers(tmp_path: Path) -> None:
    record = "node-a:1:2 [0] NCCL INFO include/shm.h:28 -> 2 " * 1 + "node-a:1:2 [0] include/shm.h:28 NCCL WARN Error while creating shared memory segment /dev/shm/nccl-x (size 9637888): No space left on device"
    lines = ["some banner line", *[record[i:i + 120] for i in range(0, len(record), 120)], "the end"]
    assert wrap_width(("\n".join(lines) + "\n").encode()) == 120
    d = run(tmp_path, lines)
    assert d["findings"][0]["cause"] == "shm_exhausted"
    ev = d["findings"][0]["evidence"][0]
    assert ev["line"] == 2 and ev["text"].startswith(lines[1][:40])


@pytest.mark.parametrize(
    "text",
    [
        # A fixed-width table: rows of one width, but each row ends and starts on its own.
        "\n".join(f"  {n:>10}  {n // 4:>10}   float     sum    {12.3 + n:8.2f}  {0.5:6.2f}  {0.9:6.2f}       0" + " " * 36 + "|" for n in range(1, 30)),
        # One long line repeated, ending a sentence.
        "\n".join(["  traceback : To enable traceback see: https://pytorch.org/docs/stable/elastic/errors.html/abcdefghij",
                   "[2]:"] * 5),
    ],
)
def test_tables_and_repeated_long_lines_are_not_taken_for_wrapping(text: str) -> None:
    assert wrap_width((text + "\n").encode()) is None


def test_unwrap_maps_joined_lines_to_their_first_file_line() -> None:
    joined, first = unwrap(b"aaaa\nbbbb\ncc\nd\n", 4)
    assert joined.split(b"\n")[:2] == [b"aaaabbbbcc", b"d"]
    assert first[:2] == [1, 4]


@pytest.mark.parametrize("prefix", ["[rank3]:", "[default3]:", "3: ", "trainer-2: ", "[1,3]<stderr>:"])
@pytest.mark.parametrize(("line", "rule"), [
    ("No devices were found", "signature.cuda.nvml.no_devices"),
    ("Killed", "signature.shell.killed"),
])
def test_a_whole_line_message_behind_a_launcher_prefix(tmp_path: Path, prefix: str, line: str, rule: str) -> None:
    # These entries hold the whole line (a bare 'Killed' anywhere in a line would be prose).
    d = run(tmp_path, [prefix + line])
    assert [f["rule"] for f in d["findings"]][:1] == [rule]

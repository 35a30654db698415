"""Who, where and when come from content only: every scenario and every corpus bundle gives the
same cause, rank, host, GPU, pid and time as a folder, a .tar.gz with one top-level folder, a
.zip and a .tar.xz, whatever the archive and folder are called."""
from __future__ import annotations

import random
from pathlib import Path

import pytest
from engine_corpus import corpus_cases

from tests.bundle_forms import forms, identity
from triage.engine import diagnose
from triage.scenarios import EXTRA_SCENARIOS, SCENARIO_CAUSES, build

CASES = corpus_cases()


def assert_same_in_every_form(bundle: Path, out: Path, seed: int) -> dict:
    rng = random.Random(seed)
    names: list[str] = []
    results = {form: diagnose(str(path)).to_dict() for form, path in forms(bundle, out, rng, names)}
    folder = results["folder"]
    for form, d in results.items():
        assert identity(d) == identity(folder), f"{bundle.name}: {form} differs from the folder"
    for d in results.values():
        ff = d["first_failure"] or {}
        # No host or rank ever comes from the random names the bundle was packed under.
        for where in [ff.get("host")] + [r["host"] for r in d["ranks"]] + (d["findings"][0]["hosts"] if d["findings"] else []):
            assert where is None or where not in names, (bundle.name, where)
    return folder


@pytest.mark.parametrize("cause", SCENARIO_CAUSES + EXTRA_SCENARIOS)
@pytest.mark.parametrize("seed", (0, 1))
def test_every_scenario_says_the_same_in_every_form(tmp_path: Path, cause: str, seed: int) -> None:
    import json

    bundle = build(cause, tmp_path / "built", seed=seed)
    expected = json.loads((bundle / "expected.json").read_text())
    d = assert_same_in_every_form(bundle, tmp_path / "forms", seed)
    if expected["rank"] is not None:
        assert d["first_failure"]["rank"] == expected["rank"]
        assert d["first_failure"]["host"] == expected["host"]


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_every_corpus_log_says_the_same_in_every_form(tmp_path: Path, case: Path) -> None:
    assert_same_in_every_form(case / "log.txt", tmp_path / "forms", len(case.name))


def test_a_kernel_log_with_no_host_belongs_to_the_only_host(tmp_path: Path) -> None:
    (tmp_path / "logs").mkdir()
    (tmp_path / "logs" / "train.log").write_text(
        "dgx-b12:7712:7790 [2] NCCL INFO ncclCommInitRank comm 0x1 rank 2 nranks 4 cudaDev 2 nvmlDev 2 busId 3d000 "
        "commId 0x1 - Init COMPLETE\n")
    (tmp_path / "x").mkdir()
    (tmp_path / "x" / "dmesg.txt").write_text(
        "[Thu Dec  4 10:00:01 2026] NVRM: Xid (PCI:0000:3d:00): 79, pid=7712, name=python, GPU has fallen off the bus.\n")
    d = diagnose(str(tmp_path)).to_dict()
    assert d["findings"][0]["cause"] == "hardware_fault"
    ff = d["first_failure"]
    assert (ff["rank"], ff["host"], ff["bus_id"], ff["device"]) == (2, "dgx-b12", "3d000", 2), ff
    assert not any("names no host" in n for n in d["notes"])


def test_a_kernel_log_with_no_host_among_several_hosts_is_host_unknown(tmp_path: Path) -> None:
    (tmp_path / "a.log").write_text(
        "node-a:100:101 [0] NCCL INFO ncclCommInitRank comm 0x1 rank 0 nranks 2 cudaDev 0 nvmlDev 0 busId 18000 commId 0x1 - Init COMPLETE\n")
    (tmp_path / "b.log").write_text(
        "node-b:200:201 [0] NCCL INFO ncclCommInitRank comm 0x2 rank 1 nranks 2 cudaDev 0 nvmlDev 0 busId 18000 commId 0x1 - Init COMPLETE\n")
    (tmp_path / "node-b").mkdir()  # a folder name is no host
    (tmp_path / "node-b" / "dmesg.txt").write_text(
        "[Thu Dec  4 10:00:01 2026] NVRM: Xid (PCI:0000:18:00): 79, pid=999, name=python, GPU has fallen off the bus.\n")
    d = diagnose(str(tmp_path)).to_dict()
    assert d["first_failure"]["host"] is None and d["first_failure"]["rank"] is None, d["first_failure"]
    note = next(n for n in d["notes"] if "names no host" in n)
    assert "node-b/dmesg.txt" in note and "node-a, node-b" in note


@pytest.mark.parametrize("line", [
    "Dec  4 10:00:01 node-b kernel: NVRM: Xid (PCI:0000:3d:00): 79, pid=200, name=python, GPU has fallen off the bus.",
    "2026-12-04T10:00:01.123456+00:00 node-b kernel: NVRM: Xid (PCI:0000:3d:00): 79, pid=200, name=python, GPU has fallen off the bus.",
])
def test_the_syslog_or_journal_host_field_places_a_kernel_line(tmp_path: Path, line: str) -> None:
    # Both hosts have their GPU on bus 3d:00: only the line's host field says whose GPU failed.
    for host, pid, rank in (("node-a", 100, 0), ("node-b", 200, 1)):
        (tmp_path / f"{host}.log").write_text(
            f"{host}:{pid}:{pid + 1} [0] NCCL INFO ncclCommInitRank comm 0x1 rank {rank} nranks 2 cudaDev 0 nvmlDev 0 "
            "busId 3d000 commId 0x1 - Init COMPLETE\n")
    (tmp_path / "node-a").mkdir()  # the folder's name says nothing
    (tmp_path / "node-a" / "kern.log").write_text(line + "\n")
    d = diagnose(str(tmp_path)).to_dict()
    ff = d["first_failure"]
    assert (ff["rank"], ff["host"], ff["pid"], ff["bus_id"]) == (1, "node-b", 200, "3d000"), ff
    assert not any("names no host" in n for n in d["notes"])


def _four_ranks(tmp_path: Path) -> None:
    """One host, four ranks, one per GPU on buses 1b, 2c, 3d, 4e."""
    for r, bus in enumerate(("1b", "2c", "3d", "4e")):
        (tmp_path / f"train{r}.log").write_text(
            f"dgx-b12:{7710 + r}:{7790 + r} [{r}] NCCL INFO ncclCommInitRank comm 0x1 rank {r} nranks 4 cudaDev {r} "
            f"nvmlDev {r} busId {bus}000 commId 0x1 - Init COMPLETE\n")


@pytest.mark.parametrize("line", [
    "[Thu Dec  4 10:00:01 2026] NVRM: GPU 0000:3d:00.0: RmInitAdapter failed! (0x26:0xffff:1485)",
    "Dec  4 10:00:01 dgx-b12 kernel: NVRM: GPU 0000:3d:00.0: GPU requires reset before it can be used again",
    "[ 6120.4] NVRM: GPU at PCI:0000:3d:00: GPU has fallen off the bus.",
])
def test_an_nvrm_line_naming_a_pci_id_is_the_rank_on_that_gpu(tmp_path: Path, line: str) -> None:
    # Not an Xid: the driver's own line names the GPU by its PCI id, and the catalog's finding on
    # it belongs to the rank whose NCCL busId is on that bus.
    _four_ranks(tmp_path)
    (tmp_path / "dmesg.txt").write_text(line + "\n")
    d = diagnose(str(tmp_path)).to_dict()
    assert d["findings"][0]["cause"] == "hardware_fault" and d["findings"][0]["ranks"] == [2], d["findings"][0]
    ff = d["first_failure"]
    assert (ff["rank"], ff["host"], ff["bus_id"], ff["device"]) == (2, "dgx-b12", "3d000", 2), ff


def test_rms_gpu_instance_number_is_no_rank(tmp_path: Path) -> None:
    # 'NVRM: GPU2 <function>:' numbers the driver's GPU instances: neither a PCI id nor a CUDA
    # ordinal, so the line stays on no rank.
    _four_ranks(tmp_path)
    (tmp_path / "dmesg.txt").write_text("[ 6120.4] NVRM: GPU2 _kgspRpcRecvPoll: GSP RM heartbeat timed out\n")
    d = diagnose(str(tmp_path)).to_dict()
    assert d["findings"][0]["rule"] == "signature.kernel.nvrm.gsp_timeout"
    assert d["findings"][0]["ranks"] == [] and d["first_failure"]["rank"] is None

"""A generic exception read by the module that raised it (signatures/data/raised_in.toml): the
traceback's last frame is structure the python_tb parser gives; what the module means is the
catalog's. Only where no specific entry reads the exception's own message."""
from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from triage.engine import diagnose
from triage.engine.signatures import CATALOG, RAISED_IN

SITE = "/opt/conda/lib/python3.11/site-packages"


def _traceback(path: str, exception: str, prefix: str = "") -> str:
    return "".join(prefix + x + "\n" for x in (
        "Traceback (most recent call last):",
        '  File "/work/train.py", line 12, in <module>',
        "    main()",
        f'  File "{path}", line 155, in some_function',
        "    do_it()",
        exception,
    ))


def _found(tmp_path: Path, text: str) -> list[tuple[str, str, str]]:
    (tmp_path / "worker.log").write_text(text)
    return [(f.cause, f.confidence, f.rule) for f in diagnose(tmp_path).findings]


@pytest.mark.parametrize("sig", RAISED_IN, ids=[s.id for s in RAISED_IN])
def test_entry_is_well_formed_and_never_reads_a_line_alone(sig) -> None:  # type: ignore[no-untyped-def]
    assert sig.raised_in and sig.samples and sig.confidence in ("medium", "low")
    assert sig.id not in {s.id for s in CATALOG} and sig not in CATALOG
    for sample in sig.samples:
        assert any(re.search(p, sample) for p in sig.patterns), sample
    for place in sig.raised_in:
        re.compile(place)


@pytest.mark.parametrize("path", [
    f"{SITE}/torch/distributed/elastic/rendezvous/c10d_rendezvous_backend.py",
    f"{SITE}/torch/distributed/elastic/rendezvous/dynamic_rendezvous.py",
    f"{SITE}/torch/distributed/rendezvous.py",
    f"{SITE}/torch/distributed/elastic/utils/distributed.py",
])
def test_a_generic_error_raised_in_the_rendezvous_is_a_rendezvous_problem(tmp_path, path) -> None:
    found = _found(tmp_path, _traceback(path, "RuntimeError: unexpected state 3", prefix="[rank1]: "))
    assert found[:1] == [("rendezvous_hang", "medium", "signature.torch.raised_in.rendezvous")]


def test_the_same_error_raised_in_the_programs_own_code_is_its_crash(tmp_path) -> None:
    found = _found(tmp_path, _traceback("/work/model.py", "RuntimeError: unexpected state 3"))
    assert [f[0] for f in found][:1] == ["rank_crash"]
    assert not any(f[2].startswith("signature.torch.raised_in") for f in found)


def test_an_exception_the_catalog_reads_keeps_its_own_entry(tmp_path) -> None:
    # torch.store.client_connect_timeout reads this message wherever it is raised.
    found = _found(tmp_path, _traceback(f"{SITE}/torch/distributed/elastic/rendezvous/c10d_rendezvous_backend.py",
                                        "RuntimeError: connect() timed out. Original timeout was 60000 ms."))
    assert found[:1] == [("rendezvous_hang", "medium", "signature.torch.store.client_connect_timeout")]


def test_a_generic_error_in_the_allocator_api_points_at_memory(tmp_path) -> None:
    found = _found(tmp_path, _traceback(f"{SITE}/torch/cuda/memory.py", "RuntimeError: unexpected state 3"))
    assert found[:1] == [("oom", "low", "signature.torch.raised_in.cuda_memory")]


def test_an_error_file_alone_is_read_by_the_frame_it_recorded(tmp_path) -> None:
    stack = _traceback(f"{SITE}/torch/distributed/elastic/rendezvous/dynamic_rendezvous.py",
                       "ValueError: unexpected state 3")
    doc = {"message": {"message": "ValueError: unexpected state 3",
                       "extraInfo": {"py_callstack": stack, "timestamp": "1735210276"}}}
    (tmp_path / "error.json").write_text(json.dumps(doc))
    found = [(f.cause, f.rule) for f in diagnose(tmp_path).findings]
    assert found[:1] == [("rendezvous_hang", "signature.torch.raised_in.rendezvous")]


def test_a_rank_that_crashed_in_its_own_code_comes_before_the_rendezvous_it_left(tmp_path) -> None:
    # A module is context, not a message: a rank's own crash elsewhere stays the verdict.
    (tmp_path / "a.log").write_text(_traceback("/work/model.py", "ZeroDivisionError: division by zero", prefix="[rank0]: "))
    (tmp_path / "b.log").write_text(_traceback(f"{SITE}/torch/distributed/elastic/rendezvous/dynamic_rendezvous.py",
                                               "RuntimeError: unexpected state 3"))
    found = [(f.cause, f.rule) for f in diagnose(tmp_path).findings]
    assert found == [("rank_crash", "rank_crash.exception"), ("rendezvous_hang", "signature.torch.raised_in.rendezvous")]

"""The catalog is data held to one schema: a file that breaks it is refused at load with an
error naming the file and the entry, and the checked catalog is cached by the files' content."""
from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from triage.engine.signatures import CATALOG, RAISED_IN, SOURCES
from triage.engine.signatures.load import DATA, digest, load, read
from triage.engine.signatures.schema import CatalogError

GOOD = """
[[signature]]
id = 'test.demo.broken_pipe'
cause = 'network'
role = 'fault'
confidence = 'medium'
title = 'A demo entry'
patterns = ['demo pipe broke on \\S+']
extract = 'on (?P<iface>\\S+)'
fix = 'Check {iface} on {host}; then <your step>.'
origin = 'a demo program, demo.c, 1.0'
samples = ['demo pipe broke on eth0']
not_samples = ['demo pipe mended on eth0']
"""


def _catalog(tmp_path: Path, entry: str) -> Path:
    (tmp_path / "catalog.toml").write_text("[[source]]\nname = 'demo'\nfiles = ['demo.toml']\n")
    (tmp_path / "demo.toml").write_text(entry)
    for name in ("causes.toml", "fixes.toml"):
        shutil.copy(DATA / name, tmp_path / name)
    return tmp_path


def test_the_shipped_catalog_reads_as_the_loaded_one() -> None:
    fresh = read()
    assert fresh.entries == CATALOG and fresh.raised_in == RAISED_IN and fresh.sources == SOURCES
    assert len(CATALOG) > 900 and len(RAISED_IN) >= 1


def test_a_good_entry_loads(tmp_path: Path) -> None:
    (sig,) = read(_catalog(tmp_path, GOOD)).entries
    assert (sig.id, sig.cause, sig.patterns, sig.not_samples) == (
        "test.demo.broken_pipe", "network", ("demo pipe broke on \\S+",), ("demo pipe mended on eth0",))


def test_a_reported_code_must_be_an_entrys_code(tmp_path: Path) -> None:
    with pytest.raises(CatalogError, match="reports_code 79 is no entry's code"):
        read(_catalog(tmp_path, GOOD.replace("title = 'A demo entry'", "reports_code = 79\ntitle = 'A demo entry'")))
    coded = GOOD.replace("title = 'A demo entry'", "codes = [79]\ntitle = 'A demo entry'") + GOOD.replace(
        "broken_pipe'", "lost_pipe'").replace("title = 'A demo entry'", "reports_code = 79\ntitle = 'A demo entry'")
    assert [s.reports_code for s in read(_catalog(tmp_path, coded)).entries] == [None, 79]


@pytest.mark.parametrize(("old", "new", "says"), [
    ("cause = 'network'", "cause = 'networking'", "cause 'networking' is not in the cause vocabulary"),
    ("role = 'fault'", "role = 'failure'", "role 'failure' is not one of"),
    ("confidence = 'medium'", "confidence = 'sure'", "confidence 'sure' is not one of"),
    ("title = 'A demo entry'\n", "", "missing field(s) title"),
    ("title = 'A demo entry'", "title = 'A demo entry'\nweight = 3", "unknown field(s) weight"),
    ("patterns = ['demo pipe broke on \\S+']", "patterns = ['demo pipe (broke']", "is not a regular expression"),
    ("samples = ['demo pipe broke on eth0']", "samples = ['demo pipe held']", "no pattern matches the sample"),
    ("not_samples = ['demo pipe mended on eth0']", "not_samples = ['demo pipe broke on ib0']",
     "a pattern matches the not-sample"),
    ("fix = 'Check {iface}", "fix = 'Check {port}", "fix names {port}"),
    ("title = 'A demo entry'", "priority = 'high'\ntitle = 'A demo entry'", "priority must be an integer"),
    ("id = 'test.demo.broken_pipe'", "id = 'test.demo.broken_pipe'\nsurvivable = 'yes'", "survivable must be true or false"),
    ("title = 'A demo entry'", "reports_code = '79'\ntitle = 'A demo entry'", "reports_code must be an integer"),
])
def test_an_entry_that_breaks_the_schema_is_refused_naming_file_and_id(tmp_path: Path, old: str, new: str,
                                                                       says: str) -> None:
    assert old in GOOD
    text = GOOD.replace(old, new)
    with pytest.raises(CatalogError) as err:
        read(_catalog(tmp_path, text))
    assert "demo.toml: entry 'test.demo.broken_pipe'" in str(err.value) and says in str(err.value)


def test_across_entries_ids_are_unique_and_references_exist(tmp_path: Path) -> None:
    with pytest.raises(CatalogError, match="'test.demo.broken_pipe' is defined twice"):
        read(_catalog(tmp_path, GOOD + GOOD))
    with pytest.raises(CatalogError, match="outranked_by 'test.demo.nothing' names no entry"):
        read(_catalog(tmp_path, GOOD.replace("\nsamples =", "\noutranked_by = ['test.demo.nothing']\nsamples =")))
    with pytest.raises(CatalogError, match="outranked_by 'cause:weather' names no entry and no cause"):
        read(_catalog(tmp_path, GOOD.replace("\nsamples =", "\noutranked_by = ['cause:weather']\nsamples =")))
    other = GOOD.replace("broken_pipe", "other_pipe")
    with pytest.raises(CatalogError, match="code 79 is already read by 'test.demo.broken_pipe'"):
        read(_catalog(tmp_path, GOOD.replace("\nsamples =", "\ncodes = [79]\nsamples =")
                      + other.replace("\nsamples =", "\ncodes = [79]\nsamples =")))


@pytest.mark.parametrize(("old", "new", "says"), [
    ("[cause.other]", "[cause.weather]", "cause 'weather' is not in the cause vocabulary"),
    ("[cause.other]\nmeaning", "[cause.other]\nweight = 2\nmeaning", "cause 'other': unknown field(s) weight"),
    ("[cause.other]\nmeaning", "[cause.other]\nshared = 'yes'\nmeaning", "cause 'other': shared must be true or false"),
])
def test_the_cause_traits_are_held_to_their_schema(tmp_path: Path, old: str, new: str, says: str) -> None:
    folder = _catalog(tmp_path, GOOD)
    text = (folder / "causes.toml").read_text()
    assert old in text
    (folder / "causes.toml").write_text(text.replace(old, new))
    with pytest.raises(CatalogError, match=re.escape(says)):
        read(folder)


def test_every_cause_has_its_traits_and_every_rule_fix_its_text() -> None:
    from triage.engine.model import CAUSES
    from triage.engine.signatures import CAUSES as TRAITS
    from triage.engine.signatures import cause, fix_text

    assert tuple(TRAITS) == CAUSES
    assert cause("network").shared and cause("hardware_fault").machine and not cause("oom").shared
    assert cause(None).name == "" and not cause("no such cause").rank_died
    assert "--ipc=host" in fix_text("shm_exhausted")
    with pytest.raises(KeyError, match="no fix 'nothing'"):
        fix_text("nothing")


def test_a_file_that_is_not_toml_is_refused_by_name(tmp_path: Path) -> None:
    with pytest.raises(CatalogError, match="demo.toml: cannot read it"):
        read(_catalog(tmp_path, "[[signature]\nid = "))


def test_the_cache_is_keyed_by_the_files_content(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    state = tmp_path / "state"
    monkeypatch.setenv("NCCL_TRIAGE_STATE_DIR", str(state))
    data = tmp_path / "data"
    data.mkdir()
    _catalog(data, GOOD)
    before = digest(data)
    assert load(data) == read(data)
    assert (state / f"catalog-{before}.json").is_file()
    # An edit is a new key: the cached file of the old content is never read for it.
    (data / "demo.toml").write_text(GOOD.replace("A demo entry", "An edited entry"))
    assert digest(data) != before
    assert load(data).entries[0].title == "An edited entry"
    assert digest(DATA) == digest(DATA)


def test_every_severity_says_where_it_comes_from() -> None:
    """A severity drains or resets a node in the fleet: each entry that sets one says in its origin
    what defends it (`severity: ` and the source: DCGM's error table or health watch, the driver's
    recovery action, the message itself, or the project policy it keeps)."""
    unsourced = sorted(sig.id for entries in SOURCES.values() for sig in entries
                       if sig.severity != "none" and not re.search(r"severity: \S.{20,}", sig.origin))
    assert not unsourced, unsourced
    assert sum(sig.severity != "none" for sig in CATALOG) >= 30  # noqa: PLR2004 - the Xid, ECC, NVLink and port entries


def test_no_entry_is_a_copy_that_never_wins() -> None:
    """Two entries for one message: where every pattern of one is also a pattern of entries that
    rank above it as the matcher ranks them (priority, then the longest pattern, then catalog
    order), it never reads a line; its meaning belongs in the entry that does."""
    rank = {sig.id: (-sig.priority, -max(map(len, sig.patterns)), i) for i, sig in enumerate(CATALOG)}
    above: dict[str, list[str]] = {}
    for sig in CATALOG:
        for pattern in sig.patterns:
            above.setdefault(pattern, []).append(sig.id)
    shadowed = sorted(sig.id for sig in CATALOG
                      if all(any(rank[other] < rank[sig.id] for other in above[p]) for p in sig.patterns))
    assert not shadowed, shadowed

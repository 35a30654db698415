"""One bundle in every form people send it: a folder, a .tar.gz with one top-level folder, a
.zip of its files, a .tar.xz of its files, each under a random name. The diagnosis must not
change with the form or the name (identity comes from content, never from a file name)."""
from __future__ import annotations

import json
import random
import re
import shutil
import string
import tarfile
import zipfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

# What the answer is: cause, rule, and who/where/when the first failure was.
IDENTITY = ("rank", "host", "device", "bus_id", "pid", "time", "text")
NOT_SENT = ("expected.json", "meta.json")


def random_name(rng: random.Random) -> str:
    return _random_name(rng)


def _random_name(rng: random.Random) -> str:
    return "".join(rng.choice(string.ascii_lowercase + string.digits) for _ in range(rng.randint(3, 10)))


def identity(d: dict[str, Any]) -> tuple[Any, ...]:
    ff = d.get("first_failure") or {}
    top = d["findings"][0] if d["findings"] else {}
    ranks = tuple((r["rank"], r["host"], r["pid"], r["device"], r["state"]) for r in d.get("ranks") or [])
    return (top.get("cause"), top.get("rule"), tuple(top.get("ranks") or ()), tuple(top.get("hosts") or ()),
            tuple(ff.get(k) for k in IDENTITY), ranks)


def files_of(bundle: Path) -> list[Path]:
    if bundle.is_file():
        return [bundle]
    return sorted(p for p in bundle.rglob("*") if p.is_file() and p.name not in NOT_SENT)


def forms(bundle: Path, out: Path, rng: random.Random, used: list[str] | None = None) -> Iterator[tuple[str, Path]]:
    """(form, path) for each form of `bundle` (a folder or one log file), written under `out`;
    the random names it packed it under are appended to `used`."""
    out.mkdir(parents=True, exist_ok=True)
    used = used if used is not None else []

    def random_name(rng: random.Random) -> str:
        used.append(_random_name(rng))
        return used[-1]

    root = bundle if bundle.is_dir() else bundle.parent
    files = files_of(bundle)
    top = out / random_name(rng)
    for f in files:
        target = top / f.relative_to(root)
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(f, target)
    yield "folder", top
    tgz = out / f"{random_name(rng)}.tgz"
    with tarfile.open(tgz, "w:gz") as tar:
        tar.add(top, arcname=random_name(rng))  # one top-level folder, named anyhow
    yield "tar.gz, one top-level folder", tgz
    zpath = out / f"{random_name(rng)}.zip"
    with zipfile.ZipFile(zpath, "w", zipfile.ZIP_DEFLATED) as z:
        for f in files:
            z.write(f, f.relative_to(root).as_posix())
    yield "zip", zpath
    txz = out / f"{random_name(rng)}.tar.xz"
    with tarfile.open(txz, "w:xz") as tar:
        for f in files:
            tar.add(f, arcname=f.relative_to(root).as_posix())
    yield "tar.xz", txz


# Names programs write that say what they are (triage/engine/demux.py, forensics/flight_recorder.py):
# torchrun's log dir tail and torch's default flight-recorder dump name. Renaming keeps these.
_KEPT_TAIL = re.compile(r"(?:^|/)(attempt_\d+/\d+/(?:stdout\.log|stderr\.log|error\.json))$")
_KEPT_NAME = re.compile(r"^(?:comm_lib|nccl)_trace_rank_\d+(?:\.json)?$")


def renamed_files(bundle: Path, out: Path, rng: random.Random, used: list[str] | None = None) -> dict[str, str]:
    """Every file and folder of `bundle` under a random name (a program-written layout keeps the
    part that says what it is), written under `out`; a collector manifest's paths follow its
    files. Returns new relative path -> old one."""
    used = used if used is not None else []
    root = bundle if bundle.is_dir() else bundle.parent
    dirs: dict[str, str] = {"": ""}

    def fresh() -> str:
        while True:
            name = _random_name(rng)
            if name not in used:
                used.append(name)
                return name

    def new_dir(rel: str) -> str:
        if rel not in dirs:
            parent, _, _ = rel.rpartition("/")
            dirs[rel] = "/".join(p for p in (new_dir(parent), fresh()) if p)
        return dirs[rel]

    mapping: dict[str, str] = {}
    for f in files_of(bundle):
        rel = f.relative_to(root).as_posix()
        kept = _KEPT_TAIL.search(rel)
        if kept:
            head = rel[: len(rel) - len(kept.group(1))].rstrip("/")
            new = "/".join(p for p in (new_dir(head), kept.group(1)) if p)
        else:
            parent, _, base = rel.rpartition("/")
            new = "/".join(p for p in (new_dir(parent), base if _KEPT_NAME.match(base) else fresh()) if p)
        mapping[new] = rel
    old_to_new = {old: new for new, old in mapping.items()}
    for new, old in mapping.items():
        target = out / new
        target.parent.mkdir(parents=True, exist_ok=True)
        data = (root / old).read_bytes()
        doc = _manifest(data)
        if doc is not None:
            base = old.rpartition("/")[0]
            for entry in doc.get("files") or []:
                if isinstance(entry, dict) and isinstance(entry.get("path"), str):
                    full = f"{base}/{entry['path']}" if base else entry["path"]
                    moved = old_to_new.get(full)
                    if moved is not None:
                        new_base = new.rpartition("/")[0]
                        entry["path"] = moved[len(new_base) + 1 :] if new_base else moved
            data = json.dumps(doc).encode()
        target.write_bytes(data)
    return mapping


def _manifest(data: bytes) -> dict[str, Any] | None:
    if not data.lstrip().startswith(b"{") or b"nccl-triage/manifest" not in data[:4096]:
        return None
    try:
        doc = json.loads(data)
    except ValueError:
        return None
    return doc if isinstance(doc, dict) and str(doc.get("schema", "")).startswith("nccl-triage/manifest") else None


def renamed_forms(bundle: Path, out: Path, rng: random.Random, used: list[str] | None = None,
                  ) -> Iterator[tuple[str, Path, dict[str, str]]]:
    """(form, path, new name -> old name): `bundle` with every file renamed (renamed_files),
    packed as a .tar.gz and as a .zip, each under a random name."""
    used = used if used is not None else []
    staged = out / "staged"
    mapping = renamed_files(bundle, staged, rng, used)
    order = list(mapping)
    rng.shuffle(order)  # and in another order
    tgz = out / f"{_random_name(rng)}.tar.gz"
    with tarfile.open(tgz, "w:gz") as tar:
        for new in order:
            tar.add(staged / new, arcname=new)
    yield "every file renamed, tar.gz", tgz, mapping
    zpath = out / f"{_random_name(rng)}.zip"
    with zipfile.ZipFile(zpath, "w", zipfile.ZIP_DEFLATED) as z:
        for new in order:
            z.write(staged / new, new)
    yield "every file renamed, zip", zpath, mapping

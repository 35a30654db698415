"""One bundle in every form people send it: a folder, a .tar.gz with one top-level folder, a
.zip of its files, a .tar.xz of its files, each under a random name. The diagnosis must not
change with the form or the name (identity comes from content, never from a file name)."""
from __future__ import annotations

import random
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

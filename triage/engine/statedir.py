"""The private state directory: the one place the engine and the service write outside storage
(compiled pattern databases, the gate cover, Celery beat's schedule).

Whoever can write a file we later load runs code as us (a Hyperscan database is loaded with
`hs.loadb`, beat's schedule is a pickle). So the directory is:

- chosen by the operator (NCCL_TRIAGE_STATE_DIR; the service sets it to TRIAGE_STATE_DIR) or
  else `$XDG_CACHE_HOME/nccl-triage` (`~/.cache/nccl-triage`): never a predictable path in a
  shared /tmp that another local user can create first;
- created by us with mode 0700, and checked on every start: a real directory (not a symlink),
  owned by our effective uid, no group or other permission bits, in a parent that others cannot
  rename it out of. Anything else is refused (UnsafeStateDir) with a message that says what to
  fix; nothing is loaded from or written into it;
- written only through `write_private`: a fresh O_EXCL|O_NOFOLLOW temporary file in the
  directory itself, renamed over the name, so a planted symlink is never followed;
- read only through `read_cached`: O_NOFOLLOW, a regular file of ours, and a header naming the
  key it was built for and the sha256 of its payload; any mismatch is a miss, never a load.
"""
from __future__ import annotations

import contextlib
import hashlib
import os
import stat
import tempfile
from pathlib import Path

ENV = "NCCL_TRIAGE_STATE_DIR"
LEGACY_ENV = "NCCL_TRIAGE_CACHE"  # the older name of the same setting
MAGIC = b"nccl-triage-cache/1\n"


class UnsafeStateDir(RuntimeError):
    """The state directory is not private to this user: refuse to use it."""


def default_dir() -> Path:
    """Where the state lives when nothing is configured: the user's own cache directory."""
    xdg = os.environ.get("XDG_CACHE_HOME", "")
    base = Path(xdg) if os.path.isabs(xdg) else Path.home() / ".cache"
    return base / "nccl-triage"


def configured_dir() -> Path:
    value = os.environ.get(ENV) or os.environ.get(LEGACY_ENV)
    return Path(value) if value else default_dir()


def ensure_private(path: Path) -> Path:
    """Create `path` (0700) if absent and check that only this user can touch it; return it.
    Raises UnsafeStateDir saying what is wrong and how to fix it."""
    path = Path(os.path.abspath(path))
    uid = os.geteuid()
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o755)
    try:
        os.mkdir(path, 0o700)
    except FileExistsError:
        pass
    except OSError as e:
        raise UnsafeStateDir(f"state directory {path}: cannot create it ({e.strerror})") from e
    st = os.lstat(path)
    problem = ""
    if stat.S_ISLNK(st.st_mode):
        problem = "is a symbolic link"
    elif not stat.S_ISDIR(st.st_mode):
        problem = "is not a directory"
    elif st.st_uid != uid:
        problem = f"is owned by uid {st.st_uid}, not by this user (uid {uid})"
    elif st.st_mode & 0o077:
        problem = f"has mode {stat.S_IMODE(st.st_mode):04o}; it must be 0700"
    else:
        parent = os.stat(path.parent)
        # A parent others may write without the sticky bit lets them rename ours away and put
        # their own in its place between two starts.
        if parent.st_mode & 0o022 and not parent.st_mode & stat.S_ISVTX and parent.st_uid != uid:
            problem = f"lies in {path.parent}, which other users may write"
    if problem:
        raise UnsafeStateDir(
            f"refusing state directory {path}: it {problem}. It holds compiled databases and the "
            f"beat schedule, which are loaded as code: remove it (or fix its owner and mode), or "
            f"set {ENV} to a directory only this user can write"
        )
    return path


def state_dir() -> Path:
    """The checked private state directory (see the module doc)."""
    return ensure_private(configured_dir())


def _payload_digest(payload: bytes) -> str:
    return hashlib.sha256(payload).hexdigest()


def write_private(directory: Path, name: str, data: bytes) -> Path:
    """Write `data` to directory/name atomically: an O_EXCL|O_NOFOLLOW temporary file (mkstemp)
    in the directory, then a rename over the name (a symlink there is replaced, not followed)."""
    if "/" in name or name in ("", ".", ".."):
        raise ValueError(f"not a plain file name: {name!r}")
    fd, tmp = tempfile.mkstemp(dir=directory, prefix=f".{name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as out:
            out.write(data)
            out.flush()
            os.fsync(out.fileno())
        os.replace(tmp, directory / name)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    return directory / name


def read_private(directory: Path, name: str) -> bytes | None:
    """The bytes of directory/name if it is a regular file of ours that only we may write;
    None otherwise (absent, a symlink, someone else's)."""
    try:
        fd = os.open(directory / name, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC)
    except OSError:
        return None
    with os.fdopen(fd, "rb") as f:
        st = os.fstat(f.fileno())
        if not stat.S_ISREG(st.st_mode) or st.st_uid != os.geteuid() or st.st_mode & 0o022:
            return None
        return f.read()


def pack(key: str, payload: bytes) -> bytes:
    """A cache file: the key it was built for and its payload's sha256, then the payload."""
    return MAGIC + f"{key}\n{_payload_digest(payload)}\n".encode() + payload


def unpack(key: str, data: bytes) -> bytes | None:
    """The payload of a cache file built for `key`, or None when anything does not match."""
    if not data.startswith(MAGIC):
        return None
    parts = data[len(MAGIC):].split(b"\n", 2)
    if len(parts) != 3 or parts[0].decode(errors="replace") != key:  # noqa: PLR2004 - key, meta, payload
        return None
    if parts[1].decode(errors="replace") != _payload_digest(parts[2]):
        return None
    return parts[2]

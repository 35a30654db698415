"""Where raw bundles live: the local disk (default) or S3-compatible object storage.

`TRIAGE_STORAGE=s3` selects `BundleS3Storage` (django-storages with boto3, configured by its
own AWS_* settings). Two things differ from django-storages' stock S3 storage, both so that a
multi-gigabyte bundle never sits whole in a process:

- reading streams: django-storages' S3File downloads the whole object into a spooled temporary
  file (in memory unless AWS_S3_MAX_MEMORY_SIZE is set) on the first read; here a read is one
  ranged GET streamed front to back, and a seek (zip archives read their directory at the end)
  starts a new ranged GET at the new offset;
- writing keeps the bytes exactly as uploaded: no Content-Encoding guessed from `.tar.gz`
  (which would let an HTTP client unpack the bundle on download).

Uploads go to storage with upload_fileobj (multipart, a few chunks in memory at a time).

boto3 and django-storages are an optional install (requirements-s3.txt): the S3 class lives in
storage_s3.py and is imported only when asked for, so the default local-disk install (`make run`)
does without them. `triage.incidents.storage.BundleS3Storage` still names it.
"""
from __future__ import annotations

import io
from collections.abc import Callable
from dataclasses import dataclass
from http import HTTPStatus
from pathlib import PurePosixPath
from typing import Any, BinaryIO, cast

from django.core.files.storage import Storage, default_storage


class StorageUnavailable(Exception):
    """The bundle store could not be reached (or answered with a server error): try later."""


# Errors of the object store that say "not now" rather than "never": connection refused or
# cut, timeouts, throttling and 5xx answers. A 403 or a missing bucket is a configuration error.
def is_transient(exc: BaseException) -> bool:
    try:
        from botocore.exceptions import BotoCoreError, ClientError
    except ImportError:  # no S3 support installed: only the OS's own errors can occur
        return isinstance(exc, (ConnectionError, TimeoutError))
    if isinstance(exc, ClientError):
        status = exc.response.get("ResponseMetadata", {}).get("HTTPStatusCode") or 0
        code = exc.response.get("Error", {}).get("Code", "")
        return (status >= HTTPStatus.INTERNAL_SERVER_ERROR or status == HTTPStatus.TOO_MANY_REQUESTS
                or code in ("SlowDown", "RequestTimeout", "ServiceUnavailable"))
    return isinstance(exc, (BotoCoreError, ConnectionError, TimeoutError))


# Forward seeks up to this far read through the open response instead of starting a new one.
SKIP_IN_STREAM = 1 << 20


class RangedReader(io.RawIOBase):
    """A seekable, read-only stream over one S3 object, one ranged GET per contiguous read."""

    def __init__(self, get: Callable[[str], Any], size: int) -> None:
        self._get = get  # Range header value -> get_object response
        self._size = size
        self._pos = 0
        self._body: Any = None

    def readable(self) -> bool:
        return True

    def seekable(self) -> bool:
        return True

    def tell(self) -> int:
        return self._pos

    def seek(self, offset: int, whence: int = io.SEEK_SET) -> int:
        base = {io.SEEK_SET: 0, io.SEEK_CUR: self._pos, io.SEEK_END: self._size}[whence]
        target = max(0, base + offset)
        if self._body is not None and 0 < target - self._pos <= SKIP_IN_STREAM:
            # A short hop forward (a tar reader skipping a member's padding or a small member):
            # read through it rather than pay a new request.
            while self._pos < target:
                data = self._body.read(min(target - self._pos, 1 << 16))
                if not data:
                    break
                self._pos += len(data)
        if target != self._pos:
            self._drop_body()
            self._pos = target
        return self._pos

    def readinto(self, buffer: memoryview | bytearray) -> int:  # type: ignore[override]
        if self._pos >= self._size or len(buffer) == 0:
            return 0
        if self._body is None:
            self._body = self._get(f"bytes={self._pos}-")["Body"]
        data = self._body.read(len(buffer))
        if not data:
            raise OSError(f"object ended at byte {self._pos} of {self._size}")
        buffer[: len(data)] = data
        self._pos += len(data)
        return len(data)

    def _drop_body(self) -> None:
        if self._body is not None:
            self._body.close()
            self._body = None

    def close(self) -> None:
        self._drop_body()
        super().close()


def local_path(name: str, storage: Storage | None = None) -> str | None:
    """The file's path on this machine, or None when the storage has no local files."""
    try:
        return (storage or default_storage).path(name)
    except NotImplementedError:
        return None


@dataclass(frozen=True)
class StoredBlob:
    """A stored bundle as the engine's Blob: opened as a stream, never copied whole. Its name
    is the file's own, as a local path's would be (the engine names a lone log after it)."""

    key: str
    size: int | None

    @property
    def name(self) -> str:
        return PurePosixPath(self.key).name

    def open(self) -> BinaryIO:
        # Both storages hand a binary stream: a file opened "rb", or BundleS3Storage's reader.
        return cast(BinaryIO, default_storage.open(self.key, "rb").file)


def engine_input(name: str | None, size: int | None = None) -> str | StoredBlob:
    """What the engine reads for a stored bundle: its local path, else a stream of it. `name`
    is a saved FileField's (optional in Django's types, set once the file is stored)."""
    if not name:
        raise ValueError("the bundle has no stored file")
    return local_path(name) or StoredBlob(key=name, size=size)


def __getattr__(name: str) -> Any:
    # The S3 backend on first use only (settings name it as triage.incidents.storage.BundleS3Storage).
    if name == "BundleS3Storage":
        from .storage_s3 import BundleS3Storage

        return BundleS3Storage
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

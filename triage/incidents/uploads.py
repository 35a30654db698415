"""Streaming upload handling: every file goes to disk while its sha256 is computed.

Django's default handlers keep small files in memory and know nothing of hashes or of our
per-file limit; this one replaces both. A file over the limit stops reading the request at
once and leaves a `BundleTooLarge` on it (`too_large(request)`), which the views answer with 413.
It does not raise: the CSRF middleware reads the form first and would turn that into a 500.
"""
from __future__ import annotations

import hashlib
import queue
import tempfile
import threading
from pathlib import Path
from typing import Any

from django.conf import settings
from django.core.files.uploadedfile import TemporaryUploadedFile, UploadedFile
from django.core.files.uploadhandler import FileUploadHandler, StopUpload
from django.http import HttpRequest


class BundleTooLarge(Exception):
    """A file over TRIAGE_MAX_BUNDLE_BYTES, or an upload's files together over
    TRIAGE_MAX_UPLOAD_BYTES (`per` says which limit)."""

    def __init__(self, name: str, limit: int, per: str = "file") -> None:
        what = name if per == "file" else f"{name}: this upload's files together are"
        super().__init__(f"{what}: larger than the {limit // (1024 * 1024)} MiB limit per {per}")
        self.name = name
        self.limit = limit
        self.per = per


def upload_temp_dir() -> Path:
    """Where uploads stream to: inside MEDIA_ROOT, so storing one is a rename on one disk."""
    return Path(settings.MEDIA_ROOT) / "tmp"


class HashedUploadedFile(TemporaryUploadedFile):
    """An upload on disk with its sha256; storing it is a rename (see FileSystemStorage)."""

    sha256: str = ""

    def __init__(self, name: str | None, content_type: str | None, size: int, charset: str | None,
                 content_type_extra: dict[str, Any] | None = None) -> None:
        folder = upload_temp_dir()
        folder.mkdir(parents=True, exist_ok=True)
        # The upload owns the file and closes it, as Django's TemporaryUploadedFile does.
        file = tempfile.NamedTemporaryFile(suffix=".upload", dir=folder)  # noqa: SIM115
        UploadedFile.__init__(self, file, name, content_type, size, charset, content_type_extra)


class _Sink:
    """Hashes and writes chunks on a thread of its own, so the request thread keeps reading
    the socket meanwhile (hashlib and file writes release the GIL). At most a few chunks wait."""

    def __init__(self, file: HashedUploadedFile) -> None:
        self.file = file
        self.hash = hashlib.sha256()
        self.chunks: queue.Queue[bytes | None] = queue.Queue(maxsize=8)
        self.error: BaseException | None = None
        self.thread = threading.Thread(target=self._run, name="upload-sink", daemon=True)
        self.thread.start()

    def _run(self) -> None:
        while (chunk := self.chunks.get()) is not None:
            if self.error is None:
                try:
                    self.hash.update(chunk)
                    self.file.write(chunk)
                except BaseException as e:  # re-raised in the request thread by finish()
                    self.error = e

    def put(self, chunk: bytes) -> None:
        if self.error is not None:
            raise self.error
        self.chunks.put(chunk)

    def finish(self) -> str:
        if self.thread.is_alive():
            self.chunks.put(None)
            self.thread.join()
        if self.error is not None:
            raise self.error
        return self.hash.hexdigest()


class HashingUploadHandler(FileUploadHandler):
    chunk_size = 1024 * 1024

    def __init__(self, request: HttpRequest | None = None) -> None:
        super().__init__(request)
        # One handler per request: this counts every file of the request together.
        self.request_total = 0

    def new_file(self, *args: Any, **kwargs: Any) -> None:
        super().new_file(*args, **kwargs)
        self.file = HashedUploadedFile(self.file_name, self.content_type, 0, self.charset, self.content_type_extra)
        self.sink = _Sink(self.file)
        self.limit: int = settings.TRIAGE_MAX_BUNDLE_BYTES
        self.request_limit: int = settings.TRIAGE_MAX_UPLOAD_BYTES

    def receive_data_chunk(self, raw_data: bytes, start: int) -> None:
        self.request_total += len(raw_data)
        exceeded = None
        if start + len(raw_data) > self.limit:
            exceeded = BundleTooLarge(self.file_name or "upload", self.limit)
        elif self.request_total > self.request_limit:
            exceeded = BundleTooLarge(self.file_name or "upload", self.request_limit, per="upload")
        if exceeded is not None:
            self.sink.finish()  # Django closes (and so deletes) the partial file next
            if self.request is not None:
                # Read back by too_large(); HttpRequest declares no such attribute.
                setattr(self.request, "bundle_too_large", exceeded)  # noqa: B010
            # Stop reading the body now rather than swallowing gigabytes to reject them.
            raise StopUpload(connection_reset=True)
        self.sink.put(raw_data)

    def file_complete(self, file_size: int) -> HashedUploadedFile:
        self.file.sha256 = self.sink.finish()
        self.file.seek(0)
        self.file.size = file_size
        return self.file

    def upload_interrupted(self) -> None:
        # The client went away mid-file: stop the sink thread; Django deletes the file.
        if getattr(self, "sink", None) is not None:
            self.sink.finish()


def too_large(request: HttpRequest) -> BundleTooLarge | None:
    """The file that went over the limit while this request's body was read, if any."""
    return getattr(request, "bundle_too_large", None)

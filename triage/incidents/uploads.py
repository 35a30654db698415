"""Streaming upload handling: every file goes to disk while its sha256 is computed.

Django's default handlers keep small files in memory and know nothing of hashes or of our
per-file limit; this one replaces both. A file over the limit stops reading the request at
once and leaves a `BundleTooLarge` on it (`too_large(request)`), which the views answer with 413.
It does not raise: the CSRF middleware reads the form first and would turn that into a 500.
"""
from __future__ import annotations

import hashlib
import tempfile
from pathlib import Path
from typing import Any

from django.conf import settings
from django.core.files.uploadedfile import TemporaryUploadedFile, UploadedFile
from django.core.files.uploadhandler import FileUploadHandler, StopUpload
from django.http import HttpRequest


class BundleTooLarge(Exception):
    def __init__(self, name: str, limit: int) -> None:
        super().__init__(f"{name}: larger than the {limit // (1024 * 1024)} MiB limit per bundle")
        self.name = name
        self.limit = limit


def upload_temp_dir() -> Path:
    """Where uploads stream to: inside MEDIA_ROOT, so storing one is a rename on one disk."""
    return Path(settings.MEDIA_ROOT) / "tmp"


class HashedUploadedFile(TemporaryUploadedFile):
    """An upload on disk with its sha256; storing it is a rename (see FileSystemStorage)."""

    sha256: str = ""

    def __init__(self, name: str, content_type: str, size: int, charset: str | None,
                 content_type_extra: dict[str, Any] | None = None) -> None:
        folder = upload_temp_dir()
        folder.mkdir(parents=True, exist_ok=True)
        file = tempfile.NamedTemporaryFile(suffix=".upload", dir=folder)
        UploadedFile.__init__(self, file, name, content_type, size, charset, content_type_extra)


class HashingUploadHandler(FileUploadHandler):
    chunk_size = 1024 * 1024

    def new_file(self, *args: Any, **kwargs: Any) -> None:
        super().new_file(*args, **kwargs)
        self.file = HashedUploadedFile(self.file_name, self.content_type, 0, self.charset, self.content_type_extra)
        self.hash = hashlib.sha256()
        self.limit: int = settings.TRIAGE_MAX_BUNDLE_BYTES

    def receive_data_chunk(self, raw_data: bytes, start: int) -> None:
        if start + len(raw_data) > self.limit:
            if self.request is not None:
                self.request.bundle_too_large = BundleTooLarge(self.file_name or "upload", self.limit)
            # Stop reading the body now rather than swallowing gigabytes to reject them.
            raise StopUpload(connection_reset=True)
        self.hash.update(raw_data)
        self.file.write(raw_data)
        return None

    def file_complete(self, file_size: int) -> HashedUploadedFile:
        self.file.seek(0)
        self.file.size = file_size
        self.file.sha256 = self.hash.hexdigest()
        return self.file


def too_large(request: HttpRequest) -> BundleTooLarge | None:
    """The file that went over the limit while this request's body was read, if any."""
    return getattr(request, "bundle_too_large", None)

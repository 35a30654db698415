"""The S3-compatible bundle store (TRIAGE_STORAGE=s3); needs requirements-s3.txt installed.

See storage.py for why reads stream through RangedReader and writes keep the bytes as uploaded.
"""
from __future__ import annotations

import io
from http import HTTPStatus
from typing import Any

from botocore.exceptions import ClientError
from django.core.files import File
from storages.backends.s3 import S3Storage

from .storage import RangedReader


class BundleS3Storage(S3Storage):  # type: ignore[misc]  # django-storages is untyped (Any)
    def _open(self, name: str, mode: str = "rb") -> File[Any]:
        if "w" in mode or "a" in mode or "+" in mode:
            stock: File[Any] = super()._open(name, mode)
            return stock
        key = self._normalize_name(name)
        obj = self.bucket.Object(key)
        try:
            size = obj.content_length  # a HEAD: also says at once when the object is missing
        except ClientError as err:
            if err.response.get("ResponseMetadata", {}).get("HTTPStatusCode") == HTTPStatus.NOT_FOUND:
                raise FileNotFoundError(f"no such bundle in the bucket: {name}") from err
            raise
        raw = RangedReader(lambda byte_range: obj.get(Range=byte_range), size)
        file = File(io.BufferedReader(raw, buffer_size=1 << 20), name=name)
        file.size = size
        return file

    def _get_write_parameters(self, name: str, content: Any = None) -> dict[str, Any]:
        params: dict[str, Any] = super()._get_write_parameters(name, content)
        params.pop("ContentEncoding", None)
        params["ContentType"] = "application/octet-stream"
        return params

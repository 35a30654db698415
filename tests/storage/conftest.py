"""A real S3-compatible server on loopback (moto in server mode) and the settings that point
the project's storage at it. The server runs in this process, on a free port; it can be
stopped (socket closed: connections refused, as a bucket that is down) and started again on
the same port with its buckets intact (moto keeps them in this process)."""
from __future__ import annotations

import logging
import os
import uuid
from collections.abc import Iterator
from typing import Any

import boto3
import pytest
from botocore.config import Config
from moto.server import ThreadedMotoServer

from tests.collectors.api_server import free_port

KEYS = {"AWS_ACCESS_KEY_ID": "triage-test-key", "AWS_SECRET_ACCESS_KEY": "triage-test-secret"}


class S3Server:
    def __init__(self) -> None:
        self.port = free_port()
        self._server: ThreadedMotoServer | None = None

    @property
    def running(self) -> bool:
        return self._server is not None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> None:
        self._server = ThreadedMotoServer(ip_address="127.0.0.1", port=self.port, verbose=False)
        self._server.start()

    def stop(self) -> None:
        if self._server is not None:
            self._server.stop()
            # ThreadedMotoServer.stop() leaves the socket listening (requests would hang, not
            # fail): close it, so "down" means connection refused.
            self._server._server.server_close()  # type: ignore[union-attr]
            self._server = None

    def client(self) -> Any:
        return boto3.client("s3", endpoint_url=self.url, region_name="us-east-1", **{k.lower(): v for k, v in KEYS.items()})


@pytest.fixture(scope="session")
def s3_server() -> Iterator[S3Server]:
    server = S3Server()
    server.start()
    yield server
    server.stop()


@pytest.fixture
def s3_bucket(s3_server: S3Server) -> Iterator[str]:
    name = f"triage-{uuid.uuid4().hex[:12]}"
    s3_server.client().create_bucket(Bucket=name)
    yield name
    if not s3_server.running:  # a test stopped it and failed before starting it again
        s3_server.start()


def s3_environ(server: S3Server, bucket: str) -> dict[str, str]:
    """The environment that selects the bucket (as a deployment sets it)."""
    return {"TRIAGE_STORAGE": "s3", "AWS_STORAGE_BUCKET_NAME": bucket, "AWS_S3_ENDPOINT_URL": server.url,
            "AWS_S3_REGION_NAME": "us-east-1", "AWS_S3_MAX_ATTEMPTS": "1", **KEYS}


@pytest.fixture
def s3_storage(settings: Any, media_root: Any, s3_server: S3Server, s3_bucket: str) -> str:
    """This test's bundles go to a fresh bucket of the S3 server (what TRIAGE_STORAGE=s3 sets)."""
    settings.AWS_STORAGE_BUCKET_NAME = s3_bucket
    settings.AWS_S3_ENDPOINT_URL = s3_server.url
    settings.AWS_S3_REGION_NAME = "us-east-1"
    settings.AWS_ACCESS_KEY_ID = KEYS["AWS_ACCESS_KEY_ID"]
    settings.AWS_SECRET_ACCESS_KEY = KEYS["AWS_SECRET_ACCESS_KEY"]
    settings.AWS_DEFAULT_ACL = None
    # One attempt, short timeouts: a stopped server is seen at once (settings.py's defaults).
    settings.AWS_S3_CLIENT_CONFIG = Config(connect_timeout=2, read_timeout=10, retries={"mode": "standard", "max_attempts": 1})
    # Assigned last: it resets the storages, which then read the AWS_* settings above.
    settings.STORAGES = {**settings.STORAGES, "default": {"BACKEND": "triage.incidents.storage.BundleS3Storage"}}
    return s3_bucket


os.environ.setdefault("AWS_EC2_METADATA_DISABLED", "true")  # no credential probing of 169.254.x
logging.getLogger("werkzeug").setLevel(logging.WARNING)  # one line per S3 request otherwise

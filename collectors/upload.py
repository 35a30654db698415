"""Sending a bundle to the server: streamed multipart POST, retries with backoff, and a spool.

If the server stays unreachable the bundle waits in the spool folder and goes out with the next
`upload` or `run` to the same server: a failed job on a node that cannot reach the dashboard
right now must not lose its evidence.
"""
from __future__ import annotations

import json
import os
import random
import shutil
import sys
import time
import urllib.error
import urllib.request
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from http import HTTPStatus
from pathlib import Path
from typing import Any

from collectors import COLLECTOR

_CHUNK = 256 * 1024


def default_spool_dir() -> Path:
    if env := os.environ.get("NCCL_TRIAGE_SPOOL"):
        return Path(env)
    cache = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(cache, "nccl-triage", "spool")


@dataclass
class RetryPolicy:
    attempts: int = 6
    base_delay: float = 1.0
    max_delay: float = 60.0
    timeout: float = 120.0

    def delay(self, attempt: int) -> float:
        """Full jitter (AWS architecture blog): nodes of one job failing together must not retry in step."""
        return random.uniform(0, min(self.max_delay, self.base_delay * 2 ** attempt))


class UploadRejected(Exception):
    """The server answered and said no (bad token, bad request): retrying will not help."""


class RetryLater(ConnectionError):
    """A 503/429 that named a Retry-After: the server is up but cannot take the bundle yet."""

    def __init__(self, message: str, retry_after: float) -> None:
        super().__init__(message)
        self.retry_after = retry_after


def _retry_after(value: str | None) -> float | None:
    try:
        return max(0.0, float(value)) if value else None
    except ValueError:
        return None  # an HTTP date: rare from our server, the backoff covers it


class ServerUnreachable(Exception):
    """Every attempt failed with a connection error, a timeout or a 5xx/429."""


def _multipart(path: Path, fields: dict[str, str], boundary: str) -> tuple[list[bytes], int]:
    """The parts before and after the file, and the total length (the file is streamed between)."""
    pre = b"".join(
        f'--{boundary}\r\nContent-Disposition: form-data; name="{k}"\r\n\r\n{v}\r\n'.encode()
        for k, v in fields.items()
    )
    pre += (f'--{boundary}\r\nContent-Disposition: form-data; name="file"; filename="{path.name}"\r\n'
            "Content-Type: application/gzip\r\n\r\n").encode()
    post = f"\r\n--{boundary}--\r\n".encode()
    return [pre, post], len(pre) + path.stat().st_size + len(post)


def _body(path: Path, pre: bytes, post: bytes) -> Iterator[bytes]:
    yield pre
    with open(path, "rb") as f:
        while chunk := f.read(_CHUNK):
            yield chunk
    yield post


def post_bundle(server: str, token: str, path: Path, *, job: str | None, host: str | None,
                timeout: float) -> dict[str, Any]:
    """One attempt. Returns the server's JSON; raises UploadRejected, or OSError-family to retry."""
    fields = {k: v for k, v in (("job", job), ("host", host)) if v}
    boundary = f"nccl-triage-{uuid.uuid4().hex}"
    (pre, post), length = _multipart(path, fields, boundary)
    req = urllib.request.Request(
        server.rstrip("/") + "/api/v1/bundles",
        data=_body(path, pre, post),
        method="POST",
        headers={
            "Authorization": f"Bearer {token}",
            "Content-Type": f"multipart/form-data; boundary={boundary}",
            "Content-Length": str(length),
            "User-Agent": COLLECTOR,
            "Accept": "application/json",
        },
    )
    try:
        with urllib.request.urlopen(req, timeout=timeout) as resp:
            answer: dict[str, Any] = json.loads(resp.read().decode() or "{}")
            return answer
    except urllib.error.HTTPError as exc:
        detail = exc.read().decode("utf-8", "replace")[:300]
        retry_later = (HTTPStatus.REQUEST_TIMEOUT, HTTPStatus.TOO_MANY_REQUESTS)
        if exc.code >= HTTPStatus.INTERNAL_SERVER_ERROR or exc.code in retry_later:
            wait = _retry_after(exc.headers.get("Retry-After"))
            if wait is not None:
                raise RetryLater(f"HTTP {exc.code}: {detail}", wait) from exc
            raise ConnectionError(f"HTTP {exc.code}: {detail}") from exc
        raise UploadRejected(f"HTTP {exc.code}: {detail}") from exc


def send_with_retries(server: str, token: str, path: Path, *, job: str | None, host: str | None,
                      policy: RetryPolicy, log: Callable[[str], None],
                      sleep: Callable[[float], None] = time.sleep) -> dict[str, Any]:
    last = ""
    for attempt in range(policy.attempts):
        try:
            return post_bundle(server, token, path, job=job, host=host, timeout=policy.timeout)
        except UploadRejected:
            raise
        except (OSError, ValueError) as exc:  # URLError, ConnectionError, timeouts, a non-JSON reply
            last = str(getattr(exc, "reason", None) or exc)
            if attempt + 1 < policy.attempts:
                wait = policy.delay(attempt)
                if isinstance(exc, RetryLater):
                    # The server said when; never sooner than that, never past our own cap.
                    wait = max(wait, min(exc.retry_after, policy.max_delay))
                log(f"upload attempt {attempt + 1}/{policy.attempts} failed ({last}); retrying in {wait:.1f}s")
                sleep(wait)
    raise ServerUnreachable(f"{server} unreachable after {policy.attempts} attempts: {last}")


@dataclass
class Spool:
    """Bundles waiting for a server: <id>.tar.gz plus <id>.json (server, job, host; never the token)."""
    directory: Path

    def put(self, bundle: Path, *, server: str, job: str | None, host: str | None) -> Path:
        self.directory.mkdir(parents=True, exist_ok=True)
        ident = f"{time.strftime('%Y%m%dT%H%M%S')}-{uuid.uuid4().hex[:8]}"
        target = self.directory / f"{ident}.tar.gz"
        shutil.copyfile(bundle, target)
        meta = {"server": server.rstrip("/"), "job": job, "host": host, "spooled_at": time.time()}
        tmp = self.directory / f"{ident}.json.tmp"
        tmp.write_text(json.dumps(meta))
        tmp.rename(self.directory / f"{ident}.json")   # the sidecar appears last: an entry is complete or absent
        return target

    def pending(self, server: str) -> list[tuple[Path, dict[str, Any]]]:
        if not self.directory.is_dir():
            return []
        entries = []
        for meta_path in sorted(self.directory.glob("*.json")):
            bundle = meta_path.with_suffix(".tar.gz")
            try:
                meta = json.loads(meta_path.read_text())
            except (OSError, ValueError):
                continue
            if bundle.exists() and meta.get("server") == server.rstrip("/"):
                entries.append((bundle, meta))
        return entries

    def remove(self, bundle: Path) -> None:
        bundle.with_suffix("").with_suffix(".json").unlink(missing_ok=True)
        bundle.unlink(missing_ok=True)


def _stderr(msg: str) -> None:
    print(f"nccl-triage: {msg}", file=sys.stderr, flush=True)


@dataclass
class Outcome:
    ok: bool
    url: str | None = None
    response: dict[str, Any] | None = None
    spooled: Path | None = None
    error: str | None = None


def deliver(bundle: Path, *, server: str, token: str, job: str | None, host: str | None,
            spool: Spool, policy: RetryPolicy, log: Callable[[str], None] = _stderr) -> Outcome:
    """Send one bundle; on success also flush what the spool holds for this server."""
    try:
        resp = send_with_retries(server, token, bundle, job=job, host=host, policy=policy, log=log)
    except UploadRejected as exc:
        return Outcome(ok=False, error=f"server rejected the bundle: {exc}")
    except ServerUnreachable as exc:
        where = spool.put(bundle, server=server, job=job, host=host)
        log(f"{exc}; bundle spooled at {where}, it will be sent by the next upload or run")
        return Outcome(ok=False, spooled=where, error=str(exc))
    flush_spool(server=server, token=token, spool=spool, policy=policy, log=log)
    return Outcome(ok=True, url=resp.get("url"), response=resp)


def flush_spool(*, server: str, token: str, spool: Spool, policy: RetryPolicy,
                log: Callable[[str], None] = _stderr) -> list[dict[str, Any]]:
    sent = []
    for bundle, meta in spool.pending(server):
        try:
            resp = send_with_retries(server, token, bundle, job=meta.get("job"), host=meta.get("host"),
                                     policy=policy, log=log)
        except UploadRejected as exc:
            log(f"spooled bundle {bundle} rejected ({exc}); left in the spool")
            continue
        except ServerUnreachable:
            break
        spool.remove(bundle)
        log(f"spooled bundle for job {meta.get('job')} sent: {resp.get('url')}")
        sent.append(resp)
    return sent

"""Every error answered in the client's language, and an outage said as one.

- The API (/api/) answers JSON for every error, 400, 404, 413, 500 and 503 included, whoever
  produced it (Django's own 400 for a malformed request, an uncaught exception, DEBUG on).
- The database or the file store unreachable is a 503 with Retry-After, on every page, never
  a 500 (nor a 403 from a permission check that could not read its rows).

Listed first in MIDDLEWARE: an exception raised in another middleware (the session read when
PostgreSQL is down) reaches here as a 500 response; the exception is kept by the
got_request_exception signal, so it can still be told apart.
"""
from __future__ import annotations

import logging
from collections.abc import Callable
from http import HTTPStatus
from typing import Any

from django.conf import settings
from django.core.signals import got_request_exception
from django.db import InterfaceError, OperationalError
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.http.multipartparser import MultiPartParserError
from django.utils.html import escape

from triage.incidents.storage import StorageUnavailable

from .textgate import BadText, bad_text_response

log = logging.getLogger(__name__)

OUTAGE_ERRORS = (OperationalError, InterfaceError, StorageUnavailable)


def _remember(sender: Any, request: HttpRequest | None = None, **_: Any) -> None:
    import sys

    if request is not None:
        request.triage_exception = sys.exc_info()[1]  # type: ignore[attr-defined]


got_request_exception.connect(_remember, dispatch_uid="triage-remember-exception")


def is_api(request: HttpRequest) -> bool:
    return request.path.startswith("/api/")


def outage_response(request: HttpRequest, exc: BaseException) -> HttpResponse:
    retry_after = settings.TRIAGE_STORAGE_RETRY_AFTER
    if isinstance(exc, StorageUnavailable):
        message = str(exc)
    else:
        message = f"the database is unreachable right now; retry in {retry_after} s"
    if is_api(request) or request.headers.get("Accept", "").startswith("application/json"):
        response: HttpResponse = JsonResponse({"error": message}, status=503)
    else:
        response = HttpResponse(
            f"<!doctype html><title>Unavailable</title><h1>Temporarily unavailable</h1><p>{escape(message)}</p>",
            status=503,
        )
    response["Retry-After"] = str(retry_after)
    return response


class ErrorResponseMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response = self.get_response(request)
        exc = getattr(request, "triage_exception", None)
        if response.status_code >= HTTPStatus.INTERNAL_SERVER_ERROR and exc is not None:
            known = _known_error(request, exc)
            if known is not None:
                return known
        failed = response.status_code >= HTTPStatus.BAD_REQUEST
        if is_api(request) and failed and not response.get("Content-Type", "").startswith(
            "application/json"
        ):
            return _as_json(response)
        return response

    def process_exception(self, request: HttpRequest, exception: Exception) -> HttpResponse | None:
        known = _known_error(request, exception)
        if known is not None:
            return known
        if is_api(request):
            log.exception("%s %s failed", request.method, request.path)
            return JsonResponse({"error": "internal error; it was logged"}, status=500)
        return None


def _known_error(request: HttpRequest, exc: BaseException) -> HttpResponse | None:
    """The answer to an error that is not a bug of ours, or None."""
    if isinstance(exc, OUTAGE_ERRORS):
        log.warning("%s %s: %s", request.method, request.path, exc)
        return outage_response(request, exc)
    if isinstance(exc, BadText):
        return bad_text_response(request, exc)
    if isinstance(exc, MultiPartParserError):
        # A body cut off or framed wrong is the client's error; Django makes it a 500.
        message = f"malformed multipart body: {exc}"
        if is_api(request):
            return JsonResponse({"error": message}, status=400)
        return HttpResponse(escape(message), status=400, content_type="text/plain; charset=utf-8")
    return None


_MESSAGES = {
    400: "bad request", 403: "forbidden", 404: "not found", 405: "method not allowed",
    413: "request too large", 429: "too many requests", 500: "internal error; it was logged",
    503: "temporarily unavailable",
}


def _as_json(response: HttpResponse) -> JsonResponse:
    status = response.status_code
    message = _MESSAGES.get(status) or response.reason_phrase.lower()
    out = JsonResponse({"error": message}, status=status)
    for header in ("Allow", "Retry-After", "WWW-Authenticate"):
        if header in response:
            out[header] = response[header]
    return out

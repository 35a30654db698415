"""One gate for text from a request: a NUL, another control character or a lone surrogate is
refused with a 400 before it reaches a view, a form or the database (PostgreSQL refuses NUL
in text, and a NUL in a host name once left an incident stuck `queued`).

- URL path parts and query parameters (names and values): checked in the middleware, before
  sessions or authentication read anything; a path part longer than PATH_PART_MAX is refused
  too (no name, id or secret of ours comes close).
- Form fields (names, values, uploaded file names): checked in `process_view`, after the URL
  resolved. A view that must refuse before reading the body (the API upload counts its rate
  first) is marked `@text_gate_in_view` and calls `check_post` itself.

Field values may hold tab, line feed and carriage return (a multi-line note); names and path
parts may not.
"""
from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from typing import Any, TypeVar

from django.core.exceptions import SuspiciousOperation
from django.http import HttpRequest, HttpResponse, JsonResponse

PATH_PART_MAX = 1024
# C0 and C1 controls, DEL, and UTF-16 surrogates (a lone one cannot be stored or encoded).
_NAME_BAD = re.compile(r"[\x00-\x1f\x7f-\x9f\ud800-\udfff]")
_VALUE_BAD = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\ud800-\udfff]")


class BadText(SuspiciousOperation):
    """Text a request may not carry; answered 400 (Django, and the API's error middleware)."""


def _describe(ch: str) -> str:
    if "\ud800" <= ch <= "\udfff":
        return "a lone surrogate"
    return "a NUL byte" if ch == "\x00" else f"the control character U+{ord(ch):04X}"


def check_text(value: str, *, where: str, name: bool = False) -> str:
    """`value` unchanged, or BadText saying where the refused character is."""
    bad = (_NAME_BAD if name else _VALUE_BAD).search(value)
    if bad is not None:
        raise BadText(f"{where} contains {_describe(bad.group())}, which is not allowed")
    return value


def check_path(path: str) -> None:
    for part in path.split("/"):
        check_text(part, where="the URL path", name=True)
        if len(part) > PATH_PART_MAX:
            raise BadText(f"a URL path part is longer than {PATH_PART_MAX} characters")


def check_fields(items: Iterable[tuple[str, list[Any]]], *, where: str) -> None:
    for key, values in items:
        check_text(key, where=f"a {where} name", name=True)
        for value in values:
            if isinstance(value, str):
                check_text(value, where=f"{where} {key!r}")


def check_post(request: HttpRequest) -> None:
    """The body's form fields and uploaded file names (reads the body)."""
    check_fields(request.POST.lists(), where="form field")
    for key, files in request.FILES.lists():
        check_text(key, where="a form field name", name=True)
        for f in files:
            check_text(f.name or "", where=f"the name of the file in {key!r}", name=True)


V = TypeVar("V", bound=Callable[..., HttpResponse])


def text_gate_in_view(view: V) -> V:
    """The view calls `check_post` itself, after checks that must come before the body is read."""
    view.text_gate_in_view = True  # type: ignore[attr-defined]
    return view


def bad_text_response(request: HttpRequest, exc: BadText) -> HttpResponse:
    if request.path.startswith("/api/") or request.headers.get("Accept", "").startswith("application/json"):
        return JsonResponse({"error": str(exc)}, status=400)
    return HttpResponse(str(exc), status=400, content_type="text/plain; charset=utf-8")


class TextGateMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        try:
            check_path(request.path_info)
            check_fields(request.GET.lists(), where="query parameter")
        except BadText as e:
            return bad_text_response(request, e)
        return self.get_response(request)

    def process_view(self, request: HttpRequest, view: Callable[..., Any], args: Any,
                     kwargs: Any) -> HttpResponse | None:
        if request.method in ("GET", "HEAD", "OPTIONS") or getattr(view, "text_gate_in_view", False):
            return None
        try:
            check_post(request)
        except BadText as e:
            return bad_text_response(request, e)
        return None

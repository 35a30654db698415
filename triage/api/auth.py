"""Bearer-token authentication for the collector API, with the token's scope checked."""
from __future__ import annotations

from collections.abc import Callable
from functools import wraps
from typing import Any

from django.contrib.auth.decorators import login_not_required
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.views.decorators.csrf import csrf_exempt

from triage.accounts.services import apitoken_authenticate

View = Callable[..., HttpResponse]


def api_error(status: int, message: str, **headers: str) -> JsonResponse:
    response = JsonResponse({"error": message}, status=status)
    for name, value in headers.items():
        response[name.replace("_", "-")] = value
    return response


def token_required(scope: str) -> Callable[[View], View]:
    """Require `Authorization: Bearer <token>` with `scope` ("upload" or "read"); the token row
    lands on `request.api_token`. Token requests carry no cookies worth forging, so CSRF does
    not apply, nor does login."""

    def decorate(view: View) -> View:
        @csrf_exempt
        @login_not_required
        @wraps(view)
        def wrapper(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
            scheme, _, token = request.headers.get("Authorization", "").partition(" ")
            row = apitoken_authenticate(token=token.strip()) if scheme.lower() == "bearer" else None
            if row is None:
                return api_error(
                    401, "a valid API token is required: Authorization: Bearer <token>",
                    WWW_Authenticate='Bearer realm="nccl-triage"',
                )
            allowed = row.can_upload if scope == "upload" else row.can_read
            if not allowed:
                return api_error(403, f"this token's scope is {row.scope!r}; this needs {scope!r}")
            request.api_token = row  # type: ignore[attr-defined]
            return view(request, *args, **kwargs)

        return wrapper

    return decorate

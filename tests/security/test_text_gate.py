"""One gate for text: every URL pattern, query parameter and form field, fed a NUL, a control
character, a lone surrogate and 10,000 characters, answers 400 (never 500), and nothing is
left half-made (no incident stuck `queued`)."""
from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from django import forms as django_forms
from django.contrib.auth.forms import AuthenticationForm
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import URLPattern, URLResolver, get_resolver
from django.urls.resolvers import RoutePattern

from tests.security.helpers import Personas, api_upload, team_incident
from triage.accounts.models import ShareLink
from triage.accounts.services import apitoken_create, sharelink_create, team_get_or_create
from triage.api.textgate import check_text
from triage.fleet.views import WebhookForm
from triage.incidents.models import Bundle, Incident
from triage.web import forms as web_forms

pytestmark = pytest.mark.django_db

# Percent-encoded as a client would send them in a URL.
NUL, C1, ESC, SURROGATE, LONG = "a%00b", "a%C2%85b", "%1B[31mred", "a%ED%A0%80b", "x" * 10_000
REFUSED_IN_PATH = (NUL, C1, ESC, LONG)


def routes() -> list[tuple[str, list[tuple[str, str]]]]:
    """Every path() route of the project: its text and its (converter, name) parameters."""
    found: list[tuple[str, list[tuple[str, str]]]] = []

    def walk(patterns: list[Any], prefix: str) -> None:
        for p in patterns:
            if not isinstance(p.pattern, RoutePattern):
                continue  # the admin's regex routes: the path gate covers them like any path
            route = prefix + str(p.pattern._route)
            if isinstance(p, URLResolver):
                walk(p.url_patterns, route)
            elif isinstance(p, URLPattern):
                found.append((route, re.findall(r"<(?:(\w+):)?(\w+)>", route)))

    walk(get_resolver().url_patterns, "/")
    return found


def fill(route: str, values: dict[str, str]) -> str:
    return re.sub(r"<(?:\w+:)?(\w+)>", lambda m: values.get(m.group(1), "x1"), route)


def form_fields() -> set[str]:
    """The name of every field of every form the project shows, and the API's fields."""
    names = {"job", "host", "title", "expires_in", "action", "q", "cause", "source", "line", "next"}
    for form in (AuthenticationForm, WebhookForm, *(v for v in vars(web_forms).values()
                                                   if isinstance(v, type) and issubclass(v, django_forms.Form))):
        names |= set(form.base_fields)
    return names


@pytest.fixture
def world(personas: Personas, media_root: Path, shm_bundle: Path) -> dict[str, str]:
    incident = team_incident(shm_bundle, job="slurm-42", host="node-a")
    link, secret = sharelink_create(incident=incident, created_by=personas.users["owner"])
    # The owner's requests carry an API token of the team too, so the API's views are reached.
    personas.owner.defaults["HTTP_AUTHORIZATION"] = "Bearer " + apitoken_create(
        name="fuzz", team=team_get_or_create(name="sre"))[1]
    return {
        "incident_id": incident.pk, "bundle_id": str(Bundle.objects.get(incident=incident).pk),
        "share_id": str(link.pk), "secret": secret, "host": "node-a", "gpu": "0",
        "problem_id": "1", "webhook_id": "1",
    }


def test_the_gate_refuses_control_characters_and_surrogates_and_keeps_plain_text() -> None:
    for bad in ("a\x00b", "\x1b[31m", "a\x85b", "a\ud800b", "\udfff"):
        with pytest.raises(Exception, match="not allowed"):
            check_text(bad, where="x")
    assert check_text("two\nlines\tand ünïcode ✓", where="x") == "two\nlines\tand ünïcode ✓"
    with pytest.raises(Exception, match="not allowed"):
        check_text("a\nb", where="a name", name=True)


def test_every_url_pattern_with_a_bad_path_part_is_400_or_at_worst_404_never_500(
    personas: Personas, world: dict[str, str],
) -> None:
    checked = 0
    for route, params in routes():
        for _, name in params:
            for bad in (NUL, C1, ESC, SURROGATE, LONG):
                url = fill(route, {**world, name: bad})
                for method in ("get", "post"):
                    status = getattr(personas.owner, method)(url).status_code
                    if bad in REFUSED_IN_PATH:
                        assert status == 400, (method, url[:120], status)
                    else:
                        assert status < 500, (method, url[:120], status)
                    checked += 1
    assert checked > 300  # every route with a parameter was tried
    assert not Incident.objects.filter(status__in=["queued", "parsing"]).exists()


def test_every_form_field_and_query_parameter_with_a_nul_is_400_on_every_url(
    personas: Personas, world: dict[str, str],
) -> None:
    fields = form_fields()
    assert {"username", "password", "url", "secret", "job", "host", "title", "expires_in"} <= fields
    before = Incident.objects.count()
    for route, _ in routes():
        url = fill(route, world)
        for field in sorted(fields):
            assert personas.owner.post(url, {field: "a\x00b"}).status_code == 400, (url, field)
            assert personas.owner.get(url, {field: "a\x00b"}).status_code == 400, (url, field)
            # A surrogate in a body is no text at all (replaced on decoding); 10,000 characters
            # are refused by the field or ignored: neither is a 500.
            for value in (b"a\xed\xa0\x80b", LONG):
                assert personas.owner.post(url, {field: value}).status_code < 500, (url, field)
        # A field name is text too.
        assert personas.owner.post(url, {"na\x00me": "x"}).status_code == 400, url
    assert Incident.objects.count() == before
    assert not Incident.objects.filter(status__in=["queued", "parsing"]).exists()


def test_an_api_upload_with_a_nul_in_job_host_or_file_name_is_400_and_makes_no_incident(
    db: None, client: Any, media_root: Path, shm_bundle: Path,
) -> None:
    _, token = apitoken_create(name="collector", team=team_get_or_create(name="sre"))
    data = shm_bundle.read_bytes()
    for fields in ({"job": "a\x00b"}, {"host": "node\x00a"}, {"host": "\x1b[2J"}):
        response = api_upload(client, token, "node-a.tar.gz", data, **fields)
        assert response.status_code == 400 and "not allowed" in response.json()["error"], fields
    assert not Incident.objects.exists()
    # The same upload with plain text is taken: the gate refused the characters, not the upload.
    assert api_upload(client, token, "node-a.tar.gz", data, job="slurm-42", host="node-a").status_code == 202
    assert Bundle.objects.get().host == "node-a"
    # Control characters in a file name never arrive: Django's parser drops them from the name.
    response = client.post("/api/v1/bundles", {"file": SimpleUploadedFile("node\x01b.tar.gz", data)},
                           headers={"Authorization": f"Bearer {token}"})
    assert response.status_code == 202
    assert set(Bundle.objects.values_list("original_name", flat=True)) == {"node-a.tar.gz", "nodeb.tar.gz"}


def test_a_share_link_request_with_a_nul_in_its_json_or_path_is_400(personas: Personas, world: dict[str, str]) -> None:
    assert personas.owner.get(f"/s/{world['secret']}%00/").status_code == 400
    assert ShareLink.objects.count() == 1

"""Error pages through the whole stack (issue 18): a person gets HTML, an API client problem+json, for a
404 and for an unhandled exception (a 500), with the site's own handlers."""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest, HttpResponse
from django.test import Client
from django.urls import path

from config.urls import handler400, handler403, handler404, handler500  # noqa: F401 (this URLconf's)
from config.urls import urlpatterns as site_urlpatterns


def _fails(request: HttpRequest) -> HttpResponse:
    raise RuntimeError("a bug")


urlpatterns = [path("api/v1/fails", _fails), path("agents-fail", _fails), *site_urlpatterns]


def test_it_answers_an_unhandled_error_with_html_to_a_person_and_a_problem_to_a_client(
    db: None, settings: Any
) -> None:
    settings.ROOT_URLCONF = __name__
    client = Client(raise_request_exception=False)
    page = client.get("/agents-fail")
    assert page.status_code == 500 and page["Content-Type"].startswith("text/html")
    assert "Something went wrong" in page.content.decode() and "a bug" not in page.content.decode()
    api = client.get("/api/v1/fails")
    assert api.status_code == 500 and api["Content-Type"] == "application/problem+json"
    assert api.json()["type"] == "/problems/server-error" and "a bug" not in api.content.decode()


def test_it_answers_a_missing_page_with_html_and_a_missing_api_resource_with_a_problem(db: None) -> None:
    client = Client()
    for person in ("/agents/nobody-at-all", "/providers/nobody", "/no/such/page"):
        page = client.get(person)
        assert page.status_code == 404 and page["Content-Type"].startswith("text/html"), person
    for api in ("/api/v1/agents/nobody-at-all", "/api/v1/no-such-thing", "/v1/stats/nobody-at-all"):
        answer = client.get(api)
        assert answer.status_code == 404, api
        assert answer["Content-Type"] == "application/problem+json", api
        assert answer.json()["status"] == 404

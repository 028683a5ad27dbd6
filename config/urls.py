"""Root URLs: the API under /api/v1/, its schema and docs, the admin, problem-type pages."""

from django.contrib import admin
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.urls import include, path
from django.views.generic import RedirectView
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerSplitView

from common.errors import PROBLEM_TYPES
from registry import views as registry_views
from verification.api.urls import api_urlpatterns as verification_api_urls


def problem_type(request: HttpRequest, slug: str) -> HttpResponse:
    """Each problem `type` URI resolves to a short description of the problem."""
    if slug not in PROBLEM_TYPES:
        return JsonResponse({"detail": "Unknown problem type."}, status=404)
    return JsonResponse({"type": f"/problems/{slug}", "title": PROBLEM_TYPES[slug]})


def healthz(request: HttpRequest) -> HttpResponse:
    return JsonResponse({"status": "ok"})


# The site's shield icon (the public pages inline the same one). Pages that name no icon, the admin and
# Swagger UI, make browsers ask for /favicon.ico: answering it spares every such page a 404.
FAVICON_SVG = (
    '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 16 16">'
    '<path d="M8 1 2 3.5V8c0 3.3 2.6 6.2 6 7 3.4-.8 6-3.7 6-7V3.5z" fill="#4f46e5"/></svg>'
)


def favicon(request: HttpRequest) -> HttpResponse:
    response = HttpResponse(FAVICON_SVG, content_type="image/svg+xml")
    response["Cache-Control"] = "public, max-age=86400"
    return response


urlpatterns = [
    path("api/v1/", include("registry.api.urls")),
    path("api/v1/", include("attestations.api.urls")),
    path("api/v1/", include((verification_api_urls, "engine"))),
    path("api/v1/", include("webhooks.api.urls")),
    # The HCS-25 reference stats endpoint of the in-repo engine, where other registries expect it.
    path("v1/", include("verification.api.urls")),
    path("api/schema/", SpectacularAPIView.as_view(), name="schema"),
    # The split view serves Swagger UI's set-up script as a file: the CSP allows no inline script.
    path("api/docs/", SpectacularSwaggerSplitView.as_view(url_name="schema"), name="swagger-ui"),
    path("admin/", admin.site.urls),
    path("problems/<slug:slug>", problem_type, name="problem-type"),
    path("healthz", healthz, name="healthz"),
    path("favicon.ico", favicon, name="favicon"),
    path("agents/", registry_views.agent_index, name="agent-index"),
    path("agents/<str:subject_id>", registry_views.agent_page, name="agent-page"),
    path("providers/<slug:slug>", registry_views.provider_page, name="provider-page"),
    path("docs/<slug:slug>", registry_views.methodology_page, name="methodology-page"),
    path("", RedirectView.as_view(url="/agents/", permanent=False)),
]

handler400 = "common.errors.handler400"
handler403 = "common.errors.handler403"
handler404 = "common.errors.handler404"
handler500 = "common.errors.handler500"

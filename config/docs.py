"""The API docs page (Swagger UI), started by a static script instead of an inline one, so it
runs under a Content-Security-Policy that allows scripts from this site only."""

from typing import Any

from django.http import HttpResponse
from drf_spectacular.views import SpectacularSwaggerView
from rest_framework.request import Request


class ApiDocsView(SpectacularSwaggerView):
    """An HTML page: OPTIONS names the allowed methods and sends no body, whatever the client
    accepts, since the page's template renderer has no way to show DRF's description of a
    view."""

    template_name = "api_docs/swagger_ui.html"

    def perform_content_negotiation(self, request: Request, force: bool = False) -> Any:
        return super().perform_content_negotiation(request, force or request.method == "OPTIONS")

    def options(self, request: Request, *args: Any, **kwargs: Any) -> HttpResponse:
        return HttpResponse(headers={"Allow": ", ".join(self.allowed_methods)})

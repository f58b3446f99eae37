"""The API docs page (Swagger UI), started by a static script instead of an inline one, so it
runs under a Content-Security-Policy that allows scripts from this site only."""

from drf_spectacular.views import SpectacularSwaggerView


class ApiDocsView(SpectacularSwaggerView):
    template_name = "api_docs/swagger_ui.html"

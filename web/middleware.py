"""Answers for the site's pages that a view does not give itself."""

from collections.abc import Callable

from django.http import HttpRequest, HttpResponse, HttpResponseBase
from django.template.response import TemplateResponse

from config.throttles import PageThrottled


class PageErrors:
    """A page's write over its rate limit gets the 429 page, with Retry-After."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponseBase]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponseBase:
        return self.get_response(request)

    def process_exception(self, request: HttpRequest, exception: Exception) -> HttpResponse | None:
        if isinstance(exception, PageThrottled):
            response = TemplateResponse(request, "429.html", {"wait": exception.wait}, status=429)
            response["Retry-After"] = str(exception.wait)
            return response.render()
        return None

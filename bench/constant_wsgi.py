"""The service's WSGI application with one more view, `/bench/constant/`: a constant JSON body
through the whole middleware stack, no database. `bench.load` measures its ceiling with it."""

from django.http import HttpRequest, JsonResponse
from django.urls import clear_url_caches, path

from config.wsgi import application  # sets Django up


def constant(request: HttpRequest) -> JsonResponse:
    return JsonResponse({"ok": True})


def _route() -> None:
    from config import urls  # once Django is set up

    urls.urlpatterns.insert(0, path("bench/constant/", constant))
    clear_url_caches()


_route()

__all__ = ["application"]

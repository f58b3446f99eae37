"""Error pages: the API keeps its problem documents (config.problems); every other path gets a
page in the site's layout. While the database is unreachable, pages get the maintenance page
(503, Retry-After) instead of a 500: it renders without touching the database."""

import sys

from django.db import InterfaceError, OperationalError
from django.http import HttpRequest, HttpResponse
from django.template import loader
from django.views.decorators.csrf import requires_csrf_token

from config import problems

bad_request = problems.bad_request
not_found = problems.not_found


def forbidden(request: HttpRequest, exception: Exception | None = None) -> HttpResponse:
    if request.path.startswith("/api/"):
        return problems.api_forbidden(request)
    return HttpResponse(loader.render_to_string("403.html", request=request), status=403)


@requires_csrf_token
def server_error(request: HttpRequest) -> HttpResponse:
    error = sys.exc_info()[1]
    if isinstance(error, OperationalError | InterfaceError):
        return maintenance(request)
    return problems.server_error(request)


def maintenance(request: HttpRequest) -> HttpResponse:
    wait = problems.RETRY_UNAVAILABLE_AFTER
    if request.path.startswith("/api/"):
        response = problems.api_problem(problems.database_unavailable())
    else:
        # No request context: the layout must not ask the database who is signed in.
        body = loader.render_to_string("503.html", {"wait": wait, "maintenance": True})
        response = HttpResponse(body, status=503)
    response["Retry-After"] = str(wait)
    return response

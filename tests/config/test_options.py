"""OPTIONS, which browsers send before a cross-origin request, is answered on every route."""

import pytest

from tests.support.routes import api_routes

pytestmark = pytest.mark.django_db(transaction=True)

ROUTES = api_routes()


def test_the_api_docs_answer_options_with_what_they_allow(api):
    response = api.request("OPTIONS", "/api/v1/docs/")

    assert response.status_code == 200, response.text
    assert "GET" in response.headers["Allow"]


@pytest.mark.parametrize("route", ROUTES, ids=[r.template for r in ROUTES])
def test_every_api_route_answers_options(api, route):
    response = api.request("OPTIONS", route.path())

    assert response.status_code in (200, 401), response.text
    assert all(m in response.headers["Allow"] for m in route.methods), response.headers

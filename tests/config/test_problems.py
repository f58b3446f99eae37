"""Every error is an RFC 9457 problem document that names what went wrong."""

import pytest

from tests.conftest import assert_problem
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db(transaction=True)


def test_an_unknown_api_url_is_a_404_problem(api):
    body = assert_problem(api.get("/api/v1/no-such-thing/"), 404)

    assert "/api/v1/no-such-thing/" in body["detail"]


def test_unknown_api_urls_are_problems_in_debug_mode_too(client, settings):
    settings.DEBUG = True

    response = client.get("/api/v1/courses", headers={"X-Forwarded-Proto": "https"})

    assert response.status_code == 404
    assert response["Content-Type"] == "application/problem+json"
    assert "end in '/'" in response.json()["detail"]


def test_an_unknown_course_is_a_404_problem_naming_it(api):
    body = assert_problem(api.get("/api/v1/courses/nope/"), 404)

    assert "'nope'" in body["detail"]


def test_a_wrong_method_is_a_405_problem(api):
    response = api.delete("/api/v1/courses/")

    assert_problem(response, 405)
    assert "GET" in response.headers["Allow"]


def test_malformed_json_is_a_400_problem(api):
    response = api.post(
        "/api/v1/auth/login/",
        data=b'{"username": "ada", "password": ',
        headers={"Content-Type": "application/json"},
    )

    body = assert_problem(response, 400)
    assert body["type"].endswith("/problems/malformed-request/")
    assert "JSON" in body["detail"]


def test_a_form_body_is_a_415_problem(api):
    response = api.post("/api/v1/auth/login/", data={"username": "ada", "password": "x"})

    body = assert_problem(response, 415)
    assert "application/x-www-form-urlencoded" in body["detail"]


def test_a_json_body_that_is_not_an_object_names_the_problem(api):
    response = api.post("/api/v1/auth/register/", json=["ada"])

    assert_problem(response, 400)


def test_an_oversized_body_is_a_413_problem(api, settings):
    user = UserFactory()
    api.authenticate(user)

    response = api.post("/api/v1/reports/", {"message": "x" * (3 * 1024 * 1024)})

    body = assert_problem(response, 413)
    assert "KiB" in body["detail"]


def test_an_unacceptable_format_is_a_406_problem(api):
    response = api.get("/api/v1/courses/", headers={"Accept": "text/csv"})

    assert response.status_code == 406
    assert response.json()["status"] == 406


def test_a_bad_token_is_a_401_problem(api):
    response = api.get("/api/v1/me/", headers={"Authorization": "Token not-a-real-token"})

    assert_problem(response, 401)


def test_validation_errors_list_every_field(api):
    response = api.post("/api/v1/auth/register/", {"username": "no spaces allowed"})

    body = assert_problem(response, 400)
    fields = {error["field"] for error in body["errors"]}
    assert fields == {"username", "password"}
    assert all(error["code"] and error["message"] for error in body["errors"])

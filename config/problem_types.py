"""The kinds of problem the API reports, each with a page of its own.

A problem document's `type` is `<SITE_URL>/problems/<slug>/`, and that address opens a page
(HTML for a person, JSON for a program) saying what the problem means and what to do about it.
Every slug the code uses is registered here; a test walks the code to hold it to that.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

from django.conf import settings
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.utils.html import format_html, format_html_join
from django.views.decorators.http import require_safe


@dataclass(frozen=True)
class ProblemType:
    title: str
    status: int  # the status it usually comes with
    description: str
    what_to_do: str


PROBLEM_TYPES: dict[str, ProblemType] = {
    "validation-error": ProblemType(
        "The request has invalid fields",
        400,
        "One or more fields of the request are missing or hold a value the API cannot take. "
        "The problem's errors list names each field, with a code and a message.",
        "Correct the fields it names and send the request again.",
    ),
    "malformed-request": ProblemType(
        "The request body could not be read",
        400,
        "The body is not valid JSON, or it is nested deeper than any request needs.",
        "Send a JSON object, encoded as UTF-8, with Content-Type: application/json.",
    ),
    "bad-request": ProblemType(
        "Bad request",
        400,
        "The request could not be understood: for example, its Host header is not one the "
        "service answers to.",
        "Check the address and the headers you send.",
    ),
    "invalid-credentials": ProblemType(
        "Wrong username or password",
        400,
        "The username and password do not match an account.",
        "Check both and try again. After several tries, wait a minute before the next.",
    ),
    "wrong-password": ProblemType(
        "Wrong password",
        400,
        "The password given to confirm a change is not the account's password, so nothing "
        "was changed.",
        "Type the password you sign in with.",
    ),
    "export-expired": ProblemType(
        "This export has expired",
        410,
        "The link to a prepared export lasts a day, and the file is deleted after it.",
        "Ask for a new export: POST /api/v1/me/export/, or Settings, Export in the web app.",
    ),
    "not-authenticated": ProblemType(
        "Authentication required",
        401,
        "The request carries no valid token or session: it is missing, expired or revoked.",
        "Sign in again (POST /api/v1/auth/login/) and send the new token as "
        "Authorization: Token <key>.",
    ),
    "forbidden": ProblemType(
        "Not allowed",
        403,
        "You are signed in, but this is not yours to do: only a classroom's teacher can change "
        "it, for example.",
        "Ask the person who owns it, or use an account that may do it.",
    ),
    "pro-required": ProblemType(
        "This is part of Pro",
        403,
        "What you asked for is open to learners on the Pro plan.",
        "Upgrade to Pro, or carry on with the free lessons and questions.",
    ),
    "csrf-failed": ProblemType(
        "CSRF check failed",
        403,
        "A request made with a browser session did not carry the CSRF token, so it was refused "
        "in case another site sent it.",
        "Read the csrftoken cookie (GET /api/v1/auth/csrf/ sets it) and send its value in the "
        "X-CSRFToken header.",
    ),
    "not-found": ProblemType(
        "Not found",
        404,
        "There is nothing at this address, or it belongs to someone else (which the API does "
        "not confirm).",
        "Check the address and the id or slug in it. API paths end in '/'.",
    ),
    "nothing-to-undo": ProblemType(
        "Nothing to undo",
        404,
        "You have no review left to take back.",
        "Nothing: your cards are as they were.",
    ),
    "method-not-allowed": ProblemType(
        "Method not allowed",
        405,
        "This address does not answer the HTTP method used.",
        "Use one of the methods in the Allow header.",
    ),
    "not-acceptable": ProblemType(
        "Cannot produce the requested format",
        406,
        "The Accept header asks for a format this address does not produce.",
        "Accept application/json (and text/csv where a spreadsheet is offered).",
    ),
    "conflict": ProblemType(
        "The request conflicts with what is stored",
        409,
        "Something this request would record is recorded already: an answer with the same "
        "client_id, for example.",
        "Use a new client_id or idempotency key for a new answer; a repeat is not counted again.",
    ),
    "request-in-progress": ProblemType(
        "The same request is still in progress",
        409,
        "A request with this idempotency key is still being processed.",
        "Wait a moment and send it again with the same key: you will get the first response.",
    ),
    "body-too-large": ProblemType(
        "The request body is too large",
        413,
        "The body is larger than the API accepts in one request.",
        "Send less at a time: an offline sync, for example, in batches of at most 1,000 reviews.",
    ),
    "unsupported-media-type": ProblemType(
        "Unsupported media type",
        415,
        "The body is not JSON.",
        "Send JSON with Content-Type: application/json.",
    ),
    "unprocessable": ProblemType(
        "The request could not be processed",
        422,
        "The request is well formed but cannot be acted on as it stands.",
        "Read the problem's detail and errors, change what they name, and send it again.",
    ),
    "unreadable-number": ProblemType(
        "The answer could not be read as a number",
        422,
        "The typed answer is not one number. Nothing was graded and no schedule changed.",
        "Type one number, as you would write it: 8000000, 8,000,000, 8e6, 8 million or 7/10.",
    ),
    "idempotency-key-reused": ProblemType(
        "Idempotency key reused",
        422,
        "This idempotency key (or client_id) was already used for a different request.",
        "Use a new key for a new request; repeat a key only to repeat the same request.",
    ),
    "too-many-requests": ProblemType(
        "Too many requests",
        429,
        "You have sent more requests of this kind than the limit allows for now.",
        "Wait the number of seconds in the Retry-After header, then try again.",
    ),
    "too-many-failed-sign-ins": ProblemType(
        "Too many failed sign-ins",
        429,
        "Sign-in for this username failed too many times in a row, from wherever it was tried, "
        "so it is refused for a while, even with the right password. The same happens for a "
        "name that belongs to nobody, so this says nothing about whether an account exists.",
        "Wait the seconds the Retry-After header gives, then sign in with the right password.",
    ),
    "server-error": ProblemType(
        "Something went wrong on our side",
        500,
        "The service failed to answer. The error has been logged for us to fix.",
        "Try again in a moment; if it keeps happening, report it.",
    ),
    "service-unavailable": ProblemType(
        "The service is briefly unavailable",
        503,
        "The service cannot reach its database just now.",
        "Wait the number of seconds in the Retry-After header, then try again. Answers sent "
        "with an idempotency key or client_id are never counted twice.",
    ),
    "billing-not-configured": ProblemType(
        "Billing is not set up here",
        503,
        "This Residual takes no payments: it has no Stripe keys. Pro comes from a licence "
        "code, a class with Pro seats, or the people who run it.",
        "Redeem a licence code (POST /api/v1/licences/redeem/) or ask whoever runs this site.",
    ),
    "billing-unavailable": ProblemType(
        "The payment provider did not answer",
        502,
        "Stripe could not be reached or refused the request, so no checkout or portal page "
        "was made. Nothing was charged and nothing changed.",
        "Try again in a minute.",
    ),
    "bad-signature": ProblemType(
        "The event's signature does not check out",
        400,
        "A billing event must carry Stripe's signature of its exact body, made with this "
        "site's webhook secret in the last five minutes. This one did not, so it was ignored.",
        "Send events from Stripe itself, to the endpoint its dashboard names.",
    ),
    "licence-refused": ProblemType(
        "The licence code gives nothing",
        400,
        "The code is not one of ours, has been used already, or has expired; errors names "
        "which, with the field `code`.",
        "Check the code as it was printed (dashes and case do not matter); a used or expired "
        "code needs a new one from whoever gave it to you.",
    ),
    "code-unavailable": ProblemType(
        "Code cannot be run here just now",
        503,
        "A learner's code runs only inside a sandbox (bubblewrap). This server has none that "
        "works, so no code was stored or run; detail says why.",
        "Try again later, or tell whoever runs this site: the sandbox needs Debian's "
        "bubblewrap package and user or mount namespaces.",
    ),
    "error": ProblemType(
        "Request failed",
        400,
        "The request failed for a reason without a kind of its own.",
        "Read the problem's detail for what went wrong.",
    ),
}


def type_uri(slug: str) -> str:
    """The absolute address naming a kind of problem, which opens its page."""
    return f"{settings.SITE_URL.rstrip('/')}/problems/{slug}/"


def _wants_json(request: HttpRequest) -> bool:
    return request.get_preferred_type(["text/html", "application/json"]) == "application/json"


def _page(title: str, body: str) -> HttpResponse:
    # No script and no inline style: the page is plain, readable HTML.
    return HttpResponse(
        format_html(
            '<!doctype html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
            '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
            "<title>{} · Residual API</title>\n</head>\n<body>\n<main>\n{}</main>\n"
            "</body>\n</html>\n",
            title,
            body,
        )
    )


@require_safe
def problem_type_detail(request: HttpRequest, slug: str) -> HttpResponse:
    kind = PROBLEM_TYPES.get(slug)
    if kind is None:
        raise Http404(f"No problem type {slug!r}")
    if _wants_json(request):
        return JsonResponse({"type": type_uri(slug), **asdict(kind)})
    body = format_html(
        "<h1>{}</h1>\n<p>Usually sent with HTTP status {}.</p>\n<p>{}</p>\n"
        "<h2>What to do</h2>\n<p>{}</p>\n"
        '<p><a href="{}">Every kind of problem the API reports</a></p>\n',
        kind.title,
        kind.status,
        kind.description,
        kind.what_to_do,
        "../",
    )
    return _page(kind.title, body)


@require_safe
def problem_type_index(request: HttpRequest) -> HttpResponse:
    if _wants_json(request):
        return JsonResponse(
            {"results": [{"type": type_uri(s), **asdict(k)} for s, k in PROBLEM_TYPES.items()]}
        )
    items = format_html_join(
        "\n",
        '<li><a href="{}/">{}</a> ({})</li>',
        ((slug, kind.title, kind.status) for slug, kind in PROBLEM_TYPES.items()),
    )
    body = format_html(
        "<h1>Problems the API reports</h1>\n<p>Each error the Residual API sends is a problem "
        "document whose <code>type</code> is one of these addresses.</p>\n<ul>\n{}\n</ul>\n",
        items,
    )
    return _page("Problems the API reports", body)

"""Variant tokens: which generated variant a learner was shown, signed by the server.

A token names the user, the question and the seed, and carries its signing time; it is refused
for another user or question, when tampered with, or after `VARIANT_TOKEN_MAX_AGE` (long enough
for a review made offline and synced later).
"""

from __future__ import annotations

import secrets

from django.conf import settings
from django.core import signing

from engine import Variant, get_family
from engine.generators import MAX_SEED
from quizzes.errors import invalid_variant
from quizzes.models import Question

_SALT = "residual.quizzes.variant"


def fresh_seed() -> int:
    return secrets.randbelow(MAX_SEED + 1)


def variant_for(question: Question, seed: int) -> Variant:
    return get_family(question.generator).variant(seed)


def variant_token(*, user_id: int, question_id: int, seed: int) -> str:
    return signing.dumps({"u": user_id, "q": question_id, "s": seed}, salt=_SALT, compress=True)


def variant_seed(*, token: str, user_id: int, question_id: int) -> int:
    """The seed inside a valid token; `AnswerRefused` (400, field `variant`) otherwise."""
    try:
        claims = signing.loads(token, salt=_SALT, max_age=settings.VARIANT_TOKEN_MAX_AGE)
    except signing.SignatureExpired:
        raise invalid_variant(
            "This variant has expired. Load the question again for a fresh one."
        ) from None
    except signing.BadSignature:
        raise invalid_variant("This variant token is not one the server issued.") from None
    if not isinstance(claims, dict) or claims.get("u") != user_id or claims.get("q") != question_id:
        raise invalid_variant("This variant was issued for another question or learner.")
    seed = claims.get("s")
    if not isinstance(seed, int) or not 0 <= seed <= MAX_SEED:
        raise invalid_variant("This variant token is not one the server issued.")
    return seed

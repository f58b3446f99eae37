"""Variant tokens: what the server served a learner, signed, to come back with the answer.

A generated question's token names its seed; a choice question's names the order its choices
were shown in. Every token carries a nonce, its identity, so an answer given to it is
recognised when the same token comes back, and says whether the server chose the seed (a seed
the learner picked with `?seed=` reproduces a variant whose answer they may have read). It is
refused for another user or question, when tampered with, or after `VARIANT_TOKEN_MAX_AGE`
(long enough for a review made offline and synced later).
"""

from __future__ import annotations

import secrets
from collections.abc import Sequence
from dataclasses import dataclass

from django.conf import settings
from django.core import signing

from engine import Variant, get_family
from engine.generators import MAX_SEED
from quizzes.errors import invalid_variant
from quizzes.models import Question

_SALT = "residual.quizzes.variant"
_FORGED = "This variant token is not one the server issued."


@dataclass(frozen=True)
class Served:
    """What a valid token says was served: a generated variant's seed, or the order of a
    choice question's choices (their ids); its nonce; whether the server chose it."""

    nonce: str
    server_chosen: bool
    seed: int | None = None
    order: tuple[int, ...] | None = None


def fresh_seed() -> int:
    return secrets.randbelow(MAX_SEED + 1)


def shuffled(choice_ids: Sequence[int]) -> list[int]:
    """The choices in an order drawn afresh by the server, so position says nothing."""
    order = list(choice_ids)
    secrets.SystemRandom().shuffle(order)
    return order


def variant_for(question: Question, seed: int) -> Variant:
    return get_family(question.generator).variant(seed)


def variant_token(
    *,
    user_id: int,
    question_id: int,
    seed: int | None = None,
    order: Sequence[int] | None = None,
    server_chosen: bool = False,
) -> str:
    """A signed token for what was served. Only the server's own choices count for review, so
    a token says it was chosen by the server only when asked to."""
    claims: dict[str, object] = {
        "u": user_id,
        "q": question_id,
        "n": secrets.token_urlsafe(9),
        "c": int(server_chosen),
    }
    if seed is not None:
        claims["s"] = seed
    if order is not None:
        claims["o"] = list(order)
    return signing.dumps(claims, salt=_SALT, compress=True)


def served_variant(*, token: str, user_id: int, question_id: int) -> Served:
    """What a valid token says was served; `AnswerRefused` (400, field `variant`) otherwise."""
    try:
        claims = signing.loads(token, salt=_SALT, max_age=settings.VARIANT_TOKEN_MAX_AGE)
    except signing.SignatureExpired:
        raise invalid_variant(
            "This variant has expired. Load the question again for a fresh one."
        ) from None
    except signing.BadSignature:
        raise invalid_variant(_FORGED) from None
    if not isinstance(claims, dict) or claims.get("u") != user_id or claims.get("q") != question_id:
        raise invalid_variant("This variant was issued for another question or learner.")
    seed, order = claims.get("s"), claims.get("o")
    if seed is not None and not (isinstance(seed, int) and 0 <= seed <= MAX_SEED):
        raise invalid_variant(_FORGED)
    if order is not None and not (
        isinstance(order, list) and all(isinstance(i, int) and i > 0 for i in order)
    ):
        raise invalid_variant(_FORGED)
    nonce = claims.get("n")
    return Served(
        # A token from before tokens had nonces never counts as the server's choice.
        nonce=nonce if isinstance(nonce, str) else "",
        server_chosen=claims.get("c") == 1 and isinstance(nonce, str),
        seed=seed,
        order=None if order is None else tuple(order),
    )

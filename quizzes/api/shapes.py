"""Questions as learners see them before answering: nothing that gives the answer away."""

from typing import Any

from course import markdown
from quizzes.coding import coding_shape
from quizzes.models import Question
from quizzes.variants import fresh_seed, shuffled, variant_for, variant_token


def question_summary(question: Question) -> dict[str, Any]:
    return {
        "id": question.pk,
        "key": question.key,
        "kind": question.kind,
        "topic": question.topic,
        "difficulty": question.difficulty,
        "lesson": question.lesson.slug if question.lesson else None,
        "section": question.section.slug if question.section else None,
        "category": question.category.slug if question.category else None,
        "level": question.level or None,
        "interview": question.interview or question.in_bank,
        "generator": question.generator or None,
        "version": question.version,
        "prompt_html": question.prompt_html,
    }


def question_detail(question: Question, *, user_id: int, seed: int | None = None) -> dict[str, Any]:
    """The question with its choices (no verdicts) or a variant (no answer), ready to answer.

    A generated question's variant is one the server picks, unless `seed` names one (to
    practise or share a worked example; answers to it count as practice). A choice question's
    choices come in an order the server draws, kept in its variant's token.
    """
    shape = question_summary(question)
    if question.is_choice:
        choices = {c.pk: c for c in question.choices.all()}
        order = shuffled(list(choices))
        shape["choices"] = [{"id": pk, "text_html": choices[pk].text_html} for pk in order]
        shape["variant"] = {
            "token": variant_token(
                user_id=user_id, question_id=question.pk, order=order, server_chosen=True
            ),
            "seed": None,
            "prompt_html": question.prompt_html,
            "data": {},
        }
    if question.kind == Question.Kind.CODE:
        shape["code"] = coding_shape(question)
    if question.is_generated:
        chosen = seed is None
        seed = fresh_seed() if seed is None else seed
        variant = variant_for(question, seed)
        shape["variant"] = {
            "token": variant_token(
                user_id=user_id, question_id=question.pk, seed=seed, server_chosen=chosen
            ),
            "seed": str(seed),
            "prompt_html": markdown.render(variant.prompt),
            "data": variant.data,
        }
    return shape

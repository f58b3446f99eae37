"""Questions as learners see them before answering: nothing that gives the answer away."""

from typing import Any

from course import markdown
from quizzes.models import Question
from quizzes.variants import fresh_seed, variant_for, variant_token


def question_summary(question: Question) -> dict[str, Any]:
    return {
        "id": question.pk,
        "key": question.key,
        "kind": question.kind,
        "topic": question.topic,
        "difficulty": question.difficulty,
        "lesson": question.lesson.slug,
        "section": question.section.slug,
        "interview": question.interview,
        "generator": question.generator or None,
        "version": question.version,
        "prompt_html": question.prompt_html,
    }


def question_detail(question: Question, *, user_id: int, seed: int | None = None) -> dict[str, Any]:
    """The question with its choices (no verdicts) or a variant (no answer), ready to answer."""
    shape = question_summary(question)
    if question.is_choice:
        shape["choices"] = [{"id": c.pk, "text_html": c.text_html} for c in question.choices.all()]
    if question.is_generated:
        seed = fresh_seed() if seed is None else seed
        variant = variant_for(question, seed)
        shape["variant"] = {
            "token": variant_token(user_id=user_id, question_id=question.pk, seed=seed),
            "seed": seed,
            "prompt_html": markdown.render(variant.prompt),
            "data": variant.data,
        }
    return shape

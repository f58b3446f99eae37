"""Prints the interview bank as loaded: questions per category and level, numeric ones, and
the totals, as a table.

    python manage.py bank_stats
"""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand
from django.db.models import Count, Q

from quizzes import interview
from quizzes.models import Level, Question


class Command(BaseCommand):
    help = "Counts the interview bank's questions by category and level."

    def handle(self, *args: Any, **options: Any) -> None:
        rows = interview.categories()
        numeric = dict(
            Question.objects.interview_bank()
            .values("category_id")
            .annotate(n=Count("pk", filter=Q(kind=Question.Kind.NUMERIC)))
            .values_list("category_id", "n")
        )
        last = f"all {len(rows)} categories"
        width = max([len(last), *(len(r.category.title) for r in rows)])
        head = f"{'category':<{width}}  " + "  ".join(f"{lv:>6}" for lv in Level.values)
        self.stdout.write(head + f"  {'total':>6}  {'numeric':>7}")
        self.stdout.write("-" * (len(head) + 17))
        for row in rows:
            counts = "  ".join(f"{row.counts[lv]:>6}" for lv in Level.values)
            self.stdout.write(
                f"{row.category.title:<{width}}  {counts}  {row.total:>6}  "
                f"{numeric.get(row.category.pk, 0):>7}"
            )
        self.stdout.write("-" * (len(head) + 17))
        totals = "  ".join(f"{sum(r.counts[lv] for r in rows):>6}" for lv in Level.values)
        self.stdout.write(
            f"{last:<{width}}  {totals}  "
            f"{sum(r.total for r in rows):>6}  {sum(numeric.values()):>7}"
        )

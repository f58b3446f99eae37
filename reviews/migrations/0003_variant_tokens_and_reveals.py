"""Answers keep the identity of the variant token they answered and why they counted as they
did; reveals (a learner looking at an answer first) are recorded, and a card remembers the
reveal its next review follows."""

import django.db.models.deletion
import django.utils.timezone
from django.conf import settings
from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ("quizzes", "0007_learner_state_moves_to_reviews"),
        ("reviews", "0002_answer_received_at"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.AddField(
            model_name="answer",
            name="notice",
            field=models.CharField(
                blank=True,
                choices=[
                    ("seed_chosen", "The learner picked the variant's seed: practice"),
                    ("variant_answered", "The variant was answered before: practice"),
                    ("answer_revealed", "The answer was looked at first: Again"),
                ],
                max_length=16,
            ),
        ),
        migrations.AddField(
            model_name="answer",
            name="variant_nonce",
            field=models.CharField(
                blank=True, help_text="The identity of the variant token answered.", max_length=16
            ),
        ),
        migrations.CreateModel(
            name="Reveal",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                (
                    "variant_seed",
                    models.PositiveBigIntegerField(
                        blank=True,
                        help_text="The generated variant whose answer was shown.",
                        null=True,
                    ),
                ),
                ("created_at", models.DateTimeField(default=django.utils.timezone.now)),
                (
                    "question",
                    models.ForeignKey(
                        db_index=False,
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="reveals",
                        to="quizzes.question",
                    ),
                ),
                (
                    "user",
                    models.ForeignKey(
                        db_index=False,
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="reveals",
                        to=settings.AUTH_USER_MODEL,
                    ),
                ),
            ],
            options={
                "indexes": [
                    models.Index(fields=["user", "question"], name="reveal_user_question")
                ],
            },
        ),
        migrations.AddField(
            model_name="answer",
            name="reveal",
            field=models.ForeignKey(
                blank=True,
                db_index=False,
                help_text="The reveal this answer followed.",
                null=True,
                on_delete=django.db.models.deletion.SET_NULL,
                related_name="answers",
                to="reviews.reveal",
            ),
        ),
        migrations.AddField(
            model_name="card",
            name="pending_reveal",
            field=models.ForeignKey(
                blank=True,
                db_index=False,
                help_text="The learner looked at the answer since their last review of this card.",
                null=True,
                on_delete=django.db.models.deletion.SET_NULL,
                related_name="+",
                to="reviews.reveal",
            ),
        ),
        migrations.AddIndex(
            model_name="answer",
            index=models.Index(
                condition=models.Q(("reveal__isnull", False)),
                fields=["reveal"],
                name="answer_reveal",
            ),
        ),
        migrations.AddIndex(
            model_name="answer",
            index=models.Index(
                condition=models.Q(("variant_nonce", ""), _negated=True),
                fields=["user", "variant_nonce"],
                name="answer_user_variant",
            ),
        ),
        migrations.AddIndex(
            model_name="card",
            index=models.Index(
                condition=models.Q(("pending_reveal__isnull", False)),
                fields=["pending_reveal"],
                name="card_pending_reveal",
            ),
        ),
        migrations.AddConstraint(
            model_name="answer",
            constraint=models.UniqueConstraint(
                condition=models.Q(("mode", "review"), models.Q(("variant_nonce", ""), _negated=True)),
                fields=("user", "variant_nonce"),
                name="answer_variant_reviewed_once",
            ),
        ),
        migrations.AddConstraint(
            model_name="answer",
            constraint=models.UniqueConstraint(
                condition=models.Q(("mode", "review"), ("reveal__isnull", False)),
                fields=("reveal",),
                name="answer_reveal_reviewed_once",
            ),
        ),
    ]

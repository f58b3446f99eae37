"""Practising the interview bank: a card and study days with no lesson or course (the bank's),
the key points an answer covered, and mock interviews.

SQLite alters a column by making the table again, which drops its triggers: the card table's
due-slot triggers (0007) are made again after its lesson becomes optional. Its counts were
copied with the rows, so they stand."""

import importlib

import django.db.models.deletion
import django.utils.timezone
from django.conf import settings
from django.db import migrations, models


due_slots = importlib.import_module("reviews.migrations.0007_due_slots")


def sqlite_triggers_again(apps, schema_editor):
    if schema_editor.connection.vendor != "sqlite":
        return
    for statement in due_slots.SQLITE:
        if statement.startswith("CREATE TRIGGER"):
            schema_editor.execute(
                statement.replace("CREATE TRIGGER", "CREATE TRIGGER IF NOT EXISTS")
            )


class Migration(migrations.Migration):
    dependencies = [
        ("course", "0005_content_revision"),
        ("quizzes", "0011_interview_search"),
        ("reviews", "0008_card_recall_sample"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        # Taken back, the card table is made again too: its triggers are made once it is.
        migrations.RunPython(migrations.RunPython.noop, sqlite_triggers_again),
        migrations.CreateModel(
            name="MockInterview",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                (
                    "level",
                    models.CharField(
                        blank=True,
                        choices=[("junior", "Junior"), ("mid", "Mid-level"), ("senior", "Senior")],
                        help_text="Blank: every level.",
                        max_length=8,
                    ),
                ),
                (
                    "categories",
                    models.JSONField(
                        blank=True,
                        default=list,
                        help_text="The categories' slugs; empty: every category.",
                    ),
                ),
                ("created_at", models.DateTimeField(default=django.utils.timezone.now)),
                ("finished_at", models.DateTimeField(blank=True, null=True)),
            ],
        ),
        migrations.CreateModel(
            name="MockQuestion",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("position", models.PositiveSmallIntegerField()),
                ("shown_at", models.DateTimeField(blank=True, null=True)),
            ],
            options={
                "ordering": ["mock", "position"],
            },
        ),
        migrations.AddField(
            model_name="answer",
            name="covered_key_points",
            field=models.JSONField(
                blank=True,
                help_text="An interview question's key points the learner said they covered (their places in its list, from 0); null where they were not asked.",
                null=True,
            ),
        ),
        migrations.AlterField(
            model_name="card",
            name="lesson",
            field=models.ForeignKey(
                blank=True,
                db_index=False,
                null=True,
                on_delete=django.db.models.deletion.CASCADE,
                related_name="+",
                to="course.lesson",
            ),
        ),
        migrations.AlterField(
            model_name="studyday",
            name="course",
            field=models.ForeignKey(
                blank=True,
                help_text="None: the interview bank, which is in no course.",
                null=True,
                on_delete=django.db.models.deletion.CASCADE,
                related_name="+",
                to="course.course",
            ),
        ),
        migrations.AlterField(
            model_name="studytotal",
            name="course",
            field=models.ForeignKey(
                blank=True,
                help_text="None: the interview bank, which is in no course.",
                null=True,
                on_delete=django.db.models.deletion.CASCADE,
                related_name="+",
                to="course.course",
            ),
        ),
        migrations.AddConstraint(
            model_name="studyday",
            constraint=models.UniqueConstraint(
                condition=models.Q(("course__isnull", True)),
                fields=("user", "day"),
                name="study_day_bank_once",
            ),
        ),
        migrations.AddConstraint(
            model_name="studytotal",
            constraint=models.UniqueConstraint(
                condition=models.Q(("course__isnull", True)),
                fields=("user",),
                name="study_total_bank_once",
            ),
        ),
        migrations.AddField(
            model_name="mockinterview",
            name="user",
            field=models.ForeignKey(
                db_index=False,
                on_delete=django.db.models.deletion.CASCADE,
                related_name="mock_interviews",
                to=settings.AUTH_USER_MODEL,
            ),
        ),
        migrations.AddField(
            model_name="mockquestion",
            name="answer",
            field=models.OneToOneField(
                blank=True,
                null=True,
                on_delete=django.db.models.deletion.SET_NULL,
                related_name="mock_question",
                to="reviews.answer",
            ),
        ),
        migrations.AddField(
            model_name="mockquestion",
            name="mock",
            field=models.ForeignKey(
                on_delete=django.db.models.deletion.CASCADE,
                related_name="questions",
                to="reviews.mockinterview",
            ),
        ),
        migrations.AddField(
            model_name="mockquestion",
            name="question",
            field=models.ForeignKey(
                on_delete=django.db.models.deletion.CASCADE, related_name="+", to="quizzes.question"
            ),
        ),
        migrations.AddIndex(
            model_name="mockinterview",
            index=models.Index(fields=["user", "-created_at"], name="mock_user_newest"),
        ),
        migrations.AddConstraint(
            model_name="mockquestion",
            constraint=models.UniqueConstraint(
                fields=("mock", "position"), name="mock_question_place"
            ),
        ),
        migrations.AddConstraint(
            model_name="mockquestion",
            constraint=models.UniqueConstraint(
                fields=("mock", "question"), name="mock_question_once"
            ),
        ),
        migrations.RunPython(sqlite_triggers_again, migrations.RunPython.noop),
    ]

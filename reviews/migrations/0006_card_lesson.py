import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("course", "0005_content_revision"),
        ("reviews", "0005_study_rollups"),
    ]

    operations = [
        migrations.AddField(
            model_name="card",
            name="lesson",
            field=models.ForeignKey(
                db_index=False,
                null=True,
                on_delete=django.db.models.deletion.CASCADE,
                related_name="+",
                to="course.lesson",
            ),
        ),
        migrations.RunSQL(
            "UPDATE reviews_card SET lesson_id = (SELECT lesson_id FROM quizzes_question "
            "WHERE quizzes_question.id = reviews_card.question_id)",
            migrations.RunSQL.noop,
        ),
        migrations.AlterField(
            model_name="card",
            name="lesson",
            field=models.ForeignKey(
                db_index=False,
                on_delete=django.db.models.deletion.CASCADE,
                related_name="+",
                to="course.lesson",
            ),
        ),
        migrations.AddIndex(
            model_name="card",
            index=models.Index(
                condition=models.Q(("suspended", False), models.Q(("state", "new"), _negated=True)),
                fields=["user", "lesson", "due", "id"],
                name="card_due_by_lesson",
            ),
        ),
        migrations.AddIndex(
            model_name="card",
            index=models.Index(
                condition=models.Q(("state", "new"), ("suspended", False)),
                fields=["user", "lesson", "position", "question"],
                name="card_new_by_lesson",
            ),
        ),
    ]

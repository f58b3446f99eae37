"""Every question belongs to a section of its lesson: a question is Pro when its section is.

Existing questions get a section before the column becomes required: the first section of their
lesson that has the lesson's own access, so a Pro lesson's questions stay Pro until the content
is loaded again and names each question's section. A lesson without sections gets an archived
one to hold its questions. The next migration makes the section required (a separate step, so
PostgreSQL has no pending row updates when the column changes).
"""

import django.db.models.deletion
from django.db import migrations, models


def place_in_sections(apps, schema_editor):
    question_model = apps.get_model("quizzes", "Question")
    section_model = apps.get_model("course", "Section")
    chosen = {}
    for question in question_model.objects.filter(section__isnull=True).select_related("lesson"):
        lesson = question.lesson
        if lesson.pk not in chosen:
            sections = section_model.objects.filter(lesson=lesson).order_by(
                "archived_at", "position", "pk"
            )
            section = sections.filter(access=lesson.access).first() or sections.first()
            if section is None:
                section = section_model.objects.create(
                    lesson=lesson,
                    slug="questions",
                    position=0,
                    title="Questions",
                    access=lesson.access,
                    body_markdown="",
                    body_html="",
                    archived_at=lesson.updated_at,
                )
            chosen[lesson.pk] = section
        question.section = chosen[lesson.pk]
        question.save(update_fields=["section"])


class Migration(migrations.Migration):
    dependencies = [
        ("course", "0003_classrooms_move_to_classrooms"),
        ("quizzes", "0007_learner_state_moves_to_reviews"),
    ]

    operations = [
        migrations.AddField(
            model_name="question",
            name="section",
            field=models.ForeignKey(
                null=True,
                on_delete=django.db.models.deletion.PROTECT,
                related_name="questions",
                to="course.section",
            ),
        ),
        migrations.RunPython(place_in_sections, migrations.RunPython.noop),
    ]

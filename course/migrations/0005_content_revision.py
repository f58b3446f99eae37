"""The content revision: one row, a new random stamp with every change to the content
(`course.revisions`)."""

from django.db import migrations, models


def first_revision(apps, schema_editor):  # type: ignore[no-untyped-def]
    apps.get_model("course", "ContentRevision").objects.get_or_create(pk=1)


class Migration(migrations.Migration):
    dependencies = [
        ("course", "0004_progress_started_at_is_the_request_time"),
    ]

    operations = [
        migrations.CreateModel(
            name="ContentRevision",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("stamp", models.PositiveBigIntegerField(default=0)),
            ],
        ),
        migrations.RunPython(first_revision, migrations.RunPython.noop),
    ]

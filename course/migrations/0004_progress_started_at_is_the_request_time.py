"""A lesson's progress starts at the time of the request that starts it (set by the service)
instead of when the row happens to be written, so a first completion is never before it."""

import django.utils.timezone
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("course", "0003_classrooms_move_to_classrooms"),
    ]

    operations = [
        migrations.AlterField(
            model_name="lessonprogress",
            name="started_at",
            field=models.DateTimeField(default=django.utils.timezone.now),
        ),
    ]

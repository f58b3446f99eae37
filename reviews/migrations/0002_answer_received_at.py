"""Every answer records when the server received it. Answers given before are taken to have
been received when they were given, which holds for all but offline reviews."""

import django.utils.timezone
from django.db import migrations, models


def received_when_given(apps, schema_editor):
    answer = apps.get_model("reviews", "Answer")
    answer.objects.update(received_at=models.F("created_at"))


class Migration(migrations.Migration):

    dependencies = [
        ("reviews", "0001_initial"),
    ]

    operations = [
        migrations.AddField(
            model_name="answer",
            name="received_at",
            field=models.DateTimeField(null=True),
        ),
        migrations.RunPython(received_when_given, migrations.RunPython.noop, elidable=True),
        migrations.AlterField(
            model_name="answer",
            name="received_at",
            field=models.DateTimeField(default=django.utils.timezone.now),
        ),
        migrations.AddIndex(
            model_name="answer",
            index=models.Index(
                condition=models.Q(("mode", "review")),
                fields=["user", "received_at"],
                name="answer_user_received",
            ),
        ),
    ]

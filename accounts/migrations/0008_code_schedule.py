"""Installs the schedules added since 0004 (config/schedules.py: the sweep that sends again
coding submissions left waiting); existing ones stay as staff set them."""

from django.db import migrations


def install(apps, schema_editor):
    from config import schedules

    schedules.install(apps)


class Migration(migrations.Migration):
    dependencies = [
        ("accounts", "0007_pro_grants"),
        ("django_celery_beat", "0019_alter_periodictasks_options"),
    ]

    operations = [migrations.RunPython(install, migrations.RunPython.noop)]

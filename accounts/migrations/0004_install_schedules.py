from django.db import migrations


def install(apps, schema_editor):
    from config import schedules

    schedules.install(apps)


class Migration(migrations.Migration):
    dependencies = [
        ("accounts", "0003_notifications"),
        ("django_celery_beat", "0019_alter_periodictasks_options"),
    ]

    operations = [migrations.RunPython(install, migrations.RunPython.noop)]

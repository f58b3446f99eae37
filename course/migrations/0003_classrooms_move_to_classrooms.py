"""Classrooms, memberships and assignments move to the `classrooms` app.

Their tables are renamed and their rows, keys, indexes and constraints kept; the models leave
this app's state here and enter `classrooms`' in its first migration.
"""

from django.db import migrations

MOVED = ["assignment", "membership", "classroom"]


class Migration(migrations.Migration):
    dependencies = [
        ("course", "0002_classrooms"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            database_operations=[
                *(migrations.AlterModelTable(model, f"classrooms_{model}") for model in MOVED),
                # The two indexes named after their table are named after the new one.
                migrations.RenameIndex(
                    "classroom",
                    new_name="classrooms__teacher_d08762_idx",
                    old_name="course_clas_teacher_370818_idx",
                ),
                migrations.RenameIndex(
                    "assignment",
                    new_name="classrooms__classro_2df28c_idx",
                    old_name="course_assi_classro_11cdae_idx",
                ),
            ],
            state_operations=[
                migrations.RemoveField("classroom", "members"),
                *(migrations.DeleteModel(model) for model in MOVED),
            ],
        ),
    ]

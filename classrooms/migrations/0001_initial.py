import classrooms.models
import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models

from config.moves import content_types_move

# The models came from `course` with their tables (renamed there); only the state is made here.
MOVED = ["classroom", "membership", "assignment"]


class Migration(migrations.Migration):

    initial = True

    dependencies = [
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
        ('course', '0003_classrooms_move_to_classrooms'),
        ('contenttypes', '0002_remove_content_type_name'),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(state_operations=[
            migrations.CreateModel(
                name='Classroom',
                fields=[
                    ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                    ('name', models.CharField(max_length=120)),
                    ('join_code', models.CharField(default=classrooms.models.new_join_code, max_length=16, unique=True)),
                    ('created_at', models.DateTimeField(auto_now_add=True)),
                    ('course', models.ForeignKey(on_delete=django.db.models.deletion.PROTECT, related_name='classrooms', to='course.course')),
                    ('teacher', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='classrooms_taught', to=settings.AUTH_USER_MODEL)),
                ],
                options={
                    'ordering': ['-created_at', '-pk'],
                },
            ),
            migrations.CreateModel(
                name='Membership',
                fields=[
                    ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                    ('joined_at', models.DateTimeField(auto_now_add=True)),
                    ('classroom', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='memberships', to='classrooms.classroom')),
                    ('user', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='memberships', to=settings.AUTH_USER_MODEL)),
                ],
                options={
                    'ordering': ['classroom', 'joined_at', 'pk'],
                },
            ),
            migrations.AddField(
                model_name='classroom',
                name='members',
                field=models.ManyToManyField(blank=True, related_name='classrooms', through='classrooms.Membership', to=settings.AUTH_USER_MODEL),
            ),
            migrations.CreateModel(
                name='Assignment',
                fields=[
                    ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                    ('title', models.CharField(max_length=200)),
                    ('question_ids', models.JSONField(blank=True, default=list)),
                    ('due_at', models.DateTimeField()),
                    ('created_at', models.DateTimeField(auto_now_add=True)),
                    ('lesson', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.PROTECT, related_name='assignments', to='course.lesson')),
                    ('classroom', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='assignments', to='classrooms.classroom')),
                ],
                options={
                    'ordering': ['due_at', 'pk'],
                    'indexes': [models.Index(fields=['classroom', 'due_at'], name='classrooms__classro_2df28c_idx')],
                },
            ),
            migrations.AddConstraint(
                model_name='membership',
                constraint=models.UniqueConstraint(fields=('classroom', 'user'), name='membership_once'),
            ),
            migrations.AddIndex(
                model_name='classroom',
                index=models.Index(fields=['teacher', 'created_at'], name='classrooms__teacher_d08762_idx'),
            ),
        ]),
        migrations.RunPython(*content_types_move('course', 'classrooms', MOVED)),
    ]

import django.db.models.deletion
import django.utils.timezone
from django.conf import settings
from django.db import migrations, models

from config.moves import content_types_move

# The models came from `quizzes` with their tables (renamed there); only the state is made here.
MOVED = ["card", "answer", "deck", "idempotencyrecord"]


class Migration(migrations.Migration):

    initial = True

    dependencies = [
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
        ('quizzes', '0007_learner_state_moves_to_reviews'),
        ('contenttypes', '0002_remove_content_type_name'),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(state_operations=[
            migrations.CreateModel(
                name='Deck',
                fields=[
                    ('user', models.OneToOneField(on_delete=django.db.models.deletion.CASCADE, primary_key=True, related_name='deck', serialize=False, to=settings.AUTH_USER_MODEL)),
                    ('revision', models.PositiveBigIntegerField()),
                    ('questions_through', models.PositiveBigIntegerField()),
                    ('built_at', models.DateTimeField()),
                ],
            ),
            migrations.CreateModel(
                name='Card',
                fields=[
                    ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                    ('state', models.CharField(choices=[('new', 'New'), ('learning', 'Learning'), ('review', 'Review'), ('relearning', 'Relearning')], default='new', max_length=12)),
                    ('step', models.PositiveSmallIntegerField(blank=True, null=True)),
                    ('stability', models.FloatField(blank=True, null=True)),
                    ('difficulty', models.FloatField(blank=True, null=True)),
                    ('due', models.DateTimeField()),
                    ('last_review', models.DateTimeField(blank=True, null=True)),
                    ('reps', models.PositiveIntegerField(default=0)),
                    ('lapses', models.PositiveIntegerField(default=0)),
                    ('suspended', models.BooleanField(default=False)),
                    ('buried_until', models.DateTimeField(blank=True, null=True)),
                    ('leech', models.BooleanField(default=False)),
                    ('seed', models.PositiveBigIntegerField(help_text="Seeds this card's interval fuzz.")),
                    ('lesson_number', models.PositiveSmallIntegerField(default=0)),
                    ('position', models.PositiveSmallIntegerField(default=0)),
                    ('reset_at', models.DateTimeField(blank=True, help_text='When the card was last forgotten: its review log starts over from here.', null=True)),
                    ('created_at', models.DateTimeField(auto_now_add=True)),
                    ('question', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='cards', to='quizzes.question')),
                    ('user', models.ForeignKey(db_index=False, on_delete=django.db.models.deletion.CASCADE, related_name='cards', to=settings.AUTH_USER_MODEL)),
                ],
            ),
            migrations.CreateModel(
                name='Answer',
                fields=[
                    ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                    ('question_version', models.PositiveIntegerField()),
                    ('mode', models.CharField(choices=[('review', 'Review'), ('practice', 'Practice')], default='review', max_length=8)),
                    ('variant_seed', models.PositiveBigIntegerField(blank=True, null=True)),
                    ('response', models.TextField(blank=True, help_text='The text as the learner typed it.')),
                    ('value_read', models.CharField(blank=True, help_text='The number read from the text, exactly (p/q).', max_length=120)),
                    ('choice_ids', models.JSONField(blank=True, default=list)),
                    ('status', models.CharField(choices=[('correct', 'Correct'), ('incorrect', 'Incorrect'), ('partial', 'Partial'), ('self_graded', 'Self-graded')], max_length=12)),
                    ('score', models.FloatField()),
                    ('misconception', models.CharField(blank=True, max_length=40)),
                    ('self_rating', models.CharField(blank=True, choices=[('again', 'Again'), ('hard', 'Hard'), ('good', 'Good'), ('easy', 'Easy')], max_length=8)),
                    ('duration_ms', models.PositiveIntegerField(blank=True, null=True)),
                    ('client_id', models.UUIDField(blank=True, null=True)),
                    ('rating', models.PositiveSmallIntegerField(blank=True, help_text='FSRS rating 1-4 (again, hard, good, easy).', null=True)),
                    ('card_before', models.JSONField(blank=True, null=True)),
                    ('card_after', models.JSONField(blank=True, null=True)),
                    ('created_at', models.DateTimeField(db_index=True, default=django.utils.timezone.now)),
                    ('question', models.ForeignKey(db_index=False, on_delete=django.db.models.deletion.PROTECT, related_name='answers', to='quizzes.question')),
                    ('user', models.ForeignKey(db_index=False, on_delete=django.db.models.deletion.CASCADE, related_name='answers', to=settings.AUTH_USER_MODEL)),
                    ('card', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='reviews', to='reviews.card')),
                ],
                options={
                    'ordering': ['-created_at', '-pk'],
                },
            ),
            migrations.CreateModel(
                name='IdempotencyRecord',
                fields=[
                    ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                    ('key', models.CharField(max_length=255)),
                    ('fingerprint', models.CharField(help_text='SHA-256 of the method, path, body.', max_length=64)),
                    ('status_code', models.PositiveSmallIntegerField()),
                    ('body', models.JSONField()),
                    ('created_at', models.DateTimeField(auto_now_add=True, db_index=True)),
                    ('user', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='idempotency_records', to=settings.AUTH_USER_MODEL)),
                ],
            ),
            migrations.AddIndex(
                model_name='card',
                index=models.Index(condition=models.Q(('suspended', False), models.Q(('state', 'new'), _negated=True)), fields=['user', 'due', 'id'], name='card_due'),
            ),
            migrations.AddIndex(
                model_name='card',
                index=models.Index(condition=models.Q(('state', 'new'), ('suspended', False)), fields=['user', 'lesson_number', 'position', 'question'], name='card_new'),
            ),
            migrations.AddConstraint(
                model_name='card',
                constraint=models.UniqueConstraint(fields=('user', 'question'), name='card_once_per_question'),
            ),
            migrations.AddIndex(
                model_name='answer',
                index=models.Index(fields=['user', 'question', 'created_at'], name='reviews_ans_user_id_9d4f6f_idx'),
            ),
            migrations.AddIndex(
                model_name='answer',
                index=models.Index(fields=['question', 'created_at'], name='reviews_ans_questio_7f94fc_idx'),
            ),
            migrations.AddIndex(
                model_name='answer',
                index=models.Index(fields=['user', 'mode', 'created_at'], name='answer_user_day'),
            ),
            migrations.AddConstraint(
                model_name='answer',
                constraint=models.CheckConstraint(condition=models.Q(('score__gte', 0), ('score__lte', 1)), name='answer_score_0_to_1'),
            ),
            migrations.AddConstraint(
                model_name='answer',
                constraint=models.UniqueConstraint(condition=models.Q(('client_id__isnull', False)), fields=('user', 'client_id'), name='answer_client_id_once'),
            ),
            migrations.AddConstraint(
                model_name='idempotencyrecord',
                constraint=models.UniqueConstraint(fields=('user', 'key'), name='idempotency_key_once_per_user'),
            ),
        ]),
        migrations.RunPython(*content_types_move('quizzes', 'reviews', MOVED)),
    ]

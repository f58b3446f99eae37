"""Cards, answers, decks and idempotency records move to the `reviews` app.

Their tables are renamed and their rows, keys, indexes and constraints kept; the models leave
this app's state here and enter `reviews`' in its first migration.
"""

from django.db import migrations

MOVED = ["answer", "idempotencyrecord", "deck", "card"]


class Migration(migrations.Migration):
    dependencies = [
        ("quizzes", "0006_no_duplicate_indexes"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            database_operations=[
                *(migrations.AlterModelTable(model, f"reviews_{model}") for model in MOVED),
                # The two indexes named after their table are named after the new one.
                migrations.RenameIndex(
                    "answer",
                    new_name="reviews_ans_user_id_9d4f6f_idx",
                    old_name="quizzes_ans_user_id_22c69b_idx",
                ),
                migrations.RenameIndex(
                    "answer",
                    new_name="reviews_ans_questio_7f94fc_idx",
                    old_name="quizzes_ans_questio_1026ab_idx",
                ),
            ],
            state_operations=[migrations.DeleteModel(model) for model in MOVED],
        ),
    ]

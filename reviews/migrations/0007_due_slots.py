"""Due slots: a learner's scheduled cards counted by the quarter hour they fall due in, kept by
triggers on the card table, so the stats' forecast reads at most a few thousand counts instead
of every card (see `reviews.models.DueSlot`).

On PostgreSQL one statement-level trigger per event reads the statement's changed rows
(transition tables) and applies their net change per learner and slot in one pass: a sync
batch of a thousand cards costs one upsert, not a thousand. Each learner's counts are changed
one transaction at a time (an advisory lock), so two writers never take slot rows in opposite
orders. SQLite gets row triggers, its writers being one at a time already.
"""

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models

COUNTED = "state <> 'new' AND NOT suspended"

POSTGRESQL = f"""
CREATE FUNCTION reviews_due_slots_add(users bigint[], slots timestamptz[], deltas integer[])
RETURNS void LANGUAGE plpgsql AS $$
DECLARE
    net_users bigint[];
    net_slots timestamptz[];
    net_deltas integer[];
BEGIN
    SELECT array_agg(user_id ORDER BY user_id, slot), array_agg(slot ORDER BY user_id, slot),
           array_agg(delta ORDER BY user_id, slot)
    INTO net_users, net_slots, net_deltas FROM (
        SELECT c.user_id, c.slot, sum(c.delta)::integer AS delta
        FROM unnest(users, slots, deltas) AS c(user_id, slot, delta)
        GROUP BY c.user_id, c.slot HAVING sum(c.delta) <> 0
    ) AS net;
    IF net_users IS NULL THEN
        RETURN;  -- rows changed, but no count (a card buried, a new card reordered)
    END IF;
    PERFORM pg_advisory_xact_lock(hashtextextended('reviews_dueslot ' || u, 0))
    FROM (SELECT DISTINCT u FROM unnest(net_users) AS u ORDER BY u) AS learners;
    INSERT INTO reviews_dueslot (user_id, slot, cards)
    SELECT user_id, slot, delta FROM unnest(net_users, net_slots, net_deltas)
        AS net(user_id, slot, delta)
    WHERE delta > 0 ORDER BY user_id, slot
    ON CONFLICT (user_id, slot) DO UPDATE SET cards = reviews_dueslot.cards + excluded.cards;
    UPDATE reviews_dueslot AS d SET cards = d.cards + net.delta
    FROM unnest(net_users, net_slots, net_deltas) AS net(user_id, slot, delta)
    WHERE net.delta < 0 AND d.user_id = net.user_id AND d.slot = net.slot;
END $$;

CREATE FUNCTION reviews_due_slots_count() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    users bigint[];
    slots timestamptz[];
    deltas integer[];
BEGIN
    IF TG_OP = 'INSERT' THEN
        SELECT array_agg(user_id), array_agg(date_bin('15 minutes', due, 'epoch')), array_agg(1)
        INTO users, slots, deltas FROM new_rows WHERE {COUNTED};
    ELSIF TG_OP = 'DELETE' THEN
        SELECT array_agg(user_id), array_agg(date_bin('15 minutes', due, 'epoch')), array_agg(-1)
        INTO users, slots, deltas FROM old_rows WHERE {COUNTED};
    ELSE
        SELECT array_agg(user_id), array_agg(slot), array_agg(delta)
        INTO users, slots, deltas FROM (
            SELECT user_id, date_bin('15 minutes', due, 'epoch') AS slot, 1 AS delta
            FROM new_rows WHERE {COUNTED}
            UNION ALL
            SELECT user_id, date_bin('15 minutes', due, 'epoch'), -1
            FROM old_rows WHERE {COUNTED}
        ) AS changed;
    END IF;
    IF users IS NOT NULL THEN
        PERFORM reviews_due_slots_add(users, slots, deltas);
    END IF;
    RETURN NULL;
END $$;

CREATE TRIGGER reviews_due_slots_insert AFTER INSERT ON reviews_card
REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION reviews_due_slots_count();
CREATE TRIGGER reviews_due_slots_update AFTER UPDATE ON reviews_card
REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
FOR EACH STATEMENT EXECUTE FUNCTION reviews_due_slots_count();
CREATE TRIGGER reviews_due_slots_delete AFTER DELETE ON reviews_card
REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION reviews_due_slots_count();

INSERT INTO reviews_dueslot (user_id, slot, cards)
SELECT user_id, date_bin('15 minutes', due, 'epoch'), count(*) FROM reviews_card
WHERE {COUNTED} GROUP BY 1, 2;
"""

POSTGRESQL_REVERSE = """
DROP TRIGGER reviews_due_slots_insert ON reviews_card;
DROP TRIGGER reviews_due_slots_update ON reviews_card;
DROP TRIGGER reviews_due_slots_delete ON reviews_card;
DROP FUNCTION reviews_due_slots_count();
DROP FUNCTION reviews_due_slots_add(bigint[], timestamptz[], integer[]);
"""


def _slot(row: str) -> str:
    """The quarter hour of a row's due, in the text form Django stores datetimes in SQLite."""
    return (
        f"strftime('%Y-%m-%d %H:', {row}.due) || "
        f"printf('%02d', CAST(strftime('%M', {row}.due) AS INTEGER) / 15 * 15) || ':00'"
    )


def _add(row: str, delta: int) -> str:
    if delta > 0:
        return (
            f"INSERT INTO reviews_dueslot (user_id, slot, cards) "
            f"VALUES ({row}.user_id, {_slot(row)}, 1) "
            f"ON CONFLICT (user_id, slot) DO UPDATE SET cards = cards + 1;"
        )
    return (
        f"UPDATE reviews_dueslot SET cards = cards - 1 "
        f"WHERE user_id = {row}.user_id AND slot = {_slot(row)};"
    )


def _counted(row: str) -> str:
    return f"{row}.state <> 'new' AND NOT {row}.suspended"


SQLITE = [
    f"CREATE TRIGGER reviews_due_slots_insert AFTER INSERT ON reviews_card "
    f"WHEN {_counted('NEW')} BEGIN {_add('NEW', 1)} END",
    f"CREATE TRIGGER reviews_due_slots_delete AFTER DELETE ON reviews_card "
    f"WHEN {_counted('OLD')} BEGIN {_add('OLD', -1)} END",
    # A changed card is taken out of its old slot and put in its new one, in either order:
    # its old slot's row is there, since it counted the card.
    f"CREATE TRIGGER reviews_due_slots_update_new AFTER UPDATE ON reviews_card "
    f"WHEN {_counted('NEW')} BEGIN {_add('NEW', 1)} END",
    f"CREATE TRIGGER reviews_due_slots_update_old AFTER UPDATE ON reviews_card "
    f"WHEN {_counted('OLD')} BEGIN {_add('OLD', -1)} END",
    f"INSERT INTO reviews_dueslot (user_id, slot, cards) "
    f"SELECT user_id, {_slot('reviews_card')}, count(*) FROM reviews_card "
    f"WHERE {_counted('reviews_card')} GROUP BY 1, 2",
]

SQLITE_REVERSE = [
    f"DROP TRIGGER reviews_due_slots_{name}"
    for name in ("insert", "delete", "update_new", "update_old")
]


def create_triggers(apps, schema_editor):
    statements = [POSTGRESQL] if schema_editor.connection.vendor == "postgresql" else SQLITE
    for statement in statements:
        schema_editor.execute(statement)


def drop_triggers(apps, schema_editor):
    vendor = schema_editor.connection.vendor
    for statement in [POSTGRESQL_REVERSE] if vendor == "postgresql" else SQLITE_REVERSE:
        schema_editor.execute(statement)


class Migration(migrations.Migration):
    dependencies = [
        ("reviews", "0006_card_lesson"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.CreateModel(
            name="DueSlot",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("slot", models.DateTimeField(help_text="The quarter hour's start, UTC.")),
                ("cards", models.IntegerField(default=0)),
                (
                    "user",
                    models.ForeignKey(
                        db_index=False,
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="+",
                        to=settings.AUTH_USER_MODEL,
                    ),
                ),
            ],
            options={
                "constraints": [
                    models.UniqueConstraint(fields=("user", "slot"), name="due_slot_once")
                ],
            },
        ),
        migrations.RunPython(create_triggers, drop_triggers),
    ]

"""Full-text search of the interview bank on PostgreSQL: a generated `search` column weighing
an entry's question above its model answer and key points, and those above its notes, with a
GIN index over it; and a smaller generated `search_rank`, without the notes, to order the
matches by (it stays in the row, where the whole vector is stored apart and must be fetched
back for each match). Other databases get neither; the bank is searched by substring there."""

from django.db import migrations

FORWARD = """
ALTER TABLE quizzes_interviewentry ADD COLUMN search tsvector GENERATED ALWAYS AS (
    setweight(to_tsvector('english', search_title), 'A')
    || setweight(to_tsvector('english', search_answer), 'B')
    || setweight(to_tsvector('english', search_notes), 'C')
) STORED;
ALTER TABLE quizzes_interviewentry ADD COLUMN search_rank tsvector GENERATED ALWAYS AS (
    setweight(to_tsvector('english', search_title), 'A')
    || setweight(to_tsvector('english', search_answer), 'B')
) STORED;
CREATE INDEX quizzes_interviewentry_search ON quizzes_interviewentry USING gin (search);
"""
BACKWARD = """
DROP INDEX IF EXISTS quizzes_interviewentry_search;
ALTER TABLE quizzes_interviewentry DROP COLUMN IF EXISTS search_rank;
ALTER TABLE quizzes_interviewentry DROP COLUMN IF EXISTS search;
"""


def forward(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(FORWARD)


def backward(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(BACKWARD)


class Migration(migrations.Migration):
    dependencies = [("quizzes", "0010_interview_bank")]

    operations = [migrations.RunPython(forward, backward)]

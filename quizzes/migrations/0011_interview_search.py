"""Full-text search of the interview bank on PostgreSQL: a generated `search` column weighing
an entry's title (the question) above its body (model answer, key points, notes), and a GIN
index over it. Other databases get neither; the bank is searched by substring there."""

from django.db import migrations

FORWARD = """
ALTER TABLE quizzes_interviewentry ADD COLUMN search tsvector GENERATED ALWAYS AS (
    setweight(to_tsvector('english', search_title), 'A')
    || setweight(to_tsvector('english', search_body), 'B')
) STORED;
CREATE INDEX quizzes_interviewentry_search ON quizzes_interviewentry USING gin (search);
"""
BACKWARD = """
DROP INDEX IF EXISTS quizzes_interviewentry_search;
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

"""A question's section is required from now on, and a numeric question may be asked in
percent."""

import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("quizzes", "0008_question_section"),
    ]

    operations = [
        migrations.AlterField(
            model_name="question",
            name="section",
            field=models.ForeignKey(
                help_text="The section of its lesson it follows; a question is Pro when its "
                "section is.",
                on_delete=django.db.models.deletion.PROTECT,
                related_name="questions",
                to="course.section",
            ),
        ),
        migrations.AddField(
            model_name="question",
            name="unit",
            field=models.CharField(
                blank=True,
                choices=[("percent", "Percent")],
                help_text="'percent': the answer is in percent, so '66.2%' and '66.2' read the "
                "same.",
                max_length=16,
            ),
        ),
    ]

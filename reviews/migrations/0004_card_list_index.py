"""An index for the card list: the cards a learner has seen, soonest due first."""

from django.conf import settings
from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('quizzes', '0009_section_required_and_percent_answers'),
        ('reviews', '0003_variant_tokens_and_reveals'),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.AddIndex(
            model_name='card',
            index=models.Index(condition=models.Q(models.Q(('state', 'new'), _negated=True), ('reset_at__isnull', False), _connector='OR'), fields=['user', 'due', 'id'], name='card_seen'),
        ),
    ]

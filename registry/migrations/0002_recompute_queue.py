from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("registry", "0001_initial"),
    ]

    operations = [
        migrations.AddField(
            model_name="pendingrecompute",
            name="generation",
            field=models.BigIntegerField(db_default=1, default=1),
        ),
        migrations.AddField(
            model_name="pendingrecompute",
            name="claim",
            field=models.UUIDField(blank=True, null=True),
        ),
        migrations.AddField(
            model_name="pendingrecompute",
            name="claimed_until",
            field=models.DateTimeField(blank=True, null=True),
        ),
    ]

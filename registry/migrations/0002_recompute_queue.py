import django.db.models.deletion
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
        migrations.CreateModel(
            name="PendingRollup",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                ("requested_at", models.DateTimeField(auto_now_add=True)),
                ("generation", models.BigIntegerField(db_default=1, default=1)),
                ("claim", models.UUIDField(blank=True, null=True)),
                ("claimed_until", models.DateTimeField(blank=True, null=True)),
                (
                    "agent",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE, related_name="+", to="registry.agent"
                    ),
                ),
                (
                    "provider",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE, related_name="+", to="registry.provider"
                    ),
                ),
            ],
            options={
                "constraints": [
                    models.UniqueConstraint(fields=("provider", "agent"), name="unique_pending_rollup")
                ],
            },
        ),
    ]

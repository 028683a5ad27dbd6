# Rescore jobs, the claim's priority and the index the claim reads in order (issue 22).

import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('registry', '0004_provider_audit_stats'),
    ]

    operations = [
        migrations.AddField(
            model_name='pendingrecompute',
            name='priority',
            field=models.SmallIntegerField(choices=[(0, 'an input changed'), (1, 'a full rescore')], db_default=0, default=0),
        ),
        migrations.AddIndex(
            model_name='pendingrecompute',
            index=models.Index(fields=['priority', 'requested_at', 'agent'], name='pending_claim_order'),
        ),
        migrations.CreateModel(
            name='RescoreJob',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('reason', models.CharField(max_length=200)),
                ('requested_by', models.CharField(blank=True, max_length=150)),
                ('status', models.CharField(choices=[('queued', 'Queued'), ('enqueuing', 'Enqueuing'), ('running', 'Running'), ('done', 'Done')], db_index=True, default='queued', max_length=16)),
                ('total', models.BigIntegerField(default=0)),
                ('done', models.BigIntegerField(default=0)),
                ('enqueued_through', models.BigIntegerField(default=0)),
                ('enqueued_at', models.DateTimeField()),
                ('created_at', models.DateTimeField(auto_now_add=True)),
                ('finished_at', models.DateTimeField(blank=True, null=True)),
                ('provider', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.CASCADE, related_name='+', to='registry.provider')),
            ],
        ),
    ]

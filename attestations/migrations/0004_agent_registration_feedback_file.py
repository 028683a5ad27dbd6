# Agents' registration files (AgentRegistration) and the ERC-8004 feedback file of each publication.

import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('attestations', '0003_lossless_chain_strings'),
        ('registry', '0003_feedback_entries_plural'),
    ]

    operations = [
        migrations.AddField(
            model_name='scorepublication',
            name='feedback_document',
            field=models.TextField(blank=True),
        ),
        migrations.CreateModel(
            name='AgentRegistration',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('agent_registry', models.CharField(max_length=120)),
                ('agent_uri', models.TextField()),
                ('uri_block', models.PositiveBigIntegerField(help_text='Block of the event that set the URI')),
                ('status', models.CharField(choices=[('pending', 'Pending: the URI is known, the file is not fetched yet'), ('fetched', 'Fetched and valid'), ('invalid', 'Not a registration file, or refused (not retried until the URI changes)'), ('unreachable', 'Could not be fetched (retried with backoff)')], db_index=True, default='pending', max_length=16)),
                ('name', models.CharField(blank=True, max_length=200)),
                ('description', models.TextField(blank=True)),
                ('image', models.CharField(blank=True, max_length=2048)),
                ('endpoints', models.JSONField(blank=True, default=list)),
                ('active', models.BooleanField(blank=True, null=True)),
                ('lists_agent', models.BooleanField(default=False)),
                ('error', models.TextField(blank=True)),
                ('attempts', models.PositiveIntegerField(default=0)),
                ('fetched_at', models.DateTimeField(blank=True, null=True)),
                ('updated_at', models.DateTimeField(auto_now=True)),
                ('agent', models.OneToOneField(on_delete=django.db.models.deletion.CASCADE, related_name='registration', to='registry.agent')),
            ],
        ),
    ]

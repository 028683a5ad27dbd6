"""Lists whose cost does not grow with the number of agents (issue 22).

- `trust_rank`: the score sort key (NULL unless the newest score is rated), kept by a trigger on
  registry_agent so every writer of latest_score / trust_score keeps it right.
- One btree index per list ordering (see Agent.Meta.indexes).
- pg_trgm GIN indexes on UPPER(subject_id) and UPPER(name), the expressions `icontains` compares,
  on PostgreSQL only (SQLite, the `make run` default, has no trigram indexes and needs none at its size).

Not atomic, so that on PostgreSQL every index is built CONCURRENTLY (writes to registry_agent go on
while it builds) and the backfill commits in chunks of agents instead of locking every scored agent in
one statement. An interrupted run can leave an INVALID index behind: see docs/reliability.md ("Migrations on a
big registry").
"""

from __future__ import annotations

from datetime import UTC, datetime
from decimal import Decimal
from typing import Any

import django.db.models.functions.comparison
from django.contrib.postgres.operations import TrigramExtension
from django.db import migrations, models

_PG_TRIGGER = """
CREATE OR REPLACE FUNCTION registry_agent_trust_rank() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    -- The score counts for ordering only when the newest score is rated (confidence above 0).
    IF NEW.latest_score_id IS NULL THEN
        NEW.trust_rank := NULL;
    ELSE
        NEW.trust_rank := (
            SELECT CASE WHEN s.trust_confidence > 0 THEN NEW.trust_score END
            FROM registry_trustscore s WHERE s.id = NEW.latest_score_id
        );
    END IF;
    RETURN NEW;
END $$;
CREATE TRIGGER registry_agent_trust_rank
    BEFORE INSERT OR UPDATE OF latest_score_id, trust_score, trust_rank ON registry_agent
    FOR EACH ROW EXECUTE FUNCTION registry_agent_trust_rank();
"""
_PG_DROP = """
DROP TRIGGER IF EXISTS registry_agent_trust_rank ON registry_agent;
DROP FUNCTION IF EXISTS registry_agent_trust_rank();
"""
_SQLITE_RANK = """
    UPDATE registry_agent SET trust_rank = (
        SELECT CASE WHEN s.trust_confidence > 0 THEN NEW.trust_score END
        FROM registry_trustscore s WHERE s.id = NEW.latest_score_id
    ) WHERE id = NEW.id;
"""
# SQLite runs triggers non-recursively (Django leaves recursive_triggers off), so the UPDATE inside
# does not fire them again.
_SQLITE_TRIGGERS = [
    f"CREATE TRIGGER registry_agent_trust_rank_insert AFTER INSERT ON registry_agent BEGIN {_SQLITE_RANK} END",
    "CREATE TRIGGER registry_agent_trust_rank_update AFTER UPDATE OF latest_score_id, trust_score, trust_rank "
    f"ON registry_agent BEGIN {_SQLITE_RANK} END",
]
_SQLITE_DROP = [
    "DROP TRIGGER IF EXISTS registry_agent_trust_rank_insert",
    "DROP TRIGGER IF EXISTS registry_agent_trust_rank_update",
]
# Fires the trigger on every scored agent: fills trust_rank for agents scored before this migration,
# a range of ids per statement (each its own transaction: the migration is not atomic).
_BACKFILL = (
    "UPDATE registry_agent SET trust_score = trust_score "
    "WHERE latest_score_id IS NOT NULL AND id > %s AND id <= %s"
)
BACKFILL_CHUNK = 10_000

_TRIGRAM_INDEXES = [
    "CREATE INDEX CONCURRENTLY IF NOT EXISTS agent_subject_trgm ON registry_agent "
    "USING gin (UPPER(subject_id::text) gin_trgm_ops)",
    "CREATE INDEX CONCURRENTLY IF NOT EXISTS agent_name_trgm ON registry_agent "
    "USING gin (UPPER(name::text) gin_trgm_ops)",
]
_TRIGRAM_DROP = [
    "DROP INDEX CONCURRENTLY IF EXISTS agent_subject_trgm",
    "DROP INDEX CONCURRENTLY IF EXISTS agent_name_trgm",
]


def _run(schema_editor: Any, statements: list[str]) -> None:
    for statement in statements:
        schema_editor.execute(statement)


def rank_trigger_create(apps: Any, schema_editor: Any) -> None:
    vendor = schema_editor.connection.vendor
    if vendor == "postgresql":
        _run(schema_editor, [_PG_TRIGGER])
    elif vendor == "sqlite":
        _run(schema_editor, _SQLITE_TRIGGERS)
    with schema_editor.connection.cursor() as cursor:
        cursor.execute("SELECT COALESCE(MAX(id), 0) FROM registry_agent")
        (last,) = cursor.fetchone()
    for start in range(0, last, BACKFILL_CHUNK):
        schema_editor.execute(_BACKFILL, (start, start + BACKFILL_CHUNK))


def rank_trigger_drop(apps: Any, schema_editor: Any) -> None:
    vendor = schema_editor.connection.vendor
    if vendor == "postgresql":
        _run(schema_editor, [_PG_DROP])
    elif vendor == "sqlite":
        _run(schema_editor, _SQLITE_DROP)


def trigram_indexes_create(apps: Any, schema_editor: Any) -> None:
    if schema_editor.connection.vendor == "postgresql":
        _run(schema_editor, _TRIGRAM_INDEXES)


def trigram_indexes_drop(apps: Any, schema_editor: Any) -> None:
    if schema_editor.connection.vendor == "postgresql":
        _run(schema_editor, _TRIGRAM_DROP)


# The models' values, frozen here as migrations freeze them.
RANK_NULL_DESC = Decimal("-1")
RANK_NULL_ASC = Decimal("1000")
UPDATED_NULL_DESC = datetime(1, 1, 2, tzinfo=UTC)
UPDATED_NULL_ASC = datetime(9999, 12, 30, tzinfo=UTC)


def _coalesce(field: str, value: Any) -> Any:
    return django.db.models.functions.comparison.Coalesce(models.F(field), models.Value(value))


class AddIndexConcurrently(migrations.AddIndex):
    """AddIndex that builds CONCURRENTLY on PostgreSQL (django.contrib.postgres's own operation only
    runs there) and as usual elsewhere; the migration must not be atomic."""

    def database_forwards(self, app_label: str, schema_editor: Any, from_state: Any, to_state: Any) -> None:
        model = to_state.apps.get_model(app_label, self.model_name)
        if self.allow_migrate_model(schema_editor.connection.alias, model):
            if schema_editor.connection.vendor == "postgresql":
                schema_editor.add_index(model, self.index, concurrently=True)
            else:
                schema_editor.add_index(model, self.index)

    def database_backwards(self, app_label: str, schema_editor: Any, from_state: Any, to_state: Any) -> None:
        model = from_state.apps.get_model(app_label, self.model_name)
        if self.allow_migrate_model(schema_editor.connection.alias, model):
            if schema_editor.connection.vendor == "postgresql":
                schema_editor.remove_index(model, self.index, concurrently=True)
            else:
                schema_editor.remove_index(model, self.index)


class Migration(migrations.Migration):
    atomic = False
    dependencies = [("registry", "0005_rescore_jobs_and_claim_index")]

    operations = [
        migrations.AddField(
            model_name="agent",
            name="trust_rank",
            field=models.DecimalField(blank=True, decimal_places=2, editable=False, max_digits=5, null=True),
        ),
        migrations.RunPython(rank_trigger_create, rank_trigger_drop),
        # One index per list ordering: NULL keys COALESCEd past every real value, ties by id.
        AddIndexConcurrently(
            model_name="agent",
            index=models.Index(
                models.OrderBy(_coalesce("trust_rank", RANK_NULL_DESC), descending=True),
                models.OrderBy(models.F("id"), descending=True),
                name="agent_rank_desc",
            ),
        ),
        AddIndexConcurrently(
            model_name="agent",
            index=models.Index(
                models.OrderBy(_coalesce("trust_rank", RANK_NULL_ASC)),
                models.OrderBy(models.F("id")),
                name="agent_rank_asc",
            ),
        ),
        AddIndexConcurrently(
            model_name="agent",
            index=models.Index(
                models.F("registry"),
                models.OrderBy(_coalesce("trust_rank", RANK_NULL_DESC), descending=True),
                models.OrderBy(models.F("id"), descending=True),
                name="agent_registry_rank_desc",
            ),
        ),
        AddIndexConcurrently(
            model_name="agent",
            index=models.Index(
                models.F("registry"),
                models.OrderBy(_coalesce("trust_rank", RANK_NULL_ASC)),
                models.OrderBy(models.F("id")),
                name="agent_registry_rank_asc",
            ),
        ),
        AddIndexConcurrently(
            model_name="agent",
            index=models.Index(
                models.OrderBy(_coalesce("trust_score_updated_at", UPDATED_NULL_DESC), descending=True),
                models.OrderBy(models.F("id"), descending=True),
                name="agent_updated_desc",
            ),
        ),
        AddIndexConcurrently(
            model_name="agent",
            index=models.Index(
                models.OrderBy(_coalesce("trust_score_updated_at", UPDATED_NULL_ASC)),
                models.OrderBy(models.F("id")),
                name="agent_updated_asc",
            ),
        ),
        # A no-op on SQLite (CreateExtension checks the database).
        TrigramExtension(),
        migrations.RunPython(trigram_indexes_create, trigram_indexes_drop),
    ]

"""A word index for the agent search (`q=`), whose cost does not grow with the number of agents (issue 22).

On PostgreSQL:
- `registry_search_words(text)`: the words of a text, the only definition of a word (runs of letters
  and digits, lower-cased by the database's own rules), used both to index agents and to read a query;
- `registry_agentsearchterm` (term, agent, rank): one row per distinct word of an agent's name and
  subject id, `rank` = COALESCE(trust_rank, -1), the -score ordering's key; its index
  (term, rank DESC, agent_id DESC) makes a word's best-scored agents one index range;
- triggers on registry_agent: rows written on insert and whenever name or subject_id changes, rank
  copied whenever trust_rank changes (the trust_rank trigger of migration 0004 runs first: it is a
  BEFORE trigger, these run AFTER the row is written, so they see its final trust_rank);
- a backfill of existing agents, a range of ids per statement (the migration is not atomic, so each
  chunk commits on its own and agents can be written meanwhile: the triggers cover them, and
  `ON CONFLICT DO NOTHING` makes the backfill skip what they wrote), then the search index built
  CONCURRENTLY after the rows are in (one sort instead of a million index insertions).

The pg_trgm indexes of migration 0006 answered the substring search this replaces: dropped (their
posting lists were what made a search's cost grow with the registry; they cost every agent write).

SQLite (the `make run` default) gets neither the table nor the triggers: its search stays a substring
match (registry/api/filtersets.py).
"""

from __future__ import annotations

from typing import Any

from django.db import migrations, models

_WORDS = r"""
CREATE OR REPLACE FUNCTION registry_search_words(body text) RETURNS text[]
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
    SELECT COALESCE(array_agg(DISTINCT word), '{}')
    FROM regexp_split_to_table(lower(body), '[^[:alnum:]]+') AS word
    WHERE word <> ''
$$;
"""

_TABLE = """
CREATE TABLE IF NOT EXISTS registry_agentsearchterm (
    agent_id bigint NOT NULL,
    term text COLLATE "C" NOT NULL,
    rank numeric(5, 2) NOT NULL,
    PRIMARY KEY (agent_id, term)
);
"""

# The words of a new or renamed agent replace its rows; a new trust_rank is copied to them. The
# UPDATE trigger's WHEN clause is evaluated without calling the function, so a write that changes
# none of the three columns costs nothing more. No foreign key: deleting and truncating agents
# (Django's test flush truncates without CASCADE) remove the rows through triggers instead.
_TRIGGERS = """
CREATE OR REPLACE FUNCTION registry_agent_search_terms() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'UPDATE' AND NEW.name IS NOT DISTINCT FROM OLD.name
            AND NEW.subject_id IS NOT DISTINCT FROM OLD.subject_id THEN
        UPDATE registry_agentsearchterm SET rank = COALESCE(NEW.trust_rank, -1) WHERE agent_id = NEW.id;
        RETURN NULL;
    END IF;
    IF TG_OP = 'UPDATE' THEN
        DELETE FROM registry_agentsearchterm WHERE agent_id = NEW.id;
    END IF;
    -- A new agent has no rows (deletes and truncates remove them), so an insert reads none: a DELETE
    -- here would be planned once per session, as a scan while the table is small, and a COPY of many
    -- agents would then scan the growing table once per row.
    INSERT INTO registry_agentsearchterm (agent_id, term, rank)
    SELECT NEW.id, word, COALESCE(NEW.trust_rank, -1)
    FROM unnest(registry_search_words(NEW.name || ' ' || NEW.subject_id)) AS word
    ON CONFLICT DO NOTHING;
    RETURN NULL;
END $$;
CREATE OR REPLACE FUNCTION registry_agent_search_terms_delete() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    DELETE FROM registry_agentsearchterm WHERE agent_id = OLD.id;
    RETURN NULL;
END $$;
CREATE OR REPLACE FUNCTION registry_agent_search_terms_truncate() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    TRUNCATE registry_agentsearchterm;
    RETURN NULL;
END $$;
CREATE TRIGGER registry_agent_search_terms_insert
    AFTER INSERT ON registry_agent
    FOR EACH ROW EXECUTE FUNCTION registry_agent_search_terms();
CREATE TRIGGER registry_agent_search_terms_update
    AFTER UPDATE ON registry_agent
    FOR EACH ROW
    WHEN (OLD.name IS DISTINCT FROM NEW.name OR OLD.subject_id IS DISTINCT FROM NEW.subject_id
          OR OLD.trust_rank IS DISTINCT FROM NEW.trust_rank)
    EXECUTE FUNCTION registry_agent_search_terms();
CREATE TRIGGER registry_agent_search_terms_delete
    AFTER DELETE ON registry_agent
    FOR EACH ROW EXECUTE FUNCTION registry_agent_search_terms_delete();
CREATE TRIGGER registry_agent_search_terms_truncate
    AFTER TRUNCATE ON registry_agent
    FOR EACH STATEMENT EXECUTE FUNCTION registry_agent_search_terms_truncate();
"""

_DROP = """
DROP TRIGGER IF EXISTS registry_agent_search_terms_insert ON registry_agent;
DROP TRIGGER IF EXISTS registry_agent_search_terms_update ON registry_agent;
DROP TRIGGER IF EXISTS registry_agent_search_terms_delete ON registry_agent;
DROP TRIGGER IF EXISTS registry_agent_search_terms_truncate ON registry_agent;
DROP FUNCTION IF EXISTS registry_agent_search_terms();
DROP FUNCTION IF EXISTS registry_agent_search_terms_delete();
DROP FUNCTION IF EXISTS registry_agent_search_terms_truncate();
DROP TABLE IF EXISTS registry_agentsearchterm;
DROP FUNCTION IF EXISTS registry_search_words(text);
"""

_BACKFILL = """
INSERT INTO registry_agentsearchterm (agent_id, term, rank)
SELECT a.id, word, COALESCE(a.trust_rank, -1)
FROM registry_agent a, unnest(registry_search_words(a.name || ' ' || a.subject_id)) AS word
WHERE a.id > %s AND a.id <= %s
ON CONFLICT DO NOTHING
"""
BACKFILL_CHUNK = 50_000

_INDEX = (
    "CREATE INDEX CONCURRENTLY IF NOT EXISTS agent_search_term_rank "
    "ON registry_agentsearchterm (term, rank DESC, agent_id DESC)"
)
_INDEX_DROP = "DROP INDEX CONCURRENTLY IF EXISTS agent_search_term_rank"
_TRIGRAM_DROP = [
    "DROP INDEX CONCURRENTLY IF EXISTS agent_subject_trgm",
    "DROP INDEX CONCURRENTLY IF EXISTS agent_name_trgm",
]
_TRIGRAM_CREATE = [
    "CREATE INDEX CONCURRENTLY IF NOT EXISTS agent_subject_trgm ON registry_agent "
    "USING gin (UPPER(subject_id::text) gin_trgm_ops)",
    "CREATE INDEX CONCURRENTLY IF NOT EXISTS agent_name_trgm ON registry_agent "
    "USING gin (UPPER(name::text) gin_trgm_ops)",
]


def _index_statement(schema_editor: Any, statement: str) -> None:
    # CONCURRENTLY cannot run in a transaction: a migration run inside one (a test migrating back
    # and forth) builds and drops the indexes plainly, on tables that are then small.
    if schema_editor.connection.in_atomic_block:
        statement = statement.replace(" CONCURRENTLY", "")
    schema_editor.execute(statement)


def search_terms_backfill(schema_editor: Any, *, chunk: int) -> None:
    """Index rows of every agent, `chunk` ids per statement (each commits on its own here)."""
    with schema_editor.connection.cursor() as cursor:
        cursor.execute("SELECT COALESCE(MAX(id), 0) FROM registry_agent")
        (last,) = cursor.fetchone()
    for start in range(0, last, chunk):
        schema_editor.execute(_BACKFILL, (start, start + chunk))


def search_terms_create(apps: Any, schema_editor: Any) -> None:
    if schema_editor.connection.vendor != "postgresql":
        return
    for statement in (_WORDS, _TABLE, _TRIGGERS):
        schema_editor.execute(statement)
    search_terms_backfill(schema_editor, chunk=BACKFILL_CHUNK)
    _index_statement(schema_editor, _INDEX)
    schema_editor.execute("ANALYZE registry_agentsearchterm")
    for statement in _TRIGRAM_DROP:
        _index_statement(schema_editor, statement)


def search_terms_drop(apps: Any, schema_editor: Any) -> None:
    if schema_editor.connection.vendor != "postgresql":
        return
    for statement in _TRIGRAM_CREATE:
        _index_statement(schema_editor, statement)
    _index_statement(schema_editor, _INDEX_DROP)
    schema_editor.execute(_DROP)


class Migration(migrations.Migration):
    atomic = False
    dependencies = [("registry", "0013_feedback_reviewer_index")]

    operations = [
        migrations.CreateModel(
            name="AgentSearchTerm",
            fields=[
                (
                    "pk",
                    models.CompositePrimaryKey("agent", "term", blank=True, editable=False, serialize=False),
                ),
                (
                    "agent",
                    models.ForeignKey(
                        on_delete=models.deletion.DO_NOTHING,
                        related_name="search_terms",
                        to="registry.agent",
                    ),
                ),
                ("term", models.TextField()),
                ("rank", models.DecimalField(decimal_places=2, max_digits=5)),
            ],
            options={"db_table": "registry_agentsearchterm", "managed": False},
        ),
        migrations.RunPython(search_terms_create, search_terms_drop),
    ]

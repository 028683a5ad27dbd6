"""Scoring configurations and trust-score computation for one agent.

The maths lives in `adapters/` (pure); this module gathers an agent's inputs from the database,
decides eligibility (active, independent, fresh), calls the adapters and stores the record.
A recompute whose inputs and configuration are unchanged stores nothing new.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from functools import partial
from typing import Any

import psycopg
import redis.exceptions
from django.core.cache import cache
from django.db import IntegrityError, connection, transaction
from django.db.models import Max, Min, OuterRef, Q, Subquery
from django.db.models.functions import Coalesce
from django.utils import timezone
from psycopg.types.datetime import TimestamptzLoader

from adapters import FeedbackSummary, ProviderSummary, ScoringParams, Subject, inputs_digest, score_subject
from adapters.graph import GraphError
from adapters.numbers import clamp, round_half_up
from adapters.output_verification import input_exclusion_reason
from adapters.params import AccuracyWeighting
from adapters.scoring import TrustScoreRecord, scoring_inputs_digest
from adapters.sybil import Rating, ReviewerStanding, SybilParams, reviewer_standings, weighted_feedback
from adapters.vectorised import batch_supported, hcs25_records
from common.errors import ApplicationError, FieldError

from ..lookups import any_of
from ..models import (
    Agent,
    FeedbackEntry,
    Provider,
    ProviderAccuracy,
    ReviewerFirstTx,
    ScoringConfig,
    TrustScore,
    VerificationSummary,
)
from ..selectors import identity_groups_many, trust_score_cache_key

logger = logging.getLogger(__name__)


# --- configurations -------------------------------------------------------------------------------


#: What a registry with no configuration starts with (SPEC 2.4): the built-in adapters capped by the
#: sybil-resistance floor. Migration registry 0010 moves an existing registry to the same configuration.
DEFAULT_CONFIG_NOTE = "SPEC 2.4 defaults: sybil-resistance as a floor, reviewer-weighted feedback"


def scoring_config_current() -> ScoringConfig:
    """The newest configuration; on first use, version 1 is the SPEC 2.4 default (the sybil floor)."""
    config = ScoringConfig.objects.order_by("-version").first()
    if config is not None:
        return config
    return scoring_config_create(
        params=ScoringParams.sybil_floor().to_dict(), note=DEFAULT_CONFIG_NOTE, created_by="system"
    )


def scoring_config_create(*, params: dict[str, Any], note: str = "", created_by: str = "") -> ScoringConfig:
    """Store a new numbered configuration, or return the stored one with identical params."""
    try:
        parsed = ScoringParams.from_dict(params)
    except GraphError as exc:
        # The composition graph's own checks know the exact field (JSON pointer into params).
        raise ApplicationError(
            f"Invalid scoring configuration: {exc}", errors=[FieldError(exc.pointer, exc.detail)]
        ) from None
    except ValueError as exc:
        raise ApplicationError(f"Invalid scoring configuration: {exc}") from None
    canonical = parsed.to_dict()
    digest = inputs_digest(canonical)
    for _ in range(3):
        existing = ScoringConfig.objects.filter(digest=digest).first()
        if existing is not None:
            return existing
        latest = ScoringConfig.objects.aggregate(v=Max("version"))["v"] or 0
        try:
            with transaction.atomic():
                config = ScoringConfig.objects.create(
                    version=latest + 1, params=canonical, digest=digest, note=note, created_by=created_by
                )
                if latest:
                    # The newest configuration is the one in force: every score moves to it. (The
                    # first one is made on first use, before anything was scored.)
                    from .rescore import rescore_start

                    rescore_start(reason=f"scoring configuration v{config.version}", requested_by=created_by)
                return config
        except IntegrityError:
            continue  # another process took that version number; look again
    raise ApplicationError(
        "Could not allocate a configuration version; try again.", status=503, problem="conflict"
    )


# Parsed configurations by digest: a configuration is immutable and its digest is its content's, so the
# parse (~0.5 ms, once per drain batch) is kept; the adapters' own caches are keyed by the same object.
_PARAMS_PARSED: dict[str, ScoringParams] = {}
_PARAMS_PARSED_MAX = 64


def scoring_params(config: ScoringConfig) -> ScoringParams:
    params = _PARAMS_PARSED.get(config.digest)
    if params is None:
        params = ScoringParams.from_dict(config.params)
        if len(_PARAMS_PARSED) < _PARAMS_PARSED_MAX:
            _PARAMS_PARSED[config.digest] = params
    return params


# --- inputs ----------------------------------------------------------------------------------------


def latest_summaries_many(agent_ids: list[int]) -> dict[int, list[VerificationSummary]]:
    """Per agent, each provider's newest summary (by window end, then arrival), ordered by provider slug."""
    rows = VerificationSummary.objects.filter(agent_id__in=agent_ids).select_related("provider")
    if connection.vendor == "postgresql":
        # DISTINCT ON reads the (agent, provider, -window_end) index once per pair, where the
        # correlated subquery below runs once per stored summary and slows down as history grows.
        rows = rows.order_by("agent_id", "provider_id", "-window_end", "-id").distinct(
            "agent_id", "provider_id"
        )
    else:
        newest = (
            VerificationSummary.objects.filter(
                agent_id=OuterRef("agent_id"), provider_id=OuterRef("provider_id")
            )
            .order_by("-window_end", "-id")
            .values("id")[:1]
        )
        rows = rows.filter(id=Subquery(newest))
    by_agent: dict[int, list[VerificationSummary]] = {agent_id: [] for agent_id in agent_ids}
    for row in rows:
        by_agent[row.agent_id].append(row)
    for summaries in by_agent.values():
        summaries.sort(key=lambda row: row.provider.slug)
    return by_agent


@dataclass(frozen=True, slots=True)
class SummaryRow:
    """The columns of a stored summary that scoring reads, loaded without a model instance.

    The drain scores hundreds of agents per batch; building a VerificationSummary (and its
    Provider, and decoding its raw body) for each of their summaries cost more than the maths.
    """

    pk: int
    agent_id: int
    provider: Provider
    window_end: datetime
    received_at: datetime
    allow_rate: float
    block_rate: float
    uncertain_rate: float | None
    avg_confidence: float
    total_checks: int
    stake_distribution: dict[str, Any] | None


_LATEST_ROWS = """
SELECT DISTINCT ON (agent_id, provider_id)
       id, agent_id, provider_id, window_end, received_at, allow_rate, block_rate, uncertain_rate,
       avg_confidence, total_checks, stake_distribution
FROM registry_verificationsummary
WHERE agent_id = ANY(%(ids)b::bigint[])
ORDER BY agent_id, provider_id, window_end DESC, id DESC
"""


def latest_summary_rows_many(agent_ids: list[int]) -> dict[int, list[SummaryRow]]:
    """`latest_summaries_many` as plain rows: one query, no model instances, no raw bodies.

    Same rows, same order (per agent, by provider slug); the providers are loaded once.
    """
    by_agent: dict[int, list[SummaryRow]] = {agent_id: [] for agent_id in agent_ids}
    if connection.vendor != "postgresql":
        for agent_id, stored in latest_summaries_many(agent_ids).items():
            by_agent[agent_id] = [
                SummaryRow(
                    pk=row.pk,
                    agent_id=row.agent_id,
                    provider=row.provider,
                    window_end=row.window_end,
                    received_at=row.received_at,
                    allow_rate=row.allow_rate,
                    block_rate=row.block_rate,
                    uncertain_rate=row.uncertain_rate,
                    avg_confidence=row.avg_confidence,
                    total_checks=row.total_checks,
                    stake_distribution=row.stake_distribution,
                )
                for row in stored
            ]
        return by_agent
    connection.ensure_connection()
    with psycopg.Cursor(connection.connection) as cursor:
        # psycopg's own (compiled) timestamptz loader: Django's, registered on its connections, wraps
        # it in Python to set the connection's time zone, which is UTC here as in Django's (USE_TZ;
        # the session's TimeZone is UTC): the same datetimes at a fifth of the cost.
        cursor.adapters.register_loader("timestamptz", TimestamptzLoader)
        cursor.execute(_LATEST_ROWS, {"ids": agent_ids})
        rows = cursor.fetchall()
    providers = Provider.objects.in_bulk({row[2] for row in rows})
    for pk, agent_id, provider_id, window_end, received, allow, block, uncertain, conf, checks, stake in rows:
        by_agent[agent_id].append(
            SummaryRow(
                pk=pk,
                agent_id=agent_id,
                provider=providers[provider_id],
                window_end=window_end,
                received_at=received,
                allow_rate=allow,
                block_rate=block,
                uncertain_rate=uncertain,
                avg_confidence=conf,
                total_checks=checks,
                # Django loads jsonb as text on its connections (its JSONField decodes it).
                stake_distribution=json.loads(stake) if isinstance(stake, str | bytes) else stake,
            )
        )
    for summaries in by_agent.values():
        summaries.sort(key=lambda row: row.provider.slug)
    return by_agent


def exclusion_reason(
    summary: VerificationSummary | SummaryRow, agent: Agent, now: datetime, max_age_days: float
) -> str | None:
    """Why a provider's summary does not count for this agent, or None when it counts."""
    provider: Provider = summary.provider
    if provider.status != Provider.Status.ACTIVE:
        return "suspended"
    if provider.agent_id is not None and provider.agent_id == agent.pk:
        return "self-reported"
    if (
        provider.operator_address
        and agent.owner_address
        and provider.operator_address.lower() == agent.owner_address.lower()
    ):
        return "self-reported"
    # Stale (older than max_age_days, strictly) and no checks are the adapter's rule, written once there.
    return input_exclusion_reason(
        age_days=(now - summary.window_end) / timedelta(days=1),
        total_checks=int(summary.total_checks),
        max_age_days=max_age_days,
    )


def accuracy_counts(accuracy: ProviderAccuracy | None) -> tuple[int, int]:
    """(correct, trials) of a provider's canary record, as accuracy weighting reads it.

    Correct: decisive answers that were right. Trials: decisive answers and abstentions, so a provider
    does not earn credit by answering UNCERTAIN whenever a case is hard. Failures (timeouts, malformed
    answers) are left out: they say nothing about judgement, and our own network can cause them.
    """
    if accuracy is None:
        return 0, 0
    decisive = accuracy.faithful_answered + accuracy.fabricated_answered
    correct = decisive - accuracy.false_positives - accuracy.false_negatives
    return max(correct, 0), decisive + accuracy.abstentions


def provider_accuracy_factors_many(
    *, provider_ids: set[int], weighting: AccuracyWeighting
) -> dict[int, float]:
    """Per provider, the factor its weight is multiplied by under *weighting* (unmeasured: the minimum)."""
    measured = ProviderAccuracy.objects.in_bulk(provider_ids)
    return {
        provider_id: weighting.factor(*accuracy_counts(measured.get(provider_id)))
        for provider_id in provider_ids
    }


def _accuracy_factors(
    params: ScoringParams, rows: Mapping[int, Sequence[VerificationSummary | SummaryRow]]
) -> dict[int, float] | None:
    if params.accuracy_weighting is None:
        return None
    provider_ids = {row.provider.pk for found in rows.values() for row in found}
    return provider_accuracy_factors_many(provider_ids=provider_ids, weighting=params.accuracy_weighting)


def feedback_summaries_many(agent_ids: list[int], rating_tag: str) -> dict[int, FeedbackSummary | None]:
    """Per agent, its unrevoked on-chain rating feedback as (average 0-100, count), over linked identities."""
    return {
        agent_id: merged.summary for agent_id, merged in feedback_merged_many(agent_ids, rating_tag).items()
    }


@dataclass(frozen=True)
class MergedFeedback:
    """An agent's rating feedback over all its linked identities, and what each identity gave.

    `identities` is empty for an agent without links (its record then looks as it always did); with
    links it lists every identity of the group with its chain, on-chain id, count and mean.
    """

    summary: FeedbackSummary | None
    identities: tuple[dict[str, Any], ...] = ()


def feedback_merged_many(
    agent_ids: list[int], rating_tag: str, *, groups: dict[int, list[int]] | None = None
) -> dict[int, MergedFeedback]:
    """Per agent, its live rating feedback (revoked excluded) over every linked identity (issue 21).

    ERC-8004 keeps feedback per identity, so an agent registered on two chains would otherwise be
    scored twice on halves of its reputation. Links only ever join identities with the same owner
    (attestations.services.links), so nobody can borrow another agent's feedback this way.
    Values are summed identity by identity, in row order, so the mean is reproducible.
    `groups`: the agents' `identity_groups_many`, when the caller has read them already.
    """
    if groups is None:
        groups = identity_groups_many(agent_ids)
    everyone = sorted({member for group in groups.values() for member in group})
    values: dict[int, list[float]] = {agent_id: [] for agent_id in everyone}
    rows = (
        FeedbackEntry.objects.filter(any_of("agent_id", everyone), revoked=False, tag1=rating_tag)
        .order_by("id")
        .values_list("agent_id", "value", "value_decimals")
    )
    for agent_id, value, decimals in rows:
        values[agent_id].append(clamp(float(Decimal(value) / (Decimal(10) ** decimals))))
    linked = [member for group in groups.values() if len(group) > 1 for member in group]
    facts = (
        {
            pk: (subject, chain, token)
            for pk, subject, chain, token in Agent.objects.filter(any_of("pk", linked)).values_list(
                "pk", "subject_id", "chain_id", "erc8004_agent_id"
            )
        }
        if linked
        else {}
    )
    out = {}
    for agent_id, group in groups.items():
        found = [value for member in group for value in values[member]]
        summary = (
            FeedbackSummary(average_score=sum(found) / len(found), total_feedbacks=len(found))
            if found
            else None
        )
        identities: tuple[dict[str, Any], ...] = ()
        if len(group) > 1:
            identities = tuple(_identity_feedback(facts[member], values[member]) for member in group)
        out[agent_id] = MergedFeedback(summary, identities)
    return out


def _identity_feedback(facts: tuple[str, int | None, Decimal | None], found: list[float]) -> dict[str, Any]:
    subject, chain, token = facts
    return {
        "subjectId": subject,
        "chainId": chain,
        "agentId": None if token is None else str(token),
        "count": len(found),
        "mean": round_half_up(sum(found) / len(found)) if found else None,
    }


@dataclass(frozen=True)
class ReviewerEvidence:
    """An agent's ERC-8004 reviewers rated (SPEC 2.4) and the curated feedback they leave."""

    standings: tuple[ReviewerStanding, ...]
    feedback: FeedbackSummary | None
    client_addresses: tuple[str, ...]


# Rows read to rate one batch's reviewers (their ratings elsewhere and the consensus there); past this
# the newest rows count. A documented bound (docs/scoring.md, "Rating the raters"): it caps what one
# recompute reads whatever the reviewers' histories; the ratings left out are the oldest ones, of the
# other agents the reviewers rated, so a reviewer's agreement is then measured on its recent ratings.
REVIEWER_ROWS_MAX = 50_000


def reviewer_evidence_many(
    agents: list[Agent], params: ScoringParams, now: datetime, *, groups: dict[int, list[int]] | None = None
) -> dict[int, ReviewerEvidence]:
    """Per agent, its reviewers' standings and the standing-weighted feedback of the curated set.

    Three queries for the whole batch: the agents' reviewers, every rating those reviewers gave
    and every rating of the agents they rated (for the consensus), and when each reviewer was
    first seen on chain (its age). Independence: the agent's owner, its verified wallet
    (getAgentWallet), and the operator and signer addresses of a provider that is the agent or
    shares its owner, are never independent reviewers of it.

    A reviewer's age is how old its wallet was when it rated the agent: from when it was first seen on
    chain (its first transaction, found by the indexer's nonce probe, or else its first feedback's
    block timestamp, or else when that was indexed) to its first rating of this agent. It does not
    grow while a score sits unchanged, so a ring of fresh wallets stays fresh, and the same inputs
    give the same score whenever they are scored.

    A batch whose agents nobody rated (no reviewers) reads nothing more than its reviewers: every
    agent then has no standings and no curated feedback, whatever the other queries would return.
    `groups`: the agents' `identity_groups_many`, when the caller has read them already.
    """
    tag = params.erc8004_feedback.rating_tag
    sybil = params.sybil_params()
    ids = [agent.pk for agent in agents]
    # Linked identities (one agent on several chains) are one subject: their ratings are merged.
    if groups is None:
        groups = identity_groups_many(ids)
    subject_of = {member: str(group[0]) for group in groups.values() for member in group}
    members = set(subject_of)
    live = FeedbackEntry.objects.filter(revoked=False, tag1=tag)
    reviewers = set(live.filter(any_of("agent_id", members)).values_list("client_address", flat=True))
    if not reviewers:
        return _evidence_of(agents, subject_of, [], {}, {}, {}, sybil)
    rated_agents = set(live.filter(any_of("client_address", reviewers)).values_list("agent_id", flat=True))
    rows = (
        live.filter(any_of("client_address", reviewers) | any_of("agent_id", rated_agents | members))
        .order_by("-id")
        .values_list("agent_id", "client_address", "value", "value_decimals")[:REVIEWER_ROWS_MAX]
    )
    ratings = [
        Rating(
            address,
            subject_of.get(agent_id, str(agent_id)),
            clamp(float(Decimal(value) / (Decimal(10) ** decimals))),
        )
        for agent_id, address, value, decimals in rows
    ]
    given_at = Coalesce("block_time", "created_at")
    first_seen: dict[str, datetime] = {}
    for address, first in (
        FeedbackEntry.objects.filter(any_of("client_address", reviewers))
        .values("client_address")
        .annotate(first=Min(given_at))
        .values_list("client_address", "first")
    ):
        key = address.lower()
        first_seen[key] = min(first, first_seen.get(key, first))
    # A wallet's first transaction on chain, where the indexer found it, comes before its first feedback.
    for address, first in ReviewerFirstTx.objects.filter(any_of("address", reviewers)).values_list(
        "address", "block_time"
    ):
        key = address.lower()
        first_seen[key] = min(first, first_seen.get(key, first))
    # When each reviewer first rated each subject (linked identities are one subject).
    rated_at: dict[str, dict[str, datetime]] = {subject: {} for subject in set(subject_of.values())}
    for agent_id, address, first in (
        live.filter(any_of("agent_id", members))
        .values("agent_id", "client_address")
        .annotate(first=Min(given_at))
        .values_list("agent_id", "client_address", "first")
    ):
        key = address.lower()
        seen = rated_at[subject_of[agent_id]]
        seen[key] = min(first, seen.get(key, first))
    # Not independent of an agent: its owner, and the operator and signer addresses of the providers
    # that are the agent or share its owner (the agent's own wallets and provider).
    owners = {agent.owner_address.lower() for agent in agents if agent.owner_address}
    own_addresses: dict[str, set[str]] = {}
    for agent_id, operator, signer in Provider.objects.filter(
        any_of("agent_id", members) | Q(operator_address__iregex=r"^(" + "|".join(sorted(owners)) + r")$")
        if owners
        else any_of("agent_id", members)
    ).values_list("agent_id", "operator_address", "signer_address"):
        addresses = {a.lower() for a in (operator, signer) if a}
        if agent_id in members:
            # Keyed by the group: a provider that is any identity of the agent is the agent's own.
            own_addresses.setdefault(subject_of[agent_id], set()).update(addresses)
        if operator and operator.lower() in owners:
            own_addresses.setdefault(operator.lower(), set()).update(addresses)
    return _evidence_of(agents, subject_of, ratings, first_seen, rated_at, own_addresses, sybil)


def _evidence_of(
    agents: list[Agent],
    subject_of: dict[int, str],
    ratings: list[Rating],
    first_seen: dict[str, datetime],
    rated_at: dict[str, dict[str, datetime]],
    own_addresses: dict[str, set[str]],
    sybil: SybilParams,
) -> dict[int, ReviewerEvidence]:
    out = {}
    for agent in agents:
        subject = subject_of[agent.pk]
        excluded = {a.lower() for a in (agent.owner_address, agent.wallet_address) if a}
        excluded |= own_addresses.get(subject, set())
        if agent.owner_address:
            excluded |= own_addresses.get(agent.owner_address.lower(), set())
        ages = {
            address: max(0.0, (at - first_seen.get(address, at)).total_seconds() / 86400.0)
            for address, at in rated_at.get(subject, {}).items()
        }
        standings = reviewer_standings(
            ratings, subject=subject, excluded=excluded, age_days=ages, params=sybil
        )
        feedback, curated = weighted_feedback(ratings, standings, subject=subject, params=sybil)
        out[agent.pk] = ReviewerEvidence(standings, feedback, curated)
    return out


def _stake_checks(distribution: dict[str, Any] | None) -> dict[str, int] | None:
    if distribution is None:
        return None
    return {level: int(entry.get("checks", 0)) for level, entry in distribution.items()}


@dataclass(frozen=True)
class ScoreInputs:
    summaries: list[ProviderSummary]
    summary_ids: dict[str, int]
    newest_input_at: datetime | None
    changes_at: datetime | None
    feedback: FeedbackSummary | None


def _inputs_from(
    agent: Agent,
    rows: list[VerificationSummary] | list[SummaryRow],
    feedback: FeedbackSummary | None,
    params: ScoringParams,
    now: datetime,
    factors: dict[int, float] | None = None,
) -> ScoreInputs:
    max_age = params.output_verification.max_age_days
    summaries = []
    newest: datetime | None = None
    changes_at: datetime | None = None
    for row in rows:
        reason = exclusion_reason(row, agent, now, max_age)
        summaries.append(
            ProviderSummary(
                provider_id=row.provider.slug,
                allow_rate=row.allow_rate,
                block_rate=row.block_rate,
                uncertain_rate=row.uncertain_rate,
                avg_confidence=row.avg_confidence,
                total_checks=int(row.total_checks),
                stake_distribution=_stake_checks(row.stake_distribution),
                excluded_reason=reason,
                # Under accuracy weighting only (None otherwise keeps the inputs and digest as before).
                accuracy_factor=None if factors is None else factors[row.provider.pk],
            )
        )
        newest = max(newest, row.received_at) if newest else row.received_at
        if reason is None:
            # The moment this summary turns stale the score changes without new input.
            expiry = row.window_end + timedelta(days=max_age)
            changes_at = min(changes_at, expiry) if changes_at else expiry
    return ScoreInputs(
        summaries=summaries,
        summary_ids={row.provider.slug: row.pk for row in rows},
        newest_input_at=newest,
        changes_at=changes_at,
        feedback=feedback,
    )


# --- computing -------------------------------------------------------------------------------------


def _iso(moment: datetime) -> str:
    return moment.astimezone(UTC).isoformat().replace("+00:00", "Z")


def trust_score_compute(*, agent: Agent, now: datetime | None = None) -> tuple[TrustScore, bool]:
    """Score an agent under the current configuration; returns (score, whether it is new)."""
    return trust_scores_compute_many(agents=[agent], now=now)[0]


def trust_scores_compute_many(
    *, agents: list[Agent], now: datetime | None = None
) -> list[tuple[TrustScore, bool]]:
    """Score agents under the current configuration; per agent (score, whether it is new), in order.

    Inputs are read with two queries for all the agents and new records are written together, so a
    drain of many pending agents costs a few round trips instead of several per agent. An agent
    whose inputs and configuration are unchanged keeps its record (nothing is written for it).
    """
    now = now or timezone.now()
    results, fresh = trust_scores_prepare(agents=agents, now=now)
    if fresh:
        trust_scores_store(fresh=fresh, now=now)
    return results


#: The agent columns (and previous score's) that `trust_scores_prepare` and `trust_scores_store` read:
#: a batch may load only these (`QuerySet.only`); any other field would cost a query per agent.
SCORED_AGENT_FIELDS = (
    "subject_id",
    "registry",
    "protocol",
    "owner_address",
    "wallet_address",
    "latest_score",
    "latest_score__config",
    "latest_score__inputs_digest",
    "latest_score__trust_score",
    "latest_score__trust_confidence",
)


def trust_scores_prepare(
    *, agents: list[Agent], now: datetime
) -> tuple[list[tuple[TrustScore, bool]], list[tuple[Agent, TrustScore]]]:
    """Compute without writing: per agent (score, whether it is new), and the unsaved new records.

    Split from the store so the recompute queue can check it still holds its claims in between.
    Under the built-in adapters (also with sybil-resistance: the SPEC 2.4 floor is the default) the
    records of all changed agents are built in one vectorised pass (`adapters.vectorised.hcs25_records`),
    equal to scoring each agent on its own.
    """
    config = scoring_config_current()
    params = scoring_params(config)
    ids = [agent.pk for agent in agents]
    rows = latest_summary_rows_many(ids)
    factors = _accuracy_factors(params, rows)
    # Read once for both the merged feedback and the reviewers' standings.
    groups = identity_groups_many(ids)
    merged = feedback_merged_many(ids, params.erc8004_feedback.rating_tag, groups=groups)
    feedback = {agent_id: found.summary for agent_id, found in merged.items()}
    # Rating the raters (SPEC 2.4): the feedback read is the curated, standing-weighted one.
    evidence = (
        reviewer_evidence_many(agents, params, now, groups=groups) if params.reviewer_weighting() else {}
    )
    for agent_id, found in evidence.items():
        feedback[agent_id] = found.feedback
    batch = batch_supported(params)
    updated_at = _iso(now)
    results: list[tuple[TrustScore, bool] | None] = []
    # Agents whose inputs or configuration changed, with what their new record needs.
    changed: list[tuple[int, Agent, Subject, ScoreInputs, dict[str, Any], str, TrustScoreRecord | None]] = []
    changed_reviewers: list[Sequence[ReviewerStanding] | None] = []
    for agent in agents:
        gathered = _inputs_from(agent, rows[agent.pk], feedback[agent.pk], params, now, factors)
        subject = Subject(agent.subject_id, agent.registry, agent.protocol or None)
        reviewers = evidence[agent.pk].standings if agent.pk in evidence else None
        scalar: TrustScoreRecord | None = None
        if batch:
            # Only the digest per agent: the numbers of every changed agent come from one batch below.
            inputs, digest = scoring_inputs_digest(
                subject,
                summaries=gathered.summaries,
                feedback=gathered.feedback,
                params=params,
                reviewers=reviewers,
            )
        else:
            scalar = score_subject(
                subject,
                summaries=gathered.summaries,
                feedback=gathered.feedback,
                params=params,
                reviewers=reviewers,
            )
            inputs, digest = dict(scalar.inputs), scalar.inputs_digest
        latest = agent.latest_score
        if latest is not None and latest.inputs_digest == digest and latest.config_id == config.pk:
            results.append((latest, False))
            continue
        changed.append((len(results), agent, subject, gathered, inputs, digest, scalar))
        changed_reviewers.append(reviewers)
        results.append(None)
    if batch:
        records = hcs25_records(
            [(subject, gathered.summaries, gathered.feedback) for _, _, subject, gathered, *_ in changed],
            params,
            digests=[digest for *_, digest, _ in changed],
            config_version=config.version,
            updated_at_iso=updated_at,
            reviewers=changed_reviewers,
        )
    else:
        records = [
            scalar.to_hcs25(config.version, updated_at) for *_, scalar in changed if scalar is not None
        ]
    fresh: list[tuple[Agent, TrustScore]] = []
    for (index, agent, _, gathered, inputs, digest, _), record in zip(changed, records, strict=True):
        # With zero confidence no input counted: trustScore 0 then means "no data", and clients
        # must not read it as a verdict (HCS-25 has no such field, so this one is ours).
        record["rated"] = record["trustConfidence"] > 0
        record["provenance"]["newestInputAt"] = (
            _iso(gathered.newest_input_at) if gathered.newest_input_at else None
        )
        record["provenance"]["summaryIds"] = gathered.summary_ids
        record["provenance"]["changesAt"] = _iso(gathered.changes_at) if gathered.changes_at else None
        if merged[agent.pk].identities:
            # Where the merged ERC-8004 feedback came from, chain by chain (linked identities only).
            record["provenance"]["feedbackIdentities"] = list(merged[agent.pk].identities)
        score = TrustScore(
            agent=agent,
            config=config,
            trust_score=Decimal(str(record["trustScore"])),
            trust_confidence=Decimal(str(record["trustConfidence"])),
            record=record,
            inputs=inputs,
            inputs_digest=digest,
            computed_at=now,
            newest_input_at=gathered.newest_input_at,
            changes_at=gathered.changes_at,
        )
        fresh.append((agent, score))
        results[index] = (score, True)
    return [result for result in results if result is not None], fresh


def trust_scores_store(*, fresh: list[tuple[Agent, TrustScore]], now: datetime) -> None:
    """Write records made by :func:`trust_scores_prepare` and point their agents at them."""
    if not fresh:
        return
    from ..signals import ScoreChange, score_changes

    # The scores these replace, read before the agents point at the new ones (for webhooks).
    changes = [
        ScoreChange(
            agent_id=agent.pk,
            subject_id=agent.subject_id,
            previous_score=agent.latest_score.trust_score if agent.latest_score is not None else None,
            # A record is rated exactly when its confidence is above 0 (trust_scores_prepare); the
            # column says so without loading the record, which the drain defers (one query per agent).
            previous_rated=agent.latest_score.trust_confidence > 0
            if agent.latest_score is not None
            else None,
            trust_score=score.trust_score,
            trust_confidence=score.trust_confidence,
            rated=bool(score.record.get("rated")),
            computed_at=now,
        )
        for agent, score in fresh
    ]
    with transaction.atomic():
        if connection.vendor == "postgresql":
            _scores_store_postgresql(fresh, now)
        else:
            TrustScore.objects.bulk_create([score for _, score in fresh])
        for agent, score in fresh:
            agent.latest_score = score
            agent.trust_score = score.trust_score
            agent.trust_score_updated_at = now
        if connection.vendor != "postgresql":
            Agent.objects.bulk_update(
                [agent for agent, _ in fresh], ["latest_score", "trust_score", "trust_score_updated_at"]
            )
        score_changes.send(sender=TrustScore, changes=changes)
    # Readers get the new records from the next request on (dropped now and again once committed,
    # so a reader racing this transaction cannot leave an old record cached).
    keys = [trust_score_cache_key(agent.subject_id) for agent, _ in fresh]
    _cache_forget(keys)
    transaction.on_commit(partial(_cache_forget, keys))


_INSERT_SCORES = """
INSERT INTO registry_trustscore (
    agent_id, config_id, trust_score, trust_confidence, record, inputs, inputs_digest, computed_at,
    newest_input_at, changes_at
)
SELECT u.agent_id, u.config_id, u.trust_score, u.trust_confidence, u.record::jsonb, u.inputs::jsonb,
       u.digest, u.computed_at, u.newest, u.changes
FROM unnest(
    %(agent)b::bigint[], %(config)b::bigint[], %(score)b::numeric[], %(confidence)b::numeric[],
    %(record)b::text[], %(inputs)b::text[], %(digest)b::text[], %(computed)b::timestamptz[],
    %(newest)b::timestamptz[], %(changes)b::timestamptz[]
) AS u(
    agent_id, config_id, trust_score, trust_confidence, record, inputs, digest, computed_at, newest, changes
)
RETURNING id, agent_id
"""

_POINT_AGENTS = """
UPDATE registry_agent AS a
SET latest_score_id = u.score_id, trust_score = u.trust_score, trust_score_updated_at = %(now)s
FROM unnest(%(agent)b::bigint[], %(score_id)b::bigint[], %(score)b::numeric[])
    AS u(agent_id, score_id, trust_score)
WHERE a.id = u.agent_id
"""


def _scores_store_postgresql(fresh: list[tuple[Agent, TrustScore]], now: datetime) -> None:
    """The same writes as bulk_create + bulk_update, with binary array parameters.

    A drain of 200 agents spent most of its time in the ORM's client-side quoting of the records
    and in bulk_update's CASE expressions; two statements with binary arrays take a fraction.
    """
    scores = [score for _, score in fresh]
    connection.ensure_connection()
    with psycopg.Cursor(connection.connection) as cursor:
        cursor.execute(
            _INSERT_SCORES,
            {
                "agent": [score.agent_id for score in scores],
                "config": [score.config_id for score in scores],
                "score": [score.trust_score for score in scores],
                "confidence": [score.trust_confidence for score in scores],
                "record": [json.dumps(score.record) for score in scores],
                "inputs": inputs_json_many([score.inputs for score in scores]),
                "digest": [score.inputs_digest for score in scores],
                "computed": [score.computed_at for score in scores],
                "newest": [score.newest_input_at for score in scores],
                "changes": [score.changes_at for score in scores],
            },
        )
        ids = dict((agent_id, score_id) for score_id, agent_id in cursor.fetchall())
        for score in scores:
            score.pk = ids[score.agent_id]
            score._state.adding = False
        cursor.execute(
            _POINT_AGENTS,
            {
                "now": now,
                "agent": [score.agent_id for score in scores],
                "score_id": [score.pk for score in scores],
                "score": [score.trust_score for score in scores],
            },
        )


def inputs_json_many(inputs: list[dict[str, Any]]) -> list[str]:
    """`json.dumps` of each agent's inputs, the same text, with each shared `params` dict encoded once.

    The inputs of a batch share one `params` dict per configuration (`scoring_inputs_digest`), half
    their text: it is encoded once and spliced in its place (not always the last member: the reviewers
    follow it under reviewer weighting). json.dumps writes a dict as `{` + its members' `"key": value`
    joined by `, ` + `}`, so the members before and after it are encoded as dicts of their own.
    """
    encoded: dict[int, str] = {}
    texts = []
    for one in inputs:
        params = one.get("params")
        if not isinstance(params, dict):
            texts.append(json.dumps(one))
            continue
        text = encoded.get(id(params))
        if text is None:
            text = encoded[id(params)] = json.dumps(params)
        keys = list(one)
        at = keys.index("params")
        pieces = []
        if at:
            pieces.append(json.dumps({key: one[key] for key in keys[:at]})[1:-1])
        pieces.append(f'"params": {text}')
        if at + 1 < len(keys):
            pieces.append(json.dumps({key: one[key] for key in keys[at + 1 :]})[1:-1])
        texts.append("{" + ", ".join(pieces) + "}")
    return texts


def _cache_forget(keys: list[str]) -> None:
    # A cache that is down holds nothing to forget; failing here would only leave the score unstored.
    try:
        cache.delete_many(keys)
    except (redis.exceptions.RedisError, OSError):
        logger.warning("could not drop %d cached scores", len(keys), exc_info=True)

"""HCS-25 trust-score maths: pure Python + numpy, no Django.

Layout: ``numbers`` (clamp, half-up rounding), ``params`` (configuration),
``core`` (components, modes, composite), ``output_verification`` and
``erc8004_feedback`` (the two adapters), ``scoring`` (one subject end to end),
``graph`` (HCS-25 v1.1 composition graphs and explanations),
``sybil`` (reviewer standing, curated feedback, the sybil-resistance adapter),
``digest`` (inputs digest), ``vectorised`` (many agents at once with numpy).
"""

from adapters.core import AdapterResult, Component, CompositeScore, adapter_result, adapter_total, composite
from adapters.digest import inputs_digest
from adapters.erc8004_feedback import FeedbackSummary, score_erc8004_feedback
from adapters.graph import CompositionGraph, GraphError, GraphNode, evaluate_graph, explain, implicit_graph
from adapters.numbers import clamp, round_half_up, round_half_up_array
from adapters.output_verification import (
    ExcludedProvider,
    OutputVerificationProvenance,
    ProviderContribution,
    ProviderQuality,
    ProviderSummary,
    provider_quality,
    score_output_verification,
)
from adapters.params import (
    AdapterSpec,
    Erc8004FeedbackParams,
    OutputVerificationParams,
    ScoringParams,
    StakeWeights,
)
from adapters.scoring import Subject, TrustScoreRecord, score_from_inputs, score_subject, scoring_inputs
from adapters.sybil import (
    Rating,
    ReviewerStanding,
    SybilParams,
    reviewer_standings,
    score_sybil_resistance,
    weighted_feedback,
)
from adapters.vectorised import (
    BatchScores,
    applicability_flags,
    batch_supported,
    hcs25_records,
    pack_subjects,
    score_batch,
)

__all__ = [
    "AdapterResult",
    "AdapterSpec",
    "BatchScores",
    "Component",
    "CompositeScore",
    "CompositionGraph",
    "Erc8004FeedbackParams",
    "ExcludedProvider",
    "FeedbackSummary",
    "GraphError",
    "GraphNode",
    "OutputVerificationParams",
    "OutputVerificationProvenance",
    "ProviderContribution",
    "ProviderQuality",
    "ProviderSummary",
    "Rating",
    "ReviewerStanding",
    "ScoringParams",
    "StakeWeights",
    "Subject",
    "SybilParams",
    "TrustScoreRecord",
    "adapter_result",
    "adapter_total",
    "applicability_flags",
    "batch_supported",
    "clamp",
    "composite",
    "evaluate_graph",
    "explain",
    "hcs25_records",
    "implicit_graph",
    "inputs_digest",
    "pack_subjects",
    "provider_quality",
    "reviewer_standings",
    "round_half_up",
    "round_half_up_array",
    "score_batch",
    "score_erc8004_feedback",
    "score_from_inputs",
    "score_output_verification",
    "score_subject",
    "score_sybil_resistance",
    "scoring_inputs",
    "weighted_feedback",
]

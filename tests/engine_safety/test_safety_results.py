"""The result classes whose constructors are written out (for mypyc) behave like generated ones.

``PiiMatch``, ``InjectionEvidence``, ``InjectionFinding`` and ``RiskReport`` take ``init=False`` and
their own ``__init__`` (a generated one stays interpreted Python in the compiled build): the same
parameters and defaults, a fresh dict per instance where the generated one had
``default_factory=dict``, frozen, compared by value.
"""

from __future__ import annotations

import dataclasses

import pytest

from verification.engine.safety import InjectionEvidence, InjectionFinding, PiiMatch, RiskReport
from verification.engine.safety.risk import DISCLAIMER

# One value per field, in field order.
_VALUES: list[tuple[type, tuple[object, ...]]] = [
    (InjectionEvidence, ("system_override", "r", 0.5, "ignore", 1, 7, "normalized")),
    (InjectionFinding, (0.5, True, "system_override", {"system_override": 0.5}, (), "tool_result")),
    (PiiMatch, ("email", "contact", 0, 5, "a@b.c", 0.9, "format", True)),
    (RiskReport, (0.1, "low", {"x": 0.5}, ("why",), "an indicator")),
]


@pytest.mark.parametrize(("cls", "values"), _VALUES)
def test_it_takes_the_fields_in_order_as_parameters(cls: type, values: tuple[object, ...]) -> None:
    # (The compiled classes have no signature for ``inspect``: construct them both ways instead.)
    names = [f.name for f in dataclasses.fields(cls)]
    assert len(names) == len(values)
    positional, by_name = cls(*values), cls(**dict(zip(names, values, strict=True)))
    assert positional == by_name
    assert [getattr(positional, name) for name in names] == list(values)


def test_it_gives_each_finding_its_own_scores_and_the_old_defaults() -> None:
    first, second = InjectionFinding(0.0, False, None), InjectionFinding(0.0, False, None)
    assert first.category_scores == {} and first.category_scores is not second.category_scores
    assert (first.evidence, first.source) == ((), "user")
    assert first == second and hash(first.evidence) == hash(second.evidence)
    with pytest.raises(dataclasses.FrozenInstanceError):
        first.risk_score = 1.0  # type: ignore[misc]


def test_it_gives_each_report_its_own_indicators_and_the_old_defaults() -> None:
    first, second = RiskReport(0.1, "low"), RiskReport(0.1, "low")
    assert first.indicators == {} and first.indicators is not second.indicators
    assert (first.reasons, first.disclaimer) == ((), DISCLAIMER)
    assert first == second and first != RiskReport(0.1, "low", {"x": 0.5})
    with pytest.raises(dataclasses.FrozenInstanceError):
        first.score = 1.0  # type: ignore[misc]


def test_it_keeps_the_pii_match_defaults() -> None:
    match = PiiMatch("email", "contact", 0, 5, "a@b.c", 0.9)
    assert (match.check, match.context) == ("", False)
    assert match == PiiMatch("email", "contact", 0, 5, "a@b.c", 0.9, "", False)


def test_it_keeps_the_evidence_default() -> None:
    evidence = InjectionEvidence("system_override", "r", 0.9, "ignore", 0, 6)
    assert evidence.via == "raw" and evidence == InjectionEvidence(
        "system_override", "r", 0.9, "ignore", 0, 6, "raw"
    )
    with pytest.raises(dataclasses.FrozenInstanceError):
        evidence.weight = 1.0  # type: ignore[misc]

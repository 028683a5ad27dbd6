"""verify_run: the four stages of seed 004 with HaluGate's fact-check gate, end to end."""

from __future__ import annotations

import gc
import hashlib
import json
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from functools import lru_cache
from typing import Any, Final

from ..budget import UNLIMITED, Budget
from .backend import NLIBackend, load_backend
from .calibration import load_calibration
from .config import RunVerifierConfig
from .evidence import Evidence, build_evidence
from .factcheck import classify_request
from .gating import aggregate_score, decide_action, decide_calibrated, refusal, revise_message
from .grounding import Finding, ground_answer
from .messages import parse_run
from .probes import run_probes
from .report import Claim, EvidenceSpan, HallucinationReport
from .toolcalls import validate_tool_calls

__all__ = ["verify_run", "warm_up"]

_SCORES = {"SUPPORTED": 0.95, "UNSUPPORTED": 0.5, "CONTRADICTED": 0.2}
# Numbers, quantities, money, dates, times, names, identifiers, URLs and citations are critical (SPEC 4.2).
_CRITICAL = frozenset(
    {
        "money", "percent", "quantity", "number", "count", "year", "date", "time", "url", "email",
        "id", "entity", "score", "state", "direction", "currency",
    }
)  # fmt: skip
_HIGH_STAKE = frozenset({"money", "id", "url", "email"})
# No-break and thin spaces as the blank they stand for: gpt-oss-120b writes "Mechanical\u202fKeyboard",
# "order\u202f#W9911714", "667\u202fHighland\u202fDrive", where a name, an identifier's cue or an address
# would otherwise split in two (issue 14, h25d). One character for one: every span stays where it was.
_BLANKS: Final = str.maketrans({"\u00a0": " ", "\u2007": " ", "\u2009": " ", "\u202f": " "})


def _plain_blanks(text: str) -> str:
    """``text`` with its no-break and thin spaces as plain ones (same length, same offsets).

    >>> _plain_blanks("Mechanical\u202fKeyboard at\u00a0$231.37")
    'Mechanical Keyboard at $231.37'
    """
    if "\u00a0" not in text and "\u2007" not in text and "\u2009" not in text and "\u202f" not in text:
        return text
    return text.translate(_BLANKS)


@lru_cache(maxsize=4)
def _backend(path: str) -> NLIBackend:
    return load_backend(path)


@contextmanager
def _collector_paused() -> Iterator[None]:
    """Pause Python's cyclic garbage collector while a run is read and its claims are checked.

    Reading a 20 KB run allocates tens of thousands of small containers (facts, JSON paths, mentions) that
    all live until the claims are made and are then freed by reference counting: they form no cycles. With
    the collector on, those allocations set off young-generation collections that walk the same live
    objects again and again, and now and then a full collection of the whole process heap lands in the
    middle of a run and sets the p99 latency. Pausing skips that work rather than postponing it, since the
    objects are gone when collection resumes. Collection resumes only if it was on, and other threads'
    cyclic garbage waits at most one verification.
    """
    enabled = gc.isenabled()
    if enabled:
        gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


# json.dumps(messages, sort_keys=True, ensure_ascii=False, default=str) with its settings in one encoder,
# built once: json.dumps builds a new encoder (and its markers dict) on every call with options. The
# encoder keeps no markers (no circular check, so it holds no state between calls); on any failure
# (circular or unencodable messages) _run_id calls json.dumps itself, which raises exactly as before.
_C_MAKE_ENCODER: Final[Any] = getattr(json.encoder, "c_make_encoder", None)
_RUN_ID_ENCODE: Final[Any] = (
    _C_MAKE_ENCODER(None, str, json.encoder.encode_basestring, None, ": ", ", ", True, False, True)
    if _C_MAKE_ENCODER is not None
    else None
)


def _run_id(messages: Any) -> str:
    text: str | None = None
    if _RUN_ID_ENCODE is not None:
        try:
            text = "".join(_RUN_ID_ENCODE(messages, 0))
        except Exception:  # json.dumps below raises the error the caller used to see
            text = None
    if text is None:
        text = json.dumps(messages, sort_keys=True, ensure_ascii=False, default=str)
    return "run_" + hashlib.sha256(text.encode()).hexdigest()[:24]


def _claim(f: Finding, answer: str, ev: Evidence, located: dict[int, EvidenceSpan]) -> Claim:
    """The claim of a finding; ``located`` keeps the span of each fact already placed (by ``id``, as facts
    live as long as the run): several claims often rest on one fact, and spans are immutable."""
    m = f.mention
    a, b = f.sentence
    spans = []
    for fact in f.facts[:5]:
        span = located.get(id(fact))
        if span is None:
            s, e = ev.locate(fact)
            span = located[id(fact)] = EvidenceSpan(fact.message_index, fact.json_path, s, e, fact.text)
        spans.append(span)
    score = _SCORES[f.label] - (0.05 if f.label == "SUPPORTED" and (f.derived or m.hedge) else 0.0)
    return Claim(
        m.text,
        (m.start, m.end),
        answer[a:b].strip(),
        m.kind,
        m.kind in _CRITICAL,
        f.label,
        score,
        spans,
        f.reason,
    )


def _merge_adjacent(claims: list[Claim], answer: str) -> list[Claim]:
    # "between 2 PM and 6 PM" is one claim for a reader: join flagged values separated by a connector.
    out: list[Claim] = []
    for c in claims:
        prev = out[-1] if out else None
        if (
            prev is not None and prev.label != "SUPPORTED" and c.label == prev.label and c.kind == prev.kind
            and answer[prev.span[1] : c.span[0]].strip() in ("and", "to", "-", "–", ",", "or")
        ):  # fmt: skip
            prev.span = (prev.span[0], c.span[1])
            prev.text = answer[prev.span[0] : prev.span[1]]
            prev.evidence_spans += c.evidence_spans
            continue
        out.append(c)
    return out


def _stake(claims: list[Claim]) -> str:
    critical = [c for c in claims if c.critical]
    if not critical:
        return "low"
    if any(c.kind in _HIGH_STAKE and c.label == "CONTRADICTED" for c in critical):
        return "critical"
    if any(c.kind in _HIGH_STAKE for c in critical):
        return "high"
    return "medium"


def _refine(claims: list[Claim], ev: Evidence, backend: NLIBackend, threshold: float) -> None:
    # The explainer only looks at flagged claims: it filters false positives and sets the severity.
    premise = " ".join(ev.contents.values())[:8000]
    for c in claims:
        if c.label == "SUPPORTED":
            continue
        label, prob = backend.classify(premise, c.sentence)
        if prob < threshold:
            continue
        if label == "ENTAILMENT":
            c.label, c.score, c.reason = "SUPPORTED", 0.85, f"{backend.name}: entailed by the evidence"
        elif label == "CONTRADICTION":
            c.label, c.score, c.reason = "CONTRADICTED", 0.2, f"{backend.name}: contradicts the evidence"
        elif label == "NEUTRAL":
            c.label, c.score, c.reason = "UNSUPPORTED", 0.5, f"{backend.name}: not entailed by the evidence"


def warm_up() -> None:
    """Load the unit registry and run one verification, so the first real request does not pay for it.

    Call it once per process at start-up (a Django ``AppConfig.ready``, a worker's init hook).

    >>> warm_up()
    """
    from .units import convert

    convert(1.0, "m", "ft")
    verify_run(
        [
            {"role": "user", "content": "How tall is it?"},
            {"role": "tool", "tool_call_id": "c", "content": '{"height_m": 330, "date": "2024-03-04"}'},
            {"role": "assistant", "content": "It is about 1,083 feet tall since March 4."},
        ]
    )


def verify_run(
    messages: Any,
    tools: Any = None,
    *,
    config: RunVerifierConfig | None = None,
    probe_answers: Sequence[str] | Mapping[str, Sequence[str]] | None = None,
    budget: Budget | None = None,
) -> HallucinationReport:
    """Verify an agent run (OpenAI chat format) and return its HallucinationReport.

    ``budget`` bounds the time the verification may spend: it is checked inside every loop whose work
    grows with the run, and :class:`~verification.engine.budget.BudgetExceeded` is raised once it is spent.
    Without one there is no time limit (only the size caps of ``config``); a service answering untrusted
    requests passes one. Runs over a size cap raise :class:`RunTooLargeError` before the work starts.

    >>> msgs = [
    ...     {"role": "user", "content": "When was the Eiffel Tower built?"},
    ...     {"role": "assistant", "content": None, "tool_calls": [{"id": "c1", "type": "function",
    ...      "function": {"name": "get_landmark_info", "arguments": '{"name": "Eiffel Tower"}'}}]},
    ...     {"role": "tool", "tool_call_id": "c1", "content": '{"built": "1887-1889", "height": "330 m"}'},
    ...     {"role": "assistant", "content": "The Eiffel Tower was built in 1950 and is 330 meters tall."},
    ... ]
    >>> r = verify_run(msgs)
    >>> r.action, [c.text for c in r.flagged_claims]
    ('block', ['1950'])
    """
    cfg = config or RunVerifierConfig()
    spend = UNLIMITED if budget is None else budget
    if probe_answers is None and cfg.probe_endpoint:
        # Probes wait on the network for up to seconds: the collector stays on meanwhile.
        return _verify(messages, tools, cfg, probe_answers, spend)
    with _collector_paused():
        # Everything _verify allocates but the report (the parsed run, the evidence, the findings) is freed
        # when it returns, before collection resumes.
        return _verify(messages, tools, cfg, probe_answers, spend)


def _verify(
    messages: Any,
    tools: Any,
    cfg: RunVerifierConfig,
    probe_answers: Sequence[str] | Mapping[str, Sequence[str]] | None,
    budget: Budget,
) -> HallucinationReport:
    """:func:`verify_run` with its configuration resolved: parse, validate, gate, ground, probe, decide."""
    run = parse_run(messages, tools, cfg)
    budget.check("reading the run")
    validations = validate_tool_calls(run, cfg, budget)
    request_type, needed = classify_request(run.last_user, has_tool_context=bool(run.results))
    report = HallucinationReport(
        run_id=_run_id(messages),
        fact_check_needed=needed,
        request_type=request_type,
        tool_call_validations=validations,
    )
    rejected = any(v.status in ("invalid", "unknown_tool") for v in validations)
    if not needed or not run.answer.strip():
        # Tool-call verification still runs: action safety does not depend on the kind of request.
        report.action = "revise" if rejected else "emit"
        report.revise_message = revise_message([], validations) if rejected else ""
        return report
    if not run.results:
        report.unverified_factual = True
        report.action = "revise" if rejected else "emit"
        report.revise_message = revise_message([], validations) if rejected else ""
        return report
    ev = build_evidence(run, budget)
    located: dict[int, EvidenceSpan] = {}
    answer = _plain_blanks(run.answer)
    findings = ground_answer(
        answer,
        ev,
        budget=budget,
        max_claims=cfg.max_claims,
        max_comparisons=cfg.max_comparisons,
        answer_path=f"messages[{run.answer_index}].content",
        question=run.last_user,
        turn_start=max((i for i, _ in run.user), default=-1),
    )
    claims: list[Claim] = []
    for f in findings:
        # Placing a fact searches its message: claims times the size of the results.
        budget.check("placing the evidence of each claim")
        claims.append(_claim(f, answer, ev, located))
    claims = _merge_adjacent(claims, answer)
    if cfg.model_path:
        backend = _backend(cfg.model_path)
        _refine(claims, ev, backend, cfg.model_threshold)
        report.backend = f"rules+{backend.name}"
    report.claims = claims
    report.consistency_probes = run_probes(run, claims, cfg, probe_answers)
    for p in report.consistency_probes:
        if not p.error and p.agreement < 0.5:
            for c in claims:
                if c.text == p.claim and c.label == "SUPPORTED":
                    c.score = min(c.score, cfg.revise_threshold - 0.01)
                    c.reason += "; self-consistency probes disagree"
    report.overall_score = aggregate_score(claims, cfg)
    calibration = load_calibration()
    if calibration is not None:
        probabilities = [calibration.claim_probability(c.label, c.kind) for c in claims]
        for c, prob in zip(claims, probabilities, strict=True):
            c.probability = prob
        report.hallucination_probability = calibration.response_probability_of(probabilities)
    if cfg.gate == "calibrated" and calibration is not None and report.hallucination_probability is not None:
        report.gate = "calibrated"
        report.action = decide_calibrated(
            report.hallucination_probability,
            calibration.thresholds,
            validations,
            report.consistency_probes,
        )
    else:
        report.action = decide_action(
            report.overall_score, claims, validations, report.consistency_probes, cfg
        )
    report.stake = _stake(claims)
    if report.action == "revise":
        report.revise_message = revise_message(claims, validations)
    elif report.action == "block":
        report.refusal_message = refusal(claims)
        report.revise_message = revise_message(claims, validations)
    return report

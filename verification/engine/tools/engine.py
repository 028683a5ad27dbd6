"""The tool-result verifier: tiered checks fused by Bayes, with state behind a store."""

from __future__ import annotations

import hashlib
import math
import threading
from collections.abc import Iterable, Mapping
from typing import Any

from verification.engine.store import MemoryStore, StateStore
from verification.engine.tools import adaptive
from verification.engine.tools.baseline import (
    count_floor,
    hold_pending,
    learn_args,
    learn_session,
    learn_tool,
    new_tool_state,
)
from verification.engine.tools.features import (
    Inspected,
    Limits,
    ResultRejectedError,
    canonical_dumps,
    inspect_result,
)
from verification.engine.tools.fusion import (
    DECISIVE_LIKELIHOOD_RATIO,
    DEFAULT_LIKELIHOOD_RATIOS,
    DEFAULT_PRIOR,
    add_evidence,
    prior_log_odds,
    probability,
    verdict_for,
)
from verification.engine.tools.profile import DEFAULT_LATENCY_MS, ToolProfile
from verification.engine.tools.result import Signal, Tier, Verdict, VerificationResult, explain, new_result
from verification.engine.tools.tier0 import (
    NETWORK_FLOOR_MS,
    check_latency,
    check_length,
    check_pattern,
    check_schema,
    log_size,
)
from verification.engine.tools.tier1 import check_history, check_plausibility, check_session, check_spc

__all__ = ["ToolVerifier"]

_DECISIVE = "decisive"


_ARGS_HASHES: dict[str, str] = {}


def _args_hash(args: Any, limits: Limits) -> str:
    try:
        text = canonical_dumps(args)
    except (TypeError, ValueError, RecursionError) as exc:
        raise ResultRejectedError(f"args cannot be serialised: {exc}") from exc
    if len(text) > limits.max_chars:
        raise ResultRejectedError(f"args exceed the {limits.max_chars} character limit")
    digest = _ARGS_HASHES.get(text)
    if digest is None:
        digest = hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=12).hexdigest()
        if len(text) <= 1024:  # argument sets repeat: remember the digests of small ones
            if len(_ARGS_HASHES) >= 8192:
                _ARGS_HASHES.clear()
            _ARGS_HASHES[text] = digest
    return digest


class ToolVerifier:
    """Verify tool-call results for fabrication (seed 000's VerificationEngine).

    *store* holds everything learned (a :class:`MemoryStore` by default; a ``RedisStore`` shares it
    between processes). *likelihood_ratios* overrides the seed's defaults for this engine (the key
    ``"decisive"`` sets the LR of decisive evidence); :meth:`register_tool_profile` can override them
    per tool. Thresholds: accept below *accept_threshold*, block at or above *block_threshold*.
    Blocked results are never learned, accepted ones always; *learn_flagged* says what a flagged one
    updates: ``"args"`` (default) its argument and session history only, ``"all"`` also the tool-wide
    baselines, ``"none"`` nothing.

    >>> v = ToolVerifier()
    >>> _ = v.register_tool_profile("get_weather", expected_latency_ms=(100, 5000),
    ...                             required_fields=["temperature", "humidity"])
    >>> v.verify("get_weather", {"city": "London"}, {"temperature": 18, "humidity": 65}, 350.0).verdict.value
    'accept'
    >>> v.verify("get_weather", {"city": "London"}, {"temperature": 18}, 350.0).verdict.value
    'block'
    """

    def __init__(
        self,
        *,
        store: StateStore | None = None,
        likelihood_ratios: Mapping[str, float] | None = None,
        prior: float = DEFAULT_PRIOR,
        accept_threshold: float = 0.2,
        block_threshold: float = 0.5,
        ema_alpha: float = 0.1,
        limits: Limits | None = None,
        calibrator: Any = None,
        learn_flagged: str = "args",
    ) -> None:
        if learn_flagged not in ("none", "args", "all"):
            raise ValueError(f"learn_flagged must be 'none', 'args' or 'all', got {learn_flagged!r}")
        if not 0.0 < prior < 1.0:
            raise ValueError(f"prior must be in (0, 1), got {prior!r}")
        if not 0.0 < accept_threshold <= block_threshold <= 1.0:
            raise ValueError(
                "need 0 < accept_threshold <= block_threshold <= 1, "
                f"got {accept_threshold}, {block_threshold}"
            )
        self.store: StateStore = store if store is not None else MemoryStore()
        self.likelihood_ratios = self._merge_lrs(
            {**DEFAULT_LIKELIHOOD_RATIOS, _DECISIVE: DECISIVE_LIKELIHOOD_RATIO}, likelihood_ratios
        )
        self.prior = prior
        self.accept_threshold = accept_threshold
        self.block_threshold = block_threshold
        self.ema_alpha = ema_alpha
        self.limits = limits or Limits()
        self.calibrator = calibrator
        self.learn_flagged = learn_flagged
        self._meta: dict[str, tuple[ToolProfile, dict[str, float]]] = {}
        # Repeated results (same JSON text) are flattened once; see features.inspect_result.
        self._inspect_cache: dict[str, Inspected] = {}
        self._defaults: dict[str, tuple[ToolProfile, dict[str, float]]] = {}
        # The in-memory store hands out live objects: one lock keeps checks and updates consistent.
        self._lock = threading.RLock() if isinstance(self.store, MemoryStore) else None

    @staticmethod
    def _merge_lrs(base: dict[str, float], extra: Mapping[str, float] | None) -> dict[str, float]:
        merged = dict(base)
        for name, value in (extra or {}).items():
            if name not in merged:
                raise ValueError(f"unknown signal {name!r}; known: {sorted(merged)}")
            if not (isinstance(value, int | float) and math.isfinite(value) and value >= 1.0):
                raise ValueError(f"likelihood ratio for {name!r} must be a finite number >= 1, got {value!r}")
            merged[name] = float(value)
        return merged

    # -- profiles ---------------------------------------------------------------------------------

    def register_tool_profile(
        self,
        tool_name: str,
        *,
        expected_latency_ms: tuple[float, float] | list[float] = DEFAULT_LATENCY_MS,
        required_fields: Iterable[str] | None = None,
        forbidden_fields: Iterable[str] | None = None,
        response_patterns: Iterable[str] | None = None,
        min_response_length: int | None = None,
        max_response_length: int | None = None,
        has_network_io: bool = True,
        likelihood_ratios: Mapping[str, float] | None = None,
    ) -> ToolProfile:
        """Register (or replace) a tool's profile, shared through the store with other processes.

        >>> ToolVerifier().register_tool_profile("calculate", has_network_io=False).has_network_io
        False
        """
        profile = ToolProfile(
            tool_name,
            expected_latency_ms=(float(expected_latency_ms[0]), float(expected_latency_ms[1])),
            required_fields=tuple(required_fields or ()),
            forbidden_fields=tuple(forbidden_fields or ()),
            response_patterns=tuple(response_patterns or ()),
            min_response_length=min_response_length,
            max_response_length=max_response_length,
            has_network_io=has_network_io,
        )
        lrs = self._merge_lrs({}, None) if likelihood_ratios is None else dict(likelihood_ratios)
        self._merge_lrs(self.likelihood_ratios, lrs)  # validates names and values
        self.store.update(f"meta:{tool_name}", lambda _: {"profile": profile.to_dict(), "lr": lrs})
        self._meta[tool_name] = (profile, self._merge_lrs(self.likelihood_ratios, lrs))
        return profile

    def forget_cached_profiles(self) -> None:
        """Drop this process's cache of profiles, so the next verification reads them from the store.

        >>> v = ToolVerifier()
        >>> _ = v.register_tool_profile("t", has_network_io=False)
        >>> v.forget_cached_profiles()
        >>> v.get_profile("t").has_network_io  # still in the store
        False
        """
        self._meta.clear()
        self._defaults.clear()

    def get_profile(self, tool_name: str) -> ToolProfile:
        """Return the tool's profile, or the default profile when none is registered.

        >>> ToolVerifier().get_profile("unknown").expected_latency_ms
        (50.0, 30000.0)
        """
        return self._resolve_meta(tool_name, self.store.get(f"meta:{tool_name}"))[0]

    def _resolve_meta(self, tool: str, stored: Any) -> tuple[ToolProfile, dict[str, float]]:
        cached = self._meta.get(tool)
        if cached is not None:
            return cached
        if stored is None:
            # Not cached as registered (another process may register it), but built only once.
            default = self._defaults.get(tool)
            if default is None:
                default = self._defaults[tool] = (ToolProfile(tool), self.likelihood_ratios)
            return default
        meta = (
            ToolProfile.from_dict(stored["profile"]),
            self._merge_lrs(self.likelihood_ratios, stored["lr"]),
        )
        self._meta[tool] = meta
        return meta

    # -- verification -----------------------------------------------------------------------------

    def verify(
        self,
        tool: str,
        args: Any = None,
        result: Any = None,
        execution_time_ms: float = 0.0,
        session_id: str | None = None,
    ) -> VerificationResult:
        """Verify one tool-call result and learn from it unless it is blocked.

        Raises :class:`ResultRejectedError` (a ``ValueError``) for results beyond the engine's bounds
        and ``ValueError`` for a negative or non-finite *execution_time_ms*.

        >>> v = ToolVerifier()
        >>> _ = v.register_tool_profile("search_web", required_fields=["results"])
        >>> v.verify("search_web", {"q": "x"}, {"results": []}, 0.2).verdict.value  # impossibly fast
        'block'
        """
        if isinstance(execution_time_ms, bool) or not isinstance(execution_time_ms, int | float):
            raise ValueError(f"execution_time_ms must be a number, got {execution_time_ms!r}")
        if not math.isfinite(execution_time_ms) or execution_time_ms < 0:
            raise ValueError(f"execution_time_ms must be finite and >= 0, got {execution_time_ms!r}")
        if not isinstance(tool, str) or not tool:
            raise ValueError(f"tool must be a non-empty string, got {tool!r}")
        ins = inspect_result(result, self.limits, self._inspect_cache)
        args_hash = _args_hash(args, self.limits)
        if self._lock is None:
            return self._verify(tool, args_hash, ins, float(execution_time_ms), session_id)
        with self._lock:
            return self._verify(tool, args_hash, ins, float(execution_time_ms), session_id)

    def _verify(
        self, tool: str, args_hash: str, ins: Inspected, ms: float, session_id: str | None
    ) -> VerificationResult:
        tool_key, args_key, fb_key = f"tool:{tool}", f"args:{tool}:{args_hash}", f"fb:{tool}"
        meta = self._meta.get(tool)
        keys = [tool_key, args_key, fb_key]
        if session_id is not None:
            keys.append(f"sess:{session_id}")
        if meta is None:
            keys.append(f"meta:{tool}")
        values = self.store.get_many(keys)
        ts, args_state, fb = values[0], values[1], values[2]
        session_state = values[3] if session_id is not None else None
        if meta is None:
            registered = values[-1] is not None
            profile, lrs = self._resolve_meta(tool, values[-1])
        else:
            registered = True
            profile, lrs = meta
        if fb is None:
            prior, threshold = self.prior, self.block_threshold
        else:
            prior = adaptive.adapted_prior(fb, self.prior)
            threshold = adaptive.adapted_threshold(fb, self.block_threshold)
        decisive_lr = lrs[_DECISIVE]

        s_schema = check_schema(profile, ins, ts, lrs["schema_mismatch"])
        s_pattern = check_pattern(profile, ins, self.limits.max_pattern_chars, lrs["pattern_mismatch"])
        s_latency = check_latency(
            profile, ms, lrs["latency_anomaly"], decisive_lr, registered=registered, tool_state=ts
        )
        s_length = check_length(profile, ins.size, ts, lrs["length_anomaly"], decisive_lr)
        tier0 = (s_schema, s_pattern, s_latency, s_length)
        # Fused in two steps, in the same order as one fusion of all eight signals (bit-identical).
        log_odds = add_evidence(prior_log_odds(prior), tier0)
        posterior = probability(log_odds)
        log_latency = math.log10(max(ms, 1e-3))
        size_log = log_size(ins.size)
        s_history: Signal | None = None
        if posterior >= threshold:
            tier = Tier.TIER_0
            signals = {s.name: s for s in tier0}
        else:
            tier = Tier.TIER_1
            last = args_state["last"] if args_state else None
            tier1 = (
                check_spc(ts, ins, log_latency, size_log, lrs["spc_anomaly"]),
                check_session(ts, session_state, tool, args_hash, ins, lrs["session_inconsistency"]),
                check_history(ts, args_state, ins, lrs["historical_inconsistency"], decisive_lr),
                check_plausibility(ts, ins, lrs["value_plausibility"], decisive_lr, last),
            )
            s_history = tier1[2]
            signals = {s.name: s for s in tier0}
            for s in tier1:
                signals[s.name] = s
            posterior = probability(add_evidence(log_odds, tier1))
        verdict = verdict_for(posterior, min(self.accept_threshold, threshold), threshold)
        # Everything this verification writes, in one atomic step (one transaction on a shared store).
        updates: dict[str, Any] = {}
        if not registered and profile.has_network_io:
            # Every call of an unprofiled tool, blocked or not, counts towards learning whether it
            # really does network I/O (see check_latency).
            fast = ms < NETWORK_FLOOR_MS
            updates[tool_key] = lambda s: count_floor(s or new_tool_state(), fast)
        learned = verdict is Verdict.ACCEPT or (verdict is Verdict.FLAG and self.learn_flagged != "none")
        if learned:
            self._learn(
                updates,
                tool_key,
                args_key,
                session_id,
                tool,
                args_hash,
                ins,
                log_latency,
                size_log,
                args_state,
                tool_level=verdict is Verdict.ACCEPT or self.learn_flagged == "all",
            )
        elif args_state is not None and s_history is not None and s_history.fired:
            # Not learned, but kept: if the next call for these arguments agrees, the change was real.
            leaves = ins.leaves
            updates[args_key] = lambda s: hold_pending(s, leaves)
        if updates:
            self.store.update_many(updates)
        extra: dict[str, Any] = {}
        if self.calibrator is not None:
            extra["calibrated_confidence"] = float(self.calibrator.predict(posterior))
        return new_result(verdict, posterior, signals, tier, prior, tool, threshold, extra)

    def _learn(
        self,
        updates: dict[str, Any],
        tool_key: str,
        args_key: str,
        session_id: str | None,
        tool: str,
        args_hash: str,
        ins: Inspected,
        log_latency: float,
        size_log: float,
        args_state: dict[str, Any] | None,
        *,
        tool_level: bool = True,
    ) -> None:
        previous = args_state["last"] if args_state is not None else None
        before_previous = args_state.get("prev") if args_state is not None else None
        leaves = ins.leaves
        if tool_level:
            floor = updates.get(tool_key)
            if floor is None:
                updates[tool_key] = lambda s: learn_tool(
                    s or new_tool_state(), ins, log_latency, size_log, previous, before_previous
                )
            else:  # counted first, then learned, as two steps would
                updates[tool_key] = lambda s: learn_tool(
                    floor(s), ins, log_latency, size_log, previous, before_previous
                )
        updates[args_key] = lambda s: learn_args(s, leaves, accepted=tool_level)
        if session_id is not None:
            updates[f"sess:{session_id}"] = lambda s: learn_session(s, tool, args_hash, leaves)

    @staticmethod
    def _explain(
        verdict: Verdict, signals: dict[str, Signal], prior: float, posterior: float, tier: Tier
    ) -> str:
        return explain(verdict, signals, prior, posterior, tier)

    # -- feedback ---------------------------------------------------------------------------------

    def record_feedback(
        self, tool: str, confidence_score: float, was_hallucination: bool
    ) -> dict[str, float]:
        """Record a labelled outcome for *tool*; returns the tool's new prior and block threshold.

        >>> v = ToolVerifier()
        >>> sorted(v.record_feedback("search_web", 0.35, True))
        ['block_threshold', 'feedback', 'prior']
        """
        alpha = self.ema_alpha
        state = self.store.update(
            f"fb:{tool}",
            lambda s: adaptive.record(
                s or adaptive.new_feedback_state(self.prior), confidence_score, was_hallucination, alpha
            ),
        )
        return self._adaptation(state)

    def tool_adaptation(self, tool: str) -> dict[str, float]:
        """Return the tool's current prior, block threshold and feedback count.

        >>> ToolVerifier().tool_adaptation("x")["prior"]
        0.15
        """
        return self._adaptation(self.store.get(f"fb:{tool}"))

    def _adaptation(self, state: dict[str, Any] | None) -> dict[str, float]:
        return {
            "prior": adaptive.adapted_prior(state, self.prior),
            "block_threshold": adaptive.adapted_threshold(state, self.block_threshold),
            "feedback": float(state["n"]) if state else 0.0,
        }

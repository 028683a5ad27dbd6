"""The tool-result verifier: tiered checks fused by Bayes, with state behind a store."""

from __future__ import annotations

import hashlib
import math
import threading
from collections import OrderedDict
from collections.abc import Iterable, Mapping
from typing import Any, Final

from mypy_extensions import mypyc_attr

from verification.engine.store import MemoryStore, StateStore
from verification.engine.tools import adaptive
from verification.engine.tools.baseline import (
    count_floor,
    count_gone,
    hold_pending,
    learn_args,
    learn_session,
    learn_tool,
    new_tool_state,
)
from verification.engine.tools.confidence import default_calibrator
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
    absent_log,
    prior_log_odds,
    probability,
    verdict_for,
)
from verification.engine.tools.profile import DEFAULT_LATENCY_MS, ToolProfile
from verification.engine.tools.result import Signal, Tier, Verdict, VerificationResult, new_result
from verification.engine.tools.state import ArgsState, FeedbackState, SessionState, ToolBaseline, ToolState
from verification.engine.tools.tier0 import (
    NETWORK_FLOOR_MS,
    check_latency,
    check_length,
    check_pattern,
    check_schema,
    habitual_missing,
    log_size,
    vanished_any,
)
from verification.engine.tools.tier1 import check_history, check_plausibility, check_session, check_spc

__all__ = ["DEFAULT_CALIBRATOR", "ToolVerifier"]

_DECISIVE: Final = "decisive"
#: ``ToolVerifier(calibrator=DEFAULT_CALIBRATOR)`` (the default): the shipped map, see tools/confidence.py.
DEFAULT_CALIBRATOR: Final = "default"


_ARGS_HASHES: Final[dict[str, str]] = {}


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


def _echo_args(args: Any) -> tuple[tuple[str, Any], ...]:
    """The call's scalar top-level arguments (text and whole numbers, at most 8): the values a lookup
    tool's result may repeat (``baseline.learn_echo``)."""
    if type(args) is not dict or not args:
        return ()
    out: list[tuple[str, Any]] = []
    for key, value in args.items():
        kind = type(value)
        if type(key) is str and (kind is str or kind is int):
            out.append((key, value))
            if len(out) == 8:
                break
    return tuple(out)


class _Weight:
    """One signal's weights in one tool's plan: its LR, the log-odds its absence removes, and the signal
    as it reads when it did not fire (shared by the results of most verifications: signals are read-only
    by convention, so it is built once instead of per call)."""

    __slots__ = ("absent", "lr", "quiet")

    def __init__(self, name: str, lr: float, tier: int) -> None:
        self.lr = lr
        self.absent = absent_log(lr)
        self.quiet = Signal(name, False, 0.0, lr, "", tier)


class _Plan:
    """One tool's profile and likelihood ratios, compiled once for the verification hot path: the
    profile's field lists as sets, its bounds, and each signal's :class:`_Weight`."""

    __slots__ = (
        "forbidden",
        "has_patterns",
        "history",
        "lat_hi",
        "lat_lo",
        "latency",
        "len_hi",
        "len_lo",
        "length",
        "lr_decisive",
        "lrs",
        "network",
        "pattern",
        "plausibility",
        "profile",
        "required",
        "schema",
        "session",
        "spc",
    )

    def __init__(self, profile: ToolProfile, lrs: dict[str, float]) -> None:
        self.profile = profile
        self.lrs = lrs
        self.required = frozenset(profile.required_fields)
        self.forbidden = frozenset(profile.forbidden_fields)
        self.has_patterns = bool(profile.compiled_patterns)
        self.lat_lo, self.lat_hi = profile.expected_latency_ms
        self.network = profile.has_network_io
        self.len_lo, self.len_hi = profile.min_response_length, profile.max_response_length
        self.lr_decisive = lrs[_DECISIVE]
        self.schema = _Weight("schema_mismatch", lrs["schema_mismatch"], 0)
        self.pattern = _Weight("pattern_mismatch", lrs["pattern_mismatch"], 0)
        self.latency = _Weight("latency_anomaly", lrs["latency_anomaly"], 0)
        self.length = _Weight("length_anomaly", lrs["length_anomaly"], 0)
        self.spc = _Weight("spc_anomaly", lrs["spc_anomaly"], 1)
        self.session = _Weight("session_inconsistency", lrs["session_inconsistency"], 1)
        self.history = _Weight("historical_inconsistency", lrs["historical_inconsistency"], 1)
        self.plausibility = _Weight("value_plausibility", lrs["value_plausibility"], 1)


class _Call:
    """One verification in progress: what it read from the store, and the evidence summed so far."""

    plan: _Plan

    __slots__ = (
        "args_hash",
        "args_key",
        "args_state",
        "echo",
        "ins",
        "log_latency",
        "log_odds",
        "ms",
        "plan",
        "prior",
        "reference",
        "registered",
        "session_id",
        "session_state",
        "size_log",
        "threshold",
        "tool",
        "tool_key",
        "ts",
    )

    def __init__(
        self,
        tool: str,
        args_hash: str,
        ins: Inspected,
        ms: float,
        session_id: str | None,
        echo: tuple[tuple[str, Any], ...],
    ) -> None:
        self.tool = tool
        self.args_hash = args_hash
        self.echo = echo
        self.ins = ins
        self.ms = ms
        self.session_id = session_id
        self.tool_key = f"tool:{tool}"
        self.args_key = f"args:{tool}:{args_hash}"
        self.log_latency = math.log10(max(ms, 1e-3))
        self.size_log = log_size(ins.size)
        # Filled by ToolVerifier._read.
        self.ts: ToolState | None = None
        self.args_state: ArgsState | None = None
        self.session_state: SessionState | None = None
        self.reference: dict[str, Any] | None = None
        self.registered = True
        self.prior = 0.0
        self.threshold = 0.0
        self.log_odds = 0.0


def _add(log_odds: float, s: Signal) -> float:
    """Add one signal's evidence to *log_odds*, exactly as ``fusion.add_evidence`` does."""
    if s.fired:
        return log_odds + math.log(1.0 + (s.likelihood_ratio - 1.0) * min(max(s.score, 0.0), 1.0))
    return log_odds - absent_log(s.likelihood_ratio)


def _quiet(call: _Call, weight: _Weight) -> Signal:
    """A signal that did not fire: its absence lowers the log-odds (``fusion.absent_log``)."""
    call.log_odds -= weight.absent
    return weight.quiet


def _fired(call: _Call, s: Signal) -> Signal:
    """Add one computed signal's evidence (fired or not) to the call's log-odds."""
    call.log_odds = _add(call.log_odds, s)
    return s


# The store updaters of one verification (see ToolVerifier._verify): small classes rather than lambdas,
# which compiled code builds as an environment object plus one object per lambda, and which make every
# variable they capture an attribute of that environment in the function that defines them.


class _CountFloor:
    """Count a call of an unprofiled tool (``baseline.count_floor``)."""

    __slots__ = ("fast",)

    def __init__(self, fast: bool) -> None:
        self.fast = fast

    def __call__(self, state: Any) -> Any:
        return count_floor(state or new_tool_state(), self.fast)


class _CountGone:
    """Count fields dropped for the same arguments by a result not learned (``baseline.count_gone``)."""

    __slots__ = ("floor", "ins", "reference")

    def __init__(self, floor: Any, ins: Inspected, reference: dict[str, Any]) -> None:
        self.floor = floor
        self.ins = ins
        self.reference = reference

    def __call__(self, state: Any) -> Any:
        ts = self.floor(state) if self.floor is not None else state or new_tool_state()
        return count_gone(ts, self.ins, self.reference)


class _LearnTool:
    """Fold an accepted result into the tool state (``baseline.learn_tool``), after *floor* if given."""

    __slots__ = ("before_previous", "echo", "floor", "ins", "log_latency", "previous", "size_log")

    def __init__(
        self,
        floor: Any,
        ins: Inspected,
        log_latency: float,
        size_log: float,
        previous: dict[str, Any] | None,
        before_previous: dict[str, Any] | None,
        echo: tuple[tuple[str, Any], ...],
    ) -> None:
        self.floor = floor
        self.echo = echo
        self.ins = ins
        self.log_latency = log_latency
        self.size_log = size_log
        self.previous = previous
        self.before_previous = before_previous

    def __call__(self, state: Any) -> Any:
        ts = self.floor(state) if self.floor is not None else state or new_tool_state()
        return learn_tool(
            ts, self.ins, self.log_latency, self.size_log, self.previous, self.before_previous, self.echo
        )


class _LearnArgs:
    """Record a result for its argument set (``baseline.learn_args``)."""

    __slots__ = ("accepted", "leaves")

    def __init__(self, leaves: dict[str, Any], accepted: bool) -> None:
        self.leaves = leaves
        self.accepted = accepted

    def __call__(self, state: Any) -> Any:
        return learn_args(state, self.leaves, accepted=self.accepted)


class _HoldPending:
    """Keep a blocked result for its argument set (``baseline.hold_pending``)."""

    __slots__ = ("leaves",)

    def __init__(self, leaves: dict[str, Any]) -> None:
        self.leaves = leaves

    def __call__(self, state: Any) -> Any:
        return hold_pending(state, self.leaves)


class _LearnSession:
    """Append a result to its session window (``baseline.learn_session``)."""

    __slots__ = ("args_hash", "leaves", "tool")

    def __init__(self, tool: str, args_hash: str, leaves: dict[str, Any]) -> None:
        self.tool = tool
        self.args_hash = args_hash
        self.leaves = leaves

    def __call__(self, state: Any) -> Any:
        return learn_session(state, self.tool, self.args_hash, self.leaves)


# A public class: users (and tests) subclass it, which a compiled class allows only when told to.
@mypyc_attr(allow_interpreted_subclasses=True)
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
        calibrator: Any = DEFAULT_CALIBRATOR,
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
        # The shipped map unless told otherwise; None reports no calibrated confidence.
        self.calibrator = (
            default_calibrator()
            if isinstance(calibrator, str) and calibrator == DEFAULT_CALIBRATOR
            else calibrator
        )
        self.learn_flagged = learn_flagged
        self._meta: dict[str, _Plan] = {}
        # Repeated results (same JSON text) are flattened once; see features.inspect_result.
        self._inspect_cache: dict[str, Inspected] = OrderedDict()
        self._defaults: dict[str, _Plan] = {}
        # (feedback count, rate, confidence) -> (prior, block threshold, prior log-odds); see _verify.
        self._adapted: dict[tuple[Any, ...], tuple[float, float, float]] = {}
        # The configured prior and its log-odds (recomputed should the attribute be reassigned).
        self._base_log_odds = (prior, prior_log_odds(prior))
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
        self._meta[tool_name] = _Plan(profile, self._merge_lrs(self.likelihood_ratios, lrs))
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
        return self._resolve_meta(tool_name, self.store.get(f"meta:{tool_name}")).profile

    def _resolve_meta(self, tool: str, stored: Any) -> _Plan:
        cached = self._meta.get(tool)
        if cached is not None:
            return cached
        if stored is None:
            # Not cached as registered (another process may register it), but built only once.
            default = self._defaults.get(tool)
            if default is None:
                default = self._defaults[tool] = _Plan(ToolProfile(tool), self.likelihood_ratios)
            return default
        meta = _Plan(
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
        # A tuple of types: compiled, a union (int | float) would be built on every call.
        if isinstance(execution_time_ms, bool) or not isinstance(execution_time_ms, (int, float)):
            raise ValueError(f"execution_time_ms must be a number, got {execution_time_ms!r}")
        if not math.isfinite(execution_time_ms) or execution_time_ms < 0:
            raise ValueError(f"execution_time_ms must be finite and >= 0, got {execution_time_ms!r}")
        if not isinstance(tool, str) or not tool:
            raise ValueError(f"tool must be a non-empty string, got {tool!r}")
        ins = inspect_result(result, self.limits, self._inspect_cache)
        args_hash = _args_hash(args, self.limits)
        echo = _echo_args(args)
        if self._lock is None:
            return self._verify(tool, args_hash, ins, float(execution_time_ms), session_id, echo)
        with self._lock:
            return self._verify(tool, args_hash, ins, float(execution_time_ms), session_id, echo)

    def _verify(
        self,
        tool: str,
        args_hash: str,
        ins: Inspected,
        ms: float,
        session_id: str | None,
        echo: tuple[tuple[str, Any], ...] = (),
    ) -> VerificationResult:
        """The algorithm: read what is learned; tier 0 on the result alone; if that does not already
        block, tier 1 against the learned state; decide; learn from what was not blocked.

        Evidence is added signal by signal, in the order of one fusion of all eight signals
        (``fusion.add_evidence``), so the posterior is bit-identical to fusing them at once.
        """
        call = _Call(tool, args_hash, ins, ms, session_id, echo)
        self._read(call)
        signals = self._tier0(call)
        posterior = probability(call.log_odds)
        history_fired = False
        if posterior >= call.threshold:
            tier = Tier.TIER_0
        else:
            tier = Tier.TIER_1
            history_fired = self._tier1(call, signals)
            posterior = probability(call.log_odds)
        verdict = verdict_for(posterior, min(self.accept_threshold, call.threshold), call.threshold)
        self._write(call, verdict, history_fired)
        extra: dict[str, Any] = {}
        if self.calibrator is not None:
            extra["calibrated_confidence"] = float(self.calibrator.predict(posterior))
        return new_result(verdict, posterior, signals, tier, call.prior, tool, call.threshold, extra)

    def _read(self, call: _Call) -> None:
        """Read the call's state in one round trip: tool, arguments, feedback, session and (first time
        in this process) the tool's profile; set the prior, threshold and starting log-odds."""
        tool = call.tool
        plan = self._meta.get(tool)
        keys = [call.tool_key, call.args_key, f"fb:{tool}"]
        if call.session_id is not None:
            keys.append(f"sess:{call.session_id}")
        if plan is None:
            keys.append(f"meta:{tool}")
        values = self.store.get_many(keys)
        call.ts, call.args_state = values[0], values[1]
        fb: FeedbackState | None = values[2]
        if call.session_id is not None:
            call.session_state = values[3]
        if plan is None:
            call.registered = values[-1] is not None
            plan = self._resolve_meta(tool, values[-1])
        call.plan = plan
        if fb is None:
            call.prior, call.threshold = self.prior, self.block_threshold
            base_prior, log_odds = self._base_log_odds
            if base_prior != call.prior:
                self._base_log_odds = (call.prior, log_odds := prior_log_odds(call.prior))
            call.log_odds = log_odds
        else:
            call.prior, call.threshold, call.log_odds = self._adapt(fb)
        args_state = call.args_state
        if args_state is not None:
            # The reference for these arguments: the last result if it was accepted, else the last
            # accepted one.
            call.reference = args_state["last"] if args_state.get("ok", True) else args_state.get("good")

    def _tier0(self, call: _Call) -> dict[str, Signal]:
        """Schema, pattern, latency and length: checks on the result alone (and the learned schema).

        Each check runs in full only when it may fire: the screens are exact conditions under which
        it would return "not fired", the common case.
        """
        plan, ins, ts, ms = call.plan, call.ins, call.ts, call.ms
        profile = plan.profile
        # Fields the tool's own traffic says it always returns (its learned schema), missing now.
        vanished = habitual_missing(ts, ins, call.reference)
        if (
            (not plan.required or (ins.is_object and ins.top_set.keys() >= plan.required))
            and ins.key_names.keys().isdisjoint(plan.forbidden)
            and not ins.stub_keys
            and not vanished
            and not ins.stub_values
            and not ins.error_keys
        ):
            s_schema = _quiet(call, plan.schema)
        else:
            s_schema = _fired(call, check_schema(profile, ins, ts, plan.schema.lr, vanished))
        if not plan.has_patterns:
            s_pattern = _quiet(call, plan.pattern)
        else:
            s_pattern = _fired(
                call, check_pattern(profile, ins, self.limits.max_pattern_chars, plan.pattern.lr)
            )
        # Within the profile's range and above the network floor (or a local tool): nothing to report.
        if plan.lat_lo <= ms <= plan.lat_hi and (ms >= NETWORK_FLOOR_MS or not plan.network):
            s_latency = _quiet(call, plan.latency)
        else:
            s_latency = _fired(
                call,
                check_latency(
                    profile, ms, plan.latency.lr, plan.lr_decisive, registered=call.registered, tool_state=ts
                ),
            )
        len_lo, len_hi, size = plan.len_lo, plan.len_hi, ins.size
        # Both bounds set and met: the learned-size rule applies only where the profile sets none.
        if len_lo is not None and len_hi is not None and len_lo <= size <= len_hi:
            s_length = _quiet(call, plan.length)
        else:
            s_length = _fired(call, check_length(profile, size, ts, plan.length.lr, plan.lr_decisive))
        return {
            "schema_mismatch": s_schema,
            "pattern_mismatch": s_pattern,
            "latency_anomaly": s_latency,
            "length_anomaly": s_length,
        }

    def _tier1(self, call: _Call, signals: dict[str, Signal]) -> bool:
        """SPC, session, history and plausibility against the learned state, added to *signals*.

        Returns whether the history check fired (a result it holds back is kept as pending).
        """
        plan, ins, ts, args_state = call.plan, call.ins, call.ts, call.args_state
        signals["spc_anomaly"] = _fired(
            call, check_spc(ts, ins, call.log_latency, call.size_log, plan.spc.lr)
        )
        if ts is None or call.session_state is None:
            signals["session_inconsistency"] = _quiet(call, plan.session)
        else:
            signals["session_inconsistency"] = _fired(
                call, check_session(ts, call.session_state, call.tool, call.args_hash, ins, plan.session.lr)
            )
        history_fired = False
        # The same result as the last accepted one for these arguments is no change at all.
        if ts is None or args_state is None or args_state["last"] == ins.leaves:
            signals["historical_inconsistency"] = _quiet(call, plan.history)
        else:
            s_history = check_history(ts, args_state, ins, plan.history.lr, plan.lr_decisive)
            history_fired = s_history.fired
            signals["historical_inconsistency"] = _fired(call, s_history)
        last = args_state["last"] if args_state else None
        signals["value_plausibility"] = _fired(
            call, check_plausibility(ts, ins, plan.plausibility.lr, plan.lr_decisive, last, call.echo)
        )
        return history_fired

    def _write(self, call: _Call, verdict: Verdict, history_fired: bool) -> None:
        """Everything this verification writes, in one atomic step (one transaction on a shared store).

        Blocked results are never learned, accepted ones always; a flagged one per ``learn_flagged``.
        """
        updates: dict[str, Any] = {}
        tool_key, ins, ts, args_state = call.tool_key, call.ins, call.ts, call.args_state
        if not call.registered and call.plan.network:
            # Every call of an unprofiled tool, blocked or not, counts towards learning whether it
            # really does network I/O (see check_latency).
            updates[tool_key] = _CountFloor(call.ms < NETWORK_FLOOR_MS)
        learned = verdict is Verdict.ACCEPT or (verdict is Verdict.FLAG and self.learn_flagged != "none")
        tool_level = verdict is Verdict.ACCEPT or self.learn_flagged == "all"
        reference = call.reference
        if (
            not (learned and tool_level)
            and reference is not None
            and ts is not None
            and vanished_any(ts, ins)
        ):
            # Not learned tool-wide, but a field these arguments held is gone: counted all the same.
            updates[tool_key] = _CountGone(updates.get(tool_key), ins, reference)
        if learned:
            self._learn(
                updates,
                tool_key,
                call.args_key,
                call.session_id,
                call.tool,
                call.args_hash,
                ins,
                call.log_latency,
                call.size_log,
                args_state,
                tool_level=tool_level,
                echo=call.echo,
            )
        elif args_state is not None and history_fired:
            # Not learned, but kept: if the next call for these arguments agrees, the change was real.
            updates[call.args_key] = _HoldPending(ins.leaves)
        if updates:
            self.store.update_many(updates)

    def _adapt(self, fb: FeedbackState) -> tuple[float, float, float]:
        """Return the tool's adapted prior, block threshold and prior log-odds for its feedback state.

        Feedback changes rarely (verifications far outnumber it), so the three are computed once per
        feedback state (count, rate, confidence) and configuration (prior, threshold), all they depend
        on, and then looked up.
        """
        key = (fb["n"], fb["rate"], fb["conf"], self.prior, self.block_threshold)
        hit = self._adapted.get(key)
        if hit is None:
            prior = adaptive.adapted_prior(fb, self.prior)
            threshold = adaptive.adapted_threshold(fb, self.block_threshold)
            if len(self._adapted) >= 4096:
                self._adapted.clear()
            hit = self._adapted[key] = (prior, threshold, prior_log_odds(prior))
        return hit

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
        args_state: ArgsState | None,
        *,
        tool_level: bool = True,
        echo: tuple[tuple[str, Any], ...] = (),
    ) -> None:
        previous = args_state["last"] if args_state is not None else None
        before_previous = args_state.get("prev") if args_state is not None else None
        if tool_level and args_state is not None and not args_state.get("ok", True):
            # The last result was only flagged: the tool learns the change from the last accepted one.
            good = args_state.get("good")
            if good is not None:
                previous = good
        leaves = ins.leaves
        if tool_level:
            # Counted first (an unprofiled tool's _CountFloor, if any), then learned, as two steps would.
            updates[tool_key] = _LearnTool(
                updates.get(tool_key), ins, log_latency, size_log, previous, before_previous, echo
            )
        updates[args_key] = _LearnArgs(leaves, tool_level)
        if session_id is not None:
            updates[f"sess:{session_id}"] = _LearnSession(tool, args_hash, leaves)

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

    def baseline(self, tool: str) -> ToolBaseline | None:
        """Return what the engine has learned about *tool*, or None before its first accepted result.

        >>> v = ToolVerifier()
        >>> _ = v.verify("t", {"q": 1}, {"price": 12.5}, 250.0)
        >>> b = v.baseline("t")
        >>> b.observations, b.field_counts, [round(x) for x in b.latency_ms], b.numeric["/price"]
        (1, {'price': 1}, [250], ([12.5], 1))
        """
        ts: ToolState | None = self.store.get(f"tool:{tool}")
        if not ts or not ts.get("n"):
            return None
        # Latency and size baselines are kept as log10 (skewed quantities): given back on their scale.
        lat = ts["lat"]
        size = ts["size"]
        num: Any = ts["num"]
        return ToolBaseline(
            tool=tool,
            observations=int(ts["n"]),
            latency_ms=[10.0**v for v in lat["buf"]],
            latency_total=int(lat["total"]),
            response_bytes=[10.0**v for v in size["buf"]],
            response_total=int(size["total"]),
            field_counts=dict(ts["keys"]),
            numeric={
                path: (list(entry["raw"]["buf"]), int(entry["raw"]["total"])) for path, entry in num.items()
            },
        )

    def _adaptation(self, state: FeedbackState | None) -> dict[str, float]:
        return {
            "prior": adaptive.adapted_prior(state, self.prior),
            "block_threshold": adaptive.adapted_threshold(state, self.block_threshold),
            "feedback": float(state["n"]) if state else 0.0,
        }

"""Agent-run hallucination detection (SPEC 4.2; seeds 004 and 002), a pure-Python library.

>>> from verification.engine.runs import verify_run
>>> verify_run([{"role": "user", "content": "Write a haiku about rain."},
...             {"role": "assistant", "content": "Soft rain on the roof"}]).request_type
'creative'
"""

from ..budget import Budget, BudgetExceeded
from .backend import BowNLIBackend, NLIBackend, load_backend
from .config import RunVerifierConfig
from .errors import MalformedRunError, RunTooLargeError
from .factcheck import classify_request
from .gating import REFUSAL_TEMPLATE
from .halugate import ACTIONS, HEADER_PREFIX, apply_action, report_headers
from .report import Claim, ConsistencyProbe, EvidenceSpan, HallucinationReport, ToolCallValidation
from .verify import verify_run, warm_up

__all__ = [
    "ACTIONS",
    "HEADER_PREFIX",
    "REFUSAL_TEMPLATE",
    "BowNLIBackend",
    "Budget",
    "BudgetExceeded",
    "Claim",
    "ConsistencyProbe",
    "EvidenceSpan",
    "HallucinationReport",
    "MalformedRunError",
    "NLIBackend",
    "RunTooLargeError",
    "RunVerifierConfig",
    "ToolCallValidation",
    "apply_action",
    "classify_request",
    "load_backend",
    "report_headers",
    "verify_run",
    "warm_up",
]

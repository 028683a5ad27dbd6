"""THE authorization table: every endpoint x principal -> the class of answer it gets.

One data structure: tests/authz/test_authz_table.py sends every row's request as every principal
and checks the answer, and fails when the URLconf has a route or method this table lacks;
`python tests/authz/authz_table.py` prints the markdown that docs/security.md carries (between
`<!-- authz-table:begin -->` and `<!-- authz-table:end -->`, checked by the same test).

Pure data (no Django), so the docs can be regenerated without a database.
"""

from __future__ import annotations

from dataclasses import dataclass

PRINCIPALS = (
    "anonymous",
    "provider",
    "suspended_provider",
    "operator",
    "other_operator",
    "suspended_operator",
    "admin",
)
TITLES = {
    "anonymous": "anonymous",
    "provider": "provider",
    "suspended_provider": "suspended provider",
    "operator": "operator (linked, owner)",
    "other_operator": "another operator",
    "suspended_operator": "suspended operator",
    "admin": "admin (staff session)",
}


def _all(outcome: str) -> dict[str, str]:
    return dict.fromkeys(PRINCIPALS, outcome)


PUBLIC = _all("2xx")
# Provider-only writes. Operator keys and admin sessions are not provider credentials: 401.
PROVIDER_WRITE = {**_all("401"), "provider": "2xx", "suspended_provider": "403"}
# Operator writes that name an agent (or another operator's object): only the linked/owning operator.
OPERATOR_FOR_AGENT = {**_all("401"), "operator": "2xx", "other_operator": "403", "suspended_operator": "403"}
# Operator writes about nobody else's agent or object: any active operator.
OPERATOR_ANY = {**OPERATOR_FOR_AGENT, "other_operator": "2xx"}
# The admin site: staff only; everyone else is redirected to the login page.
ADMIN_ONLY = {**_all("3xx"), "admin": "2xx"}


@dataclass(frozen=True)
class Rule:
    method: str  # one method, or several (", "-separated) that answer alike
    route: str  # as in the URLconf (Django route syntax), joined from the root
    expect: dict[str, str]
    note: str = ""
    sample: str | None = None  # a concrete path, when the route's parameters do not say it

    @property
    def methods(self) -> list[str]:
        return self.method.split(", ")


TABLE: tuple[Rule, ...] = (
    # --- registry: provider writes ------------------------------------------------------------
    Rule("POST", "api/v1/summaries", PROVIDER_WRITE, "suspended: 403 provider-suspended"),
    Rule("POST", "api/v1/summaries/batch", PROVIDER_WRITE, "all or nothing"),
    Rule("POST", "api/v1/outcomes", PROVIDER_WRITE),
    Rule(
        "POST",
        "api/v1/agents",
        PROVIDER_WRITE,
        "never chainId/erc8004AgentId/ownerAddress or an eip155: subject (400)",
    ),
    # --- registry: public reads --------------------------------------------------------------
    Rule("GET", "api/v1/agents", PUBLIC),
    Rule("GET", "api/v1/agents/<str:subject_id>", PUBLIC),
    Rule("GET", "api/v1/agents/<str:subject_id>/trust-score", PUBLIC),
    Rule("GET", "api/v1/agents/<str:subject_id>/trust-score/history", PUBLIC),
    Rule("GET", "api/v1/agents/<str:subject_id>/trust-score/explanation", PUBLIC),
    Rule("GET", "api/v1/providers", PUBLIC),
    Rule("GET", "api/v1/providers/<slug:slug>", PUBLIC),
    Rule("GET", "api/v1/scoring-config", PUBLIC),
    Rule("GET", "api/v1/scoring-configs", PUBLIC),
    Rule("GET", "api/v1/scoring-configs/<int:version>", PUBLIC),
    # --- attestations ------------------------------------------------------------------------
    Rule("GET", "api/v1/agents/<str:subject_id>/trust-score/attestation", PUBLIC),
    Rule("GET", "api/v1/agents/<str:subject_id>/trust-score/publications", PUBLIC),
    Rule("GET", "api/v1/attestations/<int:attestation_id>", PUBLIC),
    Rule(
        "GET",
        "api/v1/feedback/<int:publication_id>",
        _all("404"),
        "a publication's ERC-8004 feedback file, for anyone; the sample names none, so 404 (not 401/403)",
        sample="/api/v1/feedback/999999",
    ),
    Rule("POST", "api/v1/attestations/verify", PUBLIC, "checks a signature; stores nothing"),
    Rule("GET", "api/v1/attestations/signer", PUBLIC),
    # --- the verification engine: operator writes --------------------------------------------
    Rule("POST", "api/v1/verify/tool-call", OPERATOR_FOR_AGENT, "`agent` must be linked; quota"),
    Rule(
        "POST",
        "api/v1/verify/tool-call/<uuid:verification_id>/feedback",
        OPERATOR_FOR_AGENT,
        "only the operator that made the verification",
    ),
    Rule("POST", "api/v1/verify/run", OPERATOR_FOR_AGENT, "`agent` must be linked; quota"),
    Rule("POST", "api/v1/scan", OPERATOR_ANY, "quota"),
    Rule(
        "POST",
        "api/v1/agents/<str:subject_id>/runtime-observations",
        OPERATOR_FOR_AGENT,
        "the agent must be linked; quota",
    ),
    Rule("PUT", "api/v1/tools/<str:tool>/profile", OPERATOR_FOR_AGENT, "only the profile's creator"),
    Rule("POST", "v1/chat/completions", OPERATOR_FOR_AGENT, "`x-agent-id` must be linked; quota"),
    Rule("GET", "api/v1/operators/me", OPERATOR_ANY),
    Rule("POST", "api/v1/operators/me/wallet/challenge", OPERATOR_ANY),
    Rule("POST", "api/v1/operators/me/wallet", OPERATOR_ANY, "EIP-191 signature of the challenge"),
    # --- webhooks: an operator's (a marketplace's) own subscriptions -------------------------
    Rule("GET", "api/v1/webhooks/subscriptions", OPERATOR_ANY, "only its own"),
    Rule("POST", "api/v1/webhooks/subscriptions", OPERATOR_ANY, "URL through the SSRF guard; capped"),
    Rule(
        "GET, PATCH, DELETE",
        "api/v1/webhooks/subscriptions/<int:pk>",
        OPERATOR_FOR_AGENT,
        "only the subscription's operator",
    ),
    Rule(
        "POST",
        "api/v1/webhooks/subscriptions/<int:pk>/rotate-secret",
        OPERATOR_FOR_AGENT,
        "only the subscription's operator",
    ),
    Rule(
        "GET",
        "api/v1/webhooks/subscriptions/<int:pk>/deliveries",
        OPERATOR_FOR_AGENT,
        "only the subscription's operator",
    ),
    # --- the verification engine: public reads -----------------------------------------------
    Rule("GET", "api/v1/verify/calibration", PUBLIC),
    Rule("GET", "api/v1/agents/<str:subject_id>/health", PUBLIC),
    Rule("GET", "api/v1/tools", PUBLIC),
    Rule("GET", "api/v1/tools/<str:tool>/profile", PUBLIC),
    Rule("GET", "api/v1/tools/<str:tool>/baseline", PUBLIC),
    Rule("GET", "v1/stats/<str:agent_id>", PUBLIC, "HCS-25 stats endpoint of the engine"),
    # --- schema, docs, pages -----------------------------------------------------------------
    Rule("GET", "api/schema/", PUBLIC),
    Rule("GET", "api/docs/", PUBLIC),
    Rule("GET", "problems/<slug:slug>", PUBLIC),
    Rule("GET", "healthz", PUBLIC),
    Rule("GET", "favicon.ico", PUBLIC, "the site icon"),
    Rule("GET", "agents/", PUBLIC, "HTML"),
    Rule("GET", "agents/<str:subject_id>", PUBLIC, "HTML"),
    Rule("GET", "providers/<slug:slug>", PUBLIC, "HTML", sample="/providers/provider"),
    Rule("GET", "docs/<slug:slug>", PUBLIC, "HTML methodology pages", sample="/docs/scoring"),
    Rule("GET, POST, PUT, PATCH, DELETE", "", _all("3xx"), "redirects to /agents/"),
    # --- the admin site (one route in the URLconf; its pages sampled) ------------------------
    Rule(
        "GET",
        "admin/",
        {**PUBLIC, "admin": "3xx"},
        "the login page (a signed-in admin goes on to the index)",
        sample="/admin/login/",
    ),
    Rule("GET", "admin/", ADMIN_ONLY, "the index", sample="/admin/"),
    Rule(
        "GET",
        "admin/",
        ADMIN_ONLY,
        "operator-agent links",
        sample="/admin/verification/operatoragentlink/",
    ),
)


def render_markdown(table: tuple[Rule, ...] = TABLE) -> str:
    """The table as markdown: one row per endpoint, one column per principal."""
    header = ["Method", "Path", *(TITLES[p] for p in PRINCIPALS), "Notes"]
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    for rule in table:
        path = rule.sample or "/" + rule.route
        cells = [rule.method, f"`{path}`", *(rule.expect[p] for p in PRINCIPALS), rule.note]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    print(render_markdown(), end="")

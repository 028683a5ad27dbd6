from django.urls import path

from . import operators, runs, safety, tools, views

app_name = "engine-stats"

urlpatterns = [
    path("stats/<str:agent_id>", views.EngineStatsView.as_view(), name="stats"),
    path("chat/completions", runs.ChatCompletionsProxyView.as_view(), name="chat-completions"),
]

api_urlpatterns = [
    path("verify/tool-call", tools.ToolCallVerifyView.as_view(), name="verify-tool-call"),
    path(
        "verify/tool-call/<uuid:verification_id>/feedback",
        tools.ToolFeedbackView.as_view(),
        name="tool-feedback",
    ),
    path("verify/run", runs.RunVerifyView.as_view(), name="verify-run"),
    path("verify/calibration", tools.CalibrationView.as_view(), name="verify-calibration"),
    path("scan", safety.ScanView.as_view(), name="scan"),
    path(
        "agents/<str:subject_id>/runtime-observations",
        safety.RuntimeObservationView.as_view(),
        name="runtime-observations",
    ),
    path("agents/<str:subject_id>/health", safety.AgentHealthView.as_view(), name="agent-health"),
    path("operators/me", operators.OperatorMeView.as_view(), name="operator-me"),
    path(
        "operators/me/wallet/challenge",
        operators.WalletChallengeView.as_view(),
        name="operator-wallet-challenge",
    ),
    path("operators/me/wallet", operators.WalletProofView.as_view(), name="operator-wallet"),
    path("tools", tools.ToolProfileListView.as_view(), name="tool-profiles"),
    path("tools/<str:tool>/profile", tools.ToolProfileView.as_view(), name="tool-profile"),
    path("tools/<str:tool>/baseline", tools.ToolBaselineView.as_view(), name="tool-baseline"),
]

from django.urls import path

from . import views

app_name = "registry-api"

urlpatterns = [
    path("summaries", views.SummaryCreateView.as_view(), name="summaries"),
    path("summaries/batch", views.SummaryBatchView.as_view(), name="summaries-batch"),
    path("outcomes", views.OutcomesView.as_view(), name="outcomes"),
    path("agents", views.AgentListView.as_view(), name="agents"),
    path("agents/<str:subject_id>", views.AgentDetailView.as_view(), name="agent"),
    path("agents/<str:subject_id>/trust-score", views.TrustScoreView.as_view(), name="trust-score"),
    path(
        "agents/<str:subject_id>/trust-score/explanation",
        views.TrustScoreExplanationView.as_view(),
        name="trust-score-explanation",
    ),
    path(
        "agents/<str:subject_id>/trust-score/history",
        views.TrustScoreHistoryView.as_view(),
        name="trust-score-history",
    ),
    path("providers", views.ProviderListView.as_view(), name="providers"),
    path("providers/<slug:slug>", views.ProviderDetailView.as_view(), name="provider"),
    path("scoring-config", views.ScoringConfigCurrentView.as_view(), name="scoring-config"),
    path("scoring-configs", views.ScoringConfigListView.as_view(), name="scoring-configs"),
    path(
        "scoring-configs/<int:version>",
        views.ScoringConfigDetailView.as_view(),
        name="scoring-config-version",
    ),
]

from django.urls import path

from . import chain_views, views

app_name = "attestations-api"

urlpatterns = [
    path(
        "agents/<str:subject_id>/trust-score/attestation",
        views.AgentAttestationView.as_view(),
        name="agent-attestation",
    ),
    path(
        "agents/<str:subject_id>/trust-score/publications",
        chain_views.ScorePublicationsView.as_view(),
        name="agent-score-publications",
    ),
    path("attestations/<int:attestation_id>", views.AttestationDocumentView.as_view(), name="attestation"),
    path("feedback/<int:publication_id>", views.FeedbackFileView.as_view(), name="feedback-file"),
    path("attestations/verify", views.AttestationVerifyView.as_view(), name="attestation-verify"),
    path("attestations/signer", views.SignerView.as_view(), name="attestation-signer"),
]

from django.urls import path

from . import views

app_name = "attestations-api"

urlpatterns = [
    path(
        "agents/<str:subject_id>/trust-score/attestation",
        views.AgentAttestationView.as_view(),
        name="agent-attestation",
    ),
    path("attestations/<int:attestation_id>", views.AttestationDocumentView.as_view(), name="attestation"),
    path("attestations/verify", views.AttestationVerifyView.as_view(), name="attestation-verify"),
    path("attestations/signer", views.SignerView.as_view(), name="attestation-signer"),
]

from django.apps import AppConfig


class VerificationConfig(AppConfig):
    """The Django side of the verification engine (the pure core is verification.engine)."""

    name = "verification"
    verbose_name = "Verification engine"
    default_auto_field = "django.db.models.BigAutoField"

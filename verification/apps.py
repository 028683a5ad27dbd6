from django.apps import AppConfig


class VerificationConfig(AppConfig):
    """The Django side of the verification engine (the pure core is verification.engine)."""

    name = "verification"
    verbose_name = "Verification engine"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        # pint's unit registry takes about a second to load: pay it at start-up, not on a request.
        from .engine.runs import warm_up
        from .engine.safety import prepare_injection_prefilter, prepare_pii_prefilter

        warm_up()
        # Load the hyperscan prefilters from their cache (or build them, seconds, in background threads).
        prepare_injection_prefilter(timeout=0)
        prepare_pii_prefilter(timeout=0)

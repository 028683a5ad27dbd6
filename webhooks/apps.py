from django.apps import AppConfig


class WebhooksConfig(AppConfig):
    name = "webhooks"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        # The registry announces score changes and suspensions; it does not know this app exists.
        from registry.signals import provider_suspended, score_changes

        from .receivers import on_provider_suspended, on_score_changes

        score_changes.connect(on_score_changes, dispatch_uid="webhooks.score_changes")
        provider_suspended.connect(on_provider_suspended, dispatch_uid="webhooks.provider_suspended")

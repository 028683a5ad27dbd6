import os

from django.apps import AppConfig
from django.core.exceptions import ImproperlyConfigured


class AttestationsConfig(AppConfig):
    """Signed trust: EIP-712 attestations of scores, signed ingestion, and ERC-8004 on Base."""

    name = "attestations"
    verbose_name = "Attestations and ERC-8004"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        # The registry's agent page shows the agent's chain side without importing this app.
        from registry.signals import agent_page_shown

        from .receivers import agent_page_chain_context

        agent_page_shown.connect(agent_page_chain_context, dispatch_uid="attestations.agent_page")
        # A misconfigured signing key or chain would otherwise show only as 503s on the requests that
        # need them: stop every process (web, worker, beat, manage.py) at start-up instead, naming the
        # variable. The key itself is not kept here (attestations.services.keys loads it when needed).
        from signing.keys import KeyConfigurationError, load_service_key

        try:
            load_service_key(os.environ)
        except KeyConfigurationError as error:
            raise ImproperlyConfigured(str(error)) from None
        from django.conf import settings

        if settings.CHAIN_ENABLED or settings.CHAIN_DEPLOYMENTS:
            # Imported only here: it brings web3, which a registry without the chain never loads.
            from common.errors import ApplicationError

            from .services.chain import chain_settings_all

            try:
                chain_settings_all()
            except ApplicationError as error:
                raise ImproperlyConfigured(error.detail) from None

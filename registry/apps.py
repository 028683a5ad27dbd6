from django.apps import AppConfig


class RegistryConfig(AppConfig):
    name = "registry"
    verbose_name = "Trust registry"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        # Registers the `any` lookup (registry.lookups.any_of) on every field.
        from . import lookups  # noqa: F401

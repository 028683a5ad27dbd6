from django.apps import AppConfig


class CommonConfig(AppConfig):
    name = "common"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        # Once every app is loaded: libraries imported on the way may have raised the recursion limit.
        from .recursion import recursion_limit_restore

        recursion_limit_restore()

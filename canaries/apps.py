from django.apps import AppConfig


class CanariesConfig(AppConfig):
    name = "canaries"
    verbose_name = "Provider canaries"
    default_auto_field = "django.db.models.BigAutoField"

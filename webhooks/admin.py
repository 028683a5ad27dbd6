from django.contrib import admin

from .models import WebhookDelivery, WebhookEvent, WebhookSubscription


@admin.register(WebhookSubscription)
class WebhookSubscriptionAdmin(admin.ModelAdmin):
    list_display = ("pk", "operator", "url", "is_active", "consecutive_failures", "created_at")
    list_filter = ("is_active",)
    search_fields = ("url", "operator__name")
    # The signing secrets are not shown: they are the operator's, given out once by the API.
    exclude = ("secret", "previous_secret")
    raw_id_fields = ("operator", "agents")


@admin.register(WebhookEvent)
class WebhookEventAdmin(admin.ModelAdmin):
    list_display = ("msg_id", "type", "created_at")
    list_filter = ("type",)
    search_fields = ("msg_id",)


@admin.register(WebhookDelivery)
class WebhookDeliveryAdmin(admin.ModelAdmin):
    list_display = ("pk", "event", "subscription", "status", "attempts", "response_code", "latency_ms")
    list_filter = ("status",)
    raw_id_fields = ("subscription", "event")

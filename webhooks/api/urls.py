from django.urls import path

from . import views

urlpatterns = [
    path("webhooks/subscriptions", views.SubscriptionListView.as_view(), name="webhook-subscriptions"),
    path(
        "webhooks/subscriptions/<int:pk>",
        views.SubscriptionDetailView.as_view(),
        name="webhook-subscription",
    ),
    path(
        "webhooks/subscriptions/<int:pk>/rotate-secret",
        views.SubscriptionRotateView.as_view(),
        name="webhook-subscription-rotate",
    ),
    path(
        "webhooks/subscriptions/<int:pk>/deliveries",
        views.DeliveryListView.as_view(),
        name="webhook-deliveries",
    ),
]

"""Webhook subscriptions of an operator (a marketplace): thin views over webhooks.services."""

from __future__ import annotations

from typing import Any

from django.db.models import QuerySet
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import generics
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from common.api import PROBLEM
from common.errors import ApplicationError
from verification.authentication import IsOperator, OperatorKeyAuthentication, OperatorPrincipal
from verification.models import Operator

from ..models import WebhookDelivery, WebhookSubscription
from ..services.subscriptions import (
    webhook_subscription_authorize,
    webhook_subscription_create,
    webhook_subscription_delete,
    webhook_subscription_rotate_secret,
    webhook_subscription_update,
)
from .serializers import (
    DeliverySerializer,
    SubscriptionInSerializer,
    SubscriptionPatchSerializer,
    subscription_document,
)

OBJECT = OpenApiResponse(response={"type": "object"})


def _me(request: Request) -> Operator:
    principal = request.user
    assert isinstance(principal, OperatorPrincipal)
    return principal.operator.owner


def _own(request: Request, pk: int) -> WebhookSubscription:
    subscription = WebhookSubscription.objects.prefetch_related("agents").filter(pk=pk).first()
    if subscription is None:
        raise ApplicationError("No such subscription.", status=404, problem="not-found")
    webhook_subscription_authorize(operator=_me(request), subscription=subscription)
    return subscription


class _OperatorView(APIView):
    authentication_classes = [OperatorKeyAuthentication]
    permission_classes = [IsOperator]


class SubscriptionListView(_OperatorView):
    @extend_schema(
        operation_id="webhook_subscriptions_list",
        summary="This operator's webhook subscriptions",
        responses={200: OBJECT, 401: PROBLEM, 403: PROBLEM},
        tags=["webhooks"],
    )
    def get(self, request: Request) -> Response:
        subscriptions = WebhookSubscription.objects.filter(operator=_me(request)).prefetch_related("agents")
        return Response({"results": [subscription_document(sub) for sub in subscriptions]})

    @extend_schema(
        operation_id="webhook_subscriptions_create",
        summary="Subscribe a URL to signed events (the secret is in this answer only)",
        request=SubscriptionInSerializer,
        responses={201: OBJECT, 400: PROBLEM, 401: PROBLEM, 403: PROBLEM, 409: PROBLEM},
        tags=["webhooks"],
    )
    def post(self, request: Request) -> Response:
        body = SubscriptionInSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        data: dict[str, Any] = body.validated_data
        subscription = webhook_subscription_create(
            operator=_me(request),
            url=data["url"],
            events=data["events"],
            agents=data["agents"],
            min_change=data["minChange"],
        )
        return Response(subscription_document(subscription, secret=True), status=201)


class SubscriptionDetailView(_OperatorView):
    @extend_schema(
        operation_id="webhook_subscription_get",
        summary="One of this operator's subscriptions",
        responses={200: OBJECT, 401: PROBLEM, 403: PROBLEM, 404: PROBLEM},
        tags=["webhooks"],
    )
    def get(self, request: Request, pk: int) -> Response:
        return Response(subscription_document(_own(request, pk)))

    @extend_schema(
        operation_id="webhook_subscription_update",
        summary="Change events or minimum change; enable (resets failures) or disable",
        request=SubscriptionPatchSerializer,
        responses={200: OBJECT, 400: PROBLEM, 401: PROBLEM, 403: PROBLEM, 404: PROBLEM},
        tags=["webhooks"],
    )
    def patch(self, request: Request, pk: int) -> Response:
        subscription = _own(request, pk)
        body = SubscriptionPatchSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        data: dict[str, Any] = body.validated_data
        webhook_subscription_update(
            subscription=subscription,
            events=data.get("events"),
            min_change=data.get("minChange"),
            active=data.get("active"),
        )
        return Response(subscription_document(subscription))

    @extend_schema(
        operation_id="webhook_subscription_delete",
        summary="Delete a subscription and its delivery log",
        responses={204: None, 401: PROBLEM, 403: PROBLEM, 404: PROBLEM},
        tags=["webhooks"],
    )
    def delete(self, request: Request, pk: int) -> Response:
        webhook_subscription_delete(subscription=_own(request, pk))
        return Response(status=204)


class SubscriptionRotateView(_OperatorView):
    @extend_schema(
        operation_id="webhook_subscription_rotate_secret",
        summary="A new secret; the old one signs too during the overlap",
        request=None,
        responses={200: OBJECT, 401: PROBLEM, 403: PROBLEM, 404: PROBLEM},
        tags=["webhooks"],
    )
    def post(self, request: Request, pk: int) -> Response:
        subscription = webhook_subscription_rotate_secret(subscription=_own(request, pk))
        return Response(subscription_document(subscription, secret=True))


class DeliveryListView(generics.ListAPIView):
    """The delivery log of one subscription, newest first (paginated)."""

    authentication_classes = [OperatorKeyAuthentication]
    permission_classes = [IsOperator]
    serializer_class = DeliverySerializer

    @extend_schema(
        operation_id="webhook_deliveries_list",
        summary="The delivery log of one subscription: status, attempts, response code, latency",
        responses={200: OBJECT, 400: PROBLEM, 401: PROBLEM, 403: PROBLEM, 404: PROBLEM},
        tags=["webhooks"],
    )
    def get(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        return super().get(request, *args, **kwargs)

    def get_queryset(self) -> QuerySet[WebhookDelivery]:
        if getattr(self, "swagger_fake_view", False):  # schema generation: no request, no pk
            return WebhookDelivery.objects.none()
        subscription = _own(self.request, self.kwargs["pk"])
        return WebhookDelivery.objects.filter(subscription=subscription).select_related("event")

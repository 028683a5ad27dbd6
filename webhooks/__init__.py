"""Signed webhooks for marketplaces: subscriptions, events, deliveries (docs/webhooks.md)."""

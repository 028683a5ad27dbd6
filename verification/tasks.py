"""Celery tasks of the engine's Django side: thin wrappers over services."""

from __future__ import annotations

from celery import shared_task

from .services.calibration import tool_calibration_fit


@shared_task
def refit_tool_calibration() -> int | None:
    """Beat: refit the confidence calibration from the labels gathered so far."""
    record = tool_calibration_fit()
    return None if record is None else record.pk

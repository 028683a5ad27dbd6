"""The Redis broker transport, minus a crash of the worker when Redis restarts under it.

kombu (5.7.0, the newest release) closes a channel after losing the connection and then tries to
put the unacknowledged messages back with that connection's parameters, which are already gone:
`AttributeError: 'NoneType' object has no attribute 'hostname'` in `restore_unacked_once` kills the
worker (issue 15, point 3; tests/registry/test_registry_recompute_redis_restart.py shows it). With no
connection left there is nothing to restore through: the messages stay in Redis's unacked set, and
any worker's visibility-timeout sweep (CELERY_VISIBILITY_TIMEOUT_SECONDS) hands them out again.
Drop this module when kombu fixes it upstream.
"""

from __future__ import annotations

import logging
from typing import Any

from kombu.transport import redis as kombu_redis
from kombu.transport import virtual as kombu_virtual

logger = logging.getLogger(__name__)


class QoS(kombu_redis.QoS):  # type: ignore[misc]
    def _connection_gone(self) -> bool:
        transport = getattr(self.channel, "connection", None)
        return transport is None or getattr(transport, "client", None) is None

    def restore_unacked_once(self, stderr: Any = None) -> Any:
        if self._connection_gone():
            self._on_collect.cancel()
            self._flush()
            state = self._delivered
            if state and not getattr(state, "restored", None):
                logger.warning(
                    "broker connection gone: %d unacknowledged message(s) come back after the "
                    "visibility timeout",
                    len(state),
                )
                state.clear()
            state.restored = True  # type: ignore[attr-defined]  # kombu marks the dict the same way
            return None
        return super().restore_unacked_once(stderr)

    # The same bug one step later (issue 15's chaos run): a task that finishes after the connection
    # was lost acks (or rejects) on the closed channel, and the AttributeError from its missing
    # connection kills the worker. The message is still in Redis's unacked set: it comes back after
    # the visibility timeout and runs again, which the drain tasks are built to allow.
    def ack(self, delivery_tag: Any) -> Any:
        if self._connection_gone():
            logger.warning("broker connection gone: message %s is not acknowledged", delivery_tag)
            return kombu_virtual.QoS.ack(self, delivery_tag)  # this process's bookkeeping only
        return super().ack(delivery_tag)

    def reject(self, delivery_tag: Any, requeue: bool = False) -> Any:
        if self._connection_gone():
            logger.warning("broker connection gone: message %s is not rejected", delivery_tag)
            return kombu_virtual.QoS.ack(self, delivery_tag)
        return super().reject(delivery_tag, requeue=requeue)


class Channel(kombu_redis.Channel):  # type: ignore[misc]
    QoS = QoS


class Transport(kombu_redis.Transport):  # type: ignore[misc]
    Channel = Channel

"""The projections' own Prometheus metrics (served by whichever process runs the views:
``referee serve``'s ``/metrics`` or ``referee projections --metrics-port``)."""

from __future__ import annotations

from prometheus_client import Counter, Gauge

PROJECTION_LAG = Gauge(
    "referee_projection_lag_events",
    "Notification-log positions a projection view is behind the head",
    ["view"],
)
PROJECTION_EVENTS = Counter(
    "referee_projection_events",
    "Events a projection view applied (referee projections)",
    ["view"],
)

# Trick Referee: the gRPC service (`referee serve`) and its projection workers.
# Build: docker build -t trick-referee .   Run: docker run -p 50051:50051 -p 9464:9464 trick-referee
# The wheel is built in a stage of its own, with the rules core compiled by mypyc
# (REFEREE_COMPILE=1, docs/operations.md "Compiled rules"); the image gets the wheel, not the
# compiler. Every package either stage installs is pinned by constraints.txt.
FROM python:3.12-slim AS build
RUN apt-get update -q && apt-get install -y -q --no-install-recommends gcc libc6-dev \
    && rm -rf /var/lib/apt/lists/*
WORKDIR /src
COPY pyproject.toml setup.py README.md MANIFEST.in constraints.txt ./
COPY referee ./referee
COPY projections ./projections
COPY clients ./clients
# The SDK (clients/, a distribution of its own) is a dependency of the server's referee-client.
RUN REFEREE_COMPILE=1 PIP_CONSTRAINT=/src/constraints.txt \
    pip wheel --no-deps --wheel-dir /wheels ./clients .

FROM python:3.12-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    REFEREE_DATA_DIR=/var/lib/referee \
    REFEREE_METRICS_PORT=9464

COPY --from=build /wheels /wheels
COPY --from=build /src/constraints.txt /wheels/constraints.txt
RUN pip install --constraint /wheels/constraints.txt \
        "trick-referee-client @ file://$(echo /wheels/trick_referee_client-*.whl)" \
        "trick-referee[postgres] @ file://$(echo /wheels/trick_referee-*.whl)" \
    && rm -rf /wheels \
    && useradd --system --uid 10001 --no-create-home --home-dir /nonexistent referee \
    && mkdir -p /var/lib/referee \
    && chown referee /var/lib/referee

USER 10001
VOLUME ["/var/lib/referee"]
# gRPC (referee.api.v1, grpc.health.v1, reflection), the same API as JSON over HTTP
# (docs/http.md) and Prometheus /metrics.
EXPOSE 50051 8080 9464

HEALTHCHECK --interval=15s --timeout=5s --start-period=10s --retries=3 \
    CMD ["referee", "health", "--address", "127.0.0.1:50051"]

# SIGTERM: health turns NOT_SERVING, calls in flight get --grace seconds (keep the
# orchestrator's kill timeout above it).
STOPSIGNAL SIGTERM
ENTRYPOINT ["referee"]
CMD ["serve", "--address", "0.0.0.0:50051", "--grace", "20", "--http", "8080"]

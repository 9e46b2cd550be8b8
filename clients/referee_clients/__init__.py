"""``referee-client``, its bots and the demo: clients of the referee built on the SDK.

They talk to the referee only through the SDK (``trick_referee_client``, the generated stubs
over gRPC) and read records with the public record format (``referee.rules.handrecord``), so
they ship with the server distribution; the SDK is a distribution of its own.
"""

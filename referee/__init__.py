"""Trick Referee: a gRPC referee for trick-taking card games, with event sourcing."""

__version__ = "0.1.0"
RULES_VERSION = 1
"""Recorded in each match's first event; bump when a rule fix would reinterpret old streams."""

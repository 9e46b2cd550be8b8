"""One module per game. Nothing is registered by import; see :mod:`referee.rules.registry`."""

"""Generated code of the public API (``proto/referee/api``)."""

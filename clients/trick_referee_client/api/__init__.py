"""Generated code of the public API (a copy of the server's ``referee.api``)."""

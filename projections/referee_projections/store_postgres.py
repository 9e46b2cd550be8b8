"""The PostgreSQL view recorder (imported only on PostgreSQL: psycopg is an optional
dependency, ``pip install 'trick-referee[postgres]'``)."""

from __future__ import annotations

from typing import Any

from psycopg.sql import SQL, Composed

from referee.persistence import TrackingRecorder as PostgresTrackingRecorder
from referee_projections.store import DocView


class PostgresDocView(PostgresTrackingRecorder, DocView):
    """A view as tables ``<view>_docs`` and ``<view>_tracking`` in PostgreSQL."""

    def __init__(self, datastore: Any, **kwargs: Any) -> None:
        super().__init__(datastore, **kwargs)
        self.docs_table = f"{self.view_name}_docs"
        t = self._qualified()
        # The recorder's statements are typed ``list[Composed]``: a one-part Composed renders
        # exactly as its SQL.
        self.sql_create_statements.extend([
            Composed([SQL(f"CREATE TABLE IF NOT EXISTS {t} (kind text NOT NULL, "
                          "key text NOT NULL, parent text NOT NULL, data text NOT NULL, "
                          "PRIMARY KEY (kind, key))")]),
            Composed([SQL(f'CREATE INDEX IF NOT EXISTS "{self.docs_table}_parent" ON {t} '
                          "(kind, parent, key)")]),
        ])
        self._init_docs()

    def _sql(self, text: str) -> str:
        return text.replace("?", "%s")

    def _qualified(self) -> str:
        return f'"{self.datastore.schema}"."{self.docs_table}"'

    def _tracking_table(self) -> str:
        return f'"{self.datastore.schema}"."{self.tracking_table_name}"'

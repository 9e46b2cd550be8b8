"""A throw-away PostgreSQL cluster that a test may stop and start (outages, restarts).

``initdb`` into a fresh directory, ``pg_ctl`` on a free port of 127.0.0.1, removed afterwards.
The server binaries come from ``/usr/lib/postgresql/*/bin`` (the newest), else ``PATH``.
PostgreSQL refuses to run as root: when the tests run as root, the cluster is run as user
``postgres`` (as ``.ci/run`` does), in a directory under ``/tmp`` that user can reach.
"""

from __future__ import annotations

import contextlib
import glob
import os
import shutil
import socket
import subprocess
import tempfile
from pathlib import Path


def find_bindir() -> Path | None:
    """The directory of ``initdb`` and ``pg_ctl`` (None: PostgreSQL is not installed)."""
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"),
                   key=lambda p: int(Path(p).parent.parent.name.split(".")[0]))
    if found:
        return Path(found[-1]).parent
    initdb = shutil.which("initdb")
    return Path(initdb).parent if initdb else None


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


class PgCluster:
    """One cluster: :meth:`start` (initdb on first use), :meth:`stop`, :meth:`remove`."""

    def __init__(self, bindir: Path, root: Path | None = None, port: int = 0) -> None:
        self.bindir = bindir
        self._as_postgres = os.getuid() == 0
        self.root = root or Path(tempfile.mkdtemp(prefix="referee-pg-"))
        self.data = self.root / "data"
        self.port = port or free_port()
        if self._as_postgres:
            shutil.chown(self.root, "postgres")

    def _run(self, *args: str) -> None:
        command = [str(self.bindir / args[0]), *args[1:]]
        if self._as_postgres:
            command = ["runuser", "-u", "postgres", "--", *command]
        done = subprocess.run(command, capture_output=True, text=True, timeout=60, check=False)
        if done.returncode != 0:
            log = self.root / "log"
            tail = log.read_text()[-2000:] if log.exists() else ""
            raise RuntimeError(f"{' '.join(args[:2])} failed ({done.returncode}): "
                               f"{done.stderr.strip()} {tail}")

    def start(self) -> None:
        """Start the server (creating the cluster first if needed); return once it accepts
        connections."""
        if not self.data.exists():
            self._run("initdb", "-D", str(self.data), "-A", "trust", "-U", "postgres",
                      "--no-sync")
        self._run("pg_ctl", "-D", str(self.data), "-l", str(self.root / "log"), "-w",
                  "-o", f"-p {self.port} -k {self.root} -c listen_addresses=127.0.0.1 "
                  "-c fsync=off", "start")

    def stop(self, mode: str = "fast") -> None:
        """Stop the server (``fast``: clients are disconnected; ``immediate``: a crash)."""
        self._run("pg_ctl", "-D", str(self.data), "-m", mode, "-w", "stop")

    def remove(self) -> None:
        """Stop the server if it runs, and delete the cluster."""
        if (self.data / "postmaster.pid").exists():
            with contextlib.suppress(RuntimeError):
                self.stop("immediate")
        shutil.rmtree(self.root, ignore_errors=True)

    def env(self) -> dict[str, str]:
        """Settings for the referee (``referee.config``) on this cluster."""
        return {
            "PERSISTENCE_MODULE": "eventsourcing.postgres",
            "POSTGRES_HOST": "127.0.0.1",
            "POSTGRES_PORT": str(self.port),
            "POSTGRES_USER": "postgres",
            "POSTGRES_PASSWORD": "postgres",
            "POSTGRES_DBNAME": "postgres",
        }

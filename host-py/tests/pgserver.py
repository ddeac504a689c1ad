"""A throwaway PostgreSQL 15 server for the tests, as `oracles/src/pgcluster.rs`
starts one for the Rust tests: a fresh cluster in a temporary directory,
listening on a Unix socket only (no TCP), run as the `postgres` account when
the tests run as root, and watched by a shell that stops it and removes the
directory should the test process die without stopping it."""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
import time
from pathlib import Path
from typing import List, Optional

BIN = Path("/usr/lib/postgresql/15/bin")
PORT = "5432"


def missing() -> Optional[str]:
    """Why no server can be started here, or None."""
    try:
        import psycopg  # noqa: F401
    except ImportError as e:
        return f"psycopg 3 is not installed ({e}): pip install -r host-py/adapters.lock"
    if not (BIN / "initdb").exists():
        return f"PostgreSQL 15 is not installed ({BIN}/initdb): apt-get install postgresql-15"
    return None


def _as_server(argv: List[str]) -> List[str]:
    """Root cannot run PostgreSQL: the server runs as the `postgres` account."""
    return ["runuser", "-u", "postgres", "--", *argv] if os.geteuid() == 0 else argv


class Server:
    def __init__(self) -> None:
        self.base = Path(tempfile.mkdtemp(prefix="toolgate-pg-"))
        self.data, self.socket = self.base / "data", self.base / "socket"
        self.socket.mkdir()
        self.data.mkdir(mode=0o700)
        if os.geteuid() == 0:
            os.chmod(self.base, 0o755)
            shutil.chown(self.data, "postgres")
            shutil.chown(self.socket, "postgres")
        subprocess.run(
            _as_server([str(BIN / "initdb"), "-A", "trust", "-U", "postgres", "-E", "UTF8", "--locale=C", "--no-sync", "-D", str(self.data)]),
            check=True,
            capture_output=True,
            timeout=120,
        )
        options = f"-k {self.socket} -p {PORT} -c listen_addresses='' -c fsync=off -c synchronous_commit=off -c max_connections=40 -c jit=off"
        subprocess.run(
            _as_server([str(BIN / "pg_ctl"), "-D", str(self.data), "-w", "-t", "60", "-l", str(self.socket / "log"), "-o", options, "start"]),
            check=True,
            capture_output=True,
            timeout=120,
        )
        # Outlives this process only long enough to stop the server and remove its directory.
        watch = (
            f"while kill -0 {os.getpid()} 2>/dev/null; do sleep 2; done; "
            f"kill -QUIT $(head -n 1 '{self.data}/postmaster.pid') 2>/dev/null; sleep 2; rm -rf '{self.base}'"
        )
        self._watchdog = subprocess.Popen(["sh", "-c", watch], stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
        self.conninfo = f"host={self.socket} port={PORT} user=postgres dbname=postgres"

    def reset(self) -> None:
        """Drops the gate's tables: each test starts from an empty database."""
        import psycopg

        with psycopg.connect(self.conninfo, autocommit=True) as conn:
            conn.execute("DROP TABLE IF EXISTS toolgate_checkpoints, toolgate_claims, toolgate_audit, toolgate_database")

    def stop(self) -> None:
        subprocess.run(_as_server([str(BIN / "pg_ctl"), "-D", str(self.data), "-m", "immediate", "stop"]), capture_output=True, timeout=60)
        self._watchdog.kill()
        self._watchdog.wait()
        deadline = time.monotonic() + 10
        while (self.data / "postmaster.pid").exists() and time.monotonic() < deadline:
            time.sleep(0.05)
        shutil.rmtree(self.base, True)

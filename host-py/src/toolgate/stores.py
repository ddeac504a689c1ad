"""Where the approval gate keeps pending approvals and writes audit lines.

The records are those the Rust host (`host-rs/src/gate/store.rs`,
`audit.rs`, `postgres.rs`) and the JavaScript host (`host-js/src/stores.js`,
`node.js`) keep, in the same places and bytes, so an approval or a grant
written by one host is listed, answered or applied by another:

- `DirStore`: one `<id>.json` a checkpoint (written to a temporary name,
  synced and renamed), `<id>.claim` a claim (its deadline, hard-linked into
  place so exactly one process makes it), grants under `grant-<id>`,
  revoked grants' tombstones under `revoked-<id>`;
- `SqliteStore` (standard library `sqlite3`): the tables
  `toolgate_checkpoints(id, checkpoint)` and `toolgate_claims(id, deadline)`;
- `PostgresStore` (psycopg 3, optional): the same tables in PostgreSQL;
- `JsonlSink`: a JSON Lines audit log, appended under the file's `flock`
  (an advisory lock the kernel releases when its holder dies) and the
  `<log>.lock` writer lock both other hosts honour; a torn end is set aside
  and recorded as a gap;
- `SqliteSink`, `PostgresSink`: the audit chain in a table
  `toolgate_audit(seq, line)`, appended in one transaction holding the
  database's write lock.

Stores never interpret a checkpoint: the component writes and checks them.
"""

from __future__ import annotations

import json
import os
import re
import secrets
import sqlite3
import threading
import time
from pathlib import Path
from typing import Any, Callable, Dict, List, Optional, Tuple, Union

from .errors import ToolgateError

#: The prefix under which a store keeps grants (approval ids never take it).
GRANT_PREFIX = "grant-"
#: The prefix of a revoked grant's tombstone: its text is the time (ms) until
#: which it must stay, the grant's expiry, or `never`.
REVOKED_PREFIX = "revoked-"

_ID = re.compile(r"[A-Za-z0-9_-]{1,128}")

#: A seal: given the log's last line (None for an empty log), the sealed line
#: to append; raising writes nothing.
Seal = Callable[[Optional[str]], str]


class StoreError(ToolgateError):
    """A checkpoint store or an audit sink failed (the message says which and why)."""


def check_id(id: str) -> None:
    """Refuses an id that cannot name a checkpoint (as every host does)."""
    if not isinstance(id, str) or _ID.fullmatch(id) is None:
        raise StoreError(f"checkpoint store: `{id}` is not a valid approval id")


def _millis() -> int:
    return time.time_ns() // 1_000_000


class Store:
    """A place for checkpoints of pending approvals and for kept grants.

    Subclasses implement `put`, `remove`, `get`, `list` and `claim`; the
    rest have safe defaults (a store that cannot release a claim keeps it)."""

    def put(self, id: str, checkpoint: str) -> None:
        raise NotImplementedError

    def remove(self, id: str) -> None:
        raise NotImplementedError

    def get(self, id: str) -> Optional[str]:
        for key, text in self.list():
            if key == id:
                return text
        return None

    def list(self) -> List[Tuple[str, str]]:
        raise NotImplementedError

    def claim(self, id: str, deadline: int) -> bool:
        """Claims approval `id` once, across every process sharing the store;
        the claim stays as a tombstone at least until `deadline` (ms)."""
        raise NotImplementedError

    def claimed(self, id: str) -> bool:
        return False

    def release(self, id: str) -> bool:
        """Takes back a claim whose record was never written; False when the store cannot."""
        return False

    def sweep(self, now: int) -> int:
        """Removes claims (tombstones) past their deadline; returns how many."""
        return 0

    def now(self) -> Optional[int]:
        """The store's own clock (ms), for stores several machines share; None: the gate's."""
        return None

    def database(self) -> Optional[str]:
        """A name for the database the claims are kept in, when a sink shares it."""
        return None

    def close(self) -> None:
        pass


class MemoryStore(Store):
    """Checkpoints in memory: nothing survives the process. The default."""

    def __init__(self) -> None:
        self._items: Dict[str, str] = {}
        self._claims: Dict[str, int] = {}
        self._lock = threading.Lock()

    def put(self, id: str, checkpoint: str) -> None:
        check_id(id)
        with self._lock:
            self._items[id] = checkpoint

    def remove(self, id: str) -> None:
        with self._lock:
            self._items.pop(id, None)

    def get(self, id: str) -> Optional[str]:
        with self._lock:
            return self._items.get(id)

    def list(self) -> List[Tuple[str, str]]:
        with self._lock:
            return sorted(self._items.items())

    def claim(self, id: str, deadline: int) -> bool:
        check_id(id)
        with self._lock:
            if id in self._claims:
                return False
            self._claims[id] = deadline
            return True

    def claimed(self, id: str) -> bool:
        with self._lock:
            return id in self._claims

    def release(self, id: str) -> bool:
        with self._lock:
            self._claims.pop(id, None)
        return True

    def sweep(self, now: int) -> int:
        with self._lock:
            stale = [k for k, d in self._claims.items() if d < now]
            for k in stale:
                del self._claims[k]
            return len(stale)


def _write_synced(path: Path, data: bytes) -> None:
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    try:
        view = memoryview(data)
        while view:
            written = os.write(fd, view)
            view = view[written:]
        os.fsync(fd)
    finally:
        os.close(fd)


class DirStore(Store):
    """Checkpoints as files in a directory, one `<id>.json` each: the format
    the Rust and JavaScript hosts' directory stores share, so any host
    resumes another's. Files are written to a temporary name, synced and
    renamed into place."""

    def __init__(self, directory: Union[str, Path]):
        self.dir = Path(directory)

    def _wrap(self, f: Callable[[], Any]) -> Any:
        try:
            return f()
        except OSError as e:
            raise StoreError(f"checkpoint store: {e}") from e

    def put(self, id: str, checkpoint: str) -> None:
        check_id(id)

        def write() -> None:
            self.dir.mkdir(parents=True, exist_ok=True)
            tmp = self.dir / f".{id}.{os.getpid()}.tmp"
            _write_synced(tmp, checkpoint.encode("utf-8", "surrogatepass"))
            os.replace(tmp, self.dir / f"{id}.json")

        self._wrap(write)

    def remove(self, id: str) -> None:
        check_id(id)
        try:
            (self.dir / f"{id}.json").unlink()
        except FileNotFoundError:
            pass
        except OSError as e:
            raise StoreError(f"checkpoint store: {e}") from e

    def claim(self, id: str, deadline: int) -> bool:
        """An exclusive create of `<id>.claim` holding the deadline: written in
        full to a temporary file, then hard-linked to its name, which the
        file system lets exactly one process do, in any host."""
        check_id(id)

        def take() -> bool:
            self.dir.mkdir(parents=True, exist_ok=True)
            tmp = self.dir / f".{id}.{os.getpid()}.{secrets.token_hex(4)}.claim-tmp"
            try:
                _write_synced(tmp, str(int(deadline)).encode())
                os.link(tmp, self.dir / f"{id}.claim")
                return True
            except FileExistsError:
                return False
            finally:
                try:
                    tmp.unlink()
                except FileNotFoundError:
                    pass

        return self._wrap(take)

    def release(self, id: str) -> bool:
        check_id(id)
        try:
            (self.dir / f"{id}.claim").unlink()
        except FileNotFoundError:
            pass
        except OSError as e:
            raise StoreError(f"checkpoint store: {e}") from e
        return True

    def claimed(self, id: str) -> bool:
        check_id(id)
        return (self.dir / f"{id}.claim").exists()

    def sweep(self, now: int) -> int:
        removed = 0
        try:
            names = os.listdir(self.dir)
        except FileNotFoundError:
            return 0
        except OSError as e:
            raise StoreError(f"checkpoint store: {e}") from e
        for name in names:
            if not name.endswith(".claim") or _ID.fullmatch(name[: -len(".claim")]) is None:
                continue
            path = self.dir / name
            try:
                deadline = int(path.read_text().strip())
            except (OSError, ValueError):
                # A claim whose deadline cannot be read is kept: it still blocks.
                continue
            if deadline < now:
                self._wrap(path.unlink)
                removed += 1
        return removed

    def list(self) -> List[Tuple[str, str]]:
        try:
            names = os.listdir(self.dir)
        except FileNotFoundError:
            return []
        except OSError as e:
            raise StoreError(f"checkpoint store: {e}") from e
        out = []
        for name in names:
            if not name.endswith(".json"):
                continue
            id = name[: -len(".json")]
            if _ID.fullmatch(id) is None:
                continue
            try:
                data = (self.dir / name).read_bytes()
            except FileNotFoundError:
                # Settled by another process since the listing.
                continue
            except OSError as e:
                raise StoreError(f"checkpoint store: {e}") from e
            out.append((id, data.decode("utf-8", "replace")))
        out.sort()
        return out

    def get(self, id: str) -> Optional[str]:
        check_id(id)
        try:
            return (self.dir / f"{id}.json").read_bytes().decode("utf-8", "replace")
        except FileNotFoundError:
            return None
        except OSError as e:
            raise StoreError(f"checkpoint store: {e}") from e


#: How long an SQLite writer waits for another's transaction (as the Rust sink).
WRITER_WAIT = 30.0


def _sqlite(path: Union[str, Path]) -> sqlite3.Connection:
    # Autocommit: transactions are begun explicitly where one is needed.
    return sqlite3.connect(str(path), timeout=WRITER_WAIT, isolation_level=None, check_same_thread=False)


class _SqliteFile:
    """One connection to a database file, shared by every SQLite store and
    sink of this process opened on that file (as the Node host's
    `host-js/src/sqlite.js` shares one): a store's statement made from inside
    a sink's `BEGIN IMMEDIATE` (the gate claims and keeps grants inside the
    audit append) then runs in that transaction, where a connection of its
    own would wait for the sink's write lock until it gave up.

    `lock` is reentrant for the same reason: the thread inside the sink's
    transaction reaches the store; other threads wait for the transaction to
    end, so their statements never join it. `name` says which file (its
    device and inode), the `database()` a store and a sink share."""

    _open: Dict[Any, "_SqliteFile"] = {}
    _registry = threading.Lock()

    def __init__(self, key: Any, db: sqlite3.Connection, name: Optional[str]):
        self.key = key
        self.db = db
        self.name = name
        self.lock = threading.RLock()
        self.users = 0

    @staticmethod
    def _identity(path: str) -> Optional[Tuple[int, int]]:
        try:
            st = os.stat(path)
        except OSError:
            return None
        return (st.st_dev, st.st_ino)

    @classmethod
    def acquire(cls, path: Union[str, Path]) -> "_SqliteFile":
        text = str(path)
        if text in ("", ":memory:") or text.startswith("file:"):
            # A private database (or a URI this host does not open as one): never shared.
            return cls(None, _sqlite(text), None)
        with cls._registry:
            identity = cls._identity(text)
            shared = cls._open.get(identity) if identity is not None else None
            if shared is None:
                db = _sqlite(text)
                identity = cls._identity(text)
                shared = cls(identity, db, None if identity is None else f"sqlite:{identity[0]}:{identity[1]}")
                if identity is not None:
                    cls._open[identity] = shared
            shared.users += 1
            return shared

    def release(self) -> None:
        with self._registry:
            self.users -= 1
            if self.users > 0:
                return
            if self.key is not None and self._open.get(self.key) is self:
                del self._open[self.key]
        with self.lock:
            self.db.close()


class SqliteStore(Store):
    """Checkpoints in an SQLite database, the tables the Rust host's
    `SqliteStore` makes: `toolgate_checkpoints(id TEXT PRIMARY KEY,
    checkpoint TEXT)` and `toolgate_claims(id TEXT PRIMARY KEY, deadline
    INTEGER)`. A store and a `SqliteSink` on one file share one connection
    (`database()` names the file): the gate then claims, removes the
    checkpoint and records in one transaction, as on PostgreSQL."""

    def __init__(self, path: Union[str, Path]):
        self._file: Optional[_SqliteFile] = None
        try:
            self._file = _SqliteFile.acquire(path)
            self._lock = self._file.lock
            self._db = self._file.db
            with self._lock:
                self._db.executescript(
                    """CREATE TABLE IF NOT EXISTS toolgate_checkpoints (
                           id TEXT PRIMARY KEY NOT NULL,
                           checkpoint TEXT NOT NULL
                       );
                       CREATE TABLE IF NOT EXISTS toolgate_claims (
                           id TEXT PRIMARY KEY NOT NULL,
                           deadline INTEGER NOT NULL
                       );"""
                )
        except sqlite3.Error as e:
            if self._file is not None:
                self._file.release()
            raise StoreError(f"checkpoint store: {e}") from e

    def _run(self, sql: str, args: Tuple[Any, ...] = ()) -> sqlite3.Cursor:
        try:
            with self._lock:
                return self._db.execute(sql, args)
        except sqlite3.Error as e:
            raise StoreError(f"checkpoint store: {e}") from e

    def put(self, id: str, checkpoint: str) -> None:
        check_id(id)
        self._run("INSERT OR REPLACE INTO toolgate_checkpoints (id, checkpoint) VALUES (?1, ?2)", (id, checkpoint))

    def remove(self, id: str) -> None:
        self._run("DELETE FROM toolgate_checkpoints WHERE id = ?1", (id,))

    def claim(self, id: str, deadline: int) -> bool:
        check_id(id)
        cur = self._run("INSERT OR IGNORE INTO toolgate_claims (id, deadline) VALUES (?1, ?2)", (id, min(int(deadline), 2**63 - 1)))
        return cur.rowcount == 1

    def release(self, id: str) -> bool:
        self._run("DELETE FROM toolgate_claims WHERE id = ?1", (id,))
        return True

    def sweep(self, now: int) -> int:
        return self._run("DELETE FROM toolgate_claims WHERE deadline < ?1", (min(int(now), 2**63 - 1),)).rowcount

    def claimed(self, id: str) -> bool:
        return self._run("SELECT 1 FROM toolgate_claims WHERE id = ?1", (id,)).fetchone() is not None

    def list(self) -> List[Tuple[str, str]]:
        return [(r[0], r[1]) for r in self._run("SELECT id, checkpoint FROM toolgate_checkpoints ORDER BY id").fetchall()]

    def get(self, id: str) -> Optional[str]:
        row = self._run("SELECT checkpoint FROM toolgate_checkpoints WHERE id = ?1", (id,)).fetchone()
        return None if row is None else row[0]

    def database(self) -> Optional[str]:
        return None if self._file is None else self._file.name

    def close(self) -> None:
        file, self._file = self._file, None
        if file is not None:
            file.release()


# -- audit sinks ------------------------------------------------------------


class Sink:
    """A destination for sealed audit lines. `append` is required; the rest
    say what the sink can do (None: it cannot)."""

    def append(self, line: str) -> None:
        raise NotImplementedError

    def last(self) -> Optional[str]:
        return None

    #: Whether `append_sealed` seals under the sink's own writer lock.
    seals = False

    #: Whether `append_sealed(seal, sync=False)` writes without waiting for
    #: the disk, `sync()` waiting afterwards (outside the writer lock).
    defers_sync = False

    def sync(self) -> None:
        """Waits until the lines appended so far are durable."""

    def append_sealed(self, seal: Seal) -> str:
        """Seals and appends one line as the single writer: under the sink's
        lock, reads its own last line, hands it to `seal` and appends what
        comes back. Only when `seals` is true."""
        raise NotImplementedError

    def gap(self) -> Optional[str]:
        """What the sink found torn and set aside when it opened."""
        return None

    def recorded(self, approval: str, since: int) -> Optional[bool]:
        """Whether the log holds a record of approval `approval`'s settling
        (looking back to records stamped `since`); None: cannot say."""
        return None

    def database(self) -> Optional[str]:
        return None

    def close(self) -> None:
        pass


class MemorySink(Sink):
    """Audit lines kept in a list (`lines`)."""

    def __init__(self) -> None:
        self.lines: List[str] = []

    def append(self, line: str) -> None:
        self.lines.append(line)

    def last(self) -> Optional[str]:
        return self.lines[-1] if self.lines else None


class CallbackSink(Sink):
    """Audit lines handed to a function (a log shipper, a test)."""

    def __init__(self, f: Callable[[str], Any]):
        self._f = f

    def append(self, line: str) -> None:
        self._f(line)


#: How much of a log's end is read at a time.
_TAIL = 64 * 1024


def _tail(fd: int, length: int) -> Tuple[Optional[bytes], int]:
    """The last complete line of the first `length` bytes of `fd` (without
    its newline) and the offset just after that newline (the Rust sink's
    `tail`)."""
    window = min(_TAIL, length)
    while True:
        start = length - window
        buf = os.pread(fd, window, start)
        end = buf.rfind(b"\n")
        if end < 0:
            if start == 0:
                return None, 0
            window = min(window * 2, length)
            continue
        before = buf[:end]
        begin = before.rfind(b"\n")
        if begin >= 0:
            return before[begin + 1 :], start + end + 1
        if start == 0:
            return before, end + 1
        window = min(window * 2, length)


def _sealed(line: bytes) -> bool:
    try:
        value = json.loads(line)
    except ValueError:
        return False
    return isinstance(value, dict) and isinstance(value.get("hash"), str)


def _repair(path: Path) -> Optional[str]:
    """Cuts a torn end off the log, keeping the bytes aside in
    `<log>.torn-<ms>`; describes the gap, or None when the log ends in a
    sealed record."""
    fd = os.open(path, os.O_RDWR)
    try:
        length = os.fstat(fd).st_size
        limit = length
        keep = None
        for _ in range(16):
            line, after = _tail(fd, limit)
            if line is None:
                keep = 0
                break
            if _sealed(line):
                keep = after
                break
            limit = max(0, after - len(line) - 1)
        if keep is None or keep >= length:
            return None
        torn = os.pread(fd, length - keep, keep)
        aside = Path(f"{path}.torn-{_millis()}")
        aside.write_bytes(torn)
        os.ftruncate(fd, keep)
        os.fsync(fd)
        return f"{len(torn)} torn bytes after offset {keep} were set aside in {aside}"
    finally:
        os.close(fd)


#: A writer lock older than this, whose holder cannot be checked, was left by
#: a writer that died: taken over.
LOCK_STALE = 30.0


def _start_time(pid: str) -> Optional[str]:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    after = stat[stat.rfind(")") + 1 :].split()
    return after[19] if len(after) > 19 else None


def _pid_ns() -> str:
    try:
        return os.readlink("/proc/self/ns/pid")
    except OSError:
        return ""


def _holder() -> str:
    """This process as a lock's holder: `<pid> <start time> <pid namespace>`."""
    return f"{os.getpid()} {_start_time('self') or ''} {_pid_ns()}"


def _holder_gone(named: str) -> bool:
    fields = named.split(" ")
    if len(fields) < 3:
        return False
    pid, start, ns = fields[0], fields[1], fields[2]
    if not pid.isdigit() or not start or not ns or _pid_ns() != ns:
        return False
    now = _start_time(pid)
    if now is not None:
        return now != start
    return not Path(f"/proc/{pid}").exists()


def _take_over(lock: Path, named: str) -> None:
    aside = Path(f"{lock}.dead-{os.getpid()}")
    try:
        os.rename(lock, aside)
    except OSError:
        return
    try:
        moved = aside.read_text()
    except OSError:
        moved = ""
    if moved != named:
        try:
            os.link(aside, lock)
        except OSError:
            pass
    try:
        aside.unlink()
    except OSError:
        pass


class _WriterLock:
    """`<log>.lock`, the writer lock of an audit log every host honours (Node
    has no OS file lock): the holder's name written to a file of its own and
    hard-linked into place; a dead holder's lock is taken over at once, an
    unverifiable one after `LOCK_STALE` (the Rust sink's `WriterLock`)."""

    def __init__(self, log: Path):
        self.path = Path(f"{log}.lock")
        own = Path(f"{self.path}.{os.getpid()}.{secrets.token_hex(4)}.tmp")
        me = _holder()
        started = time.monotonic()
        delay = 0.001
        while True:
            try:
                try:
                    own.write_text(me)
                    os.link(own, self.path)
                except FileExistsError:
                    raise
                except OSError:
                    # No room for the name (a full disk): created bare.
                    fd = os.open(self.path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
                    try:
                        os.write(fd, me.encode())
                    except OSError:
                        pass
                    os.close(fd)
                finally:
                    try:
                        own.unlink()
                    except OSError:
                        pass
                return
            except FileExistsError:
                try:
                    named = self.path.read_text()
                except OSError:
                    named = ""
                if _holder_gone(named):
                    _take_over(self.path, named)
                    continue
                try:
                    age = time.time() - self.path.stat().st_mtime
                except OSError:
                    age = 0.0
                if age > LOCK_STALE:
                    try:
                        self.path.unlink()
                    except OSError:
                        pass
                    continue
                if time.monotonic() - started > LOCK_STALE * 2:
                    raise StoreError(f"audit sink: cannot lock the log: {self.path} is held")
                time.sleep(delay)
                delay = min(delay * 2, 0.05)
            except OSError as e:
                raise StoreError(f"audit sink: cannot lock the log: {e}") from e

    def release(self) -> None:
        try:
            self.path.unlink()
        except OSError:
            pass


def _probe(line: bytes, approval: str, since: int) -> Optional[bool]:
    try:
        value = json.loads(line)
    except ValueError:
        return None
    if not isinstance(value, dict):
        return None
    found = value.get("approval")
    if isinstance(found, dict) and found.get("id") == approval:
        return True
    t = value.get("time")
    if isinstance(t, int) and not isinstance(t, bool) and t < since:
        return False
    return None


def _names_approval(line: str, approval: str, since: int) -> bool:
    """Whether audit line `line` records approval `approval`, stamped at
    `since` or later (a line without a time counts), as the Node host's
    `namesApproval` and the Rust host's PostgreSQL probe read it."""
    try:
        value = json.loads(line)
    except ValueError:
        return False
    if not isinstance(value, dict):
        return False
    found = value.get("approval")
    if not isinstance(found, dict) or found.get("id") != approval:
        return False
    t = value.get("time")
    return not isinstance(t, (int, float)) or isinstance(t, bool) or t >= since


class JsonlSink(Sink):
    """A JSON Lines audit log, appended and synced line by line; `toolgate
    audit verify FILE` (any host's CLI) checks it. Appends seal under the
    file's `flock` and `<log>.lock`, the locks the Rust and JavaScript sinks
    take, so gates of any host in any process writing one log keep one
    chain. A log found torn when it opens is repaired (see `gap`)."""

    seals = True
    defers_sync = True

    def __init__(self, path: Union[str, Path]):
        self.path = Path(path)
        self._mutex = threading.Lock()
        try:
            if self.path.parent != Path(""):
                self.path.parent.mkdir(parents=True, exist_ok=True)
            self._fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
            self._gap = _repair(self.path)
        except OSError as e:
            raise StoreError(f"audit sink: {e}") from e

    def close(self) -> None:
        try:
            os.close(self._fd)
        except OSError:
            pass

    def _write(self, line: str, sync: bool = True) -> None:
        data = (line + "\n").encode("utf-8", "surrogatepass")
        before = os.fstat(self._fd).st_size
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(self._fd, view) :]
            if sync:
                os.fdatasync(self._fd)
        except OSError as e:
            # A partial line must not stay for the next record to glue onto.
            try:
                os.ftruncate(self._fd, before)
            except OSError:
                pass
            raise StoreError(f"audit sink: {e}") from e

    def append(self, line: str) -> None:
        with self._mutex:
            self._write(line)

    def last(self) -> Optional[str]:
        try:
            fd = os.open(self.path, os.O_RDONLY)
        except OSError as e:
            raise StoreError(f"audit sink: {e}") from e
        try:
            line, _ = _tail(fd, os.fstat(fd).st_size)
        finally:
            os.close(fd)
        return None if line is None else line.decode("utf-8", "replace")

    def gap(self) -> Optional[str]:
        return self._gap

    def sync(self) -> None:
        """Waits until every line written so far is on the disk."""
        try:
            os.fdatasync(self._fd)
        except OSError as e:
            raise StoreError(f"audit sink: {e}") from e

    def append_sealed(self, seal: Seal, sync: bool = True) -> str:
        """Under an exclusive `flock` on the log (released by the kernel if
        this process dies) and `<log>.lock`: reads the last line, seals the
        new one after it and appends it. With `sync=False` the line is
        written but not waited for: the caller calls `sync()` once it has
        left the lock, so that writers appending at once share one sync
        instead of queueing behind each other's."""
        import fcntl

        with self._mutex:
            try:
                fcntl.flock(self._fd, fcntl.LOCK_EX)
            except OSError as e:
                raise StoreError(f"audit sink: cannot lock the log: {e}") from e
            try:
                shared = _WriterLock(self.path)
                try:
                    line = seal(self.last())
                    self._write(line, sync)
                    return line
                finally:
                    shared.release()
            finally:
                fcntl.flock(self._fd, fcntl.LOCK_UN)

    def recorded(self, approval: str, since: int) -> Optional[bool]:
        """Read backwards from the end, down to the records older than `since`."""
        needle = approval.encode()
        if not needle:
            return False
        try:
            fd = os.open(self.path, os.O_RDONLY)
        except FileNotFoundError:
            return False
        except OSError as e:
            raise StoreError(f"audit sink: {e}") from e
        try:
            end = os.fstat(fd).st_size
            carry = b""
            while end > 0:
                start = max(0, end - _TAIL)
                buf = os.pread(fd, end - start, start) + carry
                lines = buf.split(b"\n")
                first = lines.pop(0) if start > 0 and lines else b""
                for line in reversed(lines):
                    if not line:
                        continue
                    names = needle in line
                    found = _probe(line, approval if names else "", since)
                    if found is True and names:
                        return True
                    if found is False:
                        return False
                carry = first
                end = start
            return False
        finally:
            os.close(fd)


class SqliteSink(Sink):
    """Audit lines in an SQLite table `toolgate_audit(seq INTEGER PRIMARY
    KEY, line TEXT)`, the Rust host's `SqliteSink`: each append is one
    `BEGIN IMMEDIATE` transaction (SQLite's write lock, a file lock the
    kernel releases if its holder dies) reading the last line, sealing after
    it and inserting.

    A sink and a `SqliteStore` on one file share one connection, so what the
    gate does on the store from inside the seal runs in the append's
    transaction, and both name the file as their `database()`: the gate
    then claims through `append_claimed`, one transaction for the claim, the
    checkpoint's removal and the record (the driver's `joint` mode)."""

    seals = True

    def __init__(self, path: Union[str, Path]):
        self._file: Optional[_SqliteFile] = None
        try:
            self._file = _SqliteFile.acquire(path)
            self._lock = self._file.lock
            self._db = self._file.db
            with self._lock:
                self._db.execute("CREATE TABLE IF NOT EXISTS toolgate_audit (seq INTEGER PRIMARY KEY, line TEXT NOT NULL)")
        except sqlite3.Error as e:
            if self._file is not None:
                self._file.release()
            raise StoreError(f"audit sink: {e}") from e

    def append(self, line: str) -> None:
        try:
            with self._lock:
                self._db.execute("INSERT INTO toolgate_audit (line) VALUES (?1)", (line,))
        except sqlite3.Error as e:
            raise StoreError(f"audit sink: {e}") from e

    def last(self) -> Optional[str]:
        try:
            with self._lock:
                row = self._db.execute("SELECT line FROM toolgate_audit ORDER BY seq DESC LIMIT 1").fetchone()
        except sqlite3.Error as e:
            raise StoreError(f"audit sink: {e}") from e
        return None if row is None else row[0]

    def database(self) -> Optional[str]:
        return None if self._file is None else self._file.name

    def recorded(self, approval: str, since: int) -> Optional[bool]:
        """Whether the chain holds a record of approval `approval`'s
        settlement (a line whose `approval.id` names it) stamped at `since`
        (ms) or later, read from the rows every host's SQLite sink writes,
        as the Node host's `SqliteSink.recorded` reads them: candidates by
        `LIKE` on the id (`_`, `%` and `\\` escaped), each then parsed.
        The gate asks from inside an append's seal, on this connection and
        in its transaction, so a claim found without a record is one whose
        holder died between the two; a store on another file claims in
        its own. An unreadable table raises (never a guess)."""
        if not approval:
            return False
        escaped = re.sub(r"([\\%_])", r"\\\1", approval)
        try:
            with self._lock:
                rows = self._db.execute(
                    "SELECT line FROM toolgate_audit WHERE line LIKE ?1 ESCAPE '\\' ORDER BY seq DESC",
                    (f"%{escaped}%",),
                ).fetchall()
        except sqlite3.Error as e:
            raise StoreError(f"audit sink: {e}") from e
        for (line,) in rows:
            if _names_approval(line, approval, since):
                return True
        return False

    def _sealed_after_last(self, seal: Seal, claim: Optional[Tuple[str, int]]) -> Optional[str]:
        with self._lock:
            try:
                self._db.execute("BEGIN IMMEDIATE")
            except sqlite3.Error as e:
                raise StoreError(f"audit sink: {e}") from e
            try:
                if claim is not None:
                    cur = self._db.execute("INSERT OR IGNORE INTO toolgate_claims (id, deadline) VALUES (?1, ?2)", (claim[0], min(int(claim[1]), 2**63 - 1)))
                    if cur.rowcount != 1:
                        self._db.execute("ROLLBACK")
                        return None
                    self._db.execute("DELETE FROM toolgate_checkpoints WHERE id = ?1", (claim[0],))
                row = self._db.execute("SELECT line FROM toolgate_audit ORDER BY seq DESC LIMIT 1").fetchone()
            except BaseException as e:
                self._rollback()
                if isinstance(e, sqlite3.Error):
                    raise StoreError(f"audit sink: {e}") from e
                raise
            try:
                line = seal(None if row is None else row[0])
            except BaseException:
                if claim is not None:
                    # Joint: none of it happened, the claim included.
                    self._rollback()
                else:
                    # No line; what the gate did on a store sharing this
                    # connection stands, as it would in a store of its own.
                    self._end("COMMIT")
                raise
            try:
                self._db.execute("INSERT INTO toolgate_audit (line) VALUES (?1)", (line,))
                self._db.execute("COMMIT")
                return line
            except sqlite3.Error as e:
                self._rollback()
                raise StoreError(f"audit sink: {e}") from e

    def _rollback(self) -> None:
        try:
            self._db.execute("ROLLBACK")
        except sqlite3.Error:
            pass

    def _end(self, how: str) -> None:
        try:
            self._db.execute(how)
        except sqlite3.Error:
            self._rollback()

    def append_sealed(self, seal: Seal) -> str:
        line = self._sealed_after_last(seal, None)
        assert line is not None
        return line

    def append_claimed(self, id: str, deadline: int, seal: Seal) -> Optional[str]:
        """Claims approval `id`, removes its checkpoint and appends its
        record in one `BEGIN IMMEDIATE` transaction (the tables of a
        `SqliteStore` on this file); None when another gate claimed it
        first (nothing written). When `seal` raises, none of it happened."""
        check_id(id)
        return self._sealed_after_last(seal, (id, deadline))

    def export(self) -> str:
        """Every line in order, as the JSON Lines text `verify_audit` takes."""
        with self._lock:
            rows = self._db.execute("SELECT line FROM toolgate_audit ORDER BY seq").fetchall()
        return "".join(r[0] + "\n" for r in rows)

    def close(self) -> None:
        file, self._file = self._file, None
        if file is not None:
            file.release()


# -- PostgreSQL (psycopg 3, optional) ---------------------------------------

_PG_SCHEMA = """
    CREATE TABLE IF NOT EXISTS toolgate_checkpoints (
        id text PRIMARY KEY NOT NULL,
        checkpoint text NOT NULL
    );
    CREATE TABLE IF NOT EXISTS toolgate_claims (
        id text PRIMARY KEY NOT NULL,
        deadline bigint NOT NULL
    );
    CREATE TABLE IF NOT EXISTS toolgate_audit (
        seq bigserial PRIMARY KEY,
        line text NOT NULL
    );
    CREATE TABLE IF NOT EXISTS toolgate_database (
        token text PRIMARY KEY NOT NULL
    );"""

#: The database's clock in ms since the Unix epoch.
_DB_NOW = "(extract(epoch from clock_timestamp()) * 1000)::bigint"


def _pg_connect(conninfo: str) -> Tuple[Any, str]:
    try:
        import psycopg
    except ImportError as e:
        raise StoreError("the PostgreSQL store needs psycopg 3: pip install 'psycopg[binary]'") from e
    try:
        conn = psycopg.connect(conninfo, autocommit=True)
        try:
            conn.execute(_PG_SCHEMA)
        except psycopg.Error:
            # Two replicas starting at once may race on CREATE TABLE IF NOT EXISTS.
            conn.execute(_PG_SCHEMA)
        with conn.transaction():
            conn.execute("LOCK TABLE toolgate_database IN EXCLUSIVE MODE")
            conn.execute(
                "INSERT INTO toolgate_database (token) "
                "SELECT md5(random()::text || clock_timestamp()::text || pg_backend_pid()::text) "
                "WHERE NOT EXISTS (SELECT 1 FROM toolgate_database)"
            )
            token = conn.execute("SELECT min(token) FROM toolgate_database").fetchone()[0]
        return conn, token
    except psycopg.Error as e:
        raise StoreError(f"checkpoint store: {e}") from e


def _millis_i64(ms: int) -> int:
    return min(int(ms), 2**63 - 1)


class _Postgres:
    def __init__(self, conninfo: str, what: str):
        import psycopg

        self._error = psycopg.Error
        self._what = what
        self._conn, self._token = _pg_connect(conninfo)
        # Reentrant: the gate asks `recorded` from inside an append's seal,
        # which reads on the same connection, inside the append's transaction.
        self._lock = threading.RLock()

    def _run(self, sql: str, args: Tuple[Any, ...] = ()) -> Any:
        try:
            with self._lock:
                return self._conn.execute(sql, args)
        except self._error as e:
            raise StoreError(f"{self._what}: {e}") from e

    def database(self) -> Optional[str]:
        return self._token

    def close(self) -> None:
        self._conn.close()


class PostgresStore(_Postgres, Store):
    """Pending approvals and their claims in PostgreSQL, the Rust host's
    `PostgresStore` tables: a checkpoint left by one replica (of any host) is
    answered by another; the first claim wins in the database."""

    def __init__(self, conninfo: str):
        _Postgres.__init__(self, conninfo, "checkpoint store")

    def put(self, id: str, checkpoint: str) -> None:
        check_id(id)
        self._run(
            "INSERT INTO toolgate_checkpoints (id, checkpoint) VALUES (%s, %s) "
            "ON CONFLICT (id) DO UPDATE SET checkpoint = EXCLUDED.checkpoint",
            (id, checkpoint),
        )

    def remove(self, id: str) -> None:
        self._run("DELETE FROM toolgate_checkpoints WHERE id = %s", (id,))

    def claim(self, id: str, deadline: int) -> bool:
        check_id(id)
        cur = self._run("INSERT INTO toolgate_claims (id, deadline) VALUES (%s, %s) ON CONFLICT (id) DO NOTHING", (id, _millis_i64(deadline)))
        return cur.rowcount == 1

    def sweep(self, now: int) -> int:
        """By the database's clock, never the caller's (`now` is not used)."""
        return self._run(f"DELETE FROM toolgate_claims WHERE deadline < {_DB_NOW}").rowcount

    def release(self, id: str) -> bool:
        self._run("DELETE FROM toolgate_claims WHERE id = %s", (id,))
        return True

    def claimed(self, id: str) -> bool:
        return self._run("SELECT 1 FROM toolgate_claims WHERE id = %s", (id,)).fetchone() is not None

    def now(self) -> Optional[int]:
        return int(self._run(f"SELECT {_DB_NOW}").fetchone()[0])

    def list(self) -> List[Tuple[str, str]]:
        return [(r[0], r[1]) for r in self._run("SELECT id, checkpoint FROM toolgate_checkpoints ORDER BY id").fetchall()]

    def get(self, id: str) -> Optional[str]:
        row = self._run("SELECT checkpoint FROM toolgate_checkpoints WHERE id = %s", (id,)).fetchone()
        return None if row is None else row[0]


class PostgresSink(_Postgres, Sink):
    """The audit chain in PostgreSQL (`toolgate_audit`), one chain for every
    replica: each append is one transaction holding the table's `EXCLUSIVE`
    lock, reading the last line, sealing after it and inserting."""

    seals = True

    def __init__(self, conninfo: str):
        _Postgres.__init__(self, conninfo, "audit sink")

    def append(self, line: str) -> None:
        self._run("INSERT INTO toolgate_audit (line) VALUES (%s)", (line,))

    def last(self) -> Optional[str]:
        row = self._run("SELECT line FROM toolgate_audit ORDER BY seq DESC LIMIT 1").fetchone()
        return None if row is None else row[0]

    def _sealed_after_last(self, seal: Seal, claim: Optional[Tuple[str, int]]) -> Optional[str]:
        try:
            with self._lock, self._conn.transaction():
                self._conn.execute("LOCK TABLE toolgate_audit IN EXCLUSIVE MODE")
                if claim is not None:
                    cur = self._conn.execute(
                        "INSERT INTO toolgate_claims (id, deadline) VALUES (%s, %s) ON CONFLICT (id) DO NOTHING",
                        (claim[0], _millis_i64(claim[1])),
                    )
                    if cur.rowcount != 1:
                        return None
                    self._conn.execute("DELETE FROM toolgate_checkpoints WHERE id = %s", (claim[0],))
                row = self._conn.execute("SELECT line FROM toolgate_audit ORDER BY seq DESC LIMIT 1").fetchone()
                line = seal(None if row is None else row[0])
                self._conn.execute("INSERT INTO toolgate_audit (line) VALUES (%s)", (line,))
                return line
        except self._error as e:
            raise StoreError(f"audit sink: {e}") from e

    def append_sealed(self, seal: Seal) -> str:
        line = self._sealed_after_last(seal, None)
        assert line is not None
        return line

    def append_claimed(self, id: str, deadline: int, seal: Seal) -> Optional[str]:
        """Claims approval `id`, removes its checkpoint and appends its
        record in one transaction; None when another gate claimed it first
        (nothing written)."""
        check_id(id)
        return self._sealed_after_last(seal, (id, deadline))

    def recorded(self, approval: str, since: int) -> Optional[bool]:
        pattern = "%" + approval.replace("_", "\\_") + "%"
        rows = self._run("SELECT line FROM toolgate_audit WHERE line LIKE %s ORDER BY seq DESC", (pattern,)).fetchall()
        for (line,) in rows:
            try:
                value = json.loads(line)
            except ValueError:
                continue
            found = value.get("approval") if isinstance(value, dict) else None
            t = value.get("time") if isinstance(value, dict) else None
            if isinstance(found, dict) and found.get("id") == approval and (not isinstance(t, int) or t >= since):
                return True
        return False

    def export(self) -> str:
        rows = self._run("SELECT line FROM toolgate_audit ORDER BY seq").fetchall()
        return "".join(r[0] + "\n" for r in rows)


# -- the audit chain --------------------------------------------------------


def append_audit(sink: Sink, records: Any, entry: Union[str, Dict[str, Any]], key: Any = None) -> str:
    """Seals `entry` (JSON: the execution-log fields) as the line after the
    sink's last one through the component's records interface (with `key`,
    the keyed chain: `seal-audit-keyed`) and appends it, under the sink's
    writer lock when it has one. Returns the sealed line."""
    text = entry if isinstance(entry, str) else json.dumps(entry, ensure_ascii=False, separators=(",", ":"))

    def seal(previous: Optional[str]) -> str:
        return records.seal_audit(text, previous, key)

    if sink.seals:
        return sink.append_sealed(seal)
    line = seal(sink.last())
    sink.append(line)
    return line

"""The component in wasmtime: loading, the compiled-component cache, calls, faults.

Compiling the component with cranelift takes seconds; loading a compiled
artifact takes about a millisecond. So the first load compiles it and keeps
the artifact in a cache directory (`$TOOLGATE_CACHE_DIR`, else
`$XDG_CACHE_HOME/toolgate` or `~/.cache/toolgate`, as the Rust host), and later
loads memory-map it. The file name carries the component's SHA-256 (computed
when the package was built, for the bundled component) and a key of the
wasmtime library and the engine's settings, so a stale or foreign artifact is
never picked up; wasmtime itself refuses an artifact of another version or
configuration, which is then compiled again. The bundled component is
checked against the digest its build recorded whenever it is read, and
whenever it changed after the digest was written (then before the cache is
trusted): a component copied in without its digest is refused, never run
and never matched to another's compiled artifact. The bundled component of
a source checkout (`host-py/src/toolgate` imported from a clone, by
`PYTHONPATH` or an editable install) is refused too: it is whatever an
earlier build left there, not rebuilt with the tree, and both it and the
digest beside it can be stale together. Files are written under a
temporary name, synced and renamed into place, so concurrent processes never
see half a file. The artifact is native code: the cache directory must be
writable only by you (the default is).

A call that traps (the component aborted, ran out of memory or stack) is a
fault: the instance is discarded and the next call gets a fresh one, with the
engines the caller holds re-created in it. A call that runs past the work
limit (wall-clock time, checked by epoch interruption) is stopped the same way.
"""

from __future__ import annotations

import hashlib
import os
import tempfile
import threading
from pathlib import Path
from typing import Any, Callable, Dict, Optional, Tuple

import wasmtime
from wasmtime import component as wc

from ._typed import TypedFunc
from .errors import LoadError

#: The component shipped in this package, and its SHA-256 written beside it at build time.
BUNDLED = Path(__file__).resolve().parent / "toolgate.wasm"
BUNDLED_SHA256 = BUNDLED.with_name("toolgate.wasm.sha256")

#: The interfaces the component exports.
POLICY = "toolgate:policy/policy@0.1.0"
RECORDS = "toolgate:policy/records@0.1.0"
GATE = "toolgate:policy/gate@0.1.0"

#: How often the epoch advances: the work limit's resolution.
TICK_SECONDS = 0.01
#: At most this many artifacts are kept in the cache directory.
MAX_ARTIFACTS = 8

#: The engine's settings, part of every artifact's key.
SETTINGS = "epoch-interruption"

#: wasmtime's words for each trap (its `Trap` display), mapped to the words
#: every toolgate host uses for it (`fault_kind` in the Rust host, `faultKind`
#: in the JavaScript host), so a `policy.fault` finding reads the same everywhere.
TRAP_KINDS = [
    ("wasm `unreachable` instruction executed", "the component aborted"),
    ("call stack exhausted", "stack overflow"),
    ("out of bounds memory access", "out-of-bounds memory access"),
    ("misaligned memory access", "out-of-bounds memory access"),
    ("out of bounds table access", "out-of-bounds table access"),
    ("uninitialized element", "invalid indirect call"),
    ("indirect call type mismatch", "invalid indirect call"),
    ("integer divide by zero", "integer division by zero"),
    ("integer overflow", "integer overflow"),
    ("invalid conversion to integer", "invalid conversion to integer"),
]


def default_cache_dir() -> Optional[Path]:
    """`$TOOLGATE_CACHE_DIR`, else the user's cache directory + `toolgate`."""
    for name in ("TOOLGATE_CACHE_DIR",):
        value = os.environ.get(name)
        if value:
            return Path(value)
    xdg = os.environ.get("XDG_CACHE_HOME")
    if xdg:
        return Path(xdg) / "toolgate"
    home = os.environ.get("HOME")
    if home:
        return Path(home) / ".cache" / "toolgate"
    local = os.environ.get("LOCALAPPDATA")
    return Path(local) / "toolgate" if local else None


def _wasmtime_key() -> str:
    """A key of the wasmtime library in use: its native library's size and time."""
    library = getattr(getattr(wasmtime, "_ffi", None), "dll", None)
    name = getattr(library, "_name", None)
    try:
        st = os.stat(name) if name else None
    except OSError:
        st = None
    seen = f"{st.st_size}:{st.st_mtime_ns}" if st else "unknown"
    return hashlib.sha256(f"{seen}|{SETTINGS}".encode()).hexdigest()[:16]


def artifact_name(component_sha256: str) -> str:
    """The cache file name for a component with this SHA-256 under this wasmtime."""
    return f"toolgate-py-{component_sha256[:24]}-{_wasmtime_key()}.cwasm"


class Fault(Exception):
    """A call into the component failed: `kind` in the words every host uses."""

    def __init__(self, kind: str, limit: bool = False):
        super().__init__(kind)
        self.kind = kind
        self.limit = limit


def fault_of(error: BaseException) -> Fault:
    """The kind of a failed call: a trap by its name, the work limit, or a host error."""
    text = str(error)
    if "wasm trap: interrupt" in text:
        return Fault("work limit", limit=True)
    if "wasm trap:" in text:
        for words, kind in TRAP_KINDS:
            if words in text:
                return Fault(kind)
        return Fault("trap")
    return Fault("host error")


class Compiled:
    """A compiled component and the engine it was compiled for; where it came from in `source`."""

    def __init__(self, engine: wasmtime.Engine, component: wc.Component, source: str):
        self.engine = engine
        self.component = component
        self.source = source


def _source_checkout() -> Optional[Path]:
    """The clone this package is imported from, when it is one (this file is
    `host-py/src/toolgate/_runtime.py` of a tree with the component's crate)."""
    here = Path(__file__).resolve().parent
    root = here.parent.parent.parent
    if here.parent.name == "src" and here.parent.parent.name == "host-py" and (root / "policy" / "component").is_dir():
        return root
    return None


def _changed_after_digest() -> bool:
    """Whether the bundled component was written after its digest (a build
    writes the digest last), or either cannot be looked at."""
    try:
        return BUNDLED.stat().st_mtime_ns > BUNDLED_SHA256.stat().st_mtime_ns
    except OSError:
        return True


def _check_digest(data: bytes, recorded: str) -> None:
    found = hashlib.sha256(data).hexdigest()
    if found != recorded:
        raise LoadError(
            f"the bundled component {BUNDLED} is not the one its build recorded (SHA-256 {found}, recorded {recorded}): reinstall the package (pip install ./host-py)"
        )


def compile_component(
    path: Optional[Path] = None,
    data: Optional[bytes] = None,
    cache_dir: Optional[Path] = None,
    use_cache: bool = True,
) -> Compiled:
    """Loads the component (the bundled one by default), from the cache when it can."""
    config = wasmtime.Config()
    config.epoch_interruption = True
    engine = wasmtime.Engine(config)
    sha: Optional[str] = None
    recorded: Optional[str] = None
    if data is None and path is None:
        checkout = _source_checkout()
        if checkout is not None:
            raise LoadError(
                f"toolgate is imported from the source tree {checkout / 'host-py' / 'src'}, whose bundled component is whatever an earlier build left there, "
                "not this tree's policy: install the package (pip install ./host-py) or load a component by path"
            )
        path = BUNDLED
        try:
            sha = recorded = BUNDLED_SHA256.read_text().strip()
        except OSError:
            sha = None
        if recorded is not None and _changed_after_digest():
            try:
                data = path.read_bytes()
            except OSError as e:
                raise LoadError(f"cannot read the component {path}: {e.strerror or e}") from None
            _check_digest(data, recorded)
    directory = (cache_dir or default_cache_dir()) if use_cache else None
    if directory is not None and sha is not None:
        cached = _read_artifact(engine, directory / artifact_name(sha))
        if cached is not None:
            return Compiled(engine, cached, f"cache:{directory / artifact_name(sha)}")
    if data is None:
        assert path is not None
        try:
            data = path.read_bytes()
        except OSError as e:
            raise LoadError(f"cannot read the component {path}: {e.strerror or e}") from None
        if recorded is not None:
            _check_digest(data, recorded)
    if sha is None:
        sha = hashlib.sha256(data).hexdigest()
        if directory is not None:
            cached = _read_artifact(engine, directory / artifact_name(sha))
            if cached is not None:
                return Compiled(engine, cached, f"cache:{directory / artifact_name(sha)}")
    if data[:4] != b"\0asm":
        raise LoadError("not a WebAssembly binary")
    if data[4:8] != b"\x0d\x00\x01\x00":
        raise LoadError("a WebAssembly core module, not a component: load the toolgate component (.wasm)")
    try:
        component = wc.Component(engine, data)
    except wasmtime.WasmtimeError as e:
        raise LoadError(f"invalid toolgate component: {e}") from None
    source = "compiled"
    if directory is not None:
        target = directory / artifact_name(sha)
        if _write_artifact(directory, target, component):
            source = f"compiled-and-cached:{target}"
            _prune(directory, target)
    return Compiled(engine, component, source)


def _read_artifact(engine: wasmtime.Engine, path: Path) -> Optional[wc.Component]:
    if not path.is_file():
        return None
    try:
        return wc.Component.deserialize_file(engine, str(path))
    except wasmtime.WasmtimeError:
        # Truncated, damaged, or from another wasmtime: compile again.
        return None


def _write_artifact(directory: Path, target: Path, component: wc.Component) -> bool:
    try:
        data = bytes(component.serialize())
        directory.mkdir(parents=True, exist_ok=True, mode=0o700)
        fd, temporary = tempfile.mkstemp(prefix=".toolgate-", suffix=".tmp", dir=directory)
        try:
            with os.fdopen(fd, "wb") as f:
                f.write(data)
                f.flush()
                os.fsync(f.fileno())
            os.replace(temporary, target)
        except BaseException:
            try:
                os.unlink(temporary)
            except OSError:
                pass
            raise
        return True
    except (OSError, wasmtime.WasmtimeError):
        return False


def _prune(directory: Path, keep: Path) -> None:
    """Keeps the newest MAX_ARTIFACTS artifacts of this host."""
    try:
        found = sorted(
            (p for p in directory.glob("toolgate-py-*.cwasm") if p != keep),
            key=lambda p: p.stat().st_mtime,
            reverse=True,
        )
        for old in found[MAX_ARTIFACTS - 1 :]:
            old.unlink()
    except OSError:
        pass


class _Ticker:
    """Advances an engine's epoch every TICK_SECONDS while the process lives."""

    def __init__(self, engine: wasmtime.Engine):
        self._engine = engine
        self._started = False
        self._lock = threading.Lock()

    def start(self) -> None:
        if self._started:
            return
        with self._lock:
            if self._started:
                return
            thread = threading.Thread(target=self._run, name="toolgate-epoch", daemon=True)
            thread.start()
            self._started = True

    def _run(self) -> None:
        stop = threading.Event()
        while not stop.wait(TICK_SECONDS):
            self._engine.increment_epoch()


class Instance:
    """One instance of the component in its own store, with its functions looked up once."""

    def __init__(self, compiled: Compiled, max_memory: Optional[int]):
        self.store = wasmtime.Store(compiled.engine)
        if max_memory is not None:
            self.store.set_limits(memory_size=max_memory)
        self.store.set_epoch_deadline(2**62)
        try:
            self.instance = wc.Linker(compiled.engine).instantiate(self.store, compiled.component)
        except wasmtime.WasmtimeError as e:
            raise LoadError(f"invalid toolgate component: {e}") from None
        self._funcs: Dict[Tuple[str, str], Any] = {}
        self._interfaces: Dict[str, Any] = {}
        #: Engine handles of this instance, by the id the Policy gave them.
        self.engines: Dict[int, Any] = {}
        #: Flow handles of this instance, by the id the Policy gave them.
        self.flows: Dict[int, Any] = {}

    def func(self, interface: str, name: str) -> Any:
        key = (interface, name)
        found = self._funcs.get(key)
        if found is None:
            index = self._interfaces.get(interface)
            if index is None:
                index = self.instance.get_export_index(self.store, interface)
                if index is None:
                    raise LoadError(f"the component does not export {interface}")
                self._interfaces[interface] = index
            export = self.instance.get_export_index(self.store, name, index)
            func = self.instance.get_func(self.store, export) if export is not None else None
            if func is None:
                raise LoadError(f"the component does not export {interface}#{name}")
            found = TypedFunc(func, self.store)
            self._funcs[key] = found
        return found


class Runtime:
    """The live instance of a compiled component: calls, faults and recovery."""

    def __init__(self, compiled: Compiled, work_limit: Optional[float], max_memory: Optional[int]):
        self._compiled = compiled
        self._work_limit = work_limit
        self._max_memory = max_memory
        self._live: Optional[Instance] = None
        self._ticker = _Ticker(compiled.engine) if work_limit is not None else None
        self._ticks = max(1, int(work_limit / TICK_SECONDS) + 1) if work_limit is not None else 0
        self._lock = threading.RLock()
        #: How many calls went into the component.
        self.crossings = 0
        #: How many instances were discarded after a fault.
        self.faults = 0

    def live(self) -> Instance:
        if self._live is None:
            self._live = Instance(self._compiled, self._max_memory)
        return self._live

    def call(self, f: Callable[[Instance], Any], bounded: bool = True) -> Any:
        """Runs `f` on the live instance; a failure discards it and raises `Fault`.
        One call at a time: a wasmtime store is not for two threads at once
        (an approval gate answers from its callers' threads). `bounded=False`
        lifts the work limit: loading checks the component with one call, and
        the limit bounds a decision, not the instance's first start."""
        with self._lock:
            return self._call(f, bounded)

    def _call(self, f: Callable[[Instance], Any], bounded: bool) -> Any:
        self.crossings += 1
        live = self.live()
        if self._ticker is not None and bounded:
            self._ticker.start()
            live.store.set_epoch_deadline(self._ticks)
        try:
            return f(live)
        except wasmtime.WasmtimeError as e:
            self._live = None
            self.faults += 1
            raise fault_of(e) from None
        finally:
            # The deadline is ticks from now and passes while the instance
            # idles; closing an engine between calls runs the component's
            # destructor in this store, which under a passed deadline would be
            # interrupted and leave the instance faulted for the next call.
            live.store.set_epoch_deadline(2**62)

"""The approval gate in Python: an interpreter of the component's gate driver.

The choreography — when an approval is claimed, where its checkpoint and
grants are kept and removed, which audit line is appended under which lock,
what a sweep closes, what a dead holder's claim means — is defined once, in
the component (`policy/src/flow/driver.rs`, exported as the WIT `driver`
resource; docs/gate-steps.md is the contract). Each operation of this gate
starts the component's operation (`Flow.start`) and carries out the effects
it returns, in order and a batch at a time, on this host's stores, clock and audit sinks
(`toolgate.stores`), feeding each outcome back until the operation is done.

This module keeps only what the component cannot have: ids (from the
CSPRNG), the clock, threads waiting for a person's answer, the stores and
sinks with their own atomicity (a sink that seals under its own writer lock
is driven from inside its callback, and a sink that can wait for the disk
outside that lock does so), events' listeners and the tools. Check now and
settle later (`check`, `settle`), and the blocking form (`run`, answered by
`respond` from another thread or by an `approve` function).
"""

from __future__ import annotations

import json
import secrets
import threading
import time
from dataclasses import dataclass, field
from typing import Any, Callable, Dict, List, Optional, Union

from . import _json
from .errors import RejectedError, ToolgateError
from .flow import Flow, StepError, key_bytes
from .shapes import Decision, Finding
from .stores import MemoryStore, Sink, Store

#: The default time a person has to answer (seed 004: 30 s).
DEFAULT_TIMEOUT_MS = 30_000
#: The shortest key, in bytes (the component refuses shorter ones).
MIN_KEY_LENGTH = 16

Execute = Callable[[str], Any]


class GateError(ToolgateError):
    """A gate operation was refused; `code` says why: `unknown`,
    `already-answered`, `invalid-edit`, `checkpoint` (a checkpoint refused,
    or the store failed), `key`, `audit` (the audit log failed), `policy` or
    `invalid` (the component refused the operation)."""

    def __init__(self, code: str, message: str):
        super().__init__(message)
        self.code = code


def _now() -> int:
    return time.time_ns() // 1_000_000


def _dumps(value: Any) -> str:
    """JSON text for the component (compact, as the other hosts write it)."""
    return _json.dumps(value)


def _text_of(value: Any) -> str:
    """Any value as text: strings as they are, the rest as JSON."""
    if isinstance(value, str):
        return value
    try:
        return json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    except (TypeError, ValueError):
        return str(value)


def _decision(d: Dict[str, Any]) -> Decision:
    return Decision(
        action=d["action"],
        risk=d["risk"],
        source=d["source"],
        llm_risk=d.get("llm_risk"),
        findings=[Finding(code=f["code"], message=f["message"]) for f in d["findings"]],
        summary=d["summary"],
    )


@dataclass(frozen=True)
class Request:
    """A pending approval, as listeners and dialogs get it."""

    id: str
    tool: str
    args: str
    decision: Decision
    requested_at: int
    deadline: int
    description: str = ""
    session_id: Optional[str] = None
    user_id: Optional[str] = None
    call_id: Optional[str] = None
    context: Any = None
    config_hash: str = ""
    gate: str = ""
    proposed: List[Any] = field(default_factory=list)

    @staticmethod
    def _of(p: Dict[str, Any]) -> "Request":
        return Request(
            id=p["id"],
            tool=p["tool"],
            args=p["args"],
            decision=_decision(p["decision"]),
            requested_at=p["requested_at"],
            deadline=p["deadline"],
            description=p.get("description") or "",
            session_id=p.get("session_id"),
            user_id=p.get("user_id"),
            call_id=p.get("call_id"),
            context=p.get("context"),
            config_hash=p.get("config_hash") or "",
            gate=p.get("gate") or "",
            proposed=p.get("proposed") or [],
        )


class ToolResult:
    """What the gate tells the caller, as the flow wrote it. `for_model()`
    is the tool-result text for the model (the same bytes in every host)."""

    def __init__(self, r: Dict[str, Any]):
        self.status: str = r["status"]
        self.output: Optional[str] = r.get("output")
        self.error: Optional[str] = r.get("error")
        self.reason: Optional[str] = r.get("reason")
        self.message: Optional[str] = r.get("message")
        self.instruction: Optional[str] = r.get("instruction")
        self.decision: Decision = _decision(r["decision"])
        self.executed_args: Optional[str] = r.get("executed_args")
        self.approval_id: Optional[str] = r.get("approval_id")
        self.audit_error: Optional[str] = r.get("audit_error")
        self._for_model: str = r["for_model"]

    def for_model(self) -> str:
        return self._for_model

    def __repr__(self) -> str:
        return f"ToolResult(status={self.status!r}, approval_id={self.approval_id!r})"


@dataclass
class Checked:
    """What `Gate.check` decided now: `pending` (a request to `settle`
    later), `result` (denied: what the model gets) or `proceed(execute)`
    (allowed: runs the tool)."""

    decision: Decision
    pending: Optional[Request] = None
    result: Optional[ToolResult] = None
    proceed: Optional[Callable[[Execute], ToolResult]] = None


#: The event types, by the flow's event `type`.
EVENT_TYPES = {
    "requested": "approval-requested",
    "responded": "approval-responded",
    "processed": "approval-processed",
    "grant_refused": "grant-refused",
    "expiring": "approval-expiring",
}


def _detail(event: Dict[str, Any]) -> Any:
    t = event.get("type")
    if t == "requested":
        return Request._of(event["request"])
    if t == "responded":
        return {"id": event.get("id"), "answer": event.get("answer"), "by": event.get("by")}
    if t == "expiring":
        return {"id": event.get("id"), "deadline": event.get("deadline")}
    if t == "grant_refused":
        return {"id": event.get("id"), "code": event.get("code"), "reason": event.get("reason")}
    return {"id": event.get("id"), "tool": event.get("tool"), "status": event.get("status")}


def _call_text(call: Dict[str, Any], grants: List[str]) -> str:
    if not isinstance(call, dict):
        raise TypeError("a call is a dict with `tool` and `args`")
    args = call.get("args")
    c: Dict[str, Any] = {"tool": str(call.get("tool") or ""), "args": "{}" if args is None else _text_of(args)}
    for ours, theirs in (("call_id", "call_id"), ("description", "description"), ("session_id", "session_id"), ("user_id", "user_id")):
        if call.get(ours) is not None:
            c[theirs] = str(call[ours])
    if call.get("context") is not None:
        c["context"] = _text_of(call["context"])
    if grants:
        c["grants"] = grants
    return _dumps(c)


def _answer_text(response: Any) -> str:
    if isinstance(response, str):
        response = {"answer": response}
    if not isinstance(response, dict):
        raise GateError("invalid-edit", "a response is a dict with `answer`: 'approve', 'reject' or 'edit'")
    a: Dict[str, Any] = {"answer": response.get("answer")}
    if response.get("args") is not None:
        a["args"] = _text_of(response["args"])
    for key in ("message", "instruction", "by"):
        if response.get(key) is not None:
            a[key] = str(response[key])
    remember = response.get("remember")
    if remember is not None:
        r = {"scope": remember} if isinstance(remember, str) else remember
        a["remember"] = {"scope": r.get("scope")}
        if r.get("rules") is not None:
            a["remember"]["rules"] = r["rules"]
        expires = r.get("expires_at", r.get("expiresAt"))
        if expires is not None:
            a["remember"]["expires_at"] = expires
    return _dumps(a)



class _Failed(Exception):
    """The operation ended with a `fail` effect."""

    def __init__(self, effect: Dict[str, Any]):
        super().__init__(effect.get("message"))
        self.effect = effect


class _Unlocked(Exception):
    """The lock was left without an append: the sink writes nothing."""


#: The driver's failure codes as this gate's: a sink's failure is the audit
#: log's, a store's is the checkpoint's (as the gate has always said).
_CODES = {"sink": "audit", "store": "checkpoint"}


def _gate_error(failed: Dict[str, Any]) -> GateError:
    code = str(failed.get("code") or "invalid")
    message = str(failed.get("message") or code)
    if code == "checkpoint" and failed.get("id"):
        message = f"checkpoint `{failed['id']}`: {message}"
    return GateError(_CODES.get(code, code), message)


def _run_tool(execute: Optional["Execute"], args: str) -> Dict[str, Any]:
    started = time.monotonic()
    try:
        if execute is None:
            raise ToolgateError("no tool was given to run it")
        ran: Dict[str, Any] = {"output": _text_of(execute(args))}
    except Exception as e:
        ran = {"error": str(e) or type(e).__name__}
    ran["elapsed_ms"] = max(0, int((time.monotonic() - started) * 1000))
    return ran


class _Operation:
    """One operation of the component's driver, carried out on a gate's
    stores, sinks and listeners (`run` returns the `done` value)."""

    def __init__(self, gate: "Gate", op: Dict[str, Any], execute: Optional["Execute"] = None, at: Optional[int] = None):
        self._gate = gate
        self._execute = execute
        #: The host clock's reading for this operation when it is fixed (the
        #: time a waited-for answer was taken); None: read the clock.
        self._at = at
        self._driver, batch = gate._flow.start(_dumps(op))
        #: The rest of the batch the component returned, and the outcomes so far.
        self._batch: List[str] = batch[::-1]
        self._outcomes: List[str] = []
        self._effect: Dict[str, Any] = {}

    def run(self) -> Dict[str, Any]:
        try:
            effect = self._next(None)
            while True:
                kind = effect["effect"]
                if kind == "done":
                    return effect["value"]
                if kind == "fail":
                    raise _Failed(effect)
                if kind == "lock":
                    effect = self._locked(effect)
                else:
                    effect = self._next(self._perform(effect))
        finally:
            self._driver.close()

    def _next(self, outcome: Optional[Dict[str, Any]]) -> Dict[str, Any]:
        """The next effect, given the outcome of the last one: the batch's
        next, or a new batch from the component once this one is carried out,
        or once an outcome was an error or not the one the driver presumed
        (it then decides again from there)."""
        if outcome is not None:
            self._outcomes.append(_dumps(outcome))
            presumed = self._effect.get("presumed")
            if "error" in outcome or (presumed is not None and outcome != presumed):
                self._batch = []
        if not self._batch:
            self._batch = self._driver.step(self._outcomes)[::-1]
            self._outcomes = []
        self._effect = json.loads(self._batch.pop())
        return self._effect

    def _region(self, outcome: Dict[str, Any]) -> Dict[str, Any]:
        """Answers `lock` and carries out the effects inside it, up to the
        `append` or `unlock` that ends it (or the operation's end)."""
        effect = self._next(outcome)
        while effect["effect"] not in ("append", "unlock", "done", "fail"):
            if effect["effect"] == "lock":
                effect = self._next({"previous": None, "refused": "the audit chain's lock is already held"})
            else:
                effect = self._next(self._perform(effect))
        return effect

    def _locked(self, lock: Dict[str, Any]) -> Dict[str, Any]:
        """`lock` … `append` or `unlock`: one writer per audit chain. A sink
        that seals under its own lock is driven from inside its callback;
        the line is written there, and the disk waited for after the lock is
        left. Returns the effect after the region."""
        g = self._gate
        if not g._sinks:
            return self._unlocked(self._region({"previous": None, "locked": False}))
        first = g._sinks[0]
        claim = lock.get("claim")
        deferred = first.defers_sync and claim is None
        ended: List[Dict[str, Any]] = []
        inner: List[BaseException] = []

        def seal(previous: Optional[str]) -> str:
            try:
                ended.append(self._region({"previous": previous, "locked": True}))
            except BaseException as e:
                inner.append(e)
                raise
            if ended[-1]["effect"] == "append":
                return ended[-1]["line"]
            raise _Unlocked()

        outcome: Dict[str, Any]
        with g._chain_lock:
            if g._chain_error is not None:
                return self._unlocked(self._region({"previous": None, "refused": g._chain_error}))
            if not first.seals and claim is None:
                effect = self._region({"previous": g._chain, "locked": False})
                if effect["effect"] != "append":
                    return self._unlocked(effect)
                try:
                    first.append(effect["line"])
                except Exception as e:
                    return self._next({"error": str(e)})
                line: Optional[str] = effect["line"]
            else:
                try:
                    if claim is not None and hasattr(first, "append_claimed"):
                        line = first.append_claimed(claim["key"], claim["deadline"], seal)
                    elif deferred:
                        line = first.append_sealed(seal, sync=False)
                    else:
                        line = first.append_sealed(seal)
                except _Unlocked:
                    return self._unlocked(ended[-1])
                except Exception as e:
                    if inner:
                        raise
                    if not ended:
                        # The lock could not be taken (or the last line read): nothing is claimed.
                        return self._unlocked(self._region({"previous": None, "refused": str(e)}))
                    if ended[-1]["effect"] != "append":
                        raise
                    return self._next({"error": str(e)})
                if line is None:
                    # Another gate claimed it first (nothing was written).
                    return self._next({"taken": True})
            g._chain = line
            outcome = {}
            # Secondary sinks copy the primary, in its order: one failing loses its copy, never the chain.
            for sink in g._sinks[1:]:
                try:
                    sink.append(line)
                except Exception as e:
                    outcome.setdefault("secondary", str(e))
        if deferred:
            try:
                first.sync()
            except Exception as e:
                outcome = {"error": str(e)}
        return self._next(outcome)

    def _unlocked(self, effect: Dict[str, Any]) -> Dict[str, Any]:
        """The effect after a region that ended without an append."""
        if effect["effect"] == "unlock":
            return self._next({})
        if effect["effect"] == "append":
            return self._next({"error": "the audit log's writer lock was not held"})
        return effect

    def _perform(self, effect: Dict[str, Any]) -> Dict[str, Any]:
        g = self._gate
        kind = effect["effect"]
        key = effect.get("key")
        try:
            if kind == "now":
                now = g._store.now() if effect.get("clock") == "store" else self._at
                return {"now": _now() if now is None else now}
            if kind in ("list", "get", "put", "remove") and effect.get("store") == "session":
                return g._session_effect(kind, key, effect.get("value"))
            if kind == "list":
                return {"entries": [list(entry) for entry in sorted(g._store.list())]}
            if kind == "get":
                return {"value": g._store.get(key)}
            if kind == "put":
                g._store.put(key, effect["value"])
                return {}
            if kind == "remove":
                g._store.remove(key)
                return {}
            if kind == "claim":
                return {"claimed": g._store.claim(key, effect["deadline"])}
            if kind == "claimed":
                return {"claimed": g._store.claimed(key)}
            if kind == "release":
                return {"released": g._store.release(key)}
            if kind == "sweep-claims":
                g._store.sweep(effect["now"])
                return {}
            if kind == "recorded":
                return {"recorded": g._sinks[0].recorded(effect["id"], effect["since"]) if g._sinks else None}
            if kind == "notify":
                g._emit(effect.get("events"))
                return {}
            if kind == "run":
                return _run_tool(self._execute, effect["args"])
            if kind == "unlock":
                return {}
        except (ToolgateError, OSError) as e:
            return {"error": str(e)}
        return {"error": f"this gate carries out no effect `{kind}`"}


class _Slot:
    """A blocking call's wait for a person's answer (the answer's JSON text)
    and the time (ms) it was taken, which the settling reads as its `now`."""

    def __init__(self, checkpoint: str, deadline: int):
        self.checkpoint = checkpoint
        self.deadline = deadline
        self.answer: Optional[str] = None
        self.at: Optional[int] = None
        self.event = threading.Event()

    def take(self, answer: str, at: Optional[int] = None) -> None:
        self.answer = answer
        self.at = at
        self.event.set()


class Gate:
    """The approval gate over a policy configuration.

    Options: `config` (the policy configuration), `timeout_ms` (how long a
    person has to answer; else the configuration's, else 30 s),
    `tool_timeouts`, `shadow` (run everything, record what would have been
    decided), `key` (signs checkpoints and grants; a store others can write
    needs one, or `unsigned=True` said explicitly), `identity`,
    `audit_required` (no write-ahead record, no run), `audit_key` (keys the
    audit chain; by default the checkpoint key), `store` (a
    `toolgate.stores.Store`, in memory by default), `audit` (sinks; the
    first one's last line continues the chain), `approve` (a function
    answering every request) and `warn_before_ms`.

    Listen with `on(type, f)`: `approval-requested` (a `Request`),
    `approval-responded`, `approval-processed`, `grant-refused`,
    `approval-expiring`. A gate may be used from several threads."""

    def __init__(
        self,
        policy: Any,
        config: Any = "{}",
        *,
        timeout_ms: Optional[int] = None,
        tool_timeouts: Optional[Dict[str, int]] = None,
        shadow: bool = False,
        key: Union[bytes, str, None] = None,
        unsigned: bool = False,
        identity: Optional[str] = None,
        audit_required: bool = False,
        audit_key: Union[bytes, str, None] = None,
        store: Optional[Store] = None,
        audit: Optional[List[Sink]] = None,
        approve: Optional[Callable[[Request], Any]] = None,
        warn_before_ms: Optional[int] = None,
    ):
        if key is None and store is not None and not unsigned:
            raise GateError("key", "a gate with a checkpoint store needs a key (at least 16 bytes), or `unsigned=True` said explicitly")
        self._prefix = secrets.token_hex(8)
        self._sinks: List[Sink] = list(audit or [])
        settings = {
            "identity": identity if identity is not None else f"tg-{self._prefix}",
            "timeout_ms": timeout_ms,
            "tool_timeouts": dict(tool_timeouts or {}),
            "shadow": bool(shadow),
            "audit": bool(self._sinks),
            "audit_required": bool(audit_required),
        }
        # The configuration is refused (RejectedError) before the keys are.
        self.engine = policy.engine(config)
        try:
            # The checkpoint key keys the audit chain too when no audit key is
            # given: an unkeyed chain can be recomputed by anyone who erases a record.
            self._flow: Flow = policy.flow(config, _dumps(settings), key_bytes(key), key_bytes(audit_key if audit_key is not None else key))
        except RejectedError as e:
            self.engine.close()
            if str(e).startswith("invalid gate settings"):
                raise TypeError(str(e)) from None
            raise GateError("key", str(e)) from None
        self._store: Store = store if store is not None else MemoryStore()
        self._approve = approve
        self._warn_before_ms = warn_before_ms
        self._listeners: Dict[str, List[Callable[[Any], Any]]] = {}
        self._lock = threading.Lock()
        #: One writer per audit chain in this process (the sink's own lock spans processes).
        self._chain_lock = threading.Lock()
        self._waiting: Dict[str, _Slot] = {}
        self._finished: set = set()
        self._next_id = 0
        #: The `session` store of the effects: grants for this session, the ids this gate revoked.
        self._session: Dict[str, str] = {}
        self._chain: Optional[str] = None
        self._chain_error: Optional[str] = None
        if self._sinks:
            try:
                self._chain = self._sinks[0].last()
                gap = self._sinks[0].gap()
                if gap is not None:
                    # Recorded first: the torn tail was set aside by the sink.
                    self._op({"op": "gap", "what": gap})
            except (ToolgateError, OSError) as e:
                # A sink that cannot be read fails each record (reported as
                # `audit_error`), never the gate's construction.
                self._chain_error = str(e)

    # -- carrying out the component's operations ------------------------------

    def _op(self, op: Dict[str, Any], execute: Optional[Execute] = None, at: Optional[int] = None) -> Dict[str, Any]:
        """Drives one operation to its end: its `done` value, or `GateError`.
        `at`: the host clock's reading the operation takes (else the clock's)."""
        try:
            return _Operation(self, op, execute, at).run()
        except _Failed as failed:
            raise _gate_error(failed.effect) from None

    def _session_effect(self, kind: str, key: str, value: Optional[str]) -> Dict[str, Any]:
        if kind == "list":
            return {"entries": [[k, v] for k, v in sorted(self._session.items())]}
        if kind == "get":
            return {"value": self._session.get(key)}
        if kind == "put":
            self._session[key] = str(value)
        else:
            self._session.pop(key, None)
        return {}

    def _joint(self) -> bool:
        """Whether the first sink keeps the store's claims in its own database
        (PostgreSQL, or an SQLite file the store and the sink share, on one
        connection): claim, checkpoint removal and record are then one
        transaction."""
        if not self._sinks or self._chain_error is not None:
            return False
        name = self._store.database()
        return name is not None and name == self._sinks[0].database() and hasattr(self._sinks[0], "append_claimed")

    def _waiting_ids(self) -> List[str]:
        with self._lock:
            return list(self._waiting)

    # -- events ---------------------------------------------------------------

    def on(self, type: str, listener: Callable[[Any], Any]) -> None:
        """Calls `listener(detail)` for every event of `type`."""
        self._listeners.setdefault(type, []).append(listener)

    def _emit(self, events: Optional[List[Dict[str, Any]]]) -> None:
        for event in events or []:
            name = EVENT_TYPES.get(event.get("type", ""))
            if name is None:
                continue
            detail = _detail(event)
            for listener in list(self._listeners.get(name, [])):
                try:
                    listener(detail)
                except Exception:
                    # A listener's failure is its own; the gate goes on.
                    pass

    # -- check now, settle later ------------------------------------------------

    def _new_id(self) -> str:
        """This gate's prefix, a counter and 64 bits from the CSPRNG."""
        with self._lock:
            self._next_id += 1
            n = self._next_id
        return f"{self._prefix}-{n}-{secrets.token_hex(8)}"

    def _check(self, call: Dict[str, Any]) -> Dict[str, Any]:
        op = {"op": "check", "id": self._new_id(), "call": json.loads(_call_text(call, []))}
        try:
            return self._op(op)
        except GateError as e:
            if e.code in ("policy", "invalid"):
                raise TypeError(f"the call was refused: {e}") from None
            raise

    def _done(self, value: Dict[str, Any]) -> ToolResult:
        result = ToolResult(value["result"])
        self._emit(value.get("events"))
        return result

    def _execute(self, ready: Dict[str, Any], execute: Execute) -> ToolResult:
        """Runs the tool of a `run` outcome and records how it ended."""
        return ToolResult(self._op({"op": "execute", "ready": ready}, execute)["result"])

    def _settled(self, id: str, value: Dict[str, Any], execute: Optional[Execute]) -> ToolResult:
        if value["outcome"] != "run":
            return self._done(value)
        if execute is None:
            raise GateError("unknown", f"approval `{id}` may run, but no tool was given to run it")
        return self._execute(value["ready"], execute)

    def check(self, call: Dict[str, Any]) -> Checked:
        """Decides `call` now and leaves any answer for later, for callers that
        keep the pending state themselves (an agent SDK's approvals, a graph's
        interrupt). `deny`: the refusal is recorded and `result` is what the
        model gets. `confirm`: the checkpoint is stored,
        `approval-requested` reported, and `pending` is the request: answer it
        with `settle` (in this process or any other sharing the store).
        `allow` (or shadow mode): `proceed(execute)` runs it."""
        value = self._check(call)
        if value["outcome"] == "ask":
            self._emit(value.get("events"))
            pending = value["pending"]
            return Checked(decision=_decision(pending["decision"]), pending=Request._of(pending))
        if value["outcome"] == "done":
            result = self._done(value)
            return Checked(decision=result.decision, result=result)
        ready = value["ready"]
        proceeded = []

        def proceed(execute: Execute) -> ToolResult:
            if proceeded:
                raise GateError("already-answered", "this check has already been run")
            proceeded.append(True)
            return self._execute(ready, execute)

        return Checked(decision=_decision(ready["decision"]), proceed=proceed)

    def settle(self, id: str, response: Any, execute: Optional[Execute] = None) -> ToolResult:
        """Answers an approval `check` left pending (here or in any process of
        any host sharing the store): `{"answer": "approve" | "reject" |
        "edit", "args"?, "message"?, "instruction"?, "by"?, "remember"?}`,
        then runs `execute(args)` if the flow allows. Raises `GateError`:
        `invalid-edit` (it stays pending), `unknown`, `already-answered`,
        `checkpoint`, `audit`."""
        with self._lock:
            if id in self._waiting:
                raise GateError("already-answered", f"approval `{id}` is being waited for: answer it with `respond`")
        answer = _answer_text(response)
        value = self._op({"op": "settle", "id": id, "answer": answer, "joint": self._joint()})
        return self._settled(id, value, execute)

    # -- the blocking form --------------------------------------------------

    def run(self, call: Dict[str, Any], execute: Execute) -> ToolResult:
        """Decides `call` and runs `execute(args)` (the arguments the tool
        must receive, JSON text) if and when it may run. For `confirm` it
        blocks until `respond` (from another thread), the `approve` function,
        or the deadline. Raises only when a pending approval cannot be
        checkpointed or claimed (nothing is then run)."""
        value = self._check(call)
        if value["outcome"] == "run":
            return self._execute(value["ready"], execute)
        if value["outcome"] == "done":
            return self._done(value)
        return self._wait(value["pending"], value["checkpoint"], value.get("events"), execute)

    def respond(self, id: str, response: Any) -> None:
        """Answers a pending approval a `run` of this gate waits for. The flow
        takes the answer at once: an invalid one raises
        `GateError("invalid-edit")` and the call keeps waiting."""
        answer = _answer_text(response)
        with self._lock:
            slot = self._slot(id)
            now = self._in_time(id, slot)
            try:
                # The component reads the answer now (nothing is recorded by
                # this step): an invalid edit is the responder's to hear.
                self._flow.settle(slot.checkpoint, answer, now)
            except StepError as e:
                if e.kind == "invalid":
                    raise GateError("invalid-edit", str(e)) from None
            slot.take(answer, now)

    def cancel(self, id: str) -> None:
        """Cancels a pending approval: the call is not run and the model is told."""
        with self._lock:
            slot = self._slot(id)
            slot.take('{"answer":"cancel"}', self._in_time(id, slot))

    def _in_time(self, id: str, slot: _Slot) -> int:
        """The time an answer to `slot` is taken (ms), which its settling
        reads as `now` (the Rust gate settles on the answering thread at that
        time; the Node gate reads the clock as the answer resolves the wait),
        so an answer given before the deadline counts however late the
        waiting thread wakes. One given at or after the deadline is too late
        whether or not the waiting thread has woken: the wait ends there,
        expired, and whoever answered is told, as after the thread woke.
        Called under the gate's lock, which the waiting thread's own timeout
        takes too."""
        now = _now()
        if now >= slot.deadline:
            slot.take('{"answer":"none"}')
            raise GateError("already-answered", f"approval `{id}` expired at its deadline before the answer came")
        return now

    def _slot(self, id: str) -> _Slot:
        slot = self._waiting.get(id)
        if slot is None or slot.event.is_set():
            if id in self._finished or slot is not None:
                raise GateError("already-answered", f"approval `{id}` was already answered")
            raise GateError("unknown", f"no pending approval `{id}`")
        return slot

    def _wait(self, pending: Dict[str, Any], checkpoint: str, events: Any, execute: Execute) -> ToolResult:
        """Waits for the answer to a pending approval (or its deadline), then
        settles it with the checkpoint this call holds and runs what it allows."""
        id = pending["id"]
        deadline = pending["deadline"]
        slot = _Slot(checkpoint, deadline)
        with self._lock:
            self._waiting[id] = slot
        self._emit(events)
        if self._approve is not None:
            request = Request._of(pending)

            def answer() -> None:
                try:
                    self.respond(id, self._approve(request))
                except Exception:
                    # A late or refused answer changes nothing: the wait goes on or has ended.
                    pass

            threading.Thread(target=answer, name=f"toolgate-approve-{id}", daemon=True).start()
        warned = self._warn_before_ms is None
        try:
            while not slot.event.is_set():
                left = deadline - _now()
                if not warned and left <= self._warn_before_ms:
                    warned = True
                    self._emit([{"type": "expiring", "id": id, "deadline": deadline}])
                    continue
                if left <= 0:
                    with self._lock:
                        if not slot.event.is_set():
                            slot.take('{"answer":"none"}')
                    break
                wait = left if warned else min(left, left - self._warn_before_ms)
                slot.event.wait(max(0.001, min(wait / 1000.0, 3600.0)))
            op = {"op": "settle", "id": id, "answer": slot.answer, "checkpoint": checkpoint, "deadline": deadline, "joint": self._joint()}
            # Settled at the time the answer was taken (before the deadline,
            # or the flow says expired), not when this thread woke.
            return self._settled(id, self._op(op, at=slot.at), execute)
        finally:
            with self._lock:
                self._waiting.pop(id, None)
                self._finished.add(id)

    # -- the store ------------------------------------------------------------

    def pending(self) -> List[Dict[str, Any]]:
        """The pending approvals in the store (those any host's gate left),
        each opened and checked: `{"ok": True, "request"}` or `{"ok": False,
        "id", "error"}` for a forged or unreadable one."""
        value = self._op({"op": "pending", "waiting": self._waiting_ids(), "joint": self._joint()})
        out: List[Dict[str, Any]] = []
        for item in value["pending"]:
            if "pending" in item:
                out.append({"ok": True, "request": Request._of(item["pending"])})
            else:
                out.append({"ok": False, "id": item["id"], "error": _gate_error(item["error"])})
        return out

    def resume(self, id: str, execute: Execute) -> ToolResult:
        """Resumes a pending approval from the store: reports
        `approval-requested` again, waits until the original deadline, and
        finishes the call as `run` would."""
        if id in self._waiting_ids():
            raise GateError("already-answered", f"approval `{id}` is already being waited for")
        checkpoint = self._store.get(id)
        listed = self._op({"op": "pending", "waiting": self._waiting_ids(), "joint": self._joint()})["pending"]
        for item in listed:
            if item["id"] != id or checkpoint is None:
                continue
            if "error" in item:
                raise _gate_error(item["error"])
            pending = item["pending"]
            return self._wait(pending, checkpoint, [{"type": "requested", "request": pending}], execute)
        raise GateError("unknown", f"no pending approval `{id}`")

    def recover(self) -> int:
        """Recovers the claims whose holder died between its claim and its
        record: a recorded one's checkpoint goes; an unrecorded one never ran,
        and its claim is taken back (pending again). Returns how many."""
        return self._op({"op": "recover", "waiting": self._waiting_ids(), "joint": self._joint()})["recovered"]

    def sweep(self) -> int:
        """Closes every pending approval past its deadline that no call of
        this gate waits for (claimed, removed, audited as expired; never run),
        drops tombstones past their deadline, expired grants and expired
        revoked grants' tombstones. Returns how many approvals were closed."""
        return self._op({"op": "sweep", "waiting": self._waiting_ids(), "joint": self._joint()})["closed"]

    # -- grants ---------------------------------------------------------------

    def grants(self) -> List[Dict[str, Any]]:
        """Every grant this gate holds or its store keeps, each opened by the
        component: `{"ok": True, "id", "grant"}` or `{"ok": False, "id",
        "error"}` (finding code first) for one that does not apply."""
        out = []
        for item in self._op({"op": "grants"})["grants"]:
            if "grant" in item:
                out.append({"ok": True, "id": item["id"], "grant": item["grant"]})
            else:
                out.append({"ok": False, "id": item["id"], "error": item["refused"]})
        return out

    def revoke(self, id: str) -> bool:
        """Revokes grant `id`: the revocation is audited and the grant removed
        (a tombstone stays until it would have expired). Whether there was one."""
        try:
            return bool(self._op({"op": "revoke", "id": id})["revoked"])
        except GateError as e:
            if e.code == "audit":
                raise GateError("audit", f"the revocation could not be recorded: {e}") from None
            raise

    def close(self) -> None:
        self.engine.close()
        self._flow.close()

    def __enter__(self) -> "Gate":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

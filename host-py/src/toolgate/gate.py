"""The approval gate in Python: a shell over the component's approval flow.

The flow (`toolgate.flow.Flow`) decides and formats everything: the
decision, what a person's answer allows, the result and the text for the
model, the events, the checkpoint and every audit line. This module keeps
only what a host must: ids, the clock, waiting (threads), the checkpoint
store (claimed before anything runs, exactly once, across hosts and
processes), the audit sinks (one writer: each step is sealed after the last
line and appended before the next step seals), events and running the tool.

It carries out the same choreography as the Rust gate (`host-rs/src/gate/`)
and the JavaScript gate (`host-js/src/gate.js`), line for line with the
latter: check now and settle later (`check`, `settle`), and the blocking form
(`run`, answered by `respond` from another thread or by an `approve`
function). `docs/gate-steps.md` describes the protocol that moves this
choreography into the component; once the component drives it, this class
becomes an interpreter of its effects over the same stores and sinks.
"""

from __future__ import annotations

import json
import secrets
import threading
import time
from dataclasses import dataclass, field
from typing import Any, Callable, Dict, List, Optional, Tuple, Union

from . import _json
from .errors import RejectedError, ToolgateError
from .flow import Flow, StepError, key_bytes
from .shapes import Decision, Finding
from .stores import GRANT_PREFIX, REVOKED_PREFIX, MemoryStore, Sink, Store, StoreError

#: The default time a person has to answer (seed 004: 30 s).
DEFAULT_TIMEOUT_MS = 30_000
#: The shortest key, in bytes (the component refuses shorter ones).
MIN_KEY_LENGTH = 16
#: How far before an approval's request its settling record is looked for
#: (clocks of machines sharing a log may disagree this much).
CLOCK_SLACK_MS = 10 * 60 * 1000

Execute = Callable[[str], Any]


class GateError(ToolgateError):
    """A gate operation was refused; `code` says why: `unknown`,
    `already-answered`, `invalid-edit`, `checkpoint`, `key` or `audit`."""

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


def _sealed_field(sealed: str, name: str) -> Optional[str]:
    try:
        value = json.loads(sealed)
    except ValueError:
        return None
    grant = value.get("grant") if isinstance(value, dict) else None
    found = grant.get(name) if isinstance(grant, dict) else None
    return found if isinstance(found, str) else None


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


def _deadline_in(checkpoint: str) -> int:
    try:
        d = json.loads(checkpoint)["pending"]["deadline"]
        if isinstance(d, int) and not isinstance(d, bool) and d >= 0:
            return d
    except (ValueError, KeyError, TypeError):
        pass
    # Kept until swept by hand: a longer tombstone is the safe side.
    return 2**53 - 1


class _Taken:
    """A step taken after the chain's last line `used`; `redo(previous)` takes it again."""

    def __init__(self, take: Callable[[Optional[str]], str], used: Optional[str]):
        self.used = used
        self._take = take
        self.step: Dict[str, Any] = json.loads(take(used))

    def redo(self, previous: Optional[str]) -> None:
        self.step = json.loads(self._take(previous))
        self.used = previous


@dataclass
class _Committed:
    step: Dict[str, Any]
    error: Optional[str]
    primary: bool


class _Slot:
    def __init__(self, checkpoint: str):
        self.checkpoint = checkpoint
        self.taken = False
        self.value: Any = None
        self.event = threading.Event()

    def take(self, value: Any) -> None:
        self.taken = True
        self.value = value
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
        self._lock = threading.RLock()
        self._policy = policy
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
        self._audit_required = bool(audit_required)
        self._keyed = key is not None
        self._store: Store = store if store is not None else MemoryStore()
        self._approve = approve
        self._warn_before_ms = warn_before_ms
        self._listeners: Dict[str, List[Callable[[Any], Any]]] = {}
        self._waiting: Dict[str, _Slot] = {}
        self._finished: set = set()
        self._next_id = 0
        self._session_grants: Dict[str, str] = {}
        self._revoked: set = set()
        self._chain: Optional[str] = None
        self._chain_error: Optional[str] = None
        with self._lock:
            if self._sinks:
                try:
                    self._chain = self._sinks[0].last()
                    gap = self._sinks[0].gap()
                    if gap is not None:
                        # Recorded first: the torn tail was set aside by the sink.
                        now = _now()
                        taken = _Taken(lambda previous: _dumps({"audit": self._flow.gap(gap, now, previous)}), self._chain)
                        done = self._commit(taken)
                        if done.error is not None:
                            raise StoreError(done.error)
                except ToolgateError as e:
                    # A sink that cannot be read fails each record (reported as
                    # `audit_error`), never the gate's construction.
                    self._chain_error = str(e)

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

    # -- the audit chain --------------------------------------------------------

    def _commit(self, taken: _Taken, before: Optional[Callable[[bool], None]] = None) -> _Committed:
        """Appends a step's audit line (held: the writer lock). Should another
        line have landed since it was taken (another gate on the same log),
        the step is taken again after it. `before` (a claim) runs in the
        sink's writer turn, just before the line is sealed and appended;
        what it raises is raised, never reported as an audit failure."""
        step = taken.step
        if not self._sinks or step.get("audit") is None:
            if before is not None:
                before(False)
            return _Committed(taken.step, None, True)
        if self._chain_error is not None:
            return _Committed(taken.step, self._chain_error, False)
        first, others = self._sinks[0], self._sinks[1:]
        refused: List[BaseException] = []

        def sealed(previous: Optional[str]) -> str:
            if previous != taken.used:
                taken.redo(previous)
            line = taken.step.get("audit")
            if not isinstance(line, str):
                raise StoreError(taken.step.get("audit_error") or "no audit line was sealed")
            return line

        def guarded(previous: Optional[str], locked: bool) -> str:
            if before is not None:
                try:
                    before(locked)
                except BaseException as e:
                    refused.append(e)
                    raise
            return sealed(previous)

        try:
            if first.seals:
                line = first.append_sealed(lambda previous: guarded(previous, True) if before is not None else sealed(previous))
            else:
                line = guarded(self._chain, False)
                first.append(line)
        except Exception as e:
            if refused:
                raise refused[0]
            return _Committed(taken.step, str(e), False)
        self._chain = line
        # Secondary sinks copy the primary: one failing loses its copy, never the chain.
        error = None
        for sink in others:
            try:
                sink.append(line)
            except Exception as e:
                error = error or str(e)
        return _Committed(taken.step, error, True)

    def _result(self, done: _Committed) -> ToolResult:
        result = ToolResult(done.step["result"])
        if done.error is not None:
            result.audit_error = done.error
        self._emit(done.step.get("events"))
        return result

    # -- running ------------------------------------------------------------

    def _run(self, taken: _Taken, execute: Execute) -> ToolResult:
        with self._lock:
            ahead = self._commit(taken)
        return self._carry(ahead, execute)

    def _carry(self, ahead: _Committed, execute: Execute) -> ToolResult:
        """Runs the tool of a `run` step whose write-ahead line is committed, and finishes."""
        run = ahead.step
        self._emit(run.get("events"))
        ticket = run["ticket"]

        def finish(ran: Dict[str, Any]) -> ToolResult:
            now = _now()
            text = _dumps(ran)
            with self._lock:
                done = self._commit(_Taken(lambda previous: self._flow.finish(ticket, text, now, previous), self._chain))
            return self._result(done)

        if not ahead.primary and self._audit_required:
            # The write-ahead line was not written, and this gate runs nothing it cannot record.
            return finish({"unrecorded": ahead.error or "unknown", "elapsed_ms": 0})
        started = time.monotonic()
        try:
            ran: Dict[str, Any] = {"output": _text_of(execute(run["args"]))}
        except Exception as e:
            ran = {"error": str(e) or type(e).__name__}
        ran["elapsed_ms"] = max(0, int((time.monotonic() - started) * 1000))
        result = finish(ran)
        if result.audit_error is None:
            result.audit_error = ahead.error or run.get("audit_error")
        return result

    def _new_id(self) -> str:
        """This gate's prefix, a counter and 64 bits from the CSPRNG."""
        with self._lock:
            self._next_id += 1
            n = self._next_id
        return f"{self._prefix}-{n}-{secrets.token_hex(8)}"

    def _begin(self, call: Dict[str, Any], runs: bool) -> Tuple[_Taken, Optional[_Committed]]:
        _call_text(call, [])
        text = _call_text(call, [sealed for _, sealed in self._sealed_grants()])
        id = self._new_id()
        now = _now()
        with self._lock:
            try:
                taken = _Taken(lambda previous: self._flow.begin(text, id, now, previous), self._chain)
            except StepError as e:
                raise TypeError(f"the call was refused: {e}") from None
            kind = taken.step["step"]
            committed = self._commit(taken) if kind == "done" or (kind == "run" and runs) else None
            return taken, committed

    def _park(self, step: Dict[str, Any]) -> None:
        id = step["pending"]["id"]
        try:
            self._store.put(id, step["checkpoint"])
        except ToolgateError as e:
            raise GateError("checkpoint", f"checkpoint `{id}` could not be stored: {e}") from None

    def check(self, call: Dict[str, Any]) -> Checked:
        """Decides `call` now and leaves any answer for later, for callers that
        keep the pending state themselves (an agent SDK's approvals, a graph's
        interrupt). `deny`: the refusal is recorded and `result` is what the
        model gets. `confirm`: the checkpoint is stored,
        `approval-requested` reported, and `pending` is the request: answer it
        with `settle` (in this process or any other sharing the store).
        `allow` (or shadow mode): `proceed(execute)` runs it."""
        taken, committed = self._begin(call, False)
        step = taken.step
        if step["step"] == "ask":
            self._park(step)
            self._emit(step.get("events"))
            return Checked(decision=_decision(step["pending"]["decision"]), pending=Request._of(step["pending"]))
        if step["step"] == "done":
            assert committed is not None
            result = self._result(committed)
            return Checked(decision=result.decision, result=result)
        proceeded = []

        def proceed(execute: Execute) -> ToolResult:
            if proceeded:
                raise GateError("already-answered", "this check has already been run")
            proceeded.append(True)
            return self._run(taken, execute)

        return Checked(decision=_decision(step["decision"]), proceed=proceed)

    def settle(self, id: str, response: Any, execute: Optional[Execute] = None) -> ToolResult:
        """Answers an approval `check` left pending (here or in any process of
        any host sharing the store): `{"answer": "approve" | "reject" |
        "edit", "args"?, "message"?, "instruction"?, "by"?, "remember"?}`,
        then runs `execute(args)` if the flow allows. Raises `GateError`:
        `invalid-edit` (it stays pending), `unknown`, `already-answered`,
        `checkpoint`, `audit`."""
        if id in self._waiting:
            raise GateError("already-answered", f"approval `{id}` is being waited for: answer it with `respond`")
        answer = _answer_text(response)
        checkpoint = self._store.get(id)
        if checkpoint is None:
            raise GateError("unknown", f"no pending approval `{id}`")
        now = _now()
        return self._conclude(id, _deadline_in(checkpoint), lambda: self._settled(id, checkpoint, answer, now), execute)

    def _settled(self, id: str, checkpoint: str, answer: str, now: int) -> _Taken:
        try:
            taken = _Taken(lambda previous: self._flow.settle(checkpoint, answer, now, previous), self._chain)
        except StepError as e:
            if e.kind == "invalid":
                raise GateError("invalid-edit", str(e)) from None
            raise GateError("checkpoint", f"checkpoint `{id}`: {e}") from None
        step = taken.step
        named = step.get("approval_id") if step["step"] == "run" else (step.get("result") or {}).get("approval_id")
        if named != id:
            raise GateError("checkpoint", f"checkpoint `{id}`: it is stored as `{id}` but names `{named}`")
        return taken

    def _conclude(self, id: str, deadline: int, taken: Union[_Taken, Callable[[], _Taken]], execute: Optional[Execute]) -> ToolResult:
        """Claims the approval (exactly once, across gates and processes) and
        records it as one step, then runs what the flow says. With an audit
        log the claim is made in the log's writer turn, just before the
        record is appended under the same lock, and the checkpoint is removed
        only once the record is written."""
        recorded = bool(self._sinks)
        with self._lock:
            step = taken() if callable(taken) else taken
            grant = step.step.get("grant") if step.step["step"] == "run" else None
            if self._joint():
                done = self._conclude_joint(id, deadline, step, grant)
                if done.step["step"] == "run":
                    return self._carry(done, execute) if execute is not None else self._no_tool(id)
                return self._result(done)
            claimed = []

            def claim(locked: bool) -> None:
                # Claimed already: under the lock, a claim with no record of the
                # approval is a dead holder's, and this answer takes it over.
                if not self._store.claim(id, deadline) and not (locked and self._sinks[0].recorded(id, 0) is False):
                    raise GateError("already-answered", f"approval `{id}` was already answered")
                claimed.append(True)
                if not recorded:
                    self._store.remove(id)
                # The grant is kept before its record is written: one that
                # cannot be kept raises, and nothing runs.
                if grant is not None:
                    self._keep(grant["grant"], grant["sealed"])

            done = self._commit(step, claim)
            if not claimed:
                # The chain could not be read, so nothing was sealed or claimed.
                if self._audit_required:
                    raise GateError("audit", f"approval `{id}` was not settled (it stays pending): its record could not be written: {done.error}")
                claim(False)
            if recorded:
                if done.primary or not self._audit_required:
                    try:
                        self._store.remove(id)
                    except ToolgateError:
                        pass
                else:
                    if grant is not None:
                        self._forget(grant["grant"])
                    released = self._release_unrecorded(id, 0)
                    state = "it stays pending" if released is False else "its claim could not be taken back"
                    raise GateError("audit", f"approval `{id}` was not settled ({state}): its record could not be written: {done.error}")
        if done.step["step"] == "run":
            if execute is None:
                return self._no_tool(id)
            return self._carry(done, execute)
        return self._result(done)

    @staticmethod
    def _no_tool(id: str) -> ToolResult:
        raise GateError("unknown", f"approval `{id}` may run, but no tool was given to run it")

    def _joint(self) -> bool:
        """Whether the first sink keeps the store's claims in its own database
        (PostgreSQL): claim, checkpoint removal and record are then one
        transaction, as the Rust gate makes them."""
        if not self._sinks or self._chain_error is not None:
            return False
        name = self._store.database()
        return name is not None and name == self._sinks[0].database() and hasattr(self._sinks[0], "append_claimed")

    def _conclude_joint(self, id: str, deadline: int, taken: _Taken, grant: Optional[Dict[str, Any]]) -> _Committed:
        """Claims, removes the checkpoint and records in one transaction: a
        process killed anywhere in it, or a database that cannot write, leaves
        the approval pending and unclaimed."""
        first = self._sinks[0]

        def seal(previous: Optional[str]) -> str:
            if previous != taken.used:
                taken.redo(previous)
            line = taken.step.get("audit")
            if not isinstance(line, str):
                raise StoreError(taken.step.get("audit_error") or "no audit line was sealed")
            if grant is not None:
                # Kept before its record is written: one that cannot be kept writes nothing.
                self._keep(grant["grant"], grant["sealed"])
            return line

        try:
            line = first.append_claimed(id, deadline, seal)
        except GateError:
            raise
        except Exception as e:
            if grant is not None:
                self._forget(grant["grant"])
            raise GateError("audit", f"approval `{id}` was not settled (it stays pending): its record could not be written: {e}") from None
        if line is None:
            raise GateError("already-answered", f"approval `{id}` was already answered")
        self._chain = line
        error = None
        for sink in self._sinks[1:]:
            try:
                sink.append(line)
            except Exception as e:
                error = error or str(e)
        return _Committed(taken.step, error, True)

    def _release_unrecorded(self, id: str, since: int) -> Optional[bool]:
        """Under the first sink's writer lock: True when the claim on `id` has
        its record; False when it had none and was taken back; None when
        there is no claim or nothing can say. Held: the gate's lock."""
        if not self._sinks or not self._sinks[0].seals:
            return None
        first = self._sinks[0]
        found: List[Optional[bool]] = [None]

        class _Nothing(Exception):
            pass

        def look(previous: Optional[str]) -> str:
            if self._store.claimed(id):
                was = first.recorded(id, since)
                if was is True:
                    found[0] = True
                elif was is False and self._store.release(id):
                    found[0] = False
            # Nothing is written.
            raise _Nothing()

        try:
            first.append_sealed(look)
        except _Nothing:
            return found[0]
        except ToolgateError:
            return None
        return found[0]

    def recover(self) -> int:
        """Recovers the claims whose holder died between its claim and its
        record: a recorded one's checkpoint goes; an unrecorded one never ran,
        and its claim is taken back (pending again). Returns how many."""
        if not self._sinks:
            return 0
        recovered = 0
        for id, text in self._store.list():
            if id.startswith(GRANT_PREFIX) or id.startswith(REVOKED_PREFIX) or id in self._waiting:
                continue
            if not self._store.claimed(id):
                continue
            since = 0
            try:
                since = max(0, self._open(id, text)["requested_at"] - CLOCK_SLACK_MS)
            except GateError:
                pass
            with self._lock:
                found = self._release_unrecorded(id, since)
            if found is True:
                self._store.remove(id)
            if found is not None:
                recovered += 1
        return recovered

    # -- grants ---------------------------------------------------------------

    def _keep(self, grant: Dict[str, Any], sealed: str) -> None:
        if grant.get("scope") == "session":
            self._session_grants[grant["id"]] = sealed
            return
        try:
            self._store.put(GRANT_PREFIX + grant["id"], sealed)
        except ToolgateError as e:
            raise GateError("checkpoint", f"grant `{grant['id']}` could not be stored: {e}") from None

    def _forget(self, grant: Dict[str, Any]) -> None:
        self._session_grants.pop(grant["id"], None)
        if grant.get("scope") != "session":
            try:
                self._store.remove(GRANT_PREFIX + grant["id"])
            except ToolgateError:
                pass

    def _sealed_grants(self) -> List[Tuple[str, str]]:
        """The grants of the session and the store, but those revoked (by key
        or by the id sealed inside), a stored one claiming the session scope,
        and every stored one when the gate has no key."""
        listed = self._store.list() if self._keyed else []
        revoked = set(self._revoked)
        for key, _ in listed:
            if key.startswith(REVOKED_PREFIX):
                revoked.add(key[len(REVOKED_PREFIX) :])
        stored = [
            (key[len(GRANT_PREFIX) :], text)
            for key, text in listed
            if key.startswith(GRANT_PREFIX) and _sealed_field(text, "scope") != "session"
        ]
        return [
            (key, text)
            for key, text in list(self._session_grants.items()) + stored
            if key not in revoked and (_sealed_field(text, "id") or key) not in revoked
        ]

    def grants(self) -> List[Dict[str, Any]]:
        """Every grant this gate holds or its store keeps, each opened by the
        component: `{"ok": True, "id", "grant"}` or `{"ok": False, "id",
        "error"}` (finding code first) for one that does not apply."""
        now = _now()
        out = []
        for id, sealed in self._sealed_grants():
            try:
                with self._lock:
                    opened = self._flow.open_grant(sealed, now)
                out.append({"ok": True, "id": id, "grant": json.loads(opened)})
            except StepError as e:
                out.append({"ok": False, "id": id, "error": str(e)})
        return out

    def revoke(self, id: str) -> bool:
        """Revokes grant `id`: the revocation is audited and the grant removed
        (a tombstone stays until it would have expired). Whether there was one."""
        found = [sealed for key, sealed in self._sealed_grants() if key == id]
        if not found:
            return False
        sealed = found[0]
        with self._lock:
            if self._sinks:
                now = _now()
                done = self._commit(_Taken(lambda previous: _dumps({"audit": self._flow.revoke(sealed, now, previous)}), self._chain))
                if done.error is not None:
                    raise GateError("audit", f"the revocation could not be recorded: {done.error}")
            sealed_as = _sealed_field(sealed, "id") or id
            self._revoked.add(id)
            self._revoked.add(sealed_as)
            if id in self._session_grants:
                del self._session_grants[id]
                return True
            until = "never"
            try:
                expires = json.loads(self._flow.open_grant(sealed, _now())).get("expires_at")
                if isinstance(expires, int):
                    until = str(expires)
            except StepError:
                pass
            self._store.put(REVOKED_PREFIX + sealed_as, until)
            if sealed_as != id:
                self._store.put(REVOKED_PREFIX + id, until)
            self._store.remove(GRANT_PREFIX + id)
        return True

    # -- the blocking form --------------------------------------------------

    def run(self, call: Dict[str, Any], execute: Execute) -> ToolResult:
        """Decides `call` and runs `execute(args)` (the arguments the tool
        must receive, JSON text) if and when it may run. For `confirm` it
        blocks until `respond` (from another thread), the `approve` function,
        or the deadline. Raises only when a pending approval cannot be
        checkpointed or claimed (nothing is then run)."""
        taken, committed = self._begin(call, True)
        step = taken.step
        if step["step"] == "run":
            assert committed is not None
            return self._carry(committed, execute)
        if step["step"] == "done":
            assert committed is not None
            return self._result(committed)
        self._park(step)
        return self._wait(step["pending"], step["checkpoint"], step.get("events"), execute)

    def respond(self, id: str, response: Any) -> None:
        """Answers a pending approval a `run` of this gate waits for. The flow
        takes the answer at once: an invalid one raises
        `GateError("invalid-edit")` and the call keeps waiting."""
        with self._lock:
            slot = self._slot(id)
            answer = _answer_text(response)
            slot.take(self._settled(id, slot.checkpoint, answer, _now()))

    def cancel(self, id: str) -> None:
        """Cancels a pending approval: the call is not run and the model is told."""
        with self._lock:
            slot = self._slot(id)
            now = _now()
            slot.take(lambda: self._settled(id, slot.checkpoint, '{"answer":"cancel"}', now))

    def _slot(self, id: str) -> _Slot:
        slot = self._waiting.get(id)
        if slot is None or slot.taken:
            if id in self._finished or (slot is not None and slot.taken):
                raise GateError("already-answered", f"approval `{id}` was already answered")
            raise GateError("unknown", f"no pending approval `{id}`")
        return slot

    def _wait(self, pending: Dict[str, Any], checkpoint: str, events: Any, execute: Execute) -> ToolResult:
        id = pending["id"]
        deadline = pending["deadline"]
        slot = _Slot(checkpoint)
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
                        if not slot.taken:
                            now = _now()
                            slot.take(lambda: self._settled(id, checkpoint, '{"answer":"none"}', now))
                    break
                wait = left if warned else min(left, left - self._warn_before_ms)
                slot.event.wait(max(0.001, min(wait / 1000.0, 3600.0)))
        finally:
            with self._lock:
                self._waiting.pop(id, None)
                self._finished.add(id)
        return self._conclude(id, deadline, slot.value, execute)

    # -- the store ------------------------------------------------------------

    def _open(self, id: str, text: str) -> Dict[str, Any]:
        try:
            with self._lock:
                pending = json.loads(self._flow.open(text))
        except StepError as e:
            raise GateError("checkpoint", f"checkpoint `{id}`: {e}") from None
        if pending.get("id") != id:
            raise GateError("checkpoint", f"checkpoint `{id}`: it is stored as `{id}` but names `{pending.get('id')}`")
        return pending

    def pending(self) -> List[Dict[str, Any]]:
        """The pending approvals in the store (those any host's gate left),
        each opened and checked: `{"ok": True, "request"}` or `{"ok": False,
        "id", "error"}` for a forged or unreadable one."""
        self.recover()
        out = []
        for id, text in self._store.list():
            if id.startswith(GRANT_PREFIX) or id.startswith(REVOKED_PREFIX):
                continue
            if self._store.claimed(id):
                continue
            try:
                out.append({"ok": True, "request": Request._of(self._open(id, text))})
            except GateError as e:
                out.append({"ok": False, "id": id, "error": e})
        return out

    def resume(self, id: str, execute: Execute) -> ToolResult:
        """Resumes a pending approval from the store: reports
        `approval-requested` again, waits until the original deadline, and
        finishes the call as `run` would."""
        if id in self._waiting:
            raise GateError("already-answered", f"approval `{id}` is already being waited for")
        text = self._store.get(id)
        if text is None:
            raise GateError("unknown", f"no pending approval `{id}`")
        pending = self._open(id, text)
        return self._wait(pending, text, [{"type": "requested", "request": pending}], execute)

    def sweep(self) -> int:
        """Closes every pending approval past its deadline that no call of
        this gate waits for (claimed, removed, audited as expired; never run),
        drops tombstones past their deadline, expired grants and expired
        revoked grants' tombstones. Returns how many approvals were closed."""
        now = _now()
        closed = 0
        self.recover()
        for id, text in self._store.list():
            if id.startswith(GRANT_PREFIX) or id.startswith(REVOKED_PREFIX):
                continue
            try:
                pending = self._open(id, text)
            except GateError:
                continue
            if pending["deadline"] > now or id in self._waiting:
                continue
            try:
                self._conclude(id, pending["deadline"], lambda: self._settled(id, text, '{"answer":"none"}', now), None)
                closed += 1
            except GateError as e:
                if e.code != "already-answered":
                    raise
                self._store.remove(id)
        self._store.sweep(now)
        for listed in self.grants():
            if not listed["ok"] and listed["error"].startswith("grant.expired") and listed["id"] not in self._session_grants:
                self._store.remove(GRANT_PREFIX + listed["id"])
        for id, until in self._store.list():
            if id.startswith(REVOKED_PREFIX) and until.isdigit() and int(until) < now:
                self._store.remove(id)
        return closed

    def close(self) -> None:
        self.engine.close()
        self._flow.close()

    def __enter__(self) -> "Gate":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

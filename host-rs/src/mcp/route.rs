//! The router: each message from the client or the server, where it goes.
//! A `tools/call` is decided on a thread of its own (the component's run and
//! the audit's synced write take time, and other calls go on meanwhile), and
//! an allowed call's outcome is recorded the same way; a `tools/list` answer
//! is read on its way (pins, declarations, `--augment`); everything else
//! passes as it came, in order.

use super::{
    answers, ask, declare, lock, pins, report, wire, with_args, Proxy, Waiting, APPROVAL_ID, ASKING,
};
use crate::gate::{Call, Checked, Gate, Ready, Response};
use rmcp::model::CallToolRequestParams;
use serde_json::{json, Value};
use std::sync::Arc;
use tokio::sync::mpsc;
use wire::{code, key};

/// Queues `message` without waiting. The router reads a message only when
/// both queues have room for what it makes it send, so a queue is full here
/// only when a task took the room meanwhile: then a task of its own waits
/// for room (one message; the router reads nothing more until there is
/// room).
fn send_now(queue: &mpsc::Sender<Value>, message: Value) {
    if let Err(mpsc::error::TrySendError::Full(message)) = queue.try_send(message) {
        let queue = queue.clone();
        tokio::spawn(async move {
            let _ = queue.send(message).await;
        });
    }
}

/// Whether a server's request id looks like the gateway's own dialogs'
/// (`toolgate-approval-…`, in any case, with any separators).
fn imitates_approval(id: &Value) -> bool {
    id.as_str().is_some_and(|id| {
        let folded: String = id
            .chars()
            .filter(char::is_ascii_alphanumeric)
            .map(|c| c.to_ascii_lowercase())
            .collect();
        folded.contains("toolgateapproval")
    })
}

impl Proxy {
    pub(super) fn answer(&self, message: Value) {
        send_now(&self.to_client, message);
    }

    fn forward(&self, message: Value) {
        send_now(&self.to_server, message);
    }

    /// A decision or a record finished.
    fn done(&self) {
        {
            let mut state = lock(&self.state);
            state.busy = state.busy.saturating_sub(1);
        }
        self.settled.notify_one();
    }

    /// Records an allowed call's outcome on a thread of its own, then passes
    /// the server's answer (when there is one for the client) on.
    fn record(
        &self,
        ready: Ready,
        gate: Gate,
        outcome: Result<String, String>,
        answer: Option<Value>,
    ) {
        lock(&self.state).busy += 1;
        let proxy = self.clone();
        tokio::spawn(async move {
            let permit = Arc::clone(&proxy.deciders).acquire_owned().await;
            let _ = tokio::task::spawn_blocking(move || {
                report(gate.execute(ready, |_| outcome));
            })
            .await;
            drop(permit);
            if let Some(answer) = answer {
                let _ = proxy.to_client.send(answer).await;
            }
            proxy.done();
        });
    }

    pub(super) fn on_client(&self, message: Value) {
        let method = message.get("method").and_then(Value::as_str);
        let id = message.get("id").cloned();
        match (method, id) {
            (Some("tools/call"), Some(id)) => self.call(id, message),
            (Some(method), Some(id)) => {
                if method == "initialize" {
                    let declared = message
                        .pointer("/params/capabilities/elicitation")
                        .is_some_and(Value::is_object);
                    lock(&self.state).elicitation = declared;
                }
                let waiting = if method == "tools/list" {
                    Waiting::List {
                        first: message
                            .pointer("/params/cursor")
                            .is_none_or(Value::is_null),
                    }
                } else {
                    Waiting::Plain
                };
                lock(&self.state).waiting.insert(key(&id), waiting);
                self.forward(message);
            }
            (Some("notifications/cancelled"), None) => {
                self.cancelled(&message);
                self.forward(message);
            }
            (Some("notifications/initialized"), None) => {
                self.forward(message);
                self.list_own(None);
            }
            (Some(_), None) => self.forward(message),
            (None, Some(id)) => {
                let asked = lock(&self.state).asked.remove(&key(&id));
                match asked {
                    Some(answer) => {
                        let _ = answer.send(message);
                    }
                    // A late answer to an approval that timed out is the
                    // gateway's own: the server never asked.
                    None if id.as_str().is_some_and(|id| id.starts_with(APPROVAL_ID)) => {}
                    None => self.forward(message),
                }
            }
            (None, None) => self.answer(wire::error(
                &Value::Null,
                code::INVALID_REQUEST,
                "toolgate mcp-proxy: the message is not a JSON-RPC request, notification or response",
            )),
        }
    }

    /// The client cancelled a request: the server will not answer it, so it
    /// is no longer waited for, and an allowed call's outcome is recorded as
    /// cancelled (the server may have run it).
    fn cancelled(&self, message: &Value) {
        let Some(id) = message.pointer("/params/requestId") else {
            return;
        };
        let waiting = {
            let mut state = lock(&self.state);
            if let Some(cancelled) = state.deciding.get_mut(&key(id)) {
                // Still being decided: it will not be forwarded.
                *cancelled = true;
                return;
            }
            state.waiting.remove(&key(id))
        };
        if let Some(Waiting::Allowed(ready, gate)) = waiting {
            self.record(
                *ready,
                gate,
                Err(String::from(
                    "cancelled by the client after it was forwarded",
                )),
                None,
            );
        }
    }

    /// A message from the server; `Err` when it is not JSON-RPC.
    pub(super) fn on_server(&self, mut message: Value) -> Result<(), String> {
        if message.get("method").is_some() {
            // A request under an id like the gateway's own dialogs' would
            // have the client's answer taken for a person's approval: it is
            // refused, never shown.
            if let Some(id) = message.get("id").filter(|id| imitates_approval(id)) {
                eprintln!(
                    "toolgate: mcp-proxy: the MCP server sent a request under an id like the                      gateway's approval dialogs' ({id}): refused, not forwarded"
                );
                // Not waited for: a server that floods these and reads
                // nothing must not grow the gateway's queue.
                let _ = self.to_server.try_send(wire::error(
                    id,
                    code::INVALID_REQUEST,
                    "toolgate mcp-proxy: request ids starting `toolgate-approval` are the                      gateway's own",
                ));
                return Ok(());
            }
            self.answer(message);
            return Ok(());
        }
        let Some(id) = message.get("id").cloned() else {
            return Err(String::from(
                "the MCP server wrote a message that is not JSON-RPC",
            ));
        };
        let waiting = lock(&self.state).waiting.remove(&key(&id));
        match waiting {
            Some(Waiting::List { first }) => {
                if let Some(result) = message.get_mut("result") {
                    if let Err(why) = self.listed(result, first, true) {
                        eprintln!("toolgate: mcp-proxy: {why}");
                        message =
                            wire::error(&id, code::INTERNAL, &format!("toolgate mcp-proxy: {why}"));
                    }
                }
                self.answer(message);
            }
            Some(Waiting::Allowed(ready, gate)) => {
                let outcome = wire::recorded(
                    wire::outcome(&message),
                    &message,
                    self.maker.options.audit_results_full,
                );
                self.record(*ready, gate, outcome, Some(message));
            }
            Some(Waiting::Settling(settle)) => {
                let _ = settle.send(message);
            }
            Some(Waiting::Own { first }) => {
                let mut next = None;
                if let Some(result) = message.get_mut("result") {
                    next = result
                        .get("nextCursor")
                        .and_then(Value::as_str)
                        .map(str::to_owned);
                    if let Err(why) = self.listed(result, first, false) {
                        eprintln!("toolgate: mcp-proxy: {why}");
                        next = None;
                    }
                }
                match next {
                    Some(cursor) => self.list_own(Some(cursor)),
                    None => self.listed_own(),
                }
            }
            Some(Waiting::Plain) => self.answer(message),
            // An answer to nothing the client is waiting on from the server:
            // a call still awaiting approval (never forwarded), one the
            // gateway answered itself, or an id never used. Not passed on,
            // so the client never takes it for a call's result.
            None => eprintln!(
                "toolgate: mcp-proxy: the MCP server answered {id}, which it was not asked: \
                 not passed on"
            ),
        }
        Ok(())
    }

    /// Reads a `tools/list` answer: pins the tools, reports changed ones,
    /// declares them to a new gate, and with `--augment` adds `risk_level`.
    ///
    /// A listing may come in pages: each page is compared as it comes, and
    /// a tool not on this page keeps what earlier pages found. A name listed
    /// twice (on one page or across the pages of one listing) is a finding
    /// ([`pins::DUPLICATE`]): the tool is confirmed on every call, as a
    /// changed pin is, whichever definition came last.
    fn listed(&self, result: &mut Value, first: bool, client: bool) -> Result<(), String> {
        let Some(tools) = result.get("tools").and_then(Value::as_array).cloned() else {
            return Ok(());
        };
        let path = &self.maker.options.pins;
        let (server, seen) = {
            let mut state = lock(&self.state);
            if first {
                state.listing.clear();
            }
            (state.server.clone(), state.listing.clone())
        };
        let gate = (|| -> Result<Gate, String> {
            let mut pins = pins::Pins::load(path).map_err(|e| e.to_string())?;
            let compared = pins.compare_page(&server, &tools, &seen);
            for name in &compared.duplicates {
                eprintln!(
                    "toolgate: mcp-proxy: {}: server `{server}` lists tool `{name}` more than \
                     once; every call of it is confirmed",
                    pins::DUPLICATE
                );
            }
            if compared.dirty {
                pins.save(path).map_err(|e| e.to_string())?;
            }
            for name in &compared.changed {
                eprintln!(
                    "toolgate: mcp-proxy: {}: the definition of tool `{name}` of server \
                     `{server}` changed since it was pinned; every call of it is confirmed \
                     until a person approves the change (`toolgate mcp pins approve --pins {} \
                     {server} {name}`)",
                    pins::PIN_CHANGED,
                    path.display()
                );
            }
            let mut state = lock(&self.state);
            let mut on_page = std::collections::BTreeSet::new();
            for tool in &tools {
                if let Some(name) = tool.get("name").and_then(Value::as_str) {
                    state.tools.insert(name.to_owned(), tool.clone());
                    state.listing.insert(name.to_owned());
                    on_page.insert(name.to_owned());
                }
            }
            // What this page says of its tools replaces what was known of
            // them; the others keep theirs.
            state.changed.retain(|name| !on_page.contains(name));
            for name in compared.changed.into_iter().chain(compared.duplicates) {
                if !state.changed.contains(&name) {
                    state.changed.push(name);
                }
            }
            let all: Vec<Value> = state.tools.values().cloned().collect();
            let changed = state.changed.clone();
            let elicitation = state.elicitation;
            drop(state);
            self.maker
                .gate(&server, &all, &changed, elicitation)
                .map_err(|e| e.to_string())
        })();
        let mut state = lock(&self.state);
        match gate {
            Ok(gate) => {
                state.gate = gate.clone();
                state.broken = None;
                drop(state);
                if client && self.maker.options.augment {
                    let text = Value::Array(tools).to_string();
                    match gate.engine().augment_tools(&text, Some("mcp")) {
                        Ok(augmented) => {
                            for note in &augmented.notes {
                                eprintln!("toolgate: mcp-proxy: note: {note}");
                            }
                            if let (Ok(tools), Some(slot)) = (
                                serde_json::from_str::<Value>(&augmented.tools),
                                result.get_mut("tools"),
                            ) {
                                *slot = tools;
                            }
                        }
                        Err(e) => eprintln!("toolgate: mcp-proxy: --augment: {e}"),
                    }
                }
                Ok(())
            }
            Err(why) => {
                state.broken = Some(why.clone());
                Err(why)
            }
        }
    }

    /// A call of a tool whose pin changed: the pins file is read again, and
    /// when a person has approved the new definition since, the tool is
    /// declared without its forced confirmation and the new gate decides.
    /// Anything that fails keeps the confirmation.
    fn recheck_pin(&self, server: &str, name: &str, gate: Gate) -> (Gate, bool) {
        let approved = pins::Pins::load(&self.maker.options.pins)
            .map(|pins| !pins.is_changed(server, name))
            .unwrap_or(false);
        if !approved {
            return (gate, true);
        }
        let mut state = lock(&self.state);
        state.changed.retain(|c| c != name);
        let all: Vec<Value> = state.tools.values().cloned().collect();
        match self
            .maker
            .gate(server, &all, &state.changed, state.elicitation)
        {
            Ok(rebuilt) => {
                state.gate = rebuilt.clone();
                (rebuilt, false)
            }
            Err(e) => {
                eprintln!("toolgate: mcp-proxy: {e}");
                state.changed.push(name.to_owned());
                (gate, true)
            }
        }
    }

    /// Sends the gateway's own `tools/list` (a page of it).
    fn list_own(&self, cursor: Option<String>) {
        let id = json!(format!("toolgate-list-{}", crate::gate::random_hex(8)));
        {
            let mut state = lock(&self.state);
            if state.closed {
                return;
            }
            state.listing_own = true;
            state.waiting.insert(
                key(&id),
                Waiting::Own {
                    first: cursor.is_none(),
                },
            );
        }
        let params = match cursor {
            Some(cursor) => json!({ "cursor": cursor }),
            None => json!({}),
        };
        self.forward(json!({"jsonrpc": "2.0", "id": id, "method": "tools/list", "params": params}));
    }

    /// The gateway's own listing is done (or failed): the calls that waited
    /// for it are decided now.
    fn listed_own(&self) {
        let deferred = {
            let mut state = lock(&self.state);
            state.listing_own = false;
            std::mem::take(&mut state.deferred)
        };
        for (id, message) in deferred {
            self.call(id, message);
        }
    }

    /// A `tools/call`: decided now, so what is allowed or denied keeps its
    /// place in the stream; a confirmation is asked for on a task of its own.
    fn call(&self, id: Value, message: Value) {
        let params = message.get("params").cloned().unwrap_or(Value::Null);
        let parsed: CallToolRequestParams = match serde_json::from_value(params) {
            Ok(parsed) => parsed,
            Err(e) => {
                self.answer(wire::error(
                    &id,
                    code::INVALID_PARAMS,
                    &format!("toolgate mcp-proxy: tools/call parameters: {e}"),
                ));
                return;
            }
        };
        let name = parsed.name.to_string();
        {
            let mut state = lock(&self.state);
            if state.listing_own && !state.tools.contains_key(&name) {
                state.deferred.push((id, message));
                return;
            }
        }
        let args = message
            .pointer("/params/arguments")
            .cloned()
            .unwrap_or_else(|| json!({}))
            .to_string();
        if args.len() > super::MAX_ARGS {
            self.answer(wire::tool_error(
                &id,
                &format!(
                    "This call was not run ({}): its arguments are {} bytes, more than the \
                     gateway reads ({} bytes).",
                    super::ARGS_INVALID,
                    args.len(),
                    super::MAX_ARGS
                ),
            ));
            return;
        }
        let (gate, server, description, broken, elicitation, changed) = {
            let state = lock(&self.state);
            (
                state.gate.clone(),
                state.server.clone(),
                state
                    .tools
                    .get(&name)
                    .and_then(|t| t.get("description"))
                    .and_then(Value::as_str)
                    .unwrap_or_default()
                    .to_owned(),
                state.broken.clone(),
                state.elicitation,
                state.changed.contains(&name),
            )
        };
        let (gate, changed) = if changed {
            self.recheck_pin(&server, &name, gate)
        } else {
            (gate, false)
        };
        if let Some(why) = broken {
            self.answer(wire::tool_error(
                &id,
                &format!("toolgate could not decide this call, so it was not run: {why}"),
            ));
            return;
        }
        let tool = declare::qualified(&server, &name);
        let call = Call::new(tool.clone(), args)
            .call_id(key(&id))
            .description(description);
        {
            let mut state = lock(&self.state);
            state.deciding.insert(key(&id), false);
            state.busy += 1;
        }
        let proxy = self.clone();
        let dir = self.maker.options.approvals.clone();
        let answer_key = self.maker.answer_key.clone();
        tokio::spawn(async move {
            let permit = Arc::clone(&proxy.deciders).acquire_owned().await;
            let decider = gate.clone();
            let checked = tokio::task::spawn_blocking(move || {
                // A client without elicitation retries a call a person
                // approves meanwhile: an earlier approval of this very call
                // is settled instead of asking again.
                if !elicitation {
                    if let Some(earlier) = earlier(&decider, &dir, &answer_key, &call) {
                        return Ok(Checked2::Earlier(Box::new(earlier)));
                    }
                }
                decider
                    .check(&call)
                    .map(Checked2::Now)
                    .map_err(|e| e.to_string())
            })
            .await
            .unwrap_or_else(|e| Err(e.to_string()));
            drop(permit);
            let checked = match checked {
                Ok(Checked2::Earlier(earlier)) => {
                    let decided = Decided {
                        id,
                        message,
                        gate,
                        tool,
                        elicitation,
                        changed,
                    };
                    proxy.earlier(decided, *earlier).await;
                    proxy.done();
                    return;
                }
                Ok(Checked2::Now(checked)) => Ok(checked),
                Err(e) => Err(e),
            };
            let decided = Decided {
                id,
                message,
                gate,
                tool,
                elicitation,
                changed,
            };
            proxy.decided(decided, checked).await;
            proxy.done();
        });
    }

    /// A retried call with an earlier approval: still waiting, or settled
    /// with the person's answer (decided again, run at most once).
    async fn earlier(&self, call: Decided, earlier: Earlier) {
        let cancelled = lock(&self.state)
            .deciding
            .remove(&key(&call.id))
            .unwrap_or(false);
        if cancelled {
            return;
        }
        match earlier {
            Earlier::Waiting(pending) => {
                let text = pending_text(&pending, &call.tool, call.changed);
                let _ = self.to_client.send(wire::tool_error(&call.id, &text)).await;
            }
            Earlier::Answered(pending, answer) => {
                let response = match answer.answer {
                    answers::Verdict::Approve => Response::approve(),
                    answers::Verdict::Reject => Response::reject(Some(
                        answer
                            .message
                            .as_deref()
                            .unwrap_or("a person rejected it with toolgate approvals"),
                    )),
                }
                .by(format!("{} (toolgate approvals)", answer.by));
                let asking = ask::Asking {
                    state: Arc::clone(&self.state),
                    to_client: self.to_client.clone(),
                    to_server: self.to_server.clone(),
                    gate: call.gate,
                    id: call.id,
                    message: call.message,
                    changed: call.changed,
                    full: self.maker.options.audit_results_full,
                };
                asking.settle(pending.id.clone(), response).await;
                answers::remove(&self.maker.options.approvals, &pending.id);
            }
        }
    }

    /// What a call's decision leads to: forwarded, refused, or asked of a
    /// person.
    async fn decided(&self, call: Decided, checked: Result<Checked, String>) {
        let Decided {
            id,
            message,
            gate,
            tool,
            elicitation,
            changed,
        } = call;
        let (cancelled, closed, asking) = {
            let mut state = lock(&self.state);
            let cancelled = state.deciding.remove(&key(&id)).unwrap_or(false);
            (cancelled, state.closed, state.asked.len())
        };
        let answer = |message: Value| async {
            // A cancelled call is not answered (the client forgot it).
            if !cancelled {
                let _ = self.to_client.send(message).await;
            }
        };
        match checked {
            Err(e) => {
                answer(wire::tool_error(
                    &id,
                    &format!("toolgate could not decide this call, so it was not run: {e}"),
                ))
                .await;
            }
            Ok(Checked::Done(result)) => answer(wire::tool_error(&id, &result.for_model)).await,
            Ok(Checked::Run(ready)) if cancelled || closed => {
                let why = if cancelled {
                    "cancelled by the client before it was forwarded"
                } else {
                    "the MCP server exited before it was forwarded"
                };
                let reply = (!cancelled).then(|| {
                    wire::error(&id, code::INTERNAL, &format!("toolgate mcp-proxy: {why}"))
                });
                self.record(ready, gate, Err(String::from(why)), reply);
            }
            Ok(Checked::Run(ready)) => {
                let forwarded = with_args(message, &ready.args);
                lock(&self.state)
                    .waiting
                    .insert(key(&id), Waiting::Allowed(Box::new(ready), gate));
                let _ = self.to_server.send(forwarded).await;
            }
            Ok(Checked::Ask(pending)) if elicitation && !cancelled && asking < ASKING => {
                let asking = ask::Asking {
                    state: Arc::clone(&self.state),
                    to_client: self.to_client.clone(),
                    to_server: self.to_server.clone(),
                    gate,
                    id,
                    message,
                    changed,
                    full: self.maker.options.audit_results_full,
                };
                lock(&self.state).busy += 1;
                let proxy = self.clone();
                tokio::spawn(async move {
                    asking.ask(*pending).await;
                    proxy.done();
                });
            }
            Ok(Checked::Ask(pending)) if !elicitation && !cancelled => {
                // Left pending for a person (`toolgate approvals`); the
                // client's retry of the same call runs it once approved.
                answer(wire::tool_error(
                    &id,
                    &pending_text(&pending, &tool, changed),
                ))
                .await;
            }
            Ok(Checked::Ask(pending)) => {
                let why = if cancelled {
                    String::from("cancelled by the client before a person was asked")
                } else if elicitation {
                    format!(
                        "{asking} approvals were already waiting for a person, the most the \
                         gateway keeps open"
                    )
                } else {
                    String::from(
                        "no person could be asked: the client did not declare the \
                         elicitation capability",
                    )
                };
                let settler = gate.clone();
                let approval = pending.id.clone();
                let reason = why.clone();
                let _ = tokio::task::spawn_blocking(move || {
                    report(settler.settle(
                        &approval,
                        Response::reject(Some(&reason)).by("toolgate mcp-proxy"),
                        |_| Err(String::from("not run")),
                    ));
                })
                .await;
                let text = if elicitation {
                    format!(
                        "This call was not run: a person must approve it ({}), and {why}. \
                         Try again when they have answered.",
                        pending.decision.summary
                    )
                } else {
                    format!(
                        "This call was not run: a person must approve it ({}), and this MCP \
                         client cannot ask one (it did not declare the elicitation capability). \
                         To run it, use a client that supports elicitation, or let it run \
                         without asking: an allow rule in the gateway's configuration \
                         ({{\"effect\": \"allow\", \"tool\": \"{tool}\"}}) or a grant.{}",
                        pending.decision.summary,
                        if changed {
                            " Its definition changed since it was pinned: approve the change \
                             with `toolgate mcp pins approve`."
                        } else {
                            ""
                        }
                    )
                };
                answer(wire::tool_error(&id, &text)).await;
            }
        }
    }
}

/// What the deciding thread found: an earlier approval of the same call,
/// or the decision made now.
enum Checked2 {
    Earlier(Box<Earlier>),
    Now(Checked),
}

/// An earlier approval of the same call (tool and arguments), still within
/// its deadline.
enum Earlier {
    /// Nobody answered it yet.
    Waiting(crate::Pending),
    /// A person answered it.
    Answered(crate::Pending, answers::Answer),
}

/// Arguments compared as values, without the model's `risk_level`.
fn same_args(a: &str, b: &str) -> bool {
    let read = |text: &str| {
        let mut value = serde_json::from_str::<Value>(text).ok()?;
        if let Some(map) = value.as_object_mut() {
            map.remove("risk_level");
        }
        Some(value)
    };
    matches!((read(a), read(b)), (Some(a), Some(b)) if a == b)
}

/// The pending approval of this call (same tool, same arguments) in the
/// approvals directory, answered or not; expired ones are not looked at.
fn earlier(gate: &Gate, dir: &std::path::Path, key: &[u8], call: &Call) -> Option<Earlier> {
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
        .unwrap_or(0);
    let pending = gate.pending().ok()?;
    let found = pending
        .into_iter()
        .flatten()
        .find(|p| p.tool == call.0.tool && p.deadline > now && same_args(&p.args, &call.0.args))?;
    Some(
        match answers::read(dir, key, &found.id, &found.tool, &found.args) {
            Some(answer) => Earlier::Answered(found, answer),
            None => Earlier::Waiting(found),
        },
    )
}

/// What the model is told of a call left pending for a person.
fn pending_text(pending: &crate::Pending, tool: &str, changed: bool) -> String {
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
        .unwrap_or(0);
    let minutes = pending.deadline.saturating_sub(now).div_ceil(60_000);
    format!(
        "This call was not run: a person must approve it first ({summary}). It is waiting as \
         approval {id} of {tool} for {minutes} more minute(s): ask the person to approve it \
         (they answer it outside this conversation, with `toolgate approvals`), then make the \
         same call again with the same arguments, and it runs. Until they answer, the same call \
         gets this answer again.{pin}",
        summary = pending.decision.summary,
        id = pending.id,
        pin = if changed {
            " Its definition changed since it was pinned: the person approves the change with \
             `toolgate mcp pins approve`."
        } else {
            ""
        }
    )
}

/// A call whose decision is being made, and what its answer needs.
struct Decided {
    id: Value,
    message: Value,
    gate: Gate,
    tool: String,
    elicitation: bool,
    changed: bool,
}

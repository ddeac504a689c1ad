//! Asking the person at the client: a `tools/call` the policy wants
//! confirmed becomes an `elicitation/create` request (the summary, the
//! findings and the arguments, one required yes/no), waited for until the
//! approval's deadline, and the approval is settled with the answer. The
//! gate runs a tool synchronously, so the settling happens on a blocking
//! thread, whose "tool" forwards the call and waits for the server's answer
//! (the router hands it over, or drops the channel when the server is gone).

use super::{lock, pins, report, wire, with_args, State, Waiting, APPROVAL_ID};
use crate::gate::{Gate, Response, Status};
use rmcp::model::{
    BooleanSchema, ElicitRequestParams, ElicitResult, ElicitationAction, ElicitationSchema,
};
use serde_json::{json, Value};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::sync::{mpsc, oneshot};
use wire::key;

/// A confirmation asked of the person at the client.
pub(super) struct Asking {
    pub(super) state: Arc<Mutex<State>>,
    pub(super) to_client: mpsc::Sender<Value>,
    pub(super) to_server: mpsc::Sender<Value>,
    pub(super) gate: Gate,
    pub(super) id: Value,
    pub(super) message: Value,
    pub(super) changed: bool,
    /// Record results whole (`--audit-results full`), not by hash and size.
    pub(super) full: bool,
}

/// The id of the dialog that asks about `pending`: [`APPROVAL_ID`], 128
/// random bits (a server cannot guess the id of a dialog it did not see),
/// and a digest of what is asked (the approval, the tool, the arguments),
/// so the id names one question. The client's answer counts only under this
/// id, for this dialog.
fn dialog_id(pending: &crate::Pending) -> String {
    use sha2::{Digest, Sha256};
    let random = crate::gate::random_hex(16);
    let mut content = Sha256::new();
    for part in [&pending.id, &pending.tool, &pending.args] {
        content.update(part.len().to_le_bytes());
        content.update(part.as_bytes());
    }
    let digest: String = content
        .finalize()
        .iter()
        .take(8)
        .map(|b| format!("{b:02x}"))
        .collect();
    format!("{APPROVAL_ID}{random}-{digest}")
}

/// The schema of the elicitation's form: one required yes/no.
fn approval_schema() -> Option<ElicitationSchema> {
    ElicitationSchema::builder()
        .required_bool_property("approve", |_: BooleanSchema| {
            BooleanSchema::new()
                .title("Run this tool call")
                .with_default(false)
        })
        .build()
        .ok()
}

impl Asking {
    pub(super) async fn ask(self, pending: crate::Pending) {
        let (answer_tx, answer_rx) = oneshot::channel();
        let asked_id = json!(dialog_id(&pending));
        lock(&self.state).asked.insert(key(&asked_id), answer_tx);
        let findings: Vec<String> = pending
            .decision
            .findings
            .iter()
            .map(|f| format!("- {} ({})", f.message, f.code))
            .collect();
        let args = serde_json::from_str::<Value>(&pending.args)
            .ok()
            .and_then(|v| serde_json::to_string_pretty(&v).ok())
            .unwrap_or_else(|| pending.args.clone());
        let text = format!(
            "toolgate: approve this call of `{}`?\n{}\n{}Arguments:\n{}{}",
            pending.tool,
            pending.decision.summary,
            if findings.is_empty() {
                String::new()
            } else {
                format!("{}\n", findings.join("\n"))
            },
            args,
            if self.changed {
                format!(
                    "\nWarning ({}): this tool's definition changed since it was pinned.",
                    pins::PIN_CHANGED
                )
            } else {
                String::new()
            }
        );
        let Some(schema) = approval_schema() else {
            self.finish_unasked(&pending, "the approval form could not be made")
                .await;
            return;
        };
        let params = ElicitRequestParams::FormElicitationParams {
            meta: None,
            message: text,
            requested_schema: schema,
        };
        let request = json!({
            "jsonrpc": "2.0",
            "id": asked_id,
            "method": "elicitation/create",
            "params": serde_json::to_value(params).unwrap_or(Value::Null),
        });
        let _ = self.to_client.send(request).await;
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
            .unwrap_or(0);
        let left = Duration::from_millis(pending.deadline.saturating_sub(now));
        let answer = tokio::time::timeout(left, answer_rx).await;
        let response = match answer {
            Ok(Ok(answer)) => {
                let elicited = answer
                    .get("result")
                    .cloned()
                    .and_then(|r| serde_json::from_value::<ElicitResult>(r).ok());
                match elicited {
                    Some(ElicitResult {
                        action: ElicitationAction::Accept,
                        content: Some(content),
                        ..
                    }) if content.get("approve") == Some(&Value::Bool(true)) => {
                        Response::approve().by("mcp client (elicitation)")
                    }
                    Some(ElicitResult { action, .. }) => Response::reject(Some(&format!(
                        "the person at the MCP client did not approve it ({})",
                        match action {
                            ElicitationAction::Accept => "accepted without approving",
                            ElicitationAction::Decline => "declined",
                            ElicitationAction::Cancel => "cancelled",
                            _ => "answered otherwise",
                        }
                    )))
                    .by("mcp client (elicitation)"),
                    None => Response::reject(Some(
                        "the MCP client's answer to the approval request was an error",
                    ))
                    .by("mcp client (elicitation)"),
                }
            }
            // The dialog was closed unanswered: the client went away.
            Ok(Err(_)) => Response::reject(Some(
                "the MCP client closed before a person answered the approval request",
            ))
            .by("toolgate mcp-proxy"),
            Err(_) => {
                lock(&self.state).asked.remove(&key(&asked_id));
                let _ = self
                    .to_client
                    .send(json!({
                        "jsonrpc": "2.0",
                        "method": "notifications/cancelled",
                        "params": {"requestId": asked_id, "reason": "the approval's deadline passed"},
                    }))
                    .await;
                let _ = self.gate.sweep();
                let _ = self
                    .to_client
                    .send(wire::tool_error(
                        &self.id,
                        "This call was not run: nobody answered the approval request before its deadline.",
                    ))
                    .await;
                return;
            }
        };
        self.settle(pending.id, response).await;
    }

    /// Answers the call without asking, closing its approval.
    async fn finish_unasked(&self, pending: &crate::Pending, why: &str) {
        report(self.gate.settle(
            &pending.id,
            Response::reject(Some(why)).by("toolgate mcp-proxy"),
            |_| Err(String::from("not run")),
        ));
        let _ = self
            .to_client
            .send(wire::tool_error(
                &self.id,
                &format!("This call was not run: {why}."),
            ))
            .await;
    }

    /// Settles the approval on a blocking thread (the gate runs the tool
    /// synchronously: here, forwarding the call and waiting for the answer).
    pub(super) async fn settle(self, approval: String, response: Response) {
        let full = self.full;
        let Asking {
            state,
            to_client,
            to_server,
            gate,
            id,
            message,
            ..
        } = self;
        let call_id = id.clone();
        let settled = tokio::task::spawn_blocking(move || {
            let mut answer: Option<Value> = None;
            let result = gate.settle(&approval, response, |args| {
                let (tx, rx) = std::sync::mpsc::channel();
                {
                    let mut state = lock(&state);
                    if state.closed {
                        return Err(String::from("the MCP server exited"));
                    }
                    state.waiting.insert(key(&call_id), Waiting::Settling(tx));
                }
                if to_server.blocking_send(with_args(message, args)).is_err() {
                    return Err(String::from("the MCP server exited"));
                }
                // The router answers or drops the sender when the server
                // answers or exits: this wait ends either way.
                match rx.recv() {
                    Ok(got) => {
                        let outcome = wire::recorded(wire::outcome(&got), &got, full);
                        answer = Some(got);
                        outcome
                    }
                    Err(_) => Err(String::from("the MCP server exited before answering")),
                }
            });
            (result, answer)
        })
        .await;
        match settled {
            Ok((_, Some(answer))) => {
                let _ = to_client.send(answer).await;
            }
            Ok((Ok(result), None)) => {
                // Run but unanswered: the router has told the client.
                if !matches!(result.status, Status::Executed | Status::Failed) {
                    let _ = to_client
                        .send(wire::tool_error(&id, &result.for_model))
                        .await;
                }
            }
            Ok((Err(e), None)) => {
                let _ = to_client
                    .send(wire::tool_error(
                        &id,
                        &format!("This call was not run: {e}"),
                    ))
                    .await;
            }
            Err(e) => {
                let _ = to_client
                    .send(wire::tool_error(
                        &id,
                        &format!("This call was not run: {e}"),
                    ))
                    .await;
            }
        }
    }
}

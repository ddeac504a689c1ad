//! The origin designs' own vocabulary, for hosts written against them.
//!
//! - Seed 004 (the approval flow) names the gate's events
//!   `USER_INTERACTION_REQUESTED`, `_RESPONDED` and `_PROCESSED`, their
//!   operation type `TOOL_APPROVAL`, and the prompt
//!   `是否批准调用工具 "${tool.name}"?`. [`interaction`] gives a gate event in
//!   that shape (the request's `metadata.toolApproval` holds the tool's name,
//!   description and parameters, `approved: false`), in Chinese or English.
//! - Seed 000 §F lets a model that is unsure ask in plain text instead of
//!   calling the tool ("This operation (init system) may be risky. Should I
//!   proceed?"), and the code layer recognise that message with
//!   `isRiskConfirmationQuestion`: [`is_risk_confirmation_question`] and the
//!   loop's state, [`TextConfirmation`].
//!
//! `host-js/src/seeds.js` is this module's twin; the fixtures under
//! `tests/seeds/` hold both to the same answers.

use crate::gate::Event;
use serde_json::{json, Value};
use toolgate_shapes::gate::AnswerKind;
use toolgate_shapes::records::Status;

/// Seed 004 §3.2's operation type of a tool approval.
pub const TOOL_APPROVAL: &str = "TOOL_APPROVAL";
/// Seed 004's event: a person must answer (the gate's `requested`).
pub const USER_INTERACTION_REQUESTED: &str = "USER_INTERACTION_REQUESTED";
/// Seed 004's event: the answer came (the gate's `responded`).
pub const USER_INTERACTION_RESPONDED: &str = "USER_INTERACTION_RESPONDED";
/// Seed 004's event: the answer was acted on (the gate's `processed`, for a
/// call that was asked about).
pub const USER_INTERACTION_PROCESSED: &str = "USER_INTERACTION_PROCESSED";

/// Seed 004 §3.4's prompt for a tool approval: `是否批准调用工具 "name"?` in
/// Chinese (`zh`, `zh-CN`, …), its English rendering otherwise.
pub fn approval_prompt(tool: &str, language: &str) -> String {
    if is_chinese(language) {
        format!("是否批准调用工具 \"{tool}\"?")
    } else {
        format!("Approve the call of the tool \"{tool}\"?")
    }
}

fn is_chinese(language: &str) -> bool {
    let tag = language.trim().to_ascii_lowercase();
    tag == "zh" || tag.starts_with("zh-") || tag.starts_with("zh_")
}

/// A gate event in seed 004's shape, or `None` for an event seed 004 has no
/// name for (an expiry warning, a refused grant, a call that ran without
/// being asked about).
pub fn interaction(event: &Event, language: &str) -> Option<Value> {
    match event {
        Event::Requested { request } => {
            // Seed 004 hands the listener `JSON.parse(toolCall.arguments)`;
            // arguments that are not JSON are shown as the text they are.
            let parameters: Value = serde_json::from_str(&request.args)
                .unwrap_or_else(|_| Value::String(request.args.clone()));
            Some(json!({
                "type": USER_INTERACTION_REQUESTED,
                "timestamp": request.requested_at,
                "interactionId": request.id,
                "operationType": TOOL_APPROVAL,
                "prompt": approval_prompt(&request.tool, language),
                "timeout": request.deadline.saturating_sub(request.requested_at),
                "metadata": {
                    "toolApproval": {
                        "toolName": request.tool,
                        "toolDescription": request.description,
                        "toolParameters": parameters,
                        "approved": false,
                    }
                }
            }))
        }
        Event::Responded { id, answer, .. } => Some(json!({
            "type": USER_INTERACTION_RESPONDED,
            "interactionId": id,
            "inputData": { "approved": matches!(answer, AnswerKind::Approve | AnswerKind::Edit) },
        })),
        Event::Processed {
            id: Some(id),
            status,
            ..
        } => Some(json!({
            "type": USER_INTERACTION_PROCESSED,
            "interactionId": id,
            "operationType": TOOL_APPROVAL,
            "results": {
                "approved": matches!(status, Status::Executed | Status::Failed | Status::Executing),
                "status": status.as_str(),
            },
        })),
        _ => None,
    }
}

/// Marks that make a message ask something (seed 000 §F's examples end in
/// `?`, or ask with 吗 and 请回复).
const ASKS: &[&str] = &[
    "?",
    "？",
    "吗",
    "是否",
    "请回复",
    "请确认",
    "please confirm",
    "please reply",
];

/// Words that make the question one about risk or about going ahead, in
/// English (compared in lower case) and Chinese: seed 000 §F's "may be
/// risky. Should I proceed?" and seed 002 §7.4's "这是一个高风险操作 …
/// 确认要终止这个会话吗？请回复"确认"继续。".
const RISK_WORDS: &[&str] = &[
    "risk",
    "danger",
    "destructive",
    "irreversible",
    "cannot be undone",
    "can't be undone",
    "proceed",
    "go ahead",
    "are you sure",
    "confirm",
    "风险",
    "危险",
    "不可恢复",
    "不可逆",
    "无法恢复",
    "无法撤销",
    "确认",
    "继续",
    "是否执行",
];

/// Seed 000 §F's `isRiskConfirmationQuestion`: whether a model's text (sent
/// instead of a tool call) asks the user to confirm a risky operation. A
/// word list, so a reading for a user interface, never a decision: a call
/// the model makes after the user agrees is decided by the policy as any
/// other.
pub fn is_risk_confirmation_question(content: &str) -> bool {
    let text = content.to_lowercase();
    ASKS.iter().any(|m| text.contains(m)) && RISK_WORDS.iter().any(|w| text.contains(w))
}

/// Replies that agree (compared trimmed, in lower case, without closing
/// punctuation): seed 002 §7.4's "确认" and their usual siblings.
const AGREES: &[&str] = &[
    "确认",
    "确定",
    "是",
    "是的",
    "好",
    "好的",
    "继续",
    "同意",
    "可以",
    "执行",
    "y",
    "yes",
    "ok",
    "okay",
    "sure",
    "proceed",
    "go ahead",
    "confirm",
    "confirmed",
];

/// Whether a user's reply agrees to what was asked.
pub fn is_affirmative(reply: &str) -> bool {
    let text = reply
        .trim()
        .trim_end_matches(['.', '!', '。', '！', '~', ' '])
        .to_lowercase();
    AGREES.contains(&text.as_str())
}

/// What a person's reply to a question meant.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Reply {
    /// They agreed to what the model asked.
    Confirmed {
        /// The model's question.
        question: String,
    },
    /// They said something else (no, or another instruction).
    Declined {
        /// The model's question.
        question: String,
    },
    /// No question was open: an ordinary message.
    NotAsked,
}

/// Seed 000 §F's text-confirmation loop: the model asks in text, the user
/// answers, the model calls. Feed it every model message and every user
/// reply; it says when a question is to be shown as a confirmation and what
/// the reply meant. The reply goes to the model as the user's message either
/// way, and the call the model makes after a "确认" still goes through the
/// gate: the person agreed to the model's prose, not to a call's exact
/// arguments.
#[derive(Clone, Debug, Default)]
pub struct TextConfirmation {
    question: Option<String>,
}

impl TextConfirmation {
    /// A loop with no question open.
    pub fn new() -> TextConfirmation {
        TextConfirmation::default()
    }

    /// A model message: its text and whether it holds tool calls. Returns
    /// the question to show the user as a confirmation, when it is one.
    pub fn on_model(&mut self, content: &str, has_tool_calls: bool) -> Option<&str> {
        self.question =
            (!has_tool_calls && is_risk_confirmation_question(content)).then(|| content.to_owned());
        self.question.as_deref()
    }

    /// The user's reply; closes the open question.
    pub fn on_user(&mut self, reply: &str) -> Reply {
        match self.question.take() {
            Some(question) if is_affirmative(reply) => Reply::Confirmed { question },
            Some(question) => Reply::Declined { question },
            None => Reply::NotAsked,
        }
    }

    /// The question waiting for the user's answer.
    pub fn open(&self) -> Option<&str> {
        self.question.as_deref()
    }
}

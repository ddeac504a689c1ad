//! One input line of `toolgate check`, read and answered by the policy.
//!
//! Both command-line tools (Rust and JavaScript) split their input at `\n` and
//! hand each line's bytes here, so what counts as blank, what is malformed and
//! the exact text printed for each are decided once, in the component, instead
//! of by two hosts whose string libraries disagree (Rust's `trim` drops U+0085
//! and keeps a byte-order mark, JavaScript's does the opposite). One crossing
//! per line: the line is read, decided and formatted in the same call.
//!
//! The rules:
//! - a line holding only JSON whitespace (space, tab, carriage return, line
//!   feed) is blank: no output, not counted. Nothing else is blank — U+0085, a
//!   byte-order mark or a no-break space are not whitespace to a JSON reader;
//! - a line that is not UTF-8, or not a tool call in a supported format, is
//!   malformed: its output is `{"line": N, "error": "…"}`;
//! - a line holding seed 002 §4.2's multi-step plan (see [`crate::plan`]) is
//!   decided step by step; its output is the plan's decision (each step's
//!   call and decision, the strictest action), and a plan the reader refuses
//!   is malformed;
//! - any other line is decided; its output is the decision's canonical JSON.

use crate::decision::Decision;
use crate::Engine;
use serde::Serialize;

/// The error of a line that is not UTF-8.
pub const NOT_UTF8: &str = "the line is not valid UTF-8";

pub use toolgate_shapes::calls::CheckedLine;

/// The error object of a malformed line; a struct so the key order is fixed
/// whatever map type the JSON library was built with.
#[derive(Serialize)]
struct LineError<'a> {
    line: u64,
    error: &'a str,
}

/// Whether `line` holds only JSON whitespace (RFC 8259 `ws`).
pub fn is_blank(line: &[u8]) -> bool {
    line.iter()
        .all(|b| matches!(b, b' ' | b'\t' | b'\r' | b'\n'))
}

fn malformed(number: u64, error: &str) -> CheckedLine {
    let output = serde_json::to_string(&LineError {
        line: number,
        error,
    })
    // Serializing a number and a string cannot fail; the fallback keeps the
    // function total.
    .unwrap_or_else(|_| format!("{{\"line\":{number},\"error\":\"unprintable\"}}"));
    CheckedLine {
        output,
        action: None,
    }
}

fn decided(decision: &Decision) -> CheckedLine {
    CheckedLine {
        output: decision.to_json(),
        action: Some(decision.action),
    }
}

impl Engine {
    /// Reads, decides and formats line `number` (1-based) of a `check` input:
    /// `None` for a blank line, else the line to print; see the module's rules.
    pub fn check_line(&self, number: u64, line: &[u8]) -> Option<CheckedLine> {
        self.check_line_in_context(number, line, &crate::Context::default())
    }

    /// [`Engine::check_line`] in the caller's context (JSON, as
    /// [`Engine::assess_in`]): every call of the input is decided with the
    /// user's permissions, roles and resources.
    pub fn check_line_in(&self, number: u64, line: &[u8], context: &str) -> Option<CheckedLine> {
        match crate::Context::from_json(context) {
            Ok(context) => self.check_line_in_context(number, line, &context),
            Err(e) => (!is_blank(line)).then(|| malformed(number, &e.to_string())),
        }
    }

    fn check_line_in_context(
        &self,
        number: u64,
        line: &[u8],
        context: &crate::Context,
    ) -> Option<CheckedLine> {
        if is_blank(line) {
            return None;
        }
        let Ok(text) = std::str::from_utf8(line) else {
            return Some(malformed(number, NOT_UTF8));
        };
        // A plan names `tool_calls`; only then is the line read as a value
        // first (a call is read by the call reader, which handles depth).
        if text.contains("\"tool_calls\"") {
            if let Ok(value) = serde_json::from_str::<serde_json::Value>(text) {
                if crate::plan::is_plan(&value) {
                    return Some(match crate::plan::Plan::from_value(&value) {
                        Ok(plan) => {
                            let decided = self.decide_plan(&plan, &serde_json::Map::new(), context);
                            CheckedLine {
                                output: decided.to_json(),
                                action: Some(decided.action),
                            }
                        }
                        Err(e) => malformed(number, &e.to_string()),
                    });
                }
            }
        }
        Some(match crate::calls::parse_call(text) {
            Ok(call) => decided(&self.assess_in_context(&call.tool, &call.args, context)),
            Err(e) => malformed(number, &e.to_string()),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::decision::Action;

    fn check(line: &[u8]) -> Option<CheckedLine> {
        Engine::default().check_line(7, line)
    }

    #[test]
    fn only_json_whitespace_is_blank() {
        for blank in [&b""[..], b" ", b"\t \r", b"\r", b"  \t\t  "] {
            assert_eq!(check(blank), None, "{blank:?}");
        }
        // Whitespace to Unicode or to JavaScript, but not to JSON: malformed.
        for text in [
            "\u{85}",
            "\u{feff}",
            "\u{a0}",
            "\u{2028}",
            "\u{b}",
            "\u{c}",
            " \u{3000} ",
        ] {
            let checked = check(text.as_bytes()).expect("not blank");
            assert_eq!(checked.action, None, "{text:?}");
            assert_eq!(
                checked.output,
                r#"{"line":7,"error":"the call is not valid JSON"}"#
            );
        }
    }

    #[test]
    fn invalid_utf8_is_malformed() {
        let checked = check(b"{\"tool\":\"x\xff\"}").expect("not blank");
        assert_eq!(
            checked.output,
            r#"{"line":7,"error":"the line is not valid UTF-8"}"#
        );
        assert_eq!(checked.action, None);
        // A lone continuation byte among blanks is not blank either.
        assert!(check(b" \x85 ").is_some());
    }

    #[test]
    fn calls_are_decided_and_print_their_decision() {
        let engine = Engine::default();
        let line = br#"{"tool":"execute_sql","args":{"sql":"DROP TABLE t"}}"#;
        let checked = engine.check_line(1, line).expect("not blank");
        let decision = engine.assess("execute_sql", r#"{"sql":"DROP TABLE t"}"#);
        assert_eq!(checked.output, decision.to_json());
        assert_eq!(checked.action, Some(Action::Confirm));
        // A trailing carriage return (a CRLF file) is whitespace after the JSON.
        let crlf = br#"{"tool":"execute_command","args":{"command":"ls"}}"#;
        let with_cr = [&crlf[..], b"\r"].concat();
        assert_eq!(
            engine.check_line(2, &with_cr).map(|c| c.action),
            Some(Some(Action::Allow))
        );
    }

    #[test]
    fn unreadable_calls_name_the_reason() {
        let checked = check(br#"{"args":{}}"#).expect("not blank");
        assert_eq!(checked.action, None);
        assert!(
            checked
                .output
                .starts_with(r#"{"line":7,"error":"no tool name found"#),
            "{}",
            checked.output
        );
        let checked = check(b"[1]").expect("not blank");
        assert_eq!(
            checked.output,
            r#"{"line":7,"error":"the call must be a JSON object, not an array"}"#
        );
    }
}

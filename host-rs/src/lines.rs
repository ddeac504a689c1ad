//! `check`'s line reading, done by the component (one crossing per line), and
//! the names of fault kinds shared with the JavaScript host.

use crate::decision::{Decision, HostDecision};
use crate::{Action, Engine, Error};
use wasmtime::Trap;

pub use toolgate_shapes::calls::CheckedLine;

/// The tool name of a decision made without knowing the call's tool.
const UNKNOWN_CALL: &str = "(tool call)";

impl Engine {
    /// Reads, decides and formats line `number` (1-based) of a JSON Lines input,
    /// given as its bytes without the `\n`: `None` for a blank line (only JSON
    /// whitespace), else the line to print. The component decides what is
    /// blank or malformed, so every runtime prints the same. Never fails: a
    /// fault or a call over its work budget is a `confirm` decision, as in
    /// [`Engine::assess_call`].
    pub fn check_line(&self, number: u64, line: &[u8]) -> Option<CheckedLine> {
        self.check_line_with(number, line, None)
    }

    /// [`Engine::check_line`] in the caller's context (JSON, as
    /// [`Engine::assess_in`]: permissions, roles, resources).
    pub fn check_line_in(&self, number: u64, line: &[u8], context: &str) -> Option<CheckedLine> {
        self.check_line_with(number, line, Some(context))
    }

    fn check_line_with(
        &self,
        number: u64,
        line: &[u8],
        context: Option<&str>,
    ) -> Option<CheckedLine> {
        let checked = self.call_engine_fn(|policy, store, resource| match context {
            None => policy
                .engine()
                .call_check_line(store, resource, number, line),
            Some(context) => policy
                .engine()
                .call_check_line_in(store, resource, number, line, context),
        });
        match checked {
            Ok(checked) => checked.map(|c| CheckedLine {
                output: c.output,
                action: c
                    .action
                    .and_then(|action| crate::decision::by_case(&Action::ALL, action as u8)),
            }),
            Err(error) => {
                let decision = match error {
                    Error::WorkLimit => Decision::over_limit(UNKNOWN_CALL),
                    Error::Fault(cause) | Error::Rejected(cause) => {
                        Decision::fault(UNKNOWN_CALL, &cause)
                    }
                };
                Some(CheckedLine {
                    output: decision.to_json(),
                    action: Some(decision.action),
                })
            }
        }
    }
}

/// The kind of a fault, in the words the JavaScript host uses for the same
/// trap (`faultKind` in `host-js/src/errors.js`): a decision's `policy.fault`
/// finding names what went wrong without a runtime's backtrace, so the two
/// runtimes print the same bytes.
pub(crate) fn fault_kind(error: &wasmtime::Error) -> String {
    let kind = match error.downcast_ref::<Trap>() {
        Some(Trap::UnreachableCodeReached) => "the component aborted",
        Some(Trap::StackOverflow) => "stack overflow",
        Some(Trap::MemoryOutOfBounds | Trap::HeapMisaligned) => "out-of-bounds memory access",
        Some(Trap::TableOutOfBounds) => "out-of-bounds table access",
        Some(Trap::IndirectCallToNull | Trap::BadSignature) => "invalid indirect call",
        Some(Trap::IntegerDivisionByZero) => "integer division by zero",
        Some(Trap::IntegerOverflow) => "integer overflow",
        Some(Trap::BadConversionToInteger) => "invalid conversion to integer",
        Some(_) => "trap",
        None => "host error",
    };
    String::from(kind)
}

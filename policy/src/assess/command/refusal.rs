//! [`Refusal`]: why a program's arguments are not proven safe. The vocabulary
//! every program check answers in, from the option grammars to the egress
//! rule; it depends on nothing of theirs, so they can all depend on it.

use crate::codes;
use crate::text::preview;

/// Why a program's arguments are not proven safe: a stable finding code and a
/// message naming the argument.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Refusal {
    /// A code from [`crate::codes`].
    pub code: &'static str,
    /// For people; names the argument.
    pub message: String,
}

impl Refusal {
    /// A refusal with its code and message.
    pub fn new(code: &'static str, message: String) -> Self {
        Refusal { code, message }
    }

    /// An option outside the program's grammar.
    pub fn option(program: &str, option: &str) -> Self {
        Refusal::new(
            codes::COMMAND_OPTION,
            format!(
                "`{program} {}` is an option outside the program's declared grammar",
                preview(option, 60)
            ),
        )
    }

    /// An argument (subcommand, operand, value) that writes, runs or is unproven.
    pub fn argument(program: &str, argument: &str, why: &str) -> Self {
        Refusal::new(
            codes::COMMAND_UNSAFE_ARGUMENT,
            format!("`{program} {}` {why}", preview(argument, 60)),
        )
    }

    /// The pair `command.rs` reports.
    pub fn into_pair(self) -> (&'static str, String) {
        (self.code, self.message)
    }
}

//! What `toolgate hook FORMAT` prints and how it exits, decided by the
//! component so every CLI answers a coding agent with the same bytes.

use serde::{Deserialize, Serialize};

/// The answer to one hook event.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct HookAnswer {
    /// Standard output without its newline: the decision in the agent's
    /// documented output shape.
    pub output: String,
    /// A line for standard error (without its newline) when the event could
    /// not be read; the output then asks a person.
    pub error: Option<String>,
    /// The exit code the agent reads the output under.
    pub exit: u8,
}

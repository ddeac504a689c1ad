//! `toolgate hook FORMAT`'s answer, made by the component: the host only
//! passes the event's bytes and prints what comes back, so every runtime
//! answers a coding agent with the same bytes.

use crate::{Engine, Error};

pub use toolgate_shapes::hooks::HookAnswer;

impl Engine {
    /// Answers one coding agent's before-tool hook event of `format`
    /// (`claude-code`, `gemini-cli`), given as the bytes read from standard
    /// input. An unreadable event is answered "ask" with a line for standard
    /// error; an unknown format is [`Error::Rejected`] with a message naming
    /// the known ones.
    pub fn hook(&self, format: &str, event: &[u8]) -> Result<HookAnswer, Error> {
        let answer = self.call_engine_fn(|policy, store, resource| {
            policy.engine().call_hook(store, resource, format, event)
        })?;
        answer
            .map(|a| HookAnswer {
                output: a.output,
                error: a.error,
                exit: a.exit,
            })
            .map_err(Error::Rejected)
    }
}

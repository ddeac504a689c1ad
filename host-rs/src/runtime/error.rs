//! How loading and calling fail: the public [`LoadError`] and [`Error`], and
//! the runtime's own [`Failure`], which each public call turns into an error or,
//! for the `assess` family that never fails, into a `confirm` decision.

use crate::decision::{Decision, HostDecision};
use std::path::PathBuf;
use wasmtime::Trap;

/// Why a policy could not be loaded.
#[derive(Debug, thiserror::Error)]
pub enum LoadError {
    /// The component file could not be read.
    #[error("cannot read component `{path}`: {source}")]
    Read {
        /// The file.
        path: PathBuf,
        /// The I/O error.
        source: std::io::Error,
    },
    /// The bytes are not a valid component, or not one that implements the
    /// toolgate world.
    #[error("invalid toolgate component: {0}")]
    Invalid(String),
}

/// Why a call other than `assess` failed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Error {
    /// The policy refused the input (a configuration, arguments, tool definitions);
    /// the message says why and names the field.
    #[error("{0}")]
    Rejected(String),
    /// The component trapped or failed. The host has already discarded the
    /// instance; the next call gets a fresh one.
    #[error("the policy faulted: {0}")]
    Fault(String),
    /// The call used up its work budget (see [`crate::PolicyBuilder::work_limit`]).
    /// The instance was discarded; the next call gets a fresh one.
    #[error("the policy stopped at its work limit")]
    WorkLimit,
}

/// How a call into the component failed.
#[derive(Debug)]
pub(super) enum Failure {
    /// A trap or another runtime error.
    Fault(String),
    /// The fuel or the time ran out.
    WorkLimit,
}

impl Failure {
    /// Tells a spent work budget (fuel, or the epoch deadline) from any other
    /// fault.
    pub(super) fn from_wasmtime(error: &wasmtime::Error) -> Failure {
        match error.downcast_ref::<Trap>() {
            Some(Trap::OutOfFuel | Trap::Interrupt) => Failure::WorkLimit,
            _ => Failure::Fault(crate::lines::fault_kind(error)),
        }
    }

    /// The decision that answers a call to `tool` that failed this way.
    pub(super) fn decision(&self, tool: &str) -> Decision {
        match self {
            Failure::Fault(cause) => Decision::fault(tool, cause),
            Failure::WorkLimit => Decision::over_limit(tool),
        }
    }
}

impl From<Failure> for Error {
    fn from(failure: Failure) -> Error {
        match failure {
            Failure::Fault(cause) => Error::Fault(cause),
            Failure::WorkLimit => Error::WorkLimit,
        }
    }
}

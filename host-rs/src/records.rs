//! The approval records, through the component: checkpoints, audit lines and
//! argument diffs in the one format every host writes (see the `records`
//! interface of the WIT).

use crate::bindings::exports::toolgate::policy::records as wit;
use crate::runtime::{Error, Policy};

pub use toolgate_shapes::records::CheckpointError;

/// Why a checkpoint could not be sealed or opened: the component refused it,
/// or the component faulted and decided nothing.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CheckpointFailure {
    /// Refused: forged, changed, unsigned, not one, or a weak key.
    #[error(transparent)]
    Refused(#[from] CheckpointError),
    /// The policy faulted.
    #[error(transparent)]
    Policy(#[from] Error),
}

impl From<wit::CheckpointError> for CheckpointError {
    fn from(e: wit::CheckpointError) -> CheckpointError {
        match e {
            wit::CheckpointError::Invalid(m) => CheckpointError::Invalid(m),
            wit::CheckpointError::Format(f) => CheckpointError::Format(f),
            wit::CheckpointError::Unsigned => CheckpointError::Unsigned,
            wit::CheckpointError::Forged => CheckpointError::Forged,
            wit::CheckpointError::WeakKey(n) => CheckpointError::WeakKey(n),
        }
    }
}

pub use toolgate_shapes::records::{AuditSummary, Recheck};

/// Why an audit log failed verification.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum AuditError {
    /// This line (1-based) is the first that does not verify.
    #[error("line {line}: {reason}")]
    Broken {
        /// The line number.
        line: u32,
        /// What is wrong.
        reason: String,
    },
    /// The policy refused an entry (the message names the field) or faulted.
    #[error(transparent)]
    Policy(#[from] Error),
}

impl Policy {
    /// Writes the checkpoint of a pending approval (JSON), signed when `key` is
    /// given.
    pub fn seal_checkpoint(
        &self,
        pending: &str,
        key: Option<&[u8]>,
    ) -> Result<String, CheckpointFailure> {
        self.call_records(|r, store| r.call_seal_checkpoint(store, pending, key))?
            .map_err(|e| CheckpointFailure::Refused(e.into()))
    }

    /// Reads a checkpoint; returns its pending approval as canonical JSON. With a
    /// key the checkpoint must be signed with it.
    pub fn open_checkpoint(
        &self,
        checkpoint: &str,
        key: Option<&[u8]>,
    ) -> Result<String, CheckpointFailure> {
        self.call_records(|r, store| r.call_open_checkpoint(store, checkpoint, key))?
            .map_err(|e| CheckpointFailure::Refused(e.into()))
    }

    /// Seals an audit entry (JSON) as the line after `previous`.
    pub fn seal_audit(&self, entry: &str, previous: Option<&str>) -> Result<String, Error> {
        self.call_records(|r, store| r.call_seal_audit(store, entry, previous))?
            .map_err(Error::Rejected)
    }

    /// Seals an audit entry as the line after `previous` in a keyed chain (an
    /// HMAC under `key`, at least 16 bytes).
    pub fn seal_audit_keyed(
        &self,
        entry: &str,
        previous: Option<&str>,
        key: &[u8],
    ) -> Result<String, Error> {
        self.call_records(|r, store| r.call_seal_audit_keyed(store, entry, previous, key))?
            .map_err(Error::Rejected)
    }

    /// Verifies a keyed audit log: every hash must be the HMAC under `key`.
    pub fn verify_audit_keyed(&self, log: &str, key: &[u8]) -> Result<AuditSummary, AuditError> {
        self.call_records(|r, store| r.call_verify_audit_keyed(store, log, key))?
            .map(|s| AuditSummary {
                records: s.records,
                head: s.head,
            })
            .map_err(|b| AuditError::Broken {
                line: b.line,
                reason: b.reason,
            })
    }

    /// Verifies a whole audit log (JSON Lines).
    pub fn verify_audit(&self, log: &str) -> Result<AuditSummary, AuditError> {
        self.call_records(|r, store| r.call_verify_audit(store, log))?
            .map(|s| AuditSummary {
                records: s.records,
                head: s.head,
            })
            .map_err(|b| AuditError::Broken {
                line: b.line,
                reason: b.reason,
            })
    }

    /// Whether a person's answer to the `sealed` decision still covers the
    /// policy's `current` decision on the same call (both canonical decision
    /// JSON): `stands`, `denied` or `changed`.
    pub fn recheck(&self, sealed: &str, current: &str) -> Result<Recheck, Error> {
        self.call_records(|r, store| r.call_recheck(store, sealed, current))?
            .map(|r| match r {
                wit::RecheckVerdict::Stands => Recheck::Stands,
                wit::RecheckVerdict::Denied => Recheck::Denied,
                wit::RecheckVerdict::Changed => Recheck::Changed,
            })
            .map_err(Error::Rejected)
    }

    /// The hash a checkpoint binds of a configuration (JSON).
    pub fn config_hash(&self, config: &str) -> Result<String, Error> {
        self.call_records(|r, store| r.call_config_hash(store, config))
    }

    /// The changes a person's edit made to a call's arguments, as a JSON array
    /// of `{"path", "before", "after"}`.
    pub fn args_diff(&self, before: &str, after: &str) -> Result<String, Error> {
        self.call_records(|r, store| r.call_args_diff(store, before, after))?
            .map_err(Error::Rejected)
    }
}

//! The records of the approval flow, defined once for every host: the
//! checkpoint of a pending approval (so one host can resume what another
//! started, and a forged or edited checkpoint is refused) and the hash-chained
//! audit record (so a changed or removed line is detectable). Hosts supply what
//! the component cannot know — ids, clocks, keys — and store the text; the
//! component fixes the format, the canonical bytes, the hashes and the checks.

pub mod audit;
pub mod checkpoint;
pub mod diff;
pub mod grant;
mod mac;
pub mod resume;

pub use audit::{
    seal_audit, seal_audit_keyed, verify_audit, verify_audit_keyed, AuditError, AuditSummary,
};
pub use checkpoint::{open_checkpoint, seal_checkpoint, CheckpointError, Pending};
pub use diff::{args_diff, Change, DiffError};
pub use grant::{open_grant, read_grant, seal_grant, Grant, GrantError, Granted, Remember, Scope};
pub use resume::{config_hash, recheck, recheck_json, Recheck};

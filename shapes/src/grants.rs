//! Grants: what an answer "for this session" or "always" leaves behind.
//!
//! A person who approves a call may let the gate remember it: the component
//! turns the approved call into the narrowest allow rules that cover it (or
//! takes a narrower list the host passes, once it has checked that list still
//! covers the call and names only its tool), seals the grant with the
//! checkpoint key and hands it to the host to keep. Grants only ever allow:
//! they rank with the configured allow rules, below every deny and ask, and
//! never reach what the floor or the configuration refuses.

use crate::rules::Rule;
use serde::{Deserialize, Serialize};

/// Where a grant lives and whom it applies to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Scope {
    /// "For this session": held in the host's memory, applied only to calls
    /// of the same `session_id`; gone with the process.
    Session,
    /// "Always, in this project": kept in the gate's store, applied to every
    /// call of every gate sharing that store.
    Project,
    /// "Always, for me": kept in the gate's store, applied only to calls of
    /// the same `user_id`.
    User,
}

impl Scope {
    /// The lowercase name.
    pub fn as_str(self) -> &'static str {
        match self {
            Scope::Session => "session",
            Scope::Project => "project",
            Scope::User => "user",
        }
    }

    /// Whether grants of this scope are stored (and so must be signed).
    pub fn persisted(self) -> bool {
        self != Scope::Session
    }
}

/// The part of an approval that asks the gate to remember it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Remember {
    /// For how long, and for whom.
    pub scope: Scope,
    /// The rules to grant, when the host edited the proposed ones (each must
    /// name the call's tool exactly and together they must still cover the
    /// approved call); absent: the rules the request proposed.
    #[serde(default)]
    pub rules: Option<Vec<Rule>>,
    /// When the grant stops applying, in ms since the Unix epoch.
    #[serde(default)]
    pub expires_at: Option<u64>,
}

/// A grant: allow rules an approval left behind.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Grant {
    /// The grant's id (`g-` and the approval's id).
    pub id: String,
    /// Where it lives and whom it applies to.
    pub scope: Scope,
    /// The tool it was granted for; every rule names exactly this tool.
    pub tool: String,
    /// The allow rules, each with the grant's id as its own, so a decision
    /// it makes names the grant.
    pub rules: Vec<Rule>,
    /// When it was granted, ms since the Unix epoch.
    pub created_at: u64,
    /// When it stops applying, ms since the Unix epoch; none: until revoked.
    #[serde(default)]
    pub expires_at: Option<u64>,
    /// The approval that granted it.
    pub approval_id: String,
    /// Who answered.
    #[serde(default)]
    pub by: Option<String>,
    /// The conversation a session grant is bound to.
    #[serde(default)]
    pub session_id: Option<String>,
    /// The user a user grant is bound to.
    #[serde(default)]
    pub user_id: Option<String>,
    /// The identity of the gate that granted it.
    #[serde(default)]
    pub gate: String,
}

/// A grant just made, as a run step hands it to the host to keep.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Granted {
    /// The grant.
    pub grant: Grant,
    /// Its sealed text, to store (project, user) or hold in memory (session)
    /// and pass back with the calls it may cover.
    pub sealed: String,
}

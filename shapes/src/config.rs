//! Layered configuration's shapes: the layers hosts pass and the merge they
//! get back (see `toolgate_policy::config::layers` for the merge rules).

use serde::{Deserialize, Serialize};

/// Where a layer comes from, highest first.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Layer {
    /// The organisation's: its denials cannot be lifted.
    Managed,
    /// The project's (checked in beside the code).
    Project,
    /// The user's own.
    User,
}

impl Layer {
    /// The lowercase name.
    pub fn as_str(self) -> &'static str {
        match self {
            Layer::Managed => "managed",
            Layer::Project => "project",
            Layer::User => "user",
        }
    }
}

/// One layer as hosts pass it: its rank and its text (JSON or TOML).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LayerText {
    /// Its rank.
    pub layer: Layer,
    /// The configuration text.
    pub config: String,
}

/// The merge: the effective configuration (as JSON text, what an engine is
/// created from) and one line per effective setting saying where it came from.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Layered {
    /// The effective configuration, JSON.
    pub config: String,
    /// `setting = value  (layer)` lines, in a stable order.
    pub explain: Vec<String>,
}

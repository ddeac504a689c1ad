//! What the confinement hides: every path of the policy's secret table found
//! in the working tree, and the system's secret locations the table names.
//!
//! One table serves the decision and the mask:
//! [`toolgate_policy::readings::secret_path`] is the check
//! `file_operations` and the command assessor make, read here natively on
//! each path the walk finds (relative to the tree, as a command in it names
//! it, and absolute).
//!
//! The walk is bounded in entries and in time: a tree too large to walk is
//! refused, never run with its secrets visible.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};
use toolgate_policy::readings::secret_path;
use toolgate_policy::readings::{Match, SECRET_RULES};

/// One path to hide, and whether it is a directory (hidden by an empty
/// directory) or a file (hidden by an empty file nobody may read).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Mask {
    /// The absolute path.
    pub path: PathBuf,
    /// A directory (else a file, a link to one, a socket or a device).
    pub directory: bool,
}

/// The walk's bounds.
#[derive(Clone, Copy, Debug)]
pub struct Bounds {
    /// Entries looked at, at most.
    pub entries: usize,
    /// Time spent, at most.
    pub time: Duration,
}

/// Why the tree could not be masked.
#[derive(Debug, thiserror::Error)]
pub enum WalkError {
    /// The tree has more entries than the bound.
    #[error("the working tree has more than {0} entries: too large to find every secret file in it (run in a smaller directory)")]
    TooManyEntries(usize),
    /// The walk took longer than the bound.
    #[error("finding the secret files of the working tree took longer than {0:?} (run in a smaller directory)")]
    TooSlow(Duration),
    /// A directory could not be read: a secret in it could not be ruled out.
    #[error("cannot read the directory {path} of the working tree ({reason}): a secret file in it could not be masked")]
    Unreadable {
        /// The directory.
        path: String,
        /// Why.
        reason: String,
    },
}

/// Every secret path in `tree`, walked within `bounds`. A secret directory
/// is masked whole (its content is not walked).
pub fn tree(tree: &Path, bounds: Bounds) -> Result<Vec<Mask>, WalkError> {
    let started = Instant::now();
    // Each entry is read as its path relative to the tree, led by the
    // tree's own last components (so rules on consecutive components, such
    // as `.config/gcloud`, meet a tree that starts inside one), and as its
    // absolute path only where a row of the table names an absolute place
    // inside the tree: one reading per entry, not two. A tree inside a place
    // the table names whole (`/root/project`) would be masked entirely by
    // its absolute paths; there, names are read relative only.
    let tree_text = tree.to_string_lossy().into_owned();
    let absolute_too = secret_path(&tree_text).is_none()
        && SECRET_RULES.iter().any(|rule| match rule.matches {
            Match::Under(p) | Match::TextPrefix(p) => {
                p.strip_prefix(tree_text.trim_end_matches('/'))
                    .is_some_and(|rest| rest.starts_with('/'))
                    || tree_text == "/"
            }
            _ => false,
        });
    let lead: Vec<String> = tree
        .components()
        .rev()
        .filter_map(|c| match c {
            std::path::Component::Normal(n) => Some(n.to_string_lossy().into_owned()),
            _ => None,
        })
        .take(3)
        .collect::<Vec<_>>()
        .into_iter()
        .rev()
        .collect();
    let lead = lead.join("/");
    let mut masks = Vec::new();
    let mut seen = 0usize;
    // (absolute directory, its path relative to the tree)
    let mut pending: Vec<(PathBuf, String)> = vec![(tree.to_path_buf(), String::new())];
    while let Some((dir, relative)) = pending.pop() {
        let entries = std::fs::read_dir(&dir).map_err(|e| WalkError::Unreadable {
            path: dir.display().to_string(),
            reason: e.to_string(),
        })?;
        for entry in entries {
            let entry = entry.map_err(|e| WalkError::Unreadable {
                path: dir.display().to_string(),
                reason: e.to_string(),
            })?;
            seen += 1;
            if seen > bounds.entries {
                return Err(WalkError::TooManyEntries(bounds.entries));
            }
            if seen.is_multiple_of(256) && started.elapsed() > bounds.time {
                return Err(WalkError::TooSlow(bounds.time));
            }
            let name = entry.file_name().to_string_lossy().into_owned();
            let rel = if relative.is_empty() {
                name
            } else {
                format!("{relative}/{name}")
            };
            let path = entry.path();
            // The entry itself, not what a link points to: a link is
            // masked where it stands (its target, inside the tree, is
            // checked under its own name; outside, the system masks and
            // the empty home cover the table's locations).
            let kind = entry.file_type().map_err(|e| WalkError::Unreadable {
                path: path.display().to_string(),
                reason: e.to_string(),
            })?;
            let absolute = path.to_string_lossy().into_owned();
            let led = if lead.is_empty() {
                rel.clone()
            } else {
                format!("{lead}/{rel}")
            };
            if secret_path(&led).is_some() || (absolute_too && secret_path(&absolute).is_some()) {
                // A link to nothing hides nothing (and cannot be mounted on).
                if kind.is_symlink() && !path.exists() {
                    continue;
                }
                // A link to a directory is a directory for the bind.
                let directory = kind.is_dir() || (kind.is_symlink() && path.is_dir());
                masks.push(Mask { path, directory });
            } else if kind.is_dir() {
                pending.push((path, rel));
            }
        }
    }
    Ok(masks)
}

/// The system's trust stores: public certificates, whatever their names.
const PUBLIC_CERTIFICATES: &[&str] = &[
    "/etc/ssl/certs",
    "/etc/ca-certificates",
    "/etc/pki/ca-trust",
    "/etc/pki/tls/certs",
];

/// The locations outside the tree that the table names by absolute path
/// (`/etc/shadow`, `/etc/ssl/private`, `/var/lib/docker`, SSH host keys…)
/// and that exist here. Whole locations the confinement replaces anyway
/// (`/proc`, `/dev`, `/sys`, `/root`, `/run`, homes) are left to it.
pub fn system(replaced: &[&str]) -> Vec<Mask> {
    let mut masks = Vec::new();
    let covered = |p: &str| {
        replaced
            .iter()
            .any(|r| p == *r || p.strip_prefix(r).is_some_and(|rest| rest.starts_with('/')))
    };
    let add = |path: PathBuf, masks: &mut Vec<Mask>| {
        if let Ok(meta) = std::fs::symlink_metadata(&path) {
            let directory = meta.is_dir();
            if !masks.iter().any(|m: &Mask| m.path == path) {
                masks.push(Mask { path, directory });
            }
        }
    };
    for rule in SECRET_RULES {
        match rule.matches {
            Match::Under(prefix) if prefix.starts_with('/') && !covered(prefix) => {
                add(PathBuf::from(prefix), &mut masks);
            }
            Match::TextPrefix(prefix) if prefix.starts_with('/') && !covered(prefix) => {
                // `/etc/shadow` also names `/etc/shadow-` and `/etc/shadow.bak`.
                let path = Path::new(prefix);
                let (Some(parent), Some(stem)) = (path.parent(), path.file_name()) else {
                    continue;
                };
                let stem = stem.to_string_lossy().into_owned();
                let Ok(entries) = std::fs::read_dir(parent) else {
                    continue;
                };
                for entry in entries.flatten() {
                    if entry.file_name().to_string_lossy().starts_with(&stem) {
                        add(entry.path(), &mut masks);
                    }
                }
            }
            _ => {}
        }
    }
    // Name rules (`ssh_host_*_key`, keytabs) in the directories of /etc
    // that keep keys beside public files.
    let etc = tree(
        Path::new("/etc/ssh"),
        Bounds {
            entries: 5_000,
            time: Duration::from_secs(1),
        },
    );
    for mask in etc.unwrap_or_default() {
        let text = mask.path.to_string_lossy().into_owned();
        // The trust stores' certificates are public (`*.pem` there is a CA,
        // not a key), and a link is masked where it points, if that is a
        // secret: hiding them would only break TLS.
        let public = PUBLIC_CERTIFICATES.iter().any(|p| {
            text.strip_prefix(p)
                .is_some_and(|rest| rest.starts_with('/'))
        });
        let link = std::fs::symlink_metadata(&mask.path).is_ok_and(|m| m.file_type().is_symlink());
        if !public && !link && !covered(&text) && !masks.iter().any(|m| m.path == mask.path) {
            masks.push(mask);
        }
    }
    masks
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_walk_finds_the_tables_files_and_respects_its_bound() {
        let dir = std::env::temp_dir().join(format!("toolgate-masks-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(dir.join("config")).unwrap();
        std::fs::create_dir_all(dir.join(".ssh")).unwrap();
        std::fs::write(dir.join(".env"), "A=1").unwrap();
        std::fs::write(dir.join(".env.example"), "A=").unwrap();
        std::fs::write(dir.join("config/credentials.yml"), "x").unwrap();
        std::fs::write(dir.join(".ssh/id_rsa"), "x").unwrap();
        std::fs::write(dir.join("README.md"), "x").unwrap();
        let bounds = Bounds {
            entries: 100,
            time: Duration::from_secs(5),
        };
        let mut found: Vec<String> = tree(&dir, bounds)
            .unwrap()
            .iter()
            .map(|m| m.path.strip_prefix(&dir).unwrap().display().to_string())
            .collect();
        found.sort();
        assert_eq!(found, [".env", ".ssh", "config/credentials.yml"]);
        let small = Bounds {
            entries: 3,
            time: Duration::from_secs(5),
        };
        assert!(matches!(
            tree(&dir, small),
            Err(WalkError::TooManyEntries(3))
        ));
        std::fs::remove_dir_all(&dir).unwrap();
    }
}

//! `file_operations`: only read, list, exists and stat-like queries are
//! read-only, and only on a path that is neither sensitive (keys, secrets,
//! credentials, process memory) nor outside the configured roots.
//!
//! The policy component has no filesystem: everything here reasons about the
//! path's text. `..` is resolved lexically; symbolic links are not (a tool that
//! follows links out of its roots must be configured with roots it owns).

use super::{Assessment, Assessor, Verdict};
use crate::args::string_field;
use crate::codes;
use crate::context::Context;
use crate::decision::Finding;
use serde_json::{Map, Value};

/// The file assessor.
#[derive(Clone, Debug)]
pub struct FileAssessor {
    /// The argument that names the operation.
    pub operation_field: String,
    /// The argument that holds the path.
    pub path_field: String,
    /// Absolute directories reads are confined to (empty: anywhere not sensitive).
    pub roots: Vec<String>,
}

impl Default for FileAssessor {
    fn default() -> Self {
        FileAssessor {
            operation_field: String::from("operation"),
            path_field: String::from("path"),
            roots: Vec::new(),
        }
    }
}

/// Operations that only read.
const READ_ONLY: &[&str] = &["read", "list", "exists", "stat", "info"];
/// Operations that delete (for the guarded floor).
const DELETING: &[&str] = &["delete", "remove", "rm", "unlink", "rmdir"];
/// Operations known to change files without deleting them.
const WRITING: &[&str] = &[
    "write", "create", "append", "mkdir", "move", "rename", "copy", "chmod", "chown", "touch",
    "edit", "patch", "replace", "truncate", "upload", "symlink", "link",
];

/// File names that hold secrets wherever they are.
const SECRET_NAMES: &[&str] = &[
    ".env",
    ".netrc",
    "_netrc",
    ".pgpass",
    ".git-credentials",
    ".npmrc",
    ".pypirc",
    ".htpasswd",
    ".vault-token",
    ".bash_history",
    ".zsh_history",
    ".python_history",
    ".psql_history",
    ".mysql_history",
    "credentials",
    "credentials.json",
    "service-account.json",
    "terraform.tfstate",
    "terraform.tfstate.backup",
    "id_rsa",
    "id_dsa",
    "id_ecdsa",
    "id_ed25519",
    "authorized_keys",
    "known_hosts",
    "shadow",
    "gshadow",
    "sudoers",
    "master.key",
    "secrets.yml",
    "secrets.yaml",
    "keystore",
    "credentials.tfrc.json",
    // Browser password and cookie stores (names lower-cased).
    "logins.json",
    "key3.db",
    "key4.db",
    "cookies.sqlite",
    "login data",
    "cookies",
];
/// File name suffixes that hold keys.
const SECRET_SUFFIXES: &[&str] = &[
    ".pem",
    ".key",
    ".p12",
    ".pfx",
    ".jks",
    ".keystore",
    ".kdbx",
    ".ovpn",
    ".gpg",
    ".asc",
    ".tfvars",
];
/// Directories whose whole content is secret.
const SECRET_DIRS: &[&str] = &[
    ".ssh",
    ".gnupg",
    ".aws",
    ".azure",
    ".kube",
    ".docker",
    ".password-store",
    ".secrets",
];
/// Absolute locations that are secret or expose other processes and devices.
const SECRET_PREFIXES: &[&str] = &[
    "/etc/shadow",
    "/etc/gshadow",
    "/etc/sudoers",
    "/etc/ssl/private",
    "/root",
    "/var/run/secrets",
    "/run/secrets",
    "/proc",
    "/sys",
    "/dev",
    "/boot",
    "/var/lib/docker",
];

/// Why a path is not proven safe to read, if it is not.
fn path_problem(path: &str, roots: &[String]) -> Option<(&'static str, String)> {
    if path.is_empty() {
        return Some((codes::ARGS_MISSING_FIELD, String::from("the path is empty")));
    }
    if path.chars().any(char::is_control) {
        return Some((
            codes::FILE_SENSITIVE_PATH,
            String::from("the path holds control characters"),
        ));
    }
    let normalized = normalize(path);
    let shown = crate::text::preview(path, 80);
    if let Some(why) = sensitive(&normalized) {
        return Some((codes::FILE_SENSITIVE_PATH, format!("`{shown}` {why}")));
    }
    if !roots.is_empty() && !within_roots(&normalized, roots) {
        return Some((
            codes::FILE_OUTSIDE_ROOTS,
            format!("`{shown}` is outside the configured roots"),
        ));
    }
    None
}

/// A lexically normalised path: `\` read as `/`, `.` dropped, `..` resolved
/// (kept at the front of a relative path that climbs out of its start), `~`
/// kept as a leading component. Repeated separators collapse.
fn normalize(path: &str) -> String {
    let path = path.replace('\\', "/");
    let absolute = path.starts_with('/');
    let mut parts: Vec<&str> = Vec::new();
    for part in path.split('/') {
        match part {
            "" | "." => {}
            ".." => match parts.last() {
                Some(&last) if last != ".." && last != "~" => {
                    parts.pop();
                }
                _ if absolute => {}
                _ => parts.push(".."),
            },
            other => parts.push(other),
        }
    }
    let joined = parts.join("/");
    if absolute {
        format!("/{joined}")
    } else {
        joined
    }
}

/// System files under the secret prefixes that only describe the machine
/// (CPU, memory, load, mounts) or are the standard streams and sources of
/// bytes: everyday reads, never secrets.
const BENIGN_SYSTEM_FILES: &[&str] = &[
    "/proc/cpuinfo",
    "/proc/meminfo",
    "/proc/loadavg",
    "/proc/uptime",
    "/proc/version",
    "/proc/stat",
    "/proc/mounts",
    "/proc/partitions",
    "/proc/swaps",
    "/proc/diskstats",
    "/proc/filesystems",
    "/proc/vmstat",
    "/proc/interrupts",
    "/proc/cgroups",
    "/proc/devices",
    "/proc/modules",
    "/proc/zoneinfo",
    "/proc/buddyinfo",
    "/proc/pressure/cpu",
    "/proc/pressure/memory",
    "/proc/pressure/io",
    "/proc/net/dev",
    "/proc/net/route",
    "/proc/net/snmp",
    "/proc/self/status",
    "/proc/self/limits",
    "/proc/self/mountinfo",
    "/proc/self/cgroup",
    "/proc/self/stat",
    "/proc/self/statm",
    "/dev/null",
    "/dev/zero",
    "/dev/random",
    "/dev/urandom",
    "/dev/stdin",
    "/dev/stdout",
    "/dev/stderr",
];

/// Why a path (any spelling; `..` resolved in the text) holds secrets, if it
/// does: the check `file_operations` makes, shared with the command assessor
/// for the files a read-only command would print.
pub(crate) fn secret_path(path: &str) -> Option<&'static str> {
    if path.chars().any(char::is_control) {
        return Some("holds control characters");
    }
    sensitive(&normalize(path))
}

fn sensitive(normalized: &str) -> Option<&'static str> {
    let lower = normalized.to_ascii_lowercase();
    if BENIGN_SYSTEM_FILES.contains(&lower.as_str()) {
        return None;
    }
    let components: Vec<&str> = lower.split('/').filter(|c| !c.is_empty()).collect();
    for prefix in SECRET_PREFIXES {
        if lower == *prefix || lower.starts_with(&format!("{prefix}/")) {
            return Some("is a system location that holds secrets or other processes' data");
        }
    }
    if components.iter().any(|c| SECRET_DIRS.contains(c)) {
        return Some("is inside a directory of keys or credentials");
    }
    // Tools that keep their tokens under ~/.config or ~/.local/share.
    if components.windows(2).any(|w| {
        matches!(
            w,
            [
                ".config",
                "gcloud" | "gh" | "hub" | "op" | "rclone" | "doctl" | "heroku"
            ] | ["share", "keyrings"]
        )
    }) {
        return Some("is inside a directory of keys or credentials");
    }
    let name = components.last().copied().unwrap_or("");
    if SECRET_NAMES.contains(&name)
        || name.starts_with(".env.")
        || name.starts_with("id_rsa")
        || name.starts_with("id_ed25519")
        || name.starts_with("id_ecdsa")
        || SECRET_SUFFIXES.iter().any(|s| name.ends_with(s))
    {
        return Some("holds keys, credentials or secrets");
    }
    None
}

fn within_roots(normalized: &str, roots: &[String]) -> bool {
    if !normalized.starts_with('/') {
        // Relative to the tool's own working directory, which it resolves
        // inside its root; climbing out of it is not allowed.
        return !normalized.starts_with("..") && !normalized.starts_with('~');
    }
    roots.iter().any(|root| {
        let root = normalize(root);
        let root = root.trim_end_matches('/');
        root.is_empty() || normalized == root || normalized.starts_with(&format!("{root}/"))
    })
}

impl Assessor for FileAssessor {
    fn assess(&self, args: &Map<String, Value>, _context: &Context) -> Assessment {
        let operation = match string_field(args, &self.operation_field) {
            Ok(op) => op,
            Err(finding) => return Assessment::single(Verdict::Unproven, "", finding),
        };
        let path = string_field(args, &self.path_field);
        let described = match path {
            Ok(path) => format!("{operation} {path}"),
            Err(_) => operation.to_owned(),
        };
        let is = |names: &[&str]| names.iter().any(|n| n.eq_ignore_ascii_case(operation));
        let (verdict, finding) = if is(READ_ONLY) {
            match path.map(|p| path_problem(p, &self.roots)) {
                Err(finding) => (Verdict::Unproven, finding),
                Ok(Some((code, message))) => (Verdict::Unproven, Finding::new(code, message)),
                Ok(None) => (
                    Verdict::ReadOnly,
                    Finding::new(codes::FILE_READ_ONLY, format!("`{operation}` only reads")),
                ),
            }
        } else if is(DELETING) {
            (
                Verdict::Destructive,
                Finding::new(codes::FILE_DELETE, format!("`{operation}` deletes files")),
            )
        } else if is(WRITING) {
            (
                Verdict::Unproven,
                Finding::new(codes::FILE_WRITE, format!("`{operation}` changes files")),
            )
        } else {
            (
                Verdict::Unproven,
                Finding::new(
                    codes::FILE_UNKNOWN_OPERATION,
                    format!("`{operation}` is not a known read-only operation"),
                ),
            )
        };
        Assessment::single(verdict, described, finding)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn normalization() {
        assert_eq!(normalize("/srv/app/../../etc/./shadow"), "/etc/shadow");
        assert_eq!(normalize("a//b/../c"), "a/c");
        assert_eq!(normalize("../../x"), "../../x");
        assert_eq!(normalize("/../../x"), "/x");
        assert_eq!(normalize("~/.ssh/../.ssh/id_rsa"), "~/.ssh/id_rsa");
        assert_eq!(
            normalize("C:\\\\Users\\\\me\\\\.aws\\\\credentials"),
            "C:/Users/me/.aws/credentials"
        );
    }

    #[test]
    fn sensitive_paths() {
        for path in [
            "~/.ssh/id_rsa",
            "/home/u/.ssh/config",
            ".env",
            "app/.env.production",
            "/etc/shadow",
            "/srv/../etc/shadow",
            "/proc/self/environ",
            "/proc/1/mem",
            "server.pem",
            "certs/tls.KEY",
            "/home/u/.aws/credentials",
            "~/.config/gcloud/x.json",
            "/var/run/secrets/kubernetes.io/serviceaccount/token",
            "/dev/sda",
            "C:\\\\Users\\\\me\\\\.aws\\\\credentials",
            "~/.kube/config",
            "/root/notes.txt",
        ] {
            assert!(path_problem(path, &[]).is_some(), "{path}");
        }
        for path in [
            "README.md",
            "/etc/hostname",
            "src/main.rs",
            "/var/log/syslog",
            "docs/keys.md",
            "environment.txt",
        ] {
            assert_eq!(path_problem(path, &[]), None, "{path}");
        }
    }

    #[test]
    fn roots() {
        let roots = vec![String::from("/srv/app")];
        assert_eq!(path_problem("/srv/app/data/x.csv", &roots), None);
        assert_eq!(path_problem("data/x.csv", &roots), None);
        assert!(path_problem("/srv/app/../other/x", &roots).is_some());
        assert!(path_problem("/srv/application/x", &roots).is_some());
        assert!(path_problem("../x", &roots).is_some());
        assert!(path_problem("/etc/hostname", &roots).is_some());
    }
}

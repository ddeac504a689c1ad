//! `file_operations`: only read, list, exists and stat-like queries are
//! read-only, and only on a path that is neither sensitive (keys, secrets,
//! credentials, process memory) nor outside the configured roots.
//!
//! The policy component has no filesystem: everything here reasons about the
//! path's text. `..` is resolved lexically; symbolic links are not (a tool that
//! follows links out of its roots must be configured with roots it owns).

use super::paths::{self, Unresolvable};
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
    /// The operation of a tool that does one thing, used when the arguments
    /// name none.
    pub operation: Option<String>,
}

impl Default for FileAssessor {
    fn default() -> Self {
        FileAssessor {
            operation_field: String::from("operation"),
            path_field: String::from("path"),
            roots: Vec::new(),
            operation: None,
        }
    }
}

/// What an operation does, by its name.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Effect {
    /// Only reads the path.
    Reads,
    /// Deletes: feeds the guarded floor.
    Deletes,
    /// Makes the old content or location disappear (a move, a rename, an
    /// overwrite, a truncation): feeds the guarded floor.
    Replaces,
    /// Changes files without destroying what was there.
    Writes,
}

/// Operation names, compared after [`operation_key`] (lower case, `_`, `-`
/// and `.` removed: `delete_file`, `deleteFile` and `delete-file` are one
/// name). Anything not here is an unknown operation: confirm.
const OPERATIONS: &[(&str, Effect)] = &[
    ("read", Effect::Reads),
    ("readfile", Effect::Reads),
    ("readtext", Effect::Reads),
    ("readtextfile", Effect::Reads),
    ("cat", Effect::Reads),
    ("view", Effect::Reads),
    ("get", Effect::Reads),
    ("list", Effect::Reads),
    ("ls", Effect::Reads),
    ("listdir", Effect::Reads),
    ("listdirectory", Effect::Reads),
    ("listfiles", Effect::Reads),
    ("exists", Effect::Reads),
    ("fileexists", Effect::Reads),
    ("stat", Effect::Reads),
    ("lstat", Effect::Reads),
    ("info", Effect::Reads),
    ("getfileinfo", Effect::Reads),
    ("delete", Effect::Deletes),
    ("deletefile", Effect::Deletes),
    ("deletedir", Effect::Deletes),
    ("deletedirectory", Effect::Deletes),
    ("deletefolder", Effect::Deletes),
    ("del", Effect::Deletes),
    ("erase", Effect::Deletes),
    ("remove", Effect::Deletes),
    ("removefile", Effect::Deletes),
    ("removedir", Effect::Deletes),
    ("removedirectory", Effect::Deletes),
    ("rm", Effect::Deletes),
    ("rmrf", Effect::Deletes),
    ("rmtree", Effect::Deletes),
    ("rmdir", Effect::Deletes),
    ("unlink", Effect::Deletes),
    ("destroy", Effect::Deletes),
    ("purge", Effect::Deletes),
    ("wipe", Effect::Deletes),
    ("shred", Effect::Deletes),
    ("trash", Effect::Deletes),
    ("truncate", Effect::Replaces),
    ("overwrite", Effect::Replaces),
    ("move", Effect::Replaces),
    ("movefile", Effect::Replaces),
    ("mv", Effect::Replaces),
    ("rename", Effect::Replaces),
    ("renamefile", Effect::Replaces),
    ("replace", Effect::Replaces),
    ("write", Effect::Writes),
    ("writefile", Effect::Writes),
    ("create", Effect::Writes),
    ("createfile", Effect::Writes),
    ("createdirectory", Effect::Writes),
    ("append", Effect::Writes),
    ("mkdir", Effect::Writes),
    ("copy", Effect::Writes),
    ("copyfile", Effect::Writes),
    ("cp", Effect::Writes),
    ("chmod", Effect::Writes),
    ("chown", Effect::Writes),
    ("touch", Effect::Writes),
    ("edit", Effect::Writes),
    ("editfile", Effect::Writes),
    ("patch", Effect::Writes),
    ("upload", Effect::Writes),
    ("symlink", Effect::Writes),
    ("link", Effect::Writes),
];

/// The comparison key of an operation name; `None` when it holds anything
/// but ASCII letters and the separators (a trailing space, an invisible
/// character): such a name is unknown.
fn operation_key(operation: &str) -> Option<String> {
    operation
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.'))
        .then(|| {
            operation
                .chars()
                .filter(char::is_ascii_alphanumeric)
                .map(|c| c.to_ascii_lowercase())
                .collect()
        })
}

fn effect_of(operation: &str) -> Option<Effect> {
    let key = operation_key(operation)?;
    OPERATIONS
        .iter()
        .find(|(name, _)| *name == key)
        .map(|&(_, effect)| effect)
}

/// Why a path is not proven safe to read, if it is not: every reading of
/// its text (POSIX, Windows, file URL) must be free of secrets and inside
/// the roots, and an unresolvable text is never proven.
pub(crate) fn path_problem(path: &str, roots: &[String]) -> Option<(&'static str, String)> {
    if path.is_empty() {
        return Some((codes::ARGS_MISSING_FIELD, String::from("the path is empty")));
    }
    let shown = crate::text::preview(path, 80);
    let readings = match paths::readings(path) {
        Ok(readings) => readings,
        Err(why @ (Unresolvable::Control | Unresolvable::DeviceNamespace)) => {
            return Some((
                codes::FILE_SENSITIVE_PATH,
                format!("`{shown}` {}", why.message()),
            ))
        }
        Err(why) => {
            return Some((
                codes::FILE_UNRESOLVABLE_PATH,
                format!("`{shown}` {}", why.message()),
            ))
        }
    };
    for reading in &readings {
        if let Some(why) = paths::reading_secret(reading) {
            return Some((
                codes::FILE_SENSITIVE_PATH,
                format!(
                    "`{shown}` {} (read as a {} path)",
                    why.message(),
                    reading.platform
                ),
            ));
        }
    }
    if !roots.is_empty() {
        if let Some(reading) = readings.iter().find(|r| !paths::within_roots(r, roots)) {
            return Some((
                codes::FILE_OUTSIDE_ROOTS,
                format!(
                    "`{shown}` is outside the configured roots (read as a {} path)",
                    reading.platform
                ),
            ));
        }
    }
    None
}

/// Why a path (any spelling) holds secrets, if it does: the check
/// `file_operations` makes, shared with the command assessor for the files a
/// read-only command would print. A thin re-export of
/// [`paths::secret_path`], which reads the one table in [`super::secrets`].
pub(crate) fn secret_path(path: &str) -> Option<&'static str> {
    paths::secret_path(path)
}

/// An operation's name as rules compare it: its key without a `file`,
/// `text` or `textfile` suffix (`write_file` is `write`, `readTextFile` is
/// `read`); `None` for a name that is not a known operation.
pub(crate) fn rule_operation(operation: &str) -> Option<String> {
    effect_of(operation)?;
    let key = operation_key(operation)?;
    for suffix in ["textfile", "file", "text"] {
        if let Some(stem) = key.strip_suffix(suffix) {
            if !stem.is_empty() {
                return Some(stem.to_owned());
            }
        }
    }
    Some(key)
}

/// The operations "accept edits" allows: they write or create files
/// without destroying what was there.
pub(crate) const EDITS: &[&str] = &[
    "write",
    "create",
    "edit",
    "append",
    "patch",
    "mkdir",
    "createdirectory",
    "touch",
];

/// Whether a path's spelling is one a rule may cover: every reading
/// (POSIX, Windows, percent-decoded, file URL) the same, no `..`, no home,
/// drive or stream syntax, not under `/proc` or `/dev` (symlinks to other
/// places), no secret, inside `roots`.
fn clean_path(path: &str, readings: &[paths::Reading], roots: &[String]) -> bool {
    let Some(first) = readings.first() else {
        return false;
    };
    let text = first.text();
    let climbs = path.split(['/', '\\']).any(|c| c == "..");
    let odd = path.starts_with('~') || path.contains([':', '\\', '%']) || path.ends_with('/');
    let linked = ["/proc", "/dev"]
        .iter()
        .any(|p| text == *p || text.starts_with(&format!("{p}/")));
    !climbs
        && !odd
        && !linked
        && !text.is_empty()
        && readings.iter().all(|r| r.text() == text)
        && path_problem(path, roots).is_none()
}

impl Assessor for FileAssessor {
    /// The operation and path; the content a write carries and its encoding,
    /// and whether a listing recurses.
    fn fields(&self) -> Option<Vec<&str>> {
        Some(vec![
            self.operation_field.as_str(),
            self.path_field.as_str(),
            "content",
            "encoding",
            "recursive",
        ])
    }

    fn facts(&self, args: &Map<String, Value>) -> super::facts::Facts {
        let operation = match (string_field(args, &self.operation_field), &self.operation) {
            (Ok(op), _) => op,
            (Err(_), Some(fixed)) if !args.contains_key(&self.operation_field) => fixed.as_str(),
            (Err(_), _) => return super::facts::Facts::None,
        };
        let (Some(key), Some(effect), Ok(path)) = (
            rule_operation(operation),
            effect_of(operation),
            string_field(args, &self.path_field),
        ) else {
            return super::facts::Facts::None;
        };
        let readings = paths::readings(path).unwrap_or_default();
        super::facts::Facts::File(super::facts::FileFacts {
            operation: key,
            path: readings
                .first()
                .map(paths::Reading::text)
                .unwrap_or_default(),
            clean: clean_path(path, &readings, &self.roots),
            readings: readings.iter().map(paths::Reading::text).collect(),
            destructive: matches!(effect, Effect::Deletes | Effect::Replaces),
            read_only: effect == Effect::Reads && clean_path(path, &readings, &self.roots),
        })
    }

    fn assess(&self, args: &Map<String, Value>, _context: &Context) -> Assessment {
        let operation = match (string_field(args, &self.operation_field), &self.operation) {
            (Ok(op), _) => op,
            (Err(_), Some(fixed)) if !args.contains_key(&self.operation_field) => fixed.as_str(),
            (Err(finding), _) => return Assessment::single(Verdict::Unproven, "", finding),
        };
        let path = string_field(args, &self.path_field);
        let described = match path {
            Ok(path) => format!("{operation} {path}"),
            Err(_) => operation.to_owned(),
        };
        let (verdict, finding) = match effect_of(operation) {
            Some(Effect::Reads) => match path.map(|p| path_problem(p, &self.roots)) {
                Err(finding) => (Verdict::Unproven, finding),
                Ok(Some((code, message))) => (Verdict::Unproven, Finding::new(code, message)),
                Ok(None) => (
                    Verdict::ReadOnly,
                    Finding::new(codes::FILE_READ_ONLY, format!("`{operation}` only reads")),
                ),
            },
            Some(Effect::Deletes) => (
                Verdict::Destructive,
                Finding::new(codes::FILE_DELETE, format!("`{operation}` deletes files")),
            ),
            Some(Effect::Replaces) => (
                Verdict::Destructive,
                Finding::new(
                    codes::FILE_WRITE,
                    format!("`{operation}` changes files and loses what was there"),
                ),
            ),
            Some(Effect::Writes) => (
                Verdict::Unproven,
                Finding::new(codes::FILE_WRITE, format!("`{operation}` changes files")),
            ),
            None => (
                Verdict::Unproven,
                Finding::new(
                    codes::FILE_UNKNOWN_OPERATION,
                    format!(
                        "`{}` is not a known read-only operation",
                        crate::text::preview(operation, 40)
                    ),
                ),
            ),
        };
        let mut assessment = Assessment::single(verdict, described, finding);
        self.floor_findings(args, operation, &mut assessment);
        assessment
    }
}

/// Argument names that hold a path whatever the tool calls its path field:
/// the floor reads them all (a copy's source, an upload's file, a path given
/// in a field the schema does not name).
const PATH_KEYS: &[&str] = &[
    "path",
    "paths",
    "source",
    "src",
    "destination",
    "dest",
    "from",
    "to",
    "target",
    "file",
    "files",
    "file_path",
    "filepath",
    "filename",
    "file_name",
    "old_path",
    "new_path",
    "directory",
    "dir",
    "input",
    "output",
];

/// Paths whose writes run code later (at login, by cron or a service manager,
/// in git) or change the machine itself (disks, kernel settings).
const RUNS_LATER: &[&str] = &[
    "/.bashrc",
    "/.bash_profile",
    "/.bash_login",
    "/.bash_logout",
    "/.profile",
    "/.zshrc",
    "/.zprofile",
    "/.zshenv",
    "/.zlogin",
    "/.login",
    "/.cshrc",
    "/.tcshrc",
    "/config.fish",
    "/.pam_environment",
    "/.xinitrc",
    "/.xprofile",
    "/etc/profile",
    "/etc/rc.local",
    "/etc/ld.so.preload",
    "/etc/environment",
    // Files other programs run as code when started (GTFOBins less: command
    // `~/.lessfilter`; top: shell `toprc`; rtorrent: shell `.rtorrent.rc`;
    // vim(1) and ex(1) read `.vimrc`/`.exrc`; git-config(1) aliases and pagers).
    "/.lessfilter",
    "/.config/procps/toprc",
    "/.rtorrent.rc",
    "/.vimrc",
    "/.exrc",
    "/.gitconfig",
];
/// Directories under which a write runs code later, anywhere in a path
/// (a home's, a repository's).
const RUNS_LATER_WITHIN: &[&str] = &[
    "/.git/hooks/",
    "/.config/systemd/",
    "/.config/autostart/",
    "/library/launchagents/",
    "/library/launchdaemons/",
];
/// System locations where a write runs code later or changes the machine
/// (absolute paths only).
const SYSTEM_PLACES: &[&str] = &[
    "/etc/cron",
    "/var/spool/cron/",
    "/etc/systemd/",
    "/etc/init.d/",
    "/etc/profile.d/",
    "/etc/sudoers",
    "/etc/xdg/autostart/",
    "/dev/",
    "/proc/sys",
    "/sys/",
];
/// Device files a write to is harmless.
const HARMLESS_DEVICES: &[&str] = &["/dev/null", "/dev/stdout", "/dev/stderr", "/dev/tty"];

/// The path with the home directory's variable spellings (`$HOME`,
/// `${HOME}`, `%USERPROFILE%`, `%HOMEPATH%`, `$env:USERPROFILE`) read as `~`,
/// when it starts with one: the path stays unresolvable (a tool may expand
/// the variable or not), but the secret it names in the expanding reading is
/// a secret all the same.
fn home_spelled(text: &str) -> Option<String> {
    const HOMES: &[&str] = &[
        "$HOME",
        "${HOME}",
        "%USERPROFILE%",
        "%HOMEPATH%",
        "%HOME%",
        "$env:USERPROFILE",
        "$env:HOME",
    ];
    HOMES.iter().find_map(|home| {
        let rest = text
            .get(..home.len())
            .filter(|head| head.eq_ignore_ascii_case(home))
            .and_then(|_| text.get(home.len()..))?;
        rest.starts_with(['/', '\\']).then(|| format!("~{rest}"))
    })
}

/// Whether a write to `text` (any reading of it) runs code later or changes
/// the machine: start-up files, hooks, cron, service units, kernel settings
/// and devices. Shared with the command floor, which reads every word.
pub(crate) fn runs_later(text: &str) -> bool {
    paths::readings(text).unwrap_or_default().iter().any(|r| {
        let t = r.text().to_ascii_lowercase();
        let anchored = format!("/{}", t.trim_start_matches('/'));
        RUNS_LATER.iter().any(|n| anchored.ends_with(n))
            || RUNS_LATER_WITHIN.iter().any(|d| anchored.contains(d))
            || (t.starts_with('/')
                && !HARMLESS_DEVICES.contains(&t.as_str())
                && SYSTEM_PLACES.iter().any(|d| t.starts_with(d)))
    })
}

impl FileAssessor {
    /// What the floor must see beyond the operation's own check: a secret
    /// named in any path argument, whatever the operation; a write that runs
    /// code later or changes the machine; a write that empties a file.
    fn floor_findings(&self, args: &Map<String, Value>, operation: &str, out: &mut Assessment) {
        let mut values: Vec<(&str, &str)> = Vec::new();
        for (key, value) in args {
            let lower = key.to_ascii_lowercase();
            if !(PATH_KEYS.contains(&lower.as_str()) || *key == self.path_field) {
                continue;
            }
            match value {
                Value::String(text) => values.push((key, text)),
                Value::Array(items) => {
                    values.extend(
                        items
                            .iter()
                            .filter_map(Value::as_str)
                            .map(|t| (key.as_str(), t)),
                    );
                }
                _ => {}
            }
        }
        let effect = effect_of(operation);
        let sensitive_already = out
            .findings
            .iter()
            .any(|f| f.code == codes::FILE_SENSITIVE_PATH);
        if !sensitive_already {
            // A read's own path was checked by `path_problem` already.
            let checked = |key: &str| effect == Some(Effect::Reads) && key == self.path_field;
            if let Some((key, text, why)) = values
                .iter()
                .filter(|(k, t)| !checked(k) || home_spelled(t).is_some())
                .take(64)
                .find_map(|(k, t)| {
                    secret_path(t)
                        .or_else(|| home_spelled(t).and_then(|home| secret_path(&home)))
                        .map(|why| (*k, *t, why))
                })
            {
                out.findings.push(Finding::new(
                    codes::FILE_SENSITIVE_PATH,
                    format!(
                        "`{key}` names `{}`, which {why}",
                        crate::text::preview(text, 80)
                    ),
                ));
            }
        }
        if effect == Some(Effect::Reads) {
            return;
        }
        let runs_later = values.iter().take(64).find(|(_, text)| runs_later(text));
        if let Some((key, text)) = runs_later {
            out.verdict = Verdict::Destructive;
            out.findings.push(Finding::new(
                codes::FILE_WRITE,
                format!(
                    "`{key}` names `{}`: a write there runs code later or changes the machine",
                    crate::text::preview(text, 80)
                ),
            ));
        }
        let empties = effect == Some(Effect::Writes)
            && matches!(args.get("content"), Some(Value::String(c)) if c.is_empty());
        if empties {
            out.verdict = Verdict::Destructive;
            out.findings.push(Finding::new(
                codes::FILE_WRITE,
                String::from("an empty write empties the file"),
            ));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
            "C:\\Users\\me\\.aws\\credentials",
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
        assert!(path_problem("C:\\Users\\me\\notes.txt", &roots).is_some());
        assert!(path_problem("\\\\srv\\share\\x", &roots).is_some());
        assert!(path_problem("~/notes.txt", &roots).is_some());
    }

    #[test]
    fn operation_names() {
        assert_eq!(effect_of("delete_file"), Some(Effect::Deletes));
        assert_eq!(effect_of("deleteFile"), Some(Effect::Deletes));
        assert_eq!(effect_of("MOVE"), Some(Effect::Replaces));
        assert_eq!(effect_of("read_text_file"), Some(Effect::Reads));
        assert_eq!(effect_of("read "), None);
        assert_eq!(effect_of("re\u{200b}ad"), None);
        assert_eq!(effect_of("execute"), None);
    }
}

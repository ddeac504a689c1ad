//! Runs a command line where a wrong "read-only" cannot hurt: `toolgate
//! exec` and the command executors.
//!
//! A proof is only as good as the world it was checked in; the confinement
//! makes the world small. On Linux the line runs with bash inside bubblewrap
//! (Debian's `bubblewrap`): its own user, mount, PID, IPC, UTS, cgroup and
//! (unless egress is `public`) network namespaces; an unprivileged user
//! inside with every capability dropped, also when started as root (as root
//! bubblewrap otherwise keeps capabilities in its namespace and a `umount`
//! removes a mask); no further user namespaces; a seccomp filter refusing
//! mounts, namespaces and the calls listed in [`seccomp`](crate::confine::seccomp); `/` read-only; an
//! empty tmpfs home, `/tmp` and `/run`; the working tree read-only for a
//! read, with every path of the policy's secret table in it masked
//! ([`masks`](crate::confine::masks)); `/proc` of its own PID namespace; a clean environment; git's
//! code-running settings off; `no_new_privs` (bubblewrap sets it). Limits:
//! processes and memory by a cgroup where one can be made ([`cgroup`](crate::confine::cgroup)), else
//! by rlimits; wall time by a kill; output by a cap.
//!
//! Why bubblewrap and not namespaces, Landlock and seccomp set up here: it is
//! the setuid-free, widely packaged tool Flatpak and the oracles already run;
//! doing it here needs `unsafe` code (`fork`, `unshare`, `mount` between fork
//! and exec) that the workspace's lints forbid, for no gain in what is
//! hidden.
//!
//! It never runs a line unconfined unless the configuration says
//! `exec: { unconfined: "allow" }` (unsafe; documented in
//! docs/confinement.md). Elsewhere than Linux it refuses.

pub mod cgroup;
pub mod masks;
#[cfg(target_os = "linux")]
pub mod seccomp;

use serde::Serialize;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// The user and group the sandbox's processes are inside, and outside when
/// a read is started as root (`nobody`/`nogroup`).
pub const NOBODY: u32 = 65534;

/// The context an executor that confines gives the policy with each call
/// (see `toolgate_policy::Context::confined`).
pub const CONTEXT: &str = r#"{"confined":true}"#;

/// What a run may do, by what cleared it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Rights {
    /// A proven read: the working tree read-only, secrets masked.
    Read,
    /// An approved command: the working tree, `/tmp` and the home writable
    /// (secrets still masked), the network as egress says.
    Write,
    /// More than the confinement grants (credentials, `git push`): runs on
    /// the machine itself, only with `exec: { unconfined: "allow" }`.
    Unconfined,
}

impl Rights {
    /// The rights a decision grants: an approval by a person, a rule or a
    /// configured auto-approval grants [`Rights::Write`]; everything else
    /// (a proof of a read, the model's own rating) [`Rights::Read`].
    pub fn for_decision(decision: &crate::Decision, approved: bool) -> Rights {
        use crate::Source;
        if approved || matches!(decision.source, Source::Rule | Source::Config) {
            Rights::Write
        } else {
            Rights::Read
        }
    }

    /// The rights of a call cleared to run by a gate.
    pub fn for_ready(ready: &crate::Ready) -> Rights {
        Rights::for_decision(&ready.decision, ready.approval_id.is_some())
    }
}

/// The limits of one run.
#[derive(Clone, Copy, Debug)]
pub struct Limits {
    /// Wall time, then the sandbox is killed.
    pub time: Duration,
    /// Memory (by a cgroup; where none can be made, the data-segment rlimit).
    pub memory: u64,
    /// Processes and threads at once.
    pub processes: u32,
    /// Bytes of output (standard output and error together) passed on; past
    /// it the sandbox is killed.
    pub output: u64,
    /// Size of each tmpfs (`/tmp`, the home).
    pub tmpfs: u64,
    /// Entries the walk for secret files looks at, at most.
    pub walk_entries: usize,
    /// Time the walk may take.
    pub walk_time: Duration,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            time: Duration::from_secs(120),
            memory: 2 << 30,
            processes: 256,
            output: 16 << 20,
            tmpfs: 512 << 20,
            walk_entries: 200_000,
            walk_time: Duration::from_secs(5),
        }
    }
}

/// How a run is set up.
#[derive(Clone, Debug)]
pub struct Settings {
    /// What it may do.
    pub rights: Rights,
    /// The network is shared (egress `public`); else none.
    pub network: bool,
    /// Where no confinement can be set up, run unconfined (unsafe).
    pub unconfined: bool,
    /// The limits.
    pub limits: Limits,
    /// The working tree (the working directory the line runs in).
    pub tree: PathBuf,
}

impl Settings {
    /// The settings a configuration (JSON or TOML, as `--config` takes it)
    /// gives, for the working directory: the network when `egress` is
    /// `public` (the default), unconfined runs only with
    /// `exec: { unconfined: "allow" }`.
    pub fn from_config(text: &str, rights: Rights) -> Result<Settings, ConfineError> {
        let config = toolgate_policy::Config::from_text(text)
            .map_err(|e| ConfineError::Config(e.to_string()))?;
        let tree = std::env::current_dir().map_err(|e| ConfineError::Setup {
            what: String::from("the working directory"),
            reason: e.to_string(),
        })?;
        let exec = &config.exec;
        let defaults = Limits::default();
        let limits = Limits {
            time: exec.timeout_ms.map_or(defaults.time, Duration::from_millis),
            output: exec.max_output_bytes.unwrap_or(defaults.output),
            processes: exec.max_processes.unwrap_or(defaults.processes),
            memory: exec.max_memory_bytes.unwrap_or(defaults.memory),
            ..defaults
        };
        Ok(Settings {
            rights,
            network: config.egress == toolgate_policy::config::Egress::Public,
            unconfined: exec.unconfined == toolgate_policy::config::Unconfined::Allow,
            limits,
            tree,
        })
    }
}

/// Why a line was not run.
#[derive(Debug, thiserror::Error)]
pub enum ConfineError {
    /// Something the confinement needs is missing here.
    #[error("cannot confine the command: {0}; nothing ran (exec: {{ unconfined: \"allow\" }} in the configuration runs it unconfined, which is unsafe)")]
    Missing(String),
    /// The secret files of the tree could not all be found.
    #[error("cannot confine the command: {0}; nothing ran")]
    Walk(#[from] masks::WalkError),
    /// A step of the set-up failed.
    #[error("cannot confine the command: {what}: {reason}; nothing ran")]
    Setup {
        /// The step.
        what: String,
        /// Why.
        reason: String,
    },
    /// The rights asked for need the unsafe setting.
    #[error("the command needs more than the confinement grants; it runs only with exec: {{ unconfined: \"allow\" }} in the configuration")]
    NeedsUnconfined,
    /// The configuration could not be read.
    #[error("configuration: {0}")]
    Config(String),
}

/// Where the line's output goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Output {
    /// To this process's standard output and error, as it comes (and
    /// standard input is the line's).
    Pass,
    /// Kept and returned (standard input is empty).
    Capture,
}

/// How the line ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    /// It exited with this code.
    Exited(i32),
    /// A signal ended it.
    Signalled(i32),
}

impl Status {
    /// The exit code a shell would give: the code, or 128 + the signal.
    pub fn code(self) -> u8 {
        let code = match self {
            Status::Exited(code) => code,
            Status::Signalled(signal) => 128 + signal,
        };
        u8::try_from(code.clamp(0, 255)).unwrap_or(u8::MAX)
    }
}

/// What the confinement was and what it stopped.
#[derive(Clone, Debug, Default, Serialize)]
pub struct Report {
    /// `bubblewrap`, or `none` for an unconfined run.
    pub confinement: String,
    /// The rights it ran with.
    pub rights: Option<Rights>,
    /// Whether the network was shared.
    pub network: bool,
    /// The limits that applied, in words.
    pub limits: Vec<String>,
    /// The paths masked (inside the tree relative to it, others absolute).
    pub masked: Vec<String>,
    /// What the confinement stopped: limits hit, and the refusals the
    /// programs reported on standard error, counted by kind.
    pub stopped: Vec<String>,
}

/// One run's result.
#[derive(Debug)]
pub struct Ran {
    /// How it ended.
    pub status: Status,
    /// Standard output (only for [`Output::Capture`]).
    pub stdout: Vec<u8>,
    /// Standard error (only for [`Output::Capture`]).
    pub stderr: Vec<u8>,
    /// The confinement's report.
    pub report: Report,
}

/// Runs `line` with bash under the confinement `settings` describe.
pub fn run(line: &str, settings: &Settings, output: Output) -> Result<Ran, ConfineError> {
    if settings.rights == Rights::Unconfined {
        return if settings.unconfined {
            unconfined(line, settings, output, "the rights asked for")
        } else {
            Err(ConfineError::NeedsUnconfined)
        };
    }
    match missing() {
        None => confined(line, settings, output),
        Some(what) if settings.unconfined => unconfined(line, settings, output, &what),
        Some(what) => Err(ConfineError::Missing(what)),
    }
}

/// What this system lacks for the confinement, if anything.
fn missing() -> Option<String> {
    if !cfg!(target_os = "linux") {
        return Some(format!(
            "the confinement is built on Linux namespaces and this system is {}",
            std::env::consts::OS
        ));
    }
    if find_program("bwrap").is_none() {
        return Some(String::from(
            "bubblewrap (`bwrap`) is not installed (Debian and Ubuntu: apt-get install bubblewrap)",
        ));
    }
    if find_program("bash").is_none() {
        return Some(String::from("bash is not installed"));
    }
    let read = |p: &str| std::fs::read_to_string(p).ok().map(|t| t.trim().to_owned());
    if read("/proc/sys/user/max_user_namespaces").as_deref() == Some("0") {
        return Some(String::from(
            "user namespaces are turned off (/proc/sys/user/max_user_namespaces is 0)",
        ));
    }
    if read("/proc/sys/kernel/unprivileged_userns_clone").as_deref() == Some("0") && !is_root() {
        return Some(String::from(
            "unprivileged user namespaces are turned off (kernel.unprivileged_userns_clone is 0)",
        ));
    }
    None
}

/// A program's path on `PATH`, or in the usual places.
fn find_program(name: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH").unwrap_or_default();
    std::env::split_paths(&path)
        .chain(["/usr/bin", "/bin", "/usr/local/bin"].map(PathBuf::from))
        .map(|dir| dir.join(name))
        .find(|p| p.is_file())
}

fn is_root() -> bool {
    // The owner of this process's /proc entry is its effective user.
    std::fs::metadata("/proc/self")
        .map(|m| std::os::unix::fs::MetadataExt::uid(&m) == 0)
        .unwrap_or(false)
}

/// The variables a line gets from this process's environment, when set
/// (nothing else: no tokens, no agent sockets, no proxies' credentials).
const PASSED: &[&str] = &[
    "LANG",
    "LC_ALL",
    "LC_CTYPE",
    "LC_MESSAGES",
    "LC_COLLATE",
    "LC_NUMERIC",
    "LC_TIME",
    "TZ",
    "TERM",
    "COLORTERM",
    "NO_COLOR",
    "COLUMNS",
    "LINES",
];

/// The home inside the sandbox: a fresh tmpfs.
const HOME: &str = "/home/sandbox";

/// Git settings given on its "command line" (`GIT_CONFIG_COUNT`), which win
/// over a repository's own `.git/config`: the settings that run a program
/// (`core.fsmonitor`, hooks, an external diff, a pager, credential helpers,
/// transports) are emptied. Drivers a repository names itself (`textconv`,
/// filters) cannot be reached by a fixed list: they run, confined.
const GIT: &[(&str, &str)] = &[
    ("core.fsmonitor", ""),
    ("core.hooksPath", "/dev/null"),
    ("core.pager", "cat"),
    ("core.editor", "false"),
    ("core.sshCommand", "false"),
    ("core.gitProxy", ""),
    ("core.askPass", ""),
    ("credential.helper", ""),
    ("diff.external", ""),
    ("protocol.allow", "never"),
    ("protocol.file.allow", "never"),
    ("uploadpack.packObjectsHook", ""),
    ("gpg.program", "false"),
    ("sequence.editor", "false"),
];

/// The environment of a run.
fn environment(settings: &Settings) -> Vec<(String, String)> {
    let mut env: Vec<(String, String)> = PASSED
        .iter()
        .filter_map(|k| std::env::var(k).ok().map(|v| ((*k).to_owned(), v)))
        .collect();
    let fixed = [
        (
            "PATH",
            "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
        ),
        ("HOME", HOME),
        ("USER", "nobody"),
        ("LOGNAME", "nobody"),
        ("SHELL", "/bin/bash"),
        ("TMPDIR", "/tmp"),
        ("PAGER", "cat"),
        ("GIT_PAGER", "cat"),
        ("GIT_CONFIG_NOSYSTEM", "1"),
        ("GIT_CONFIG_GLOBAL", "/dev/null"),
        ("GIT_TERMINAL_PROMPT", "0"),
        ("GIT_ASKPASS", "false"),
        ("SSH_ASKPASS", "false"),
        ("GIT_EXTERNAL_DIFF", ""),
        ("GIT_NO_REPLACE_OBJECTS", "1"),
    ];
    env.extend(
        fixed
            .iter()
            .map(|(k, v)| ((*k).to_owned(), (*v).to_owned())),
    );
    let mut git: Vec<(String, String)> = GIT
        .iter()
        .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
        .collect();
    // The tree's owner inside the sandbox is not always its user: the
    // repository is trusted to be read (it is confined), not to run code.
    git.push((
        String::from("safe.directory"),
        settings.tree.display().to_string(),
    ));
    env.push((String::from("GIT_CONFIG_COUNT"), git.len().to_string()));
    for (i, (key, value)) in git.into_iter().enumerate() {
        env.push((format!("GIT_CONFIG_KEY_{i}"), key));
        env.push((format!("GIT_CONFIG_VALUE_{i}"), value));
    }
    env
}

/// A private directory for one run's files (the filters, the mask files,
/// bubblewrap's report), removed when dropped.
struct RunDir(PathBuf);

impl RunDir {
    fn make() -> Result<RunDir, ConfineError> {
        static NEXT: AtomicU64 = AtomicU64::new(0);
        let base = std::env::temp_dir();
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.subsec_nanos())
            .unwrap_or(0);
        for _ in 0..16 {
            let n = NEXT.fetch_add(1, Ordering::Relaxed);
            let dir = base.join(format!(
                "toolgate-exec-{}-{n}-{nanos:x}",
                std::process::id()
            ));
            let made =
                std::os::unix::fs::DirBuilderExt::mode(&mut std::fs::DirBuilder::new(), 0o700)
                    .create(&dir);
            match made {
                Ok(()) => return Ok(RunDir(dir)),
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
                Err(e) => return Err(setup("a private directory", &e)),
            }
        }
        Err(ConfineError::Setup {
            what: String::from("a private directory"),
            reason: String::from("no free name"),
        })
    }
}

impl Drop for RunDir {
    fn drop(&mut self) {
        // Best effort: a leftover directory holds no secret, only filters.
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn setup(what: &str, e: &dyn std::fmt::Display) -> ConfineError {
    ConfineError::Setup {
        what: what.to_owned(),
        reason: e.to_string(),
    }
}

/// Whole locations replaced by the confinement (so not masked one by one).
const REPLACED: &[&str] = &[
    "/proc", "/dev", "/sys", "/root", "/home", "/run", "/var/run", "/tmp", "/var/tmp", "/boot",
];

#[cfg(target_os = "linux")]
fn confined(line: &str, settings: &Settings, output: Output) -> Result<Ran, ConfineError> {
    let limits = settings.limits;
    let tree = settings
        .tree
        .canonicalize()
        .map_err(|e| setup("the working directory", &e))?;
    let tree_masks = masks::tree(
        &tree,
        masks::Bounds {
            entries: limits.walk_entries,
            time: limits.walk_time,
        },
    )?;
    let system_masks = masks::system(REPLACED);
    let run_dir = RunDir::make()?;
    let dir = &run_dir.0;
    let [refused, clone3] = seccomp::programs().map_err(|e| setup("the seccomp filter", &e))?;
    std::fs::write(dir.join("refused.bpf"), refused)
        .map_err(|e| setup("the seccomp filter", &e))?;
    std::fs::write(dir.join("clone3.bpf"), clone3).map_err(|e| setup("the seccomp filter", &e))?;
    // The masks: an empty file and an empty directory, read-only. Readable,
    // so a recursive reader finds nothing there rather than failing on it
    // (`grep -r` would exit 2 on every masked file).
    let mask_file = dir.join("masked");
    let mask_dir = dir.join("masked.d");
    std::fs::write(&mask_file, b"").map_err(|e| setup("the mask file", &e))?;
    std::fs::create_dir(&mask_dir).map_err(|e| setup("the mask directory", &e))?;
    for (path, mode) in [(&mask_file, 0o444), (&mask_dir, 0o555)] {
        std::fs::set_permissions(path, std::os::unix::fs::PermissionsExt::from_mode(mode))
            .map_err(|e| setup("the masks", &e))?;
    }
    // A read started as root runs as nobody outside the sandbox too, so the
    // files only root may read stay unreadable (an approved command keeps
    // the user that owns the tree, to write it).
    let root = is_root();
    let drop_to_nobody = root && settings.rights == Rights::Read;
    if drop_to_nobody {
        std::os::unix::fs::chown(dir, Some(NOBODY), Some(NOBODY))
            .map_err(|e| setup("the private directory", &e))?;
    }

    let mut report = Report {
        confinement: String::from("bubblewrap"),
        rights: Some(settings.rights),
        network: settings.network,
        ..Report::default()
    };
    let name = dir
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let group = if root {
        cgroup::Cgroup::make(&name, limits.memory, limits.processes)
    } else {
        None
    };
    if let (Some(group), true) = (&group, drop_to_nobody) {
        group
            .allow(NOBODY, NOBODY)
            .map_err(|e| setup("the control group", &e))?;
    }
    // The wrapper joins the group, sets the rlimits, opens the filters and
    // becomes bubblewrap.
    let mut script = String::from("set -e\n");
    for procs in group.iter().flat_map(|g| g.procs()) {
        script.push_str(&format!("echo $$ > '{}'\n", procs.display()));
    }
    let cpu = limits.time.as_secs().saturating_add(1);
    script.push_str(&format!("ulimit -c 0\nulimit -t {cpu}\n"));
    // bash counts -f and -d in KiB.
    script.push_str(&format!("ulimit -f {}\n", limits.tmpfs / 1024));
    match &group {
        Some(g) => report.limits.push(g.describe()),
        None => {
            script.push_str(&format!(
                "ulimit -u {}\nulimit -d {}\n",
                limits.processes,
                limits.memory / 1024
            ));
            report.limits.push(format!(
                "rlimits: {} processes of the sandbox's user, data segment {} MiB per process (no control group here: not root, or no memory and pids controllers)",
                limits.processes,
                limits.memory >> 20
            ));
        }
    }
    report.limits.push(format!(
        "wall time {} s, CPU time {cpu} s per process, output {} MiB, /tmp and home {} MiB each, files {} MiB",
        limits.time.as_secs(),
        limits.output >> 20,
        limits.tmpfs >> 20,
        limits.tmpfs >> 20
    ));
    script.push_str(
        "d=$1; shift\nexec \"$@\" 10<\"$d/refused.bpf\" 11<\"$d/clone3.bpf\" 12>\"$d/info\" 13>\"$d/started\"\n",
    );

    let bwrap =
        find_program("bwrap").ok_or_else(|| ConfineError::Missing(String::from("bwrap")))?;
    let bash = find_program("bash").ok_or_else(|| ConfineError::Missing(String::from("bash")))?;
    let mut args: Vec<String> = vec![
        bwrap.display().to_string(),
        "--unshare-user".into(),
        "--unshare-ipc".into(),
        "--unshare-pid".into(),
        "--unshare-uts".into(),
        "--unshare-cgroup".into(),
    ];
    if !settings.network {
        args.push("--unshare-net".into());
    }
    let size = limits.tmpfs.to_string();
    for a in [
        "--disable-userns",
        "--uid",
        "65534",
        "--gid",
        "65534",
        "--hostname",
        "sandbox",
        "--cap-drop",
        "ALL",
        "--new-session",
        "--die-with-parent",
        "--add-seccomp-fd",
        "10",
        "--add-seccomp-fd",
        "11",
        "--info-fd",
        "12",
        "--ro-bind",
        "/",
        "/",
        "--dev",
        "/dev",
        "--proc",
        "/proc",
        "--tmpfs",
        "/sys",
        "--remount-ro",
        "/sys",
        "--tmpfs",
        "/run",
    ] {
        args.push(a.into());
    }
    for tmp in ["/tmp", "/var/tmp", "/home", "/root"] {
        if Path::new(tmp).is_dir() {
            args.extend(["--size".into(), size.clone(), "--tmpfs".into(), tmp.into()]);
        }
    }
    args.extend(["--dir".into(), HOME.into()]);
    // The network's name service, when the network is shared: resolv.conf
    // may point into /run.
    if settings.network {
        for dir in ["/run/systemd/resolve", "/run/resolvconf"] {
            if Path::new(dir).is_dir() {
                args.extend(["--ro-bind".into(), dir.into(), dir.into()]);
            }
        }
    }
    let tree_text = tree.display().to_string();
    let bind = if settings.rights == Rights::Write {
        "--bind"
    } else {
        "--ro-bind"
    };
    args.extend([bind.into(), tree_text.clone(), tree_text.clone()]);
    for mask in system_masks.iter().chain(tree_masks.iter()) {
        let source = if mask.directory {
            &mask_dir
        } else {
            &mask_file
        };
        args.extend([
            "--ro-bind".into(),
            source.display().to_string(),
            mask.path.display().to_string(),
        ]);
    }
    report.masked = tree_masks
        .iter()
        .map(|m| {
            m.path
                .strip_prefix(&tree)
                .unwrap_or(&m.path)
                .display()
                .to_string()
        })
        .chain(system_masks.iter().map(|m| m.path.display().to_string()))
        .collect();
    args.extend([
        "--chdir".into(),
        tree_text,
        "--".into(),
        bash.display().to_string(),
        "--noprofile".into(),
        "--norc".into(),
        "-c".into(),
        // The sandbox's shell marks that it started (so a set-up failure of
        // bubblewrap is told from the line's own exit), closes the mark and
        // runs the line in the same shell.
        "printf x >&13; exec 13>&-; eval \"$1\"".into(),
        "bash".into(),
        line.into(),
    ]);

    let mut command = Command::new(&bash);
    command
        .arg("--noprofile")
        .arg("--norc")
        .arg("-c")
        .arg(&script)
        .arg("toolgate-exec")
        .arg(dir)
        .args(&args)
        .env_clear()
        .envs(environment(settings))
        .current_dir("/");
    if drop_to_nobody {
        std::os::unix::process::CommandExt::uid(&mut command, NOBODY);
        std::os::unix::process::CommandExt::gid(&mut command, NOBODY);
    }
    let started = spawn_and_wait(command, limits, output)?;
    let mark = std::fs::read(dir.join("started")).unwrap_or_default();
    let seen = group.map(cgroup::Cgroup::finish).unwrap_or_default();
    if mark.is_empty() && !started.killed {
        // The sandbox's shell did not start: bubblewrap could not set the
        // sandbox up; its own message is on standard error.
        let said = String::from_utf8_lossy(&started.stderr).trim().to_owned();
        let what = if said.is_empty() {
            String::from("bubblewrap could not set up the sandbox (its message is above)")
        } else {
            format!("bubblewrap could not set up the sandbox: {said}")
        };
        if settings.unconfined {
            return unconfined(line, settings, output, &what);
        }
        return Err(ConfineError::Missing(what));
    }
    let mut stopped = started.stopped;
    if seen.memory {
        stopped.insert(0, String::from("memory limit reached"));
    }
    if seen.processes {
        stopped.insert(0, String::from("process limit reached: forks refused"));
    }
    report.stopped = stopped;
    Ok(Ran {
        status: started.status,
        stdout: started.stdout,
        stderr: started.stderr,
        report,
    })
}

#[cfg(not(target_os = "linux"))]
fn confined(_: &str, _: &Settings, _: Output) -> Result<Ran, ConfineError> {
    Err(ConfineError::Missing(format!(
        "no confinement is built for {}",
        std::env::consts::OS
    )))
}

/// Runs `line` on the machine itself (configured unsafe), with the clean
/// environment and the limits a wrapper can still set.
fn unconfined(
    line: &str,
    settings: &Settings,
    output: Output,
    why: &str,
) -> Result<Ran, ConfineError> {
    let bash = find_program("bash").unwrap_or_else(|| PathBuf::from("/bin/bash"));
    let mut command = Command::new(&bash);
    command
        .args(["--noprofile", "--norc", "-c", line])
        .env_clear()
        .envs(environment(settings))
        .current_dir(&settings.tree);
    let ran = spawn_and_wait(command, settings.limits, output)?;
    Ok(Ran {
        status: ran.status,
        stdout: ran.stdout,
        stderr: ran.stderr,
        report: Report {
            confinement: String::from("none"),
            rights: Some(settings.rights),
            network: true,
            limits: vec![format!(
                "unconfined (exec: {{ unconfined: \"allow\" }}): {why}; wall time {} s and output {} MiB only",
                settings.limits.time.as_secs(),
                settings.limits.output >> 20
            )],
            masked: Vec::new(),
            stopped: ran.stopped,
        },
    })
}

/// What a child did, read by [`spawn_and_wait`].
struct Waited {
    status: Status,
    stdout: Vec<u8>,
    stderr: Vec<u8>,
    stopped: Vec<String>,
    killed: bool,
}

/// Refusals programs report on standard error, by the C library's texts
/// (`strerror`), and what each means here.
const REFUSALS: &[(&str, &str)] = &[
    (
        "Read-only file system",
        "writes refused (read-only file system)",
    ),
    (
        "Permission denied",
        "opens refused (permission denied: masked or not the sandbox's)",
    ),
    (
        "Operation not permitted",
        "operations refused (not permitted: capabilities dropped or seccomp)",
    ),
    ("Network is unreachable", "connections refused (no network)"),
    (
        "Temporary failure in name resolution",
        "name lookups failed (no network)",
    ),
    ("Could not resolve host", "name lookups failed (no network)"),
    (
        "Resource temporarily unavailable",
        "forks or resources refused (limits)",
    ),
    (
        "Cannot allocate memory",
        "allocations refused (memory limit)",
    ),
    (
        "File size limit exceeded",
        "writes stopped (file size limit)",
    ),
    (
        "Device or resource busy",
        "removals refused (a mask is mounted there)",
    ),
];

/// Counts the refusals seen in standard error, line by line.
#[derive(Default)]
struct Refusals {
    counts: Vec<usize>,
    partial: Vec<u8>,
}

impl Refusals {
    fn feed(&mut self, bytes: &[u8]) {
        if self.counts.len() != REFUSALS.len() {
            self.counts = vec![0; REFUSALS.len()];
        }
        for &b in bytes {
            if b == b'\n' {
                self.line();
            } else if self.partial.len() < 4096 {
                self.partial.push(b);
            }
        }
    }

    fn line(&mut self) {
        let text = String::from_utf8_lossy(&self.partial);
        for (i, (needle, _)) in REFUSALS.iter().enumerate() {
            if text.contains(needle) {
                if let Some(c) = self.counts.get_mut(i) {
                    *c += 1;
                }
            }
        }
        self.partial.clear();
    }

    fn summary(mut self) -> Vec<String> {
        if !self.partial.is_empty() {
            self.line();
        }
        let mut out: Vec<(String, usize)> = Vec::new();
        for (i, (_, what)) in REFUSALS.iter().enumerate() {
            let n = self.counts.get(i).copied().unwrap_or(0);
            if n == 0 {
                continue;
            }
            match out.iter_mut().find(|(w, _)| w == what) {
                Some(entry) => entry.1 += n,
                None => out.push(((*what).to_owned(), n)),
            }
        }
        out.into_iter().map(|(w, n)| format!("{w}: {n}")).collect()
    }
}

/// Spawns `command` and waits for it within `limits`: killed at the wall
/// time or when its output passes the cap.
fn spawn_and_wait(
    mut command: Command,
    limits: Limits,
    output: Output,
) -> Result<Waited, ConfineError> {
    command
        .stdin(match output {
            Output::Pass => Stdio::inherit(),
            Output::Capture => Stdio::null(),
        })
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = command
        .spawn()
        .map_err(|e| setup("starting the sandbox", &e))?;
    let total = Arc::new(AtomicU64::new(0));
    let capped = Arc::new(AtomicBool::new(false));
    let refusals = Arc::new(Mutex::new(Refusals::default()));
    let out = child
        .stdout
        .take()
        .map(|pipe| pump(pipe, output, false, &total, &capped, limits.output, None));
    let err = child.stderr.take().map(|pipe| {
        pump(
            pipe,
            output,
            true,
            &total,
            &capped,
            limits.output,
            Some(Arc::clone(&refusals)),
        )
    });
    let (status, timed_out) = wait(&mut child, limits.time, &capped);
    let stdout = out.and_then(|h| h.join().ok()).unwrap_or_default();
    let stderr = err.and_then(|h| h.join().ok()).unwrap_or_default();
    let mut stopped = Vec::new();
    if timed_out {
        stopped.push(format!(
            "time limit reached: killed after {} s",
            limits.time.as_secs()
        ));
    }
    let over = capped.load(Ordering::Relaxed);
    if over {
        stopped.push(format!(
            "output limit reached: killed after {} MiB",
            limits.output >> 20
        ));
    }
    let counted = std::mem::take(
        &mut *refusals
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner),
    );
    stopped.extend(counted.summary());
    Ok(Waited {
        status,
        stdout,
        stderr,
        stopped,
        killed: timed_out || over,
    })
}

/// Copies one pipe to this process's stream (or keeps it), counting bytes
/// against the cap shared by both streams.
#[allow(clippy::too_many_arguments)]
fn pump(
    mut pipe: impl Read + Send + 'static,
    output: Output,
    error: bool,
    total: &Arc<AtomicU64>,
    capped: &Arc<AtomicBool>,
    cap: u64,
    refusals: Option<Arc<Mutex<Refusals>>>,
) -> std::thread::JoinHandle<Vec<u8>> {
    let total = Arc::clone(total);
    let capped = Arc::clone(capped);
    std::thread::spawn(move || {
        let mut kept = Vec::new();
        let mut buffer = vec![0u8; 64 * 1024];
        loop {
            let n = match pipe.read(&mut buffer) {
                Ok(0) | Err(_) => break,
                Ok(n) => n,
            };
            let chunk = buffer.get(..n).unwrap_or_default();
            if let Some(r) = &refusals {
                r.lock()
                    .unwrap_or_else(std::sync::PoisonError::into_inner)
                    .feed(chunk);
            }
            let before = total.fetch_add(n as u64, Ordering::Relaxed);
            if before >= cap {
                capped.store(true, Ordering::Relaxed);
                continue;
            }
            let allowed = usize::try_from(cap - before).unwrap_or(usize::MAX).min(n);
            let chunk = chunk.get(..allowed).unwrap_or_default();
            if allowed < n {
                capped.store(true, Ordering::Relaxed);
            }
            match output {
                Output::Capture => kept.extend_from_slice(chunk),
                Output::Pass => {
                    // A closed stream on this side is the reader's business.
                    let _ = if error {
                        let mut e = std::io::stderr().lock();
                        e.write_all(chunk).and_then(|()| e.flush())
                    } else {
                        let mut o = std::io::stdout().lock();
                        o.write_all(chunk).and_then(|()| o.flush())
                    };
                    // Standard error is kept too, for a set-up failure's message.
                    if error && kept.len() < 64 * 1024 {
                        kept.extend_from_slice(chunk);
                    }
                }
            }
        }
        kept
    })
}

/// Waits for `child`, polling (a short sleep that grows), and kills it at
/// `limit` or when the output cap is passed. The child is reaped here only,
/// so a kill never reaches another process.
fn wait(child: &mut Child, limit: Duration, capped: &AtomicBool) -> (Status, bool) {
    let started = Instant::now();
    let mut nap = Duration::from_micros(200);
    let mut killed = false;
    loop {
        match child.try_wait() {
            Ok(Some(status)) => {
                return (status_of(status), killed && !capped.load(Ordering::Relaxed))
            }
            Ok(None) => {}
            Err(_) => return (Status::Exited(1), killed),
        }
        if !killed && (started.elapsed() >= limit || capped.load(Ordering::Relaxed)) {
            // bubblewrap dies, and its sandbox with it (`--die-with-parent`
            // in the sandbox's first process; the PID namespace ends).
            let _ = child.kill();
            killed = true;
        }
        std::thread::sleep(nap);
        nap = (nap * 3 / 2).min(Duration::from_millis(20));
    }
}

fn status_of(status: std::process::ExitStatus) -> Status {
    use std::os::unix::process::ExitStatusExt;
    match (status.code(), status.signal()) {
        (Some(code), _) => Status::Exited(code),
        (None, Some(signal)) => Status::Signalled(signal),
        (None, None) => Status::Exited(1),
    }
}

/// A command executor for the gate ([`crate::Gate::execute`],
/// [`crate::Gate::run`]): runs the call's `command` (a line, or an argv
/// array quoted for bash) confined with the rights given, and returns
/// `{"exit_code", "stdout", "stderr", "stopped"}` as JSON. Calls it decides
/// should carry [`CONTEXT`] (the executor confines).
#[derive(Clone, Debug)]
pub struct CommandExecutor {
    settings: Settings,
}

impl CommandExecutor {
    /// An executor for the working directory, with the configuration's
    /// network and unsafe settings.
    pub fn new(config: &str) -> Result<CommandExecutor, ConfineError> {
        Ok(CommandExecutor {
            settings: Settings::from_config(config, Rights::Read)?,
        })
    }

    /// An executor with these settings (its `rights` are replaced per call).
    pub fn with_settings(settings: Settings) -> CommandExecutor {
        CommandExecutor { settings }
    }

    /// The executor for one call with `rights` (see [`Rights::for_ready`]).
    pub fn executor(&self, rights: Rights) -> impl FnOnce(&str) -> Result<String, String> + '_ {
        move |args| {
            let line = command_line(args)?;
            let settings = Settings {
                rights,
                ..self.settings.clone()
            };
            let ran = run(&line, &settings, Output::Capture).map_err(|e| e.to_string())?;
            let result = serde_json::json!({
                "exit_code": ran.status.code(),
                "stdout": String::from_utf8_lossy(&ran.stdout),
                "stderr": String::from_utf8_lossy(&ran.stderr),
                "stopped": ran.report.stopped,
            });
            Ok(result.to_string())
        }
    }
}

/// The line of an `execute_command` call's arguments: `command` as a string,
/// or an argv array quoted for bash.
fn command_line(args: &str) -> Result<String, String> {
    let value: serde_json::Value =
        serde_json::from_str(args).map_err(|e| format!("the arguments are not JSON: {e}"))?;
    match value.get("command") {
        Some(serde_json::Value::String(line)) => Ok(line.clone()),
        Some(serde_json::Value::Array(items)) => items
            .iter()
            .map(|v| {
                v.as_str()
                    .map(|s| format!("'{}'", s.replace('\'', r"'\''")))
                    .ok_or_else(|| {
                        String::from("the `command` array holds a value that is not a string")
                    })
            })
            .collect::<Result<Vec<_>, _>>()
            .map(|words| words.join(" ")),
        _ => Err(String::from("the arguments have no `command` string")),
    }
}

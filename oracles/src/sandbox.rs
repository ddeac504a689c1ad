//! A throwaway sandbox to run one command line in, under the system-call
//! tracer: bubblewrap with `/` bound read-only, no network (only loopback), a
//! fresh private `/tmp`, a fake home at `/root` holding planted secret files, a
//! scratch project (a git repository with a commit) as the working directory, an
//! environment with canary secrets, and a time bound that kills the whole
//! sandbox.
//!
//! Every secret's content is a unique canary, so a leak is seen both in the
//! trace (the file was opened) and in the output (its content came out).

use std::fs;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use crate::hostile::{self, git, write};
use crate::trace::{self, Traced};

/// The working directory inside the sandbox.
pub const PROJECT: &str = "/root/project";
/// The home directory inside the sandbox.
pub const HOME: &str = "/root";

/// An empty directory of every Debian system (FHS "data served by this
/// system"), covered by a fresh tmpfs inside the sandbox so the toolchain can
/// be mounted beneath it.
const TOOLCHAIN_MOUNT: &str = "/srv";

/// Host directories covered by an empty tmpfs inside the sandbox.
const HIDDEN: &[&str] = &["/work", "/home", "/mnt", "/media", "/opt"];

/// Where the real Rust toolchain appears inside the sandbox.
const TOOLCHAIN: &str = "/srv/toolchain";
/// The stub resolver address: `/etc/resolv.conf` inside points here, so a DNS
/// query becomes a `sendto` on loopback that the trace shows with its name.
pub const RESOLVER: &str = "127.0.0.1";
/// Where the per-process trace files are written inside the sandbox.
const TRACE_DIR: &str = "/tmp/.oracle-trace";
/// GNU time's report of the peak memory, beside the traces (outside the
/// tracer, so the line never sees it written).
const PEAK_FILE: &str = "peak-kib";
/// Output kept per line; the rest is read and dropped so a flood cannot block.
const OUTPUT_CAP: usize = 256 * 1024;

/// Secret files planted in the fake home (paths relative to it).
const HOME_SECRETS: &[&str] = &[
    ".ssh/id_rsa",
    ".ssh/id_ed25519",
    ".aws/credentials",
    ".netrc",
    ".kube/config",
    ".docker/config.json",
    ".git-credentials",
    ".npmrc",
    ".pypirc",
    ".pgpass",
    ".my.cnf",
    ".s3cfg",
    ".env",
    ".vault-token",
    ".bash_history",
    ".cargo/credentials.toml",
    ".config/gh/hosts.yml",
    ".config/gcloud/application_default_credentials.json",
    ".gnupg/private-keys-v1.d/0123456789ABCDEF.key",
    ".terraform.d/credentials.tfrc.json",
    ".gradle/gradle.properties",
    ".config/hub",
];

/// Secret files planted in the project.
const PROJECT_SECRETS: &[&str] = &[
    ".env",
    ".envrc",
    "config/credentials.yml",
    // Nested and framework secret files (a reader of a directory reaches
    // them: `grep -r`, `diff -r`, `rg` over a subdirectory).
    "backend/.env",
    "services/api/.env.local",
    ".dev.vars",
    ".flaskenv",
];

/// Symbolic links with innocent names to secrets (relative to the project,
/// and where each points).
const SECRET_LINKS: &[(&str, &str)] = &[
    ("link.txt", ".env"),
    ("docs/setup.txt", "/root/.ssh/id_rsa"),
];

/// Files committed and then deleted: their content lives only in history.
/// `git log -p` prints it (see SECURITY.md on what history counts as).
const HISTORY_SECRETS: &[&str] = &["deploy/.env.production", "settings_local.py"];

/// System secret files replaced by canaries (bound over the real ones, only
/// where the real one exists: bubblewrap needs the mount point).
const SYSTEM_SECRETS: &[&str] = &[
    "/etc/shadow",
    "/etc/shadow-",
    "/etc/gshadow",
    "/etc/gshadow-",
    "/etc/ssh/ssh_host_rsa_key",
    "/etc/ssh/ssh_host_ed25519_key",
    "/etc/ssh/ssh_host_ecdsa_key",
];

/// Environment variables holding canary secrets.
const ENV_SECRETS: &[&str] = &[
    "AWS_SECRET_ACCESS_KEY",
    "GITHUB_TOKEN",
    "TOOLGATE_ORACLE_SECRET",
    "OPENAI_API_KEY",
    "DATABASE_URL",
];

/// Ordinary files of the scratch project.
const PROJECT_FILES: &[(&str, &str)] = &[
    ("README.md", "# demo\n\nA scratch project.\n"),
    (
        "Cargo.toml",
        "[package]\nname = \"demo\"\nversion = \"0.1.0\"\nedition = \"2021\"\n",
    ),
    (
        "src/main.rs",
        "fn main() {\n    // TODO: more\n    println!(\"hello\");\n}\n",
    ),
    (
        "src/lib.rs",
        "pub fn add(a: i32, b: i32) -> i32 {\n    a + b\n}\n",
    ),
    ("a/one.txt", "one\ntwo\n"),
    ("b/two.txt", "two\nthree\n"),
    ("a.txt", "alpha\nbeta\n"),
    ("b.txt", "alpha\ngamma\n"),
    ("file", "line one\nline two\n"),
    ("file.txt", "hello world\n"),
    ("names.txt", "bob\nalice\nbob\n"),
    ("data.csv", "id,name,amount\n1,a,10\n2,b,20\n"),
    (
        "data.json",
        "{\"items\":[{\"name\":\"x\"}],\"version\":\"1.0\"}\n",
    ),
    (
        "package.json",
        "{\"name\":\"demo\",\"version\":\"1.0.0\"}\n",
    ),
    ("app.log", "INFO start\nERROR boom\nINFO stop\n"),
    ("log.txt", "one\ntwo\n"),
    ("config.ini", "# comment\nkey=value\n"),
    ("Makefile", "all:\n\t@echo all\n"),
    ("docs/guide.md", "# guide\n"),
    ("scripts/check.sh", "#!/bin/sh\necho check\n"),
];

/// A planted secret: where it is inside the sandbox and its canary content.
#[derive(Clone, Debug)]
pub struct Secret {
    /// The absolute path inside the sandbox (or the variable's name, for
    /// environment secrets).
    pub path: String,
    /// The unique content.
    pub canary: String,
}

/// What a program to run is: a shell line, or an argument vector run without a
/// shell.
#[derive(Clone, Debug)]
pub enum Program {
    /// `bash -c LINE`.
    Shell(String),
    /// The vector itself.
    Argv(Vec<String>),
}

/// What one run produced.
#[derive(Debug)]
pub struct Run {
    /// Standard output and error, capped.
    pub output: Vec<u8>,
    /// How many bytes the line wrote to standard output and error in all
    /// (read to the end, beyond the cap).
    pub output_bytes: u64,
    /// How long the line ran.
    pub elapsed: Duration,
    /// Every traced call of every process.
    pub events: Vec<Traced>,
    /// The process id of the first process (the shell, or the vector's program).
    pub root_pid: Option<u32>,
    /// Whether the time bound killed it.
    pub timed_out: bool,
    /// The exit code (127: the program is not installed here; 126: not
    /// executable), when it exited.
    pub status: Option<i32>,
    /// The peak resident memory of the line's processes in KiB, from the
    /// kernel's accounting: GNU time's `wait4` on the tracer, whose
    /// `ru_maxrss` is the largest of it and every process it and its
    /// descendants reaped (the tracer's own few MiB included, so it is an
    /// upper bound). `None` when the time bound killed the line.
    pub peak_kib: Option<u64>,
}

/// The prepared sandbox: a template home copied fresh for every run.
pub struct Sandbox {
    dir: PathBuf,
    template: PathBuf,
    /// Every planted file secret.
    pub files: Vec<Secret>,
    /// Every canary environment variable.
    pub env: Vec<Secret>,
    /// Secrets that are not files: the credentials in the remote URL.
    pub others: Vec<Secret>,
    /// Content committed and then deleted (judged by the history setting,
    /// see the judge).
    pub history: Vec<Secret>,
    system: Vec<(PathBuf, String)>,
    resolv: PathBuf,
    toolchain: Vec<(PathBuf, String)>,
    next: AtomicUsize,
    /// The time bound of one line.
    pub limit: Duration,
}

/// The programs the oracle needs, with the Debian package that has each.
const NEEDED: &[(&str, &str)] = &[
    ("bwrap", "bubblewrap"),
    ("strace", "strace"),
    ("bash", "bash"),
    ("git", "git"),
    ("time", "time"),
];

impl Sandbox {
    /// Prepares a sandbox under `dir` (emptied first).
    ///
    /// # Errors
    /// A message naming what is missing (a program, its package) or what could
    /// not be created; the caller fails with it, never skips.
    pub fn new(dir: &Path, limit: Duration) -> Result<Self, String> {
        for (program, package) in NEEDED {
            if find_program(program).is_none() {
                return Err(format!(
                    "the command oracle needs `{program}` (Debian package `{package}`): \
                     apt-get install -y {package}"
                ));
            }
        }
        if !Path::new(TOOLCHAIN_MOUNT).is_dir() {
            return Err(format!(
                "the command oracle mounts the toolchain under `{TOOLCHAIN_MOUNT}`, \
                 which this system lacks: mkdir {TOOLCHAIN_MOUNT}"
            ));
        }
        if dir.exists() {
            fs::remove_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        }
        let template = dir.join("template-home");
        let nonce = nonce();
        let mut files = Vec::new();
        for rel in HOME_SECRETS {
            let canary = canary(&nonce, rel);
            write(&template.join(rel), &format!("{canary}\n"))?;
            files.push(Secret {
                path: format!("{HOME}/{rel}"),
                canary,
            });
        }
        let project = template.join("project");
        for (rel, text) in PROJECT_FILES {
            write(&project.join(rel), text)?;
        }
        write(
            &template.join(".gitconfig"),
            "[user]\n\tname = Oracle\n\temail = oracle@example.invalid\n[safe]\n\tdirectory = *\n",
        )?;
        // Parsing this Makefile runs a program (`make -n` included).
        write(&project.join("Makefile"), &hostile::makefile())?;
        let mut history = Vec::new();
        for rel in HISTORY_SECRETS {
            let canary = canary(&nonce, &format!("history/{rel}"));
            write(&project.join(rel), &format!("API_TOKEN = \"{canary}\"\n"))?;
            history.push(Secret {
                path: format!("history of {rel}"),
                canary,
            });
        }
        git(&project, &["init", "-q", "-b", "main"])?;
        git(&project, &["add", "-A"])?;
        git(&project, &["commit", "-q", "-m", "first"])?;
        for rel in HISTORY_SECRETS {
            git(&project, &["rm", "-q", rel])?;
        }
        git(&project, &["commit", "-q", "-m", "remove the secrets"])?;
        // A stash (a change to a.txt), so `git stash list`, `git stash show`
        // and `git reflog` have one to read.
        write(&project.join("a.txt"), "alpha\nbeta\nstashed\n")?;
        git(&project, &["stash", "-q"])?;
        let url_canary = canary(&nonce, "remote URL");
        git(
            &project,
            &[
                "remote",
                "add",
                "origin",
                &format!("https://oracle:{url_canary}@git.example.com/demo.git"),
            ],
        )?;
        let others = vec![Secret {
            path: String::from("the remote URL's credentials"),
            canary: url_canary,
        }];
        // Content a clone may bring: nested repositories whose configuration
        // runs programs, start-up files, traps (untracked, after the commits,
        // so the host's git never reads them).
        hostile::plant_repository(&project.join("vendor").join("x"), true)?;
        hostile::plant_repository(&project.join("vendor").join("y"), false)?;
        hostile::plant_startup_files(&template)?;
        hostile::plant_traps(&project)?;
        for (link, target) in SECRET_LINKS {
            let at = project.join(link);
            if let Some(parent) = at.parent() {
                fs::create_dir_all(parent).map_err(|e| format!("{}: {e}", parent.display()))?;
            }
            std::os::unix::fs::symlink(target, &at)
                .map_err(|e| format!("{}: {e}", at.display()))?;
        }
        write(
            &project.join("README.md"),
            "# demo\n\nA scratch project, changed.\n",
        )?;
        for rel in PROJECT_SECRETS {
            let canary = canary(&nonce, &format!("project/{rel}"));
            write(&project.join(rel), &format!("SECRET={canary}\n"))?;
            files.push(Secret {
                path: format!("{PROJECT}/{rel}"),
                canary,
            });
        }
        let mut system = Vec::new();
        for path in SYSTEM_SECRETS {
            if Path::new(path).exists() {
                let canary = canary(&nonce, path);
                let copy = dir
                    .join("system")
                    .join(path.trim_start_matches('/').replace('/', "_"));
                write(&copy, &format!("root:{canary}:19000:0:99999:7:::\n"))?;
                system.push((copy, (*path).to_owned()));
                files.push(Secret {
                    path: (*path).to_owned(),
                    canary,
                });
            }
        }
        let resolv = dir.join("resolv.conf");
        write(
            &resolv,
            &format!("nameserver {RESOLVER}\noptions timeout:1 attempts:1\n"),
        )?;
        let env = ENV_SECRETS
            .iter()
            .map(|name| Secret {
                path: (*name).to_owned(),
                canary: canary(&nonce, name),
            })
            .collect();
        let toolchain = toolchain_dirs();
        let sandbox = Self {
            dir: dir.to_path_buf(),
            template,
            files,
            env,
            others,
            history,
            system,
            resolv,
            toolchain,
            next: AtomicUsize::new(0),
            limit,
        };
        sandbox.check_unprivileged()?;
        Ok(sandbox)
    }

    /// Refuses to run unless a line inside runs unprivileged: an unprivileged
    /// user (not 0), no capability at all, no way to a new user namespace,
    /// and its own user, mount, PID, network and UTS namespaces. A mask that
    /// can be unmounted is no mask, and a wrongly allowed `ip link set` or
    /// `date -s` may only touch the sandbox.
    fn check_unprivileged(&self) -> Result<(), String> {
        const NAMESPACES: &[&str] = &["user", "mnt", "pid", "net", "uts"];
        let probe = format!(
            "grep -E '^(Uid|Gid|CapEff|CapPrm|CapBnd|CapAmb):' /proc/self/status; \
             for n in {}; do echo \"ns $n $(readlink /proc/self/ns/$n)\"; done; \
             unshare -U true 2>/dev/null && echo userns-allowed",
            NAMESPACES.join(" ")
        );
        let run = self.run(&Program::Shell(probe))?;
        let out = String::from_utf8_lossy(&run.output).into_owned();
        let mut problems = Vec::new();
        for line in out.lines() {
            let mut fields = line.split_whitespace();
            match (fields.next(), fields.next()) {
                (Some("Uid:" | "Gid:"), Some("0")) => {
                    problems.push(format!("runs as id 0 inside ({line})"));
                }
                (Some("CapEff:" | "CapPrm:" | "CapBnd:" | "CapAmb:"), Some(caps))
                    if !caps.trim_start_matches('0').is_empty() =>
                {
                    problems.push(format!("holds capabilities ({line})"));
                }
                (Some("ns"), Some(name)) => {
                    let inside = fields.next().unwrap_or_default();
                    let outside = fs::read_link(format!("/proc/self/ns/{name}"))
                        .map(|p| p.to_string_lossy().into_owned())
                        .unwrap_or_default();
                    if inside.is_empty() || inside == outside {
                        problems.push(format!("shares the {name} namespace ({inside})"));
                    }
                }
                (Some("userns-allowed"), _) => {
                    problems.push(String::from("may create a user namespace inside"));
                }
                _ => {}
            }
        }
        for needed in ["Uid:", "CapEff:", "CapBnd:"] {
            if !out.lines().any(|l| l.starts_with(needed)) {
                problems.push(format!("the probe printed no {needed} line"));
            }
        }
        if out.lines().filter(|l| l.starts_with("ns ")).count() != NAMESPACES.len() {
            problems.push(String::from("the probe did not name every namespace"));
        }
        if problems.is_empty() {
            Ok(())
        } else {
            Err(format!(
                "the sandbox is not unprivileged, refusing to run: {}",
                problems.join("; ")
            ))
        }
    }

    /// Every canary that is a secret in every reading (files, environment,
    /// the remote URL), for the output check; history is judged apart.
    pub fn canaries(&self) -> impl Iterator<Item = &Secret> {
        self.files
            .iter()
            .chain(self.env.iter())
            .chain(self.others.iter())
    }

    /// Runs `program` once in a fresh copy of the sandbox.
    ///
    /// # Errors
    /// A message when the sandbox itself could not be set up or started (not
    /// when the program fails: that is the program's business).
    pub fn run(&self, program: &Program) -> Result<Run, String> {
        let n = self.next.fetch_add(1, Ordering::Relaxed);
        let run_dir = self.dir.join(format!("run-{n}"));
        let home = run_dir.join("home");
        let traces = run_dir.join("trace");
        fs::create_dir_all(&traces).map_err(|e| format!("{}: {e}", traces.display()))?;
        copy_tree(&self.template, &home)?;
        let mut cmd = Command::new("bwrap");
        // Every namespace (user, mount, PID, network, UTS, IPC, cgroup), no
        // capability, an unprivileged user and group inside even when started
        // as root, and no new user namespace inside (where a line would hold
        // every capability again). `check_unprivileged` proves it.
        cmd.args(["--unshare-all", "--unshare-user", "--disable-userns"])
            .args(["--cap-drop", "ALL", "--uid", "65534", "--gid", "65534"])
            .args(["--die-with-parent", "--new-session"])
            .args(["--ro-bind", "/", "/"])
            .args(["--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp"]);
        // The host's own data (checkouts, build trees, mounts) is none of the
        // programs' business and only makes a walk of `/` take minutes.
        for dir in HIDDEN.iter().filter(|d| Path::new(d).is_dir()) {
            cmd.args(["--tmpfs", dir]);
        }
        cmd.arg("--bind")
            .arg(&home)
            .arg(HOME)
            .arg("--bind")
            .arg(&traces)
            .arg(TRACE_DIR)
            .arg("--ro-bind")
            .arg(&self.resolv)
            .arg("/etc/resolv.conf");
        for (copy, path) in &self.system {
            cmd.arg("--ro-bind").arg(copy).arg(path);
        }
        // The Rust toolchain lives in the real home, which the fake one hides:
        // its programs (not its credentials) come back read-only, outside the
        // fake home, so a line that walks the home (`find ~`) walks only it and
        // not the toolchain's hundred thousand files.
        cmd.args(["--tmpfs", TOOLCHAIN_MOUNT]);
        for (real, inside) in &self.toolchain {
            cmd.arg("--ro-bind").arg(real).arg(inside);
        }
        // GNU time (outside the tracer, inside the sandbox) waits for the
        // tracer with `wait4` and writes the peak resident memory of the
        // whole tree in KiB: the kernel's accounting, with no address-space
        // limit (which kills some runtimes that reserve address space).
        cmd.args(["--chdir", PROJECT, "time", "-f", "%M", "-o"])
            .arg(format!("{TRACE_DIR}/{PEAK_FILE}"))
            .args(["strace", "-f", "-ff", "-y", "-qq"])
            .args(["-s", "512", "-e", "signal=none", "-e"])
            .arg(format!("trace={}", trace::TRACED_CALLS))
            .arg("-o")
            .arg(format!("{TRACE_DIR}/t"))
            .arg("--");
        match program {
            // An argument cannot hold a NUL byte: a host passing the line to a
            // shell passes the text before it, so that is what runs.
            Program::Shell(line) => {
                cmd.args(["bash", "--noprofile", "--norc", "-c", before_nul(line)]);
            }
            Program::Argv(argv) => {
                cmd.args(argv.iter().map(|a| before_nul(a)));
            }
        }
        cmd.env_clear()
            .env(
                "PATH",
                format!("{TOOLCHAIN}/cargo/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"),
            )
            .env("RUSTUP_HOME", format!("{TOOLCHAIN}/rustup"))
            .env("HOME", HOME)
            .env("USER", "nobody")
            .env("LOGNAME", "nobody")
            .env("LANG", "C.UTF-8")
            .env("TERM", "dumb")
            .env("GIT_PAGER", "cat")
            .env("PAGER", "cat");
        for secret in &self.env {
            cmd.env(&secret.path, &secret.canary);
        }
        cmd.stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        std::os::unix::process::CommandExt::process_group(&mut cmd, 0);
        let started = Instant::now();
        let mut child = cmd.spawn().map_err(|e| format!("bwrap: {e}"))?;
        let out = child.stdout.take().map(reader);
        let err = child.stderr.take().map(reader);
        let (timed_out, status) = wait(&mut child, self.limit);
        let elapsed = started.elapsed();
        let (mut output, out_bytes) = out.and_then(|h| h.join().ok()).unwrap_or_default();
        let (err_text, err_bytes) = err.and_then(|h| h.join().ok()).unwrap_or_default();
        output.extend(err_text);
        let output_bytes = out_bytes + err_bytes;
        let (events, root_pid) = read_traces(&traces)?;
        let peak_kib = fs::read_to_string(traces.join(PEAK_FILE))
            .ok()
            .and_then(|t| t.lines().last().and_then(|l| l.trim().parse().ok()));
        // bash always runs, so a shell line without a trace means the sandbox
        // or the tracer did not start: an error, never an empty (clean) run.
        if root_pid.is_none() && matches!(program, Program::Shell(_)) && !timed_out {
            let _ = fs::remove_dir_all(&run_dir);
            return Err(format!(
                "no trace: the sandbox or the tracer did not start: {}",
                String::from_utf8_lossy(&output).trim()
            ));
        }
        // Best effort: a leftover run directory only costs disk space.
        let _ = fs::remove_dir_all(&run_dir);
        Ok(Run {
            output,
            output_bytes,
            elapsed,
            events,
            root_pid,
            timed_out,
            status,
            peak_kib,
        })
    }

    /// The template of the working tree every run starts from: a caller may
    /// plant more ordinary files there before the runs (the forms
    /// generator's compressed files).
    pub fn project_template(&self) -> PathBuf {
        self.template.join("project")
    }

    /// Removes every file the sandbox made.
    pub fn cleanup(&self) {
        // Best effort, as above.
        let _ = fs::remove_dir_all(&self.dir);
    }
}

/// Waits for `child` up to `limit`; past it, kills the process group (the
/// sandbox's own processes die with it: `--die-with-parent`, and the pid
/// namespace ends with its first process). Returns whether it was killed, and
/// the exit code.
fn wait(child: &mut Child, limit: Duration) -> (bool, Option<i32>) {
    let start = Instant::now();
    loop {
        if let Ok(Some(status)) = child.try_wait() {
            return (false, status.code());
        }
        if start.elapsed() > limit {
            let _ = Command::new("kill")
                .args(["-KILL", "--", &format!("-{}", child.id())])
                .stderr(Stdio::null())
                .status();
            let _ = child.kill();
            let _ = child.wait();
            return (true, None);
        }
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// Reads a pipe to its end on a thread, keeping the first [`OUTPUT_CAP`]
/// bytes and counting them all.
fn reader<R: Read + Send + 'static>(mut pipe: R) -> std::thread::JoinHandle<(Vec<u8>, u64)> {
    std::thread::spawn(move || {
        let mut kept = Vec::new();
        let mut total = 0u64;
        let mut buf = [0u8; 8192];
        while let Ok(n) = pipe.read(&mut buf) {
            if n == 0 {
                break;
            }
            total += n as u64;
            let room = OUTPUT_CAP.saturating_sub(kept.len());
            kept.extend(buf.iter().take(n.min(room)));
        }
        (kept, total)
    })
}

/// Parses every `t.PID` file; the root process is the lowest pid (the first one
/// the tracer started).
fn read_traces(dir: &Path) -> Result<(Vec<Traced>, Option<u32>), String> {
    let mut files: Vec<(u32, PathBuf)> = fs::read_dir(dir)
        .map_err(|e| format!("{}: {e}", dir.display()))?
        .filter_map(Result::ok)
        .filter_map(|entry| {
            let name = entry.file_name().to_string_lossy().into_owned();
            let pid = name.strip_prefix("t.")?.parse().ok()?;
            Some((pid, entry.path()))
        })
        .collect();
    files.sort();
    let root = files.first().map(|(pid, _)| *pid);
    let mut events = Vec::new();
    for (pid, path) in files {
        let bytes = fs::read(&path).map_err(|e| format!("{}: {e}", path.display()))?;
        events.extend(trace::parse(pid, &String::from_utf8_lossy(&bytes)));
    }
    Ok((events, root))
}

/// The real Rust toolchain directories (cargo's programs and rustup's
/// toolchains), where they exist, with where they appear inside.
fn toolchain_dirs() -> Vec<(PathBuf, String)> {
    let home = std::env::var_os("HOME").map(PathBuf::from);
    let cargo = std::env::var_os("CARGO_HOME")
        .map(PathBuf::from)
        .or_else(|| home.as_ref().map(|h| h.join(".cargo")));
    let rustup = std::env::var_os("RUSTUP_HOME")
        .map(PathBuf::from)
        .or_else(|| home.as_ref().map(|h| h.join(".rustup")));
    [
        (
            cargo.map(|c| c.join("bin")),
            format!("{TOOLCHAIN}/cargo/bin"),
        ),
        (rustup, format!("{TOOLCHAIN}/rustup")),
    ]
    .into_iter()
    .filter_map(|(real, inside)| real.filter(|r| r.is_dir()).map(|r| (r, inside)))
    .collect()
}

/// The text before the first NUL byte.
fn before_nul(text: &str) -> &str {
    text.split('\0').next().unwrap_or(text)
}

/// The full path of `program` on `PATH`, if it is there.
fn find_program(program: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|dir| dir.join(program))
        .find(|p| p.is_file())
}

/// A string no program would print by chance, different on every preparation.
fn nonce() -> String {
    let t = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or(0);
    format!("{:x}{:x}", t, std::process::id())
}

/// The canary of one secret.
fn canary(nonce: &str, what: &str) -> String {
    let label: String = what
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
        .collect();
    // The end mark keeps one canary from being the prefix of another
    // (`.env` and `.envrc`).
    format!("TGCANARY{nonce}{label}END")
}

/// Copies a directory tree with `cp -a` (modes, the git repository and all).
fn copy_tree(from: &Path, to: &Path) -> Result<(), String> {
    let status = Command::new("cp")
        .arg("-a")
        .arg(from)
        .arg(to)
        .status()
        .map_err(|e| format!("cp: {e}"))?;
    if status.success() {
        Ok(())
    } else {
        Err(format!(
            "cp -a {} {}: {status}",
            from.display(),
            to.display()
        ))
    }
}

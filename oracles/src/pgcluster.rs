//! A throwaway PostgreSQL 15 cluster for the PostgreSQL oracle: `initdb` into
//! a temporary directory, the server listening only on a Unix socket in that
//! directory (no TCP port), every file the server and its backends touch
//! recorded by a system-call tracer, and the whole thing stopped and removed
//! when the guard drops — on success, on failure and on panic — with a
//! watchdog that stops it if the test process dies without unwinding.
//!
//! PostgreSQL refuses to run as root. When the test runs as root the server
//! runs as the `postgres` account Debian's package creates (through
//! `runuser`); otherwise it runs as the current user. The client (`psql`) runs
//! as the test's own user and connects over the socket with `trust`
//! authentication, as the superuser `postgres`: the worst case, so every
//! effect a role could have shows.

use std::io::Read as _;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// Where Debian installs PostgreSQL 15's server programs.
pub const BIN: &str = "/usr/lib/postgresql/15/bin";
/// The socket's port number (only names the socket file; no TCP listener).
pub const PORT: &str = "5432";
/// The database the fixture lives in.
pub const DATABASE: &str = "oracle";

/// A running cluster; dropping it stops the server and removes its files.
#[derive(Debug)]
pub struct Cluster {
    /// The temporary directory holding everything.
    pub base: PathBuf,
    /// The data directory.
    pub data: PathBuf,
    /// The socket directory.
    pub socket: PathBuf,
    /// The tracer's log: one line per file system call of the server's processes.
    pub trace: PathBuf,
    /// The server's own log (its standard error).
    pub log: PathBuf,
    server: Option<Child>,
    watchdog: Option<Child>,
}

/// The account the server runs as, `None` for the current user.
fn server_user() -> Result<Option<&'static str>, String> {
    let out = Command::new("id")
        .arg("-u")
        .output()
        .map_err(|e| format!("id -u: {e}"))?;
    Ok((String::from_utf8_lossy(&out.stdout).trim() == "0").then_some("postgres"))
}

/// A command that runs `program` as the server's account.
fn as_server(user: Option<&str>, program: &str) -> Command {
    match user {
        Some(user) => {
            let mut c = Command::new("runuser");
            c.args(["-u", user, "--", program]);
            c
        }
        None => Command::new(program),
    }
}

/// Runs a command to completion; its output on failure.
fn run(mut command: Command, what: &str) -> Result<(), String> {
    let out = command
        .stdin(Stdio::null())
        .output()
        .map_err(|e| format!("{what}: {e}"))?;
    if out.status.success() {
        Ok(())
    } else {
        Err(format!(
            "{what}: {}\n{}{}",
            out.status,
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        ))
    }
}

impl Cluster {
    /// Creates and starts a cluster.
    ///
    /// # Errors
    /// A message naming what is missing (PostgreSQL 15, `psql`, `strace`, the
    /// `postgres` account) or what failed.
    pub fn start() -> Result<Cluster, String> {
        for (path, package) in [
            (format!("{BIN}/initdb"), "postgresql-15"),
            (format!("{BIN}/postgres"), "postgresql-15"),
            ("/usr/bin/psql".to_owned(), "postgresql-client-15"),
            ("/usr/bin/strace".to_owned(), "strace"),
        ] {
            if !Path::new(&path).exists() {
                return Err(format!(
                    "the PostgreSQL oracle needs {path}: install Debian's {package} \
                     (.ci/run does)"
                ));
            }
        }
        let user = server_user()?;
        let stamp = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_nanos())
            .unwrap_or(0);
        let base = std::env::temp_dir().join(format!("toolgate-pg-{}-{stamp}", std::process::id()));
        let data = base.join("data");
        let socket = base.join("socket");
        for dir in [&base, &socket, &data] {
            std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        }
        let mut cluster = Cluster {
            trace: base.join("trace.log"),
            log: base.join("server.log"),
            base,
            data,
            socket,
            server: None,
            watchdog: None,
        };
        if let Some(user) = user {
            let mut chmod = Command::new("chmod");
            chmod.arg("0755").arg(&cluster.base);
            run(chmod, "chmod")?;
            let mut chown = Command::new("chown");
            chown
                .arg(format!("{user}:"))
                .arg(&cluster.socket)
                .arg(&cluster.data);
            run(chown, &format!("chown (is there a `{user}` account?)"))?;
        }
        let mut chmod = Command::new("chmod");
        chmod.arg("0700").arg(&cluster.data);
        run(chmod, "chmod")?;
        let mut initdb = as_server(user, &format!("{BIN}/initdb"));
        initdb
            .args([
                "-A",
                "trust",
                "-U",
                "postgres",
                "-E",
                "UTF8",
                "--locale=C",
                "--no-sync",
                "-D",
            ])
            .arg(&cluster.data);
        run(initdb, "initdb")?;
        cluster.spawn_server(user)?;
        cluster.spawn_watchdog()?;
        cluster.wait_ready()?;
        Ok(cluster)
    }

    fn spawn_server(&mut self, user: Option<&str>) -> Result<(), String> {
        let log = std::fs::File::create(&self.log).map_err(|e| format!("server log: {e}"))?;
        let mut command = Command::new("strace");
        command
            .args(["-f", "-qq", "--seccomp-bpf", "-e", "trace=%file", "-o"])
            .arg(&self.trace);
        match user {
            Some(user) => command.args(["runuser", "-u", user, "--"]),
            None => &mut command,
        };
        command
            .arg(format!("{BIN}/postgres"))
            .arg("-D")
            .arg(&self.data)
            .args(["-c", "listen_addresses=", "-k"])
            .arg(&self.socket)
            .args([
                "-p",
                PORT,
                "-c",
                "fsync=off",
                "-c",
                "synchronous_commit=off",
            ])
            .args([
                "-c",
                "full_page_writes=off",
                "-c",
                "log_min_messages=warning",
            ])
            .args(["-c", "max_connections=20", "-c", "shared_buffers=16MB"])
            // JIT compiles costly plans by loading LLVM: files a plan's cost,
            // not the statement, decides to open.
            .args(["-c", "jit=off"])
            // The server inherits nothing of the test's dynamic-library path.
            .env_remove("LD_LIBRARY_PATH")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(log);
        self.server = Some(
            command
                .spawn()
                .map_err(|e| format!("strace postgres: {e}"))?,
        );
        Ok(())
    }

    /// A shell that outlives an aborted test process only long enough to stop
    /// the server and remove the directory.
    fn spawn_watchdog(&mut self) -> Result<(), String> {
        let script = format!(
            "while kill -0 {pid} 2>/dev/null; do sleep 2; done; \
             kill -QUIT $(head -n 1 '{data}/postmaster.pid') 2>/dev/null; sleep 2; rm -rf '{base}'",
            pid = std::process::id(),
            data = self.data.display(),
            base = self.base.display()
        );
        self.watchdog = Some(
            Command::new("sh")
                .args(["-c", &script])
                .stdin(Stdio::null())
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .spawn()
                .map_err(|e| format!("watchdog: {e}"))?,
        );
        Ok(())
    }

    fn wait_ready(&mut self) -> Result<(), String> {
        let start = Instant::now();
        while start.elapsed() < Duration::from_secs(60) {
            let ok = Command::new(format!("{BIN}/pg_isready"))
                .arg("-h")
                .arg(&self.socket)
                .args(["-p", PORT, "-q"])
                .status()
                .map(|s| s.success())
                .unwrap_or(false);
            if ok {
                return Ok(());
            }
            if let Some(server) = self.server.as_mut() {
                if let Ok(Some(status)) = server.try_wait() {
                    let log = std::fs::read_to_string(&self.log).unwrap_or_default();
                    return Err(format!("postgres exited: {status}\n{log}"));
                }
            }
            std::thread::sleep(Duration::from_millis(100));
        }
        Err("postgres did not become ready in 60 s".to_owned())
    }

    /// A `psql` command connected to the cluster's database over the socket:
    /// no startup file, unaligned tuples only, verbose errors (with SQLSTATE).
    pub fn psql(&self, database: &str) -> Command {
        let mut command = Command::new("psql");
        command
            .args(["-X", "-A", "-t", "-q", "-v", "VERBOSITY=verbose", "-h"])
            .arg(&self.socket)
            .args(["-p", PORT, "-U", "postgres", "-d", database]);
        command
    }

    /// The length of the trace log now, to read what came after.
    pub fn trace_mark(&self) -> u64 {
        std::fs::metadata(&self.trace).map(|m| m.len()).unwrap_or(0)
    }

    /// The trace log from `mark` on.
    pub fn trace_since(&self, mark: u64) -> String {
        let Ok(mut file) = std::fs::File::open(&self.trace) else {
            return String::new();
        };
        let mut all = Vec::new();
        if file.read_to_end(&mut all).is_err() {
            return String::new();
        }
        let from = usize::try_from(mark).unwrap_or(usize::MAX).min(all.len());
        String::from_utf8_lossy(all.get(from..).unwrap_or_default()).into_owned()
    }
}

impl Drop for Cluster {
    fn drop(&mut self) {
        if let Ok(pidfile) = std::fs::read_to_string(self.data.join("postmaster.pid")) {
            if let Some(pid) = pidfile.lines().next() {
                let _ = Command::new("kill").args(["-QUIT", pid.trim()]).status();
            }
        }
        if let Some(mut server) = self.server.take() {
            let start = Instant::now();
            while start.elapsed() < Duration::from_secs(10) {
                if matches!(server.try_wait(), Ok(Some(_))) {
                    break;
                }
                std::thread::sleep(Duration::from_millis(50));
            }
            let _ = server.kill();
            let _ = server.wait();
        }
        if let Some(mut watchdog) = self.watchdog.take() {
            let _ = watchdog.kill();
            let _ = watchdog.wait();
        }
        if std::env::var_os("TOOLGATE_KEEP_CLUSTER").is_none() {
            let _ = std::fs::remove_dir_all(&self.base);
        }
    }
}

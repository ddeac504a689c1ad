//! The confinement's red-team set: `toolgate exec --confine-only` (and
//! `toolgate exec`) run lines an attacker would send, started as root and as
//! an ordinary user (`nobody`, through the test's own `setuid`), and nothing
//! may leak or change: no secret in any output, the tree, the host's `/tmp`,
//! clock, hostname and network as they were. The first test is the one the
//! confinement exists for: a mask removed by `umount` inside the sandbox.
//!
//! Needs bubblewrap (`tests/run-all` installs it when run as root); without
//! it every test fails with what is missing, never passes.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing,
    reason = "a test fails loudly"
)]

use std::os::unix::fs::PermissionsExt;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::OnceLock;

const NOBODY: u32 = 65534;
const SECRET: &str = "TG-SECRET-CANARY-7f3a";
const KEY: &str = "TG-KEY-CANARY-91c2";
const CREDS: &str = "TG-CREDS-CANARY-5d0e";
const ENV_SECRET: &str = "TG-ENV-CANARY-22b8";

/// Who starts the CLI.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum As {
    Root,
    User,
}

fn is_root() -> bool {
    std::fs::metadata("/proc/self")
        .map(|m| std::os::unix::fs::MetadataExt::uid(&m) == 0)
        .unwrap_or(false)
}

/// Who the tests can start the CLI as: both when run as root (the user
/// through `setuid`), else the user alone.
fn starters() -> Vec<As> {
    if is_root() {
        vec![As::Root, As::User]
    } else {
        eprintln!("note: not root: the confinement is tested as this user only");
        vec![As::User]
    }
}

/// A directory every user may enter, for the test's files.
fn shared_dir(name: &str) -> PathBuf {
    static N: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let n = N.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let dir = std::env::temp_dir().join(format!("tg-confine-{}-{name}-{n}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o755)).unwrap();
    dir
}

/// The CLI, copied where `nobody` may run it (the build tree may be under a
/// home only root can enter).
fn cli() -> &'static Path {
    static CLI: OnceLock<PathBuf> = OnceLock::new();
    CLI.get_or_init(|| {
        // One place for every run (a statically held copy is never dropped):
        // written beside it, then renamed over it, so runs side by side each
        // see a whole binary.
        let dir = std::env::temp_dir().join("tg-confine-bin");
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o755)).unwrap();
        let copy = dir.join("toolgate");
        let fresh = dir.join(format!("toolgate.{}", std::process::id()));
        std::fs::copy(env!("CARGO_BIN_EXE_toolgate"), &fresh).unwrap();
        std::fs::set_permissions(&fresh, std::fs::Permissions::from_mode(0o755)).unwrap();
        std::fs::rename(&fresh, &copy).unwrap();
        copy
    })
}

fn write(path: &Path, text: &str) {
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent).unwrap();
    }
    std::fs::write(path, text).unwrap();
}

fn sh(dir: &Path, line: &str) {
    let out = Command::new("bash")
        .args(["-c", line])
        .current_dir(dir)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{line}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// A working tree with secrets every user could read, a git repository with
/// code-running configuration, and a canary directory outside it.
struct Fixture {
    root: PathBuf,
    tree: PathBuf,
    canaries: PathBuf,
}

impl Fixture {
    fn new(name: &str) -> Fixture {
        let root = shared_dir(name);
        let tree = root.join("tree");
        let canaries = root.join("canaries");
        std::fs::create_dir_all(&canaries).unwrap();
        write(&tree.join("README.md"), "hello from the readme\n");
        write(&tree.join("src/main.rs"), "fn main() { let foo = 1; }\n");
        write(&tree.join(".env"), &format!("API_TOKEN={SECRET}\n"));
        write(&tree.join(".env.example"), "API_TOKEN=\n");
        write(
            &tree.join("config/credentials.yml"),
            &format!("password: {CREDS}\n"),
        );
        write(&tree.join("deploy/.ssh/id_ed25519"), &format!("{KEY}\n"));
        std::os::unix::fs::symlink(".env", tree.join("notes.txt")).unwrap();
        sh(
            &tree,
            "git init -q -b main . && git add README.md src .env.example && \
             git -c user.name=t -c user.email=t@example.com commit -q -m first && \
             echo more >> README.md && git add README.md && \
             git -c user.name=t -c user.email=t@example.com commit -q -m second",
        );
        // Code from the repository's own configuration: an fsmonitor hook,
        // a textconv driver and a hook path, each writing a canary.
        let canary = |n: &str| format!("{}/{n}", canaries.display());
        let config = format!(
            "\n[core]\n\tfsmonitor = \"echo FSMONITOR-RAN >&2; touch {fs}; touch {tfs}; echo\"\n\thooksPath = hooks\n\
             [diff \"tc\"]\n\ttextconv = \"sh -c 'touch {tc}; touch {ttc}; cat \\\"$0\\\"'\"\n",
            fs = canary("fsmonitor"),
            tfs = tree.join("fsmonitor-canary").display(),
            tc = canary("textconv"),
            ttc = tree.join("textconv-canary").display(),
        );
        let mut text = std::fs::read_to_string(tree.join(".git/config")).unwrap();
        text.push_str(&config);
        std::fs::write(tree.join(".git/config"), text).unwrap();
        write(&tree.join(".gitattributes"), "*.md diff=tc\n");
        // The secret table masks `.git/config` (remote URLs hold
        // credentials); a git directory of another name keeps its
        // configuration visible, so git's own neutralisation is tested too.
        sh(&tree, "cp -r .git alt.git");
        sh(
            &tree,
            "chmod -R a+rX . && chmod a+r .env config/credentials.yml deploy/.ssh/id_ed25519",
        );
        sh(&root, "chmod -R a+rwX canaries");
        Fixture {
            root,
            tree,
            canaries,
        }
    }

    /// Every file of the tree and the canary directory with its content,
    /// to compare before and after.
    fn state(&self) -> String {
        let out = Command::new("bash")
            .args(["-c", "find . canaries -xdev -printf '%p %m %s %l\\n' | sort; cat README.md .env; ls -A canaries"])
            .current_dir(&self.root)
            .output()
            .unwrap();
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    fn config(&self, text: &str) -> PathBuf {
        let path = self.root.join(format!("config-{}.json", text.len()));
        std::fs::write(&path, text).unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o644)).unwrap();
        path
    }
}

impl Drop for Fixture {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.root);
    }
}

/// Runs the CLI in the tree with these arguments, as `who`.
fn toolgate(fx: &Fixture, who: As, args: &[&str]) -> Output {
    let mut cmd = Command::new(cli());
    cmd.args(args)
        .current_dir(&fx.tree)
        .env("TG_TEST_TOKEN", ENV_SECRET)
        .env("HOME", &fx.root)
        .stdin(Stdio::null());
    if who == As::User && is_root() {
        cmd.uid(NOBODY).gid(NOBODY);
    }
    cmd.output().unwrap()
}

/// `exec --confine-only [--config C] -- line`.
fn confined(fx: &Fixture, who: As, config: Option<&Path>, line: &str) -> Output {
    let mut args = vec!["exec", "--confine-only", "--json"];
    let config_text;
    if let Some(c) = config {
        config_text = c.display().to_string();
        args.extend(["--config", config_text.as_str()]);
    }
    args.extend(["--", line]);
    toolgate(fx, who, &args)
}

fn text(out: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

/// The run's result object (`--json`); fails the test when the sandbox did
/// not run (bubblewrap missing, a set-up failure).
fn result(out: &Output, line: &str) -> serde_json::Value {
    serde_json::from_slice(&out.stdout).unwrap_or_else(|_| {
        panic!(
            "the sandbox did not run `{line}` (exit {:?}): {}",
            out.status.code(),
            text(out)
        )
    })
}

/// Runs every line as `who` and asserts no canary shows and nothing changed.
fn no_effect(fx: &Fixture, who: As, config: Option<&Path>, lines: &[&str]) {
    for line in lines {
        let before = fx.state();
        let out = confined(fx, who, config, line);
        let ran = result(&out, line);
        let all = text(&out);
        for canary in [SECRET, KEY, CREDS, ENV_SECRET] {
            assert!(
                !all.contains(canary),
                "{who:?}: `{line}` revealed {canary}: {all}"
            );
        }
        assert!(
            !all.contains("root:x:0:0") || line.contains("passwd"),
            "{who:?}: `{line}`: {all}"
        );
        assert_eq!(
            before,
            fx.state(),
            "{who:?}: `{line}` changed the tree or a canary"
        );
        assert_eq!(ran["confinement"]["confinement"], "bubblewrap", "{ran}");
    }
}

#[test]
fn first_a_mask_removed_by_umount_inside_the_sandbox_reveals_nothing() {
    let fx = Fixture::new("umount");
    // The control: outside the sandbox every starter can read the secret, so
    // only the confinement keeps it from the lines below.
    for who in starters() {
        let mut cat = Command::new("cat");
        cat.arg(".env").current_dir(&fx.tree);
        if who == As::User && is_root() {
            cat.uid(NOBODY).gid(NOBODY);
        }
        let out = cat.output().unwrap();
        assert!(
            String::from_utf8_lossy(&out.stdout).contains(SECRET),
            "{who:?}: control"
        );
    }
    for who in starters() {
        // The mask is there to remove, and reading the file gives nothing.
        let out = confined(
            &fx,
            who,
            None,
            "cat .env; grep -c '/.env ' /proc/self/mountinfo",
        );
        let ran = result(&out, "cat .env");
        assert!(
            ran["stdout"].as_str().unwrap_or("").contains('1'),
            "{who:?}: no mask at .env: {ran}"
        );
        no_effect(
            &fx,
            who,
            None,
            &[
                "umount .env; cat .env",
                "umount -l .env; cat .env",
                &format!("umount {}/.env; cat {}/.env", fx.tree.display(), fx.tree.display()),
                "umount -R .; cat .env",
                "umount deploy/.ssh; cat deploy/.ssh/id_ed25519",
                "mount --bind src .env; cat .env",
                "unshare -rm sh -c 'umount .env; cat .env'",
                "unshare -Urm --propagation private sh -c 'umount -l .env; cat .env'",
                "nsenter -t 1 -m cat .env",
                "python3 -c 'import ctypes; l=ctypes.CDLL(None); print(l.umount2(b\".env\", 2)); print(open(\".env\").read())'",
            ],
        );
        // Capabilities: none, also when started as root.
        let out = confined(
            &fx,
            who,
            None,
            "grep -E '^Cap(Eff|Prm|Bnd)' /proc/self/status; id -u",
        );
        let ran = result(&out, "caps");
        let stdout = ran["stdout"].as_str().unwrap_or("");
        assert_eq!(
            stdout.matches("0000000000000000").count(),
            3,
            "{who:?}: capabilities left: {stdout}"
        );
        assert!(stdout.ends_with("65534\n"), "{who:?}: {stdout}");
    }
}

#[test]
fn secrets_stay_hidden_through_directories_links_and_produced_names() {
    let fx = Fixture::new("secrets");
    for who in starters() {
        no_effect(
            &fx,
            who,
            None,
            &[
                "cat .env",
                "cat notes.txt",
                "cat .e''nv; cat .e*",
                "f=$(printf '%s' LmVudg== | base64 -d); cat \"$f\"",
                "cat config/credentials.yml deploy/.ssh/id_ed25519",
                "grep -rn TG- .",
                "rg -uuu TG-",
                "find . -type f -exec cat {} + 2>&1",
                "tar cf - . 2>/dev/null | strings",
                "cp .env /tmp/x; cat /tmp/x",
                "git show HEAD:.env; git grep TG-",
                "env; cat /proc/self/environ /proc/1/environ | tr '\\0' '\\n'",
                "cat /etc/shadow /etc/gshadow; ls /root; ls -a ~",
                "cat /proc/*/environ 2>/dev/null | tr '\\0' '\\n'",
            ],
        );
    }
}

#[test]
fn code_from_the_repositorys_configuration_has_no_effect() {
    let fx = Fixture::new("gitcode");
    for who in starters() {
        no_effect(
            &fx,
            who,
            None,
            &[
                "git status",
                "git diff HEAD~1 -- README.md",
                "git log -p -1",
                "git show HEAD --textconv -- README.md",
                "git -c core.fsmonitor='touch /tmp/x' status",
                "git --git-dir=alt.git --work-tree=. status",
                "GIT_DIR=alt.git git diff HEAD~1 -- README.md",
                "git --git-dir=alt.git log -p -1",
            ],
        );
        // core.fsmonitor is emptied by the executor's settings: its hook
        // never runs (a textconv driver, named by the repository, runs
        // confined: its writes are refused above).
        let out = confined(&fx, who, None, "git --git-dir=alt.git --work-tree=. status");
        assert!(
            !text(&out).contains("FSMONITOR-RAN"),
            "{who:?}: {}",
            text(&out)
        );
        let canaries = std::fs::read_dir(&fx.canaries).unwrap().count();
        assert_eq!(canaries, 0, "{who:?}: a repository's code wrote outside");
    }
}

#[test]
fn writes_deletes_and_the_hosts_settings_have_no_effect() {
    let fx = Fixture::new("writes");
    let host_tmp = fx.root.join("host-tmp-canary");
    let hostname = std::fs::read_to_string("/proc/sys/kernel/hostname").unwrap();
    for who in starters() {
        let before = std::time::SystemTime::now();
        no_effect(
            &fx,
            who,
            None,
            &[
                "echo x > README.md",
                "echo x >> src/main.rs",
                "rm -rf src README.md",
                "rm -f .env; mv .env gone",
                "touch new-file; mkdir new-dir",
                "chmod 000 README.md; chmod -R 777 .",
                "git commit --allow-empty -m x; git gc; git branch evil",
                &format!("touch {}", host_tmp.display()),
                &format!("echo x > {}/x", fx.canaries.display()),
                "echo 127.0.0.2 evil >> /etc/hosts",
                "date -s '2001-01-01 00:00:00'; date",
                "hwclock --set --date '2001-01-01' 2>&1",
                "hostname evil; hostname",
                "ip link set lo down; ip addr flush dev lo",
                "sysctl -w kernel.hostname=evil",
                "echo 1 > /proc/sys/vm/drop_caches",
                "kill -9 -1; kill -9 1",
            ],
        );
        assert!(!host_tmp.exists());
        let after = std::time::SystemTime::now();
        let elapsed = after.duration_since(before).unwrap_or_default();
        assert!(elapsed.as_secs() < 120, "{who:?}: the clock moved");
        assert_eq!(
            hostname,
            std::fs::read_to_string("/proc/sys/kernel/hostname").unwrap()
        );
        let lo = std::fs::read_to_string("/sys/class/net/lo/flags").unwrap_or_default();
        let flags = u32::from_str_radix(lo.trim().trim_start_matches("0x"), 16).unwrap_or(0);
        assert_eq!(flags & 1, 1, "{who:?}: the host's loopback went down");
    }
}

/// A listener on the host's loopback, and whether anyone connected to it.
fn listener() -> (std::net::TcpListener, u16) {
    let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    l.set_nonblocking(true).unwrap();
    let port = l.local_addr().unwrap().port();
    (l, port)
}

#[test]
fn no_network_unless_egress_is_public() {
    let fx = Fixture::new("net");
    let closed = fx.config(r#"{"egress": "confirm"}"#);
    let public = fx.config(r#"{"egress": "public"}"#);
    for who in starters() {
        let (l, port) = listener();
        let line = format!("exec 3<>/dev/tcp/127.0.0.1/{port} && echo connected");
        let out = confined(&fx, who, Some(&closed), &line);
        let ran = result(&out, &line);
        assert!(!text(&out).contains("\"connected"), "{who:?}: {ran}");
        assert!(
            l.accept().is_err(),
            "{who:?}: the sandbox reached the host's loopback"
        );
        no_effect(
            &fx,
            who,
            Some(&closed),
            &[
                "getent hosts localhost; ip -o link | cut -d: -f2",
                "ping -c1 -W1 127.0.0.1",
            ],
        );
        let ran = result(&confined(&fx, who, Some(&closed), "ip -o link"), "ip");
        let links = ran["stdout"].as_str().unwrap_or("");
        assert!(
            links.lines().count() == 1 && links.contains("lo"),
            "{who:?}: {links}"
        );
        // egress public: the network is shared, and documented as unfiltered.
        let out = confined(&fx, who, Some(&public), &line);
        let ran = result(&out, &line);
        assert_eq!(ran["stdout"], "connected\n", "{who:?}: {ran}");
        assert_eq!(ran["confinement"]["network"], true);
        // Shared, but still no capability over it.
        no_effect(&fx, who, Some(&public), &["ip link set lo down"]);
    }
}

#[test]
fn floods_end_at_the_limits() {
    let fx = Fixture::new("floods");
    let tight = fx.config(
        r#"{"egress": "confirm", "exec": {"timeout_ms": 4000, "max_output_bytes": 1048576, "max_processes": 64, "max_memory_bytes": 268435456}}"#,
    );
    for who in starters() {
        let started = std::time::Instant::now();
        let out = confined(&fx, who, Some(&tight), "yes");
        let ran = result(&out, "yes");
        assert!(ran["stdout"].as_str().unwrap_or("").len() <= 1 << 20);
        assert!(
            ran["confinement"]["stopped"]
                .to_string()
                .contains("output limit"),
            "{who:?}: {ran}"
        );
        let out = confined(&fx, who, Some(&tight), ":(){ :|:& };:; sleep 2");
        let ran = result(&out, "fork bomb");
        let stopped = ran["confinement"]["stopped"].to_string();
        assert!(
            stopped.contains("process limit")
                || stopped.contains("forks")
                || stopped.contains("time limit"),
            "{who:?}: {ran}"
        );
        let out = confined(
            &fx,
            who,
            Some(&tight),
            "head -c 1G /dev/zero | tail -n 1 | wc -c",
        );
        let ran = result(&out, "memory");
        assert_ne!(
            ran["stdout"], "1073741824\n",
            "{who:?}: 1 GiB held under a 256 MiB limit: {ran}"
        );
        let out = confined(
            &fx,
            who,
            Some(&tight),
            "head -c 700M /dev/zero > /tmp/big; ls -la /tmp/big",
        );
        let ran = result(&out, "disk");
        assert!(
            !ran["stdout"].as_str().unwrap_or("").contains("734003200"),
            "{who:?}: {ran}"
        );
        let out = confined(&fx, who, Some(&tight), "sleep 60");
        let ran = result(&out, "sleep");
        assert!(
            ran["confinement"]["stopped"]
                .to_string()
                .contains("time limit"),
            "{who:?}: {ran}"
        );
        assert!(
            started.elapsed().as_secs() < 60,
            "{who:?}: the limits took too long"
        );
        no_effect(&fx, who, Some(&tight), &["echo still fine"]);
    }
}

#[test]
fn everyday_reads_give_their_normal_output() {
    let fx = Fixture::new("reads");
    for who in starters() {
        for (line, expect) in [
            ("ls", "README.md\nalt.git\nconfig\ndeploy\nnotes.txt\nsrc\n"),
            ("cat README.md", "hello from the readme\nmore\n"),
            ("rg foo", "src/main.rs:fn main() { let foo = 1; }\n"),
            ("git log --format=%s", "second\nfirst\n"),
        ] {
            let ran = result(&confined(&fx, who, None, line), line);
            assert_eq!(ran["stdout"], expect, "{who:?}: `{line}`: {ran}");
            assert_eq!(ran["exit_code"], 0, "{who:?}: `{line}`: {ran}");
        }
    }
}

#[test]
fn exec_decides_first_and_passes_output_and_status_through() {
    let fx = Fixture::new("decide");
    let who = starters().first().copied().unwrap_or(As::User);
    // As root the component's cache is root's; the user runs --confine-only.
    if who != As::Root {
        return;
    }
    // Allowed: the line's own output and exit status, no JSON.
    let out = toolgate(&fx, who, &["exec", "--", "cat README.md"]);
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "hello from the readme\nmore\n"
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    // A recursive search of the tree is proven read-only under the
    // confinement (the executor says it confines) and prints no secret.
    let out = toolgate(&fx, who, &["exec", "--", "grep -rn TG- ."]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    assert!(!text(&out).contains(SECRET));
    let out = toolgate(&fx, who, &["exec", "--", "ls no-such-file"]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    // Confirm and deny: nothing runs, exit as assess.
    let out = toolgate(&fx, who, &["exec", "--", "touch made-by-exec"]);
    assert_eq!(out.status.code(), Some(10), "{}", text(&out));
    assert!(!fx.tree.join("made-by-exec").exists());
    let denied = fx.config(r#"{"denied_tools": ["execute_command"]}"#);
    let denied = denied.display().to_string();
    let out = toolgate(
        &fx,
        who,
        &["exec", "--json", "--config", &denied, "--", "rm -rf /"],
    );
    assert_eq!(out.status.code(), Some(11), "{}", text(&out));
    let decision: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(decision["action"], "deny");
    // --writable: an approved command's rights: the tree writable, the
    // masks still in place.
    let out = toolgate(
        &fx,
        who,
        &[
            "exec",
            "--confine-only",
            "--writable",
            "--",
            "echo made > made.txt; rm .env; cat .env",
        ],
    );
    assert!(!text(&out).contains(SECRET), "{}", text(&out));
    assert_eq!(
        std::fs::read_to_string(fx.tree.join("made.txt")).unwrap_or_default(),
        "made\n"
    );
    assert!(fx.tree.join(".env").exists());
    assert!(
        text(&out).contains("toolgate: exec: the confinement stopped"),
        "{}",
        text(&out)
    );
}

#[test]
fn a_tree_too_large_to_walk_is_refused_not_run_with_secrets_visible() {
    let fx = Fixture::new("large");
    let many = fx.tree.join("many");
    std::fs::create_dir_all(&many).unwrap();
    for i in 0..2100 {
        std::fs::write(many.join(format!("f{i}")), "x").unwrap();
    }
    sh(&fx.tree, "chmod -R a+rX many");
    // The walk's bound comes from the executor's defaults (200,000): a
    // smaller bound is set through the library in unit tests; here the
    // CLI must still run a tree of this size.
    let out = confined(&fx, As::Root, None, "ls many | wc -l");
    let ran = result(&out, "ls many");
    assert_eq!(ran["stdout"], "2100\n");
    let settings = toolgate::confine::Settings {
        rights: toolgate::confine::Rights::Read,
        network: false,
        unconfined: true,
        limits: toolgate::confine::Limits {
            walk_entries: 1000,
            ..toolgate::confine::Limits::default()
        },
        tree: fx.tree.clone(),
    };
    // Even with unconfined runs allowed, a walk over its bound refuses.
    let refused = toolgate::confine::run("cat .env", &settings, toolgate::confine::Output::Capture);
    assert!(
        matches!(refused, Err(toolgate::confine::ConfineError::Walk(_))),
        "{refused:?}"
    );
}

#[test]
fn the_gates_command_executor_runs_calls_confined_with_their_rights() {
    let fx = Fixture::new("executor");
    let settings = toolgate::confine::Settings {
        rights: toolgate::confine::Rights::Read,
        network: false,
        unconfined: false,
        limits: toolgate::confine::Limits::default(),
        tree: fx.tree.clone(),
    };
    let executor = toolgate::confine::CommandExecutor::with_settings(settings);
    let read = executor.executor(toolgate::confine::Rights::Read);
    let out = read(r#"{"command": "cat README.md .env; touch x"}"#).unwrap();
    let out: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(out["stdout"], "hello from the readme\nmore\n", "{out}");
    assert_ne!(out["exit_code"], 0);
    assert!(!fx.tree.join("x").exists());
    if is_root() {
        let write = executor.executor(toolgate::confine::Rights::Write);
        let out = write(r#"{"command": ["touch", "made by the executor"]}"#).unwrap();
        assert!(out.contains(r#""exit_code":0"#), "{out}");
        assert!(fx.tree.join("made by the executor").exists());
    }
    let full = executor.executor(toolgate::confine::Rights::Unconfined);
    let refused = full(r#"{"command": "git push"}"#).unwrap_err();
    assert!(refused.contains("unconfined"), "{refused}");
    assert!(executor.executor(toolgate::confine::Rights::Read)("{}").is_err());
}

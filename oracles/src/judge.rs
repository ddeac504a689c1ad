//! The command oracle's rules: what a traced run of an allowed line may do.
//! Anything else is a violation, named by its class (what kind of effect, by
//! which program) and the trace line that shows it.
//!
//! The rules, and every exception with its reason:
//! - **No file opened for writing** (`O_WRONLY`, `O_RDWR`, `O_CREAT`,
//!   `O_TRUNC`, `O_APPEND`, or `creat`), whether it succeeded or not. Exceptions
//!   ([`WRITE_OK`]): `/dev/null` (discarding), `/dev/tty` (bash probes for a
//!   controlling terminal; the sandbox has none), the standard streams under
//!   `/dev/std*`, `/dev/fd/{1,2}` and `/proc/self/fd/{1,2}`, `/dev/pts/*`,
//!   anything the tracer resolved to a pipe (`pipe:[…]`: process substitution
//!   and the output pipes), and a process's own settings under `/proc/self/`
//!   and `/proc/thread-self/` as it names them (they change only that process;
//!   another process's `/proc/PID/` is not excepted). The resolved path
//!   decides: `/dev/stdout` or `/proc/self/fd/N` that reopen a real file are
//!   writes to that file. bash's own here-document
//!   temporary files (`/tmp/sh-thd*`, created exclusive and unlinked at once)
//!   are the shell's mechanism for `<<`, not the line's effect.
//! - **No change to the file system or the system at all**: unlink, rename,
//!   mkdir, rmdir, chmod, chown, link, symlink, truncate, mknod, utime, xattr,
//!   fallocate, mount; hostname, clock, kernel modules, swap, reboot, chroot —
//!   attempted is enough (`/` is read-only in the sandbox, so many
//!   attempts fail; the attempt is the evidence).
//! - **No program run that the line does not name**: every successful `execve`
//!   after the first (the shell, or the vector's own program) must run a
//!   program whose base name is a word of the line. A program may run what it
//!   runs by design ([`HELPERS`]: `git` its `git-*`, `egrep` grep, `xargs`
//!   echo, …), and a script the interpreter of its `#!` line (through `env`
//!   too). This is the practical form of "only the programs the decision
//!   proved": a word of the line is what the policy read.
//! - **No planted secret opened** (any mode, successfully), and **no canary in
//!   the output** (a file's content or a secret variable's value).
//! - **No connection but to what the line names**: Unix sockets only to the
//!   name-service caches glibc asks for user and group names ([`UNIX_OK`]);
//!   netlink (interface and route queries stay in the kernel); internet
//!   addresses never internal (loopback, private, link-local), and only those
//!   written literally in the line. DNS goes to a stub on loopback, so every
//!   query is a `sendto` whose name is read: a lookup is allowed only for a name
//!   the line contains, and a name carrying a canary is named as exfiltration. No listening socket (`listen`; a `bind` alone is how
//!   programs probe for IPv6 support and is not judged).
//! - **No hostile code run**: the fixture's hostile programs (a nested
//!   repository's configured drivers, hooks and pagers, start-up files, a
//!   Makefile's `$(shell …)`) each write `/tmp/tgpwned-WHAT` and print
//!   `TGPWNED-WHAT`; an open of such a file (any mode, even failed) or the mark
//!   in the output is code the line did not show.
//! - **History is reported, not judged**: content committed and then deleted
//!   is the user's committed code by default (SECURITY.md, "Commands"); a line
//!   that prints it is listed in the report's notes.
//! - **A time bound**: a line still running after the limit is killed and is a
//!   violation (work that never ends or floods).
//! - **An output bound**: a line that writes more than [`OUTPUT_BOUND`]
//!   (16 MiB, the policy's figure) is a violation.
//! - **A memory bound**: a line whose processes' peak resident memory (the
//!   kernel's accounting, see `Run::peak_kib`) passes [`MEMORY_BOUND_KIB`]
//!   (512 MiB, the figure SECURITY.md states) is a violation.
//!
//! Two effects come from what the working tree's names are, which no line
//! shows and the policy cannot read; the executor answers them (SECURITY.md,
//! "Commands": confinement masks the secrets, a time bound ends the read),
//! and the judge reports them as notes, not violations:
//! - **A link in the tree to a secret** (`link.txt -> .env`): a secret opened
//!   under a name that is not its own (the program was given another name),
//!   and only so, and its canary in the output.
//! - **A trap of the tree** (a FIFO, an endless device, a huge file under an
//!   ordinary name, [`TRAPS`]): a line that opened one and ran past the time
//!   bound or past the output bound.
//!
//! Three effects are the programs' own mechanism rather than the line's, and are
//! allowed narrowly (`own_effect` and [`OWN_STORES`]); the closing notes of
//! the round list them so nobody mistakes them for proofs:
//! - git refreshes the stat cache of the index on a read (`status`, `diff`): it
//!   creates `.git/index.lock` exclusively and renames it over `.git/index`
//!   with the same content, or removes it when the command stops on an
//!   error (`git status --ignore-submodules=1`). Executors that want no write at all set
//!   `GIT_OPTIONAL_LOCKS=0`, which git honours for exactly this.
//! - A client opens its own credential store to authenticate (`docker` its
//!   `~/.docker/config.json`, `kubectl` its `~/.kube/config`); the canary check
//!   on the output still applies, so printing it is a violation.
//! - `docker` connects to its daemon's socket, which answers the read the
//!   grammar proved.
//!
//! A reverse lookup (`dig -x 1.1.1.1`) asks for `1.1.1.1.in-addr.arpa`: the
//! address in the line, spelled the way DNS spells it.

use crate::hostile::{MARK, PRINTED, TRAPS};
use crate::sandbox::{Run, Sandbox, PROJECT, RESOLVER};
use crate::trace::{dns_query_name, Addr, Event};
use std::collections::{BTreeSet, HashMap};

/// The most output a line may write (the policy's bound, 16 MiB).
pub const OUTPUT_BOUND: u64 = 16 * 1024 * 1024;

/// The most resident memory a proven line's processes may hold at once, in
/// KiB (512 MiB; the tracer's own share is counted in, so a line is judged
/// on an upper bound).
pub const MEMORY_BOUND_KIB: u64 = 512 * 1024;

/// Paths that may be opened for writing (see the module documentation).
pub const WRITE_OK: &[&str] = &[
    "/dev/null",
    "/dev/tty",
    "/dev/stdout",
    "/dev/stderr",
    "/dev/fd/1",
    "/dev/fd/2",
    "/proc/self/fd/1",
    "/proc/self/fd/2",
];

/// Unix sockets glibc's name service connects to for user and group names.
pub const UNIX_OK: &[&str] = &[
    "/var/run/nscd/socket",
    "/run/nscd/socket",
    "/run/systemd/userdb/",
];

/// Sub-programs a named program runs by design, from its own source: the
/// program, and the base name (or, ending in `*`, the prefix) it may run.
pub const HELPERS: &[(&str, &str)] = &[
    // git's own commands live in git-core as git-*.
    ("git", "git-*"),
    // Debian's egrep and fgrep are scripts: `exec grep -E "$@"`.
    ("egrep", "grep"),
    ("fgrep", "grep"),
    // gzip's z* scripts run gzip (and grep for zgrep).
    ("zcat", "gzip"),
    ("zgrep", "gzip"),
    ("zgrep", "grep"),
    // gzip 1.12's zgrep splits a bundle of short options with `expr` and
    // quotes them with `sed` before it runs grep.
    ("zgrep", "expr"),
    ("zgrep", "sed"),
    ("zless", "gzip"),
    ("zless", "less"),
    // Debian's zegrep and zfgrep are scripts: `exec zgrep -E "$@"` (gzip
    // 1.12), which runs gzip and grep as above.
    ("zegrep", "zgrep"),
    ("zfgrep", "zgrep"),
    // glibc's `locale -m` reads the compressed character maps under
    // /usr/share/i18n/charmaps by running `gzip -d -c` on them.
    ("locale", "gzip"),
    // Debian's yq is a jq wrapper: it converts YAML and runs jq on it.
    ("yq", "jq"),
    // xargs without a command runs echo.
    ("xargs", "echo"),
    // tar runs the compressor its option names (`-z` gzip, `-J` xz, …).
    ("tar", "gzip"),
    ("tar", "xz"),
    ("tar", "bzip2"),
    ("tar", "zstd"),
    ("tar", "lzma"),
    ("tar", "lzip"),
    ("tar", "lzop"),
    ("tar", "compress"),
    // Debian's lsb_release is a shell script over os-release.
    ("lsb_release", "cut"),
    ("lsb_release", "tr"),
    ("lsb_release", "getopt"),
    ("lsb_release", "cat"),
];

/// Stores a client opens to authenticate: the program, and the path under the
/// sandbox's home.
pub const OWN_STORES: &[(&str, &str)] = &[
    ("docker", "/root/.docker/config.json"),
    ("kubectl", "/root/.kube/config"),
];

/// Whether an effect is a program's own mechanism (see the module docs):
/// `class` is the violation the rules would report, `raw` the trace line.
fn own_effect(class: &str, raw: &str) -> bool {
    let git_index =
        (class == "write by git" || class == "rename by git" || class == "unlink by git")
            && raw.contains("/.git/index.lock\"")
            && !raw.contains("O_TRUNC");
    let docker_daemon = class.starts_with("connect by docker to unix socket /var/run/docker.sock")
        || class.starts_with("connect by docker to unix socket /run/docker.sock");
    git_index || docker_daemon
}

/// A reverse-lookup name (`4.3.2.1.in-addr.arpa`) of an IPv4 address, or of
/// the partial one (`dig -x 8.8`), the line holds.
fn reverse_of_named(name: &str, lower: &str) -> bool {
    name.strip_suffix(".in-addr.arpa").is_some_and(|rev| {
        let forward: Vec<&str> = rev.split('.').rev().collect();
        lower.contains(&forward.join("."))
    })
}

/// One effect an allowed line must not have.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Violation {
    /// The class: kind of effect and the program that had it, e.g.
    /// `write by git`, `exec of rm`, `secret opened by cat`.
    pub class: String,
    /// The evidence: the trace line, or what came out.
    pub evidence: String,
}

/// What the judge found in one run.
#[derive(Debug, Default)]
pub struct Judgement {
    /// Every effect the line must not have had.
    pub violations: Vec<Violation>,
    /// The DNS names the line looked up that it names itself (allowed, and
    /// reported: with a network the line would have contacted them).
    pub lookups: BTreeSet<String>,
    /// The committed-then-deleted secrets the output holds (reported).
    pub history: BTreeSet<String>,
    /// The executor's part (links to secrets, traps of the tree), reported.
    pub executor: BTreeSet<String>,
}

/// Which program each process is running, as far as the trace has been read:
/// a process runs what it last executed, or else what its parent ran when it
/// was cloned (threads included: the tracer gives each its own id).
#[derive(Default)]
struct Programs {
    own: HashMap<u32, String>,
    inherited: HashMap<u32, String>,
}

impl Programs {
    fn of(&self, pid: u32) -> String {
        self.own
            .get(&pid)
            .or_else(|| self.inherited.get(&pid))
            .cloned()
            .unwrap_or_else(|| String::from("the shell"))
    }
}

/// Whether the program a process runs is one the policy's table says
/// contacts nothing in its proven forms (`readings::network`): a lookup or
/// connection by it is an effect the policy did not read (`terraform
/// version` looking up its checkpoint host). A process the trace cannot name
/// (a line's own shell) is held to the same.
fn reaches_nothing(who: &str) -> bool {
    toolgate_policy::readings::network(who).is_none()
}

/// Judges one run of `line` (the text the policy read).
pub fn judge(line: &str, run: &Run, sandbox: &Sandbox) -> Judgement {
    let words = words(line);
    let lower = line.to_ascii_lowercase();
    // The line with the shell's quotes and backslashes removed, as the
    // program receives a name the line writes (`dig -x 8.88\.8` looks up
    // the reverse of 8.88.8): a name the quotes only spell is still named.
    let unquoted = lower.replace(['\\', '\'', '"'], "");
    let mut out = Vec::new();
    let mut lookups = BTreeSet::new();
    let mut programs = Programs::default();
    let mut paths: HashMap<u32, String> = HashMap::new();
    let mut dns_sockets: BTreeSet<String> = BTreeSet::new();
    let mut first_exec_seen = false;
    // Secrets opened under their own name, and under a link's.
    let mut opened_directly: BTreeSet<String> = BTreeSet::new();
    let mut via_link: Vec<(String, Violation)> = Vec::new();
    let mut trap_opened = None;
    // Parents have lower ids than their children in the fresh pid namespace,
    // and the events come grouped by process in id order, so a parent's
    // clones are read before the child's own events.
    for t in &run.events {
        let who = programs.of(t.pid);
        let mut flag = |class: String| {
            if own_effect(&class, &t.raw) {
                return;
            }
            out.push(Violation {
                class,
                evidence: format!("pid {}: {}", t.pid, clip(&t.raw, 400)),
            });
        };
        match &t.event {
            Event::Spawn { child } => {
                programs.inherited.insert(*child, who.clone());
                if let Some(p) = paths.get(&t.pid).cloned() {
                    paths.insert(*child, p);
                }
            }
            Event::Open {
                path,
                given,
                write,
                ok,
            } => {
                if let Some(what) = hostile_mark(path).or_else(|| hostile_mark(given)) {
                    flag(format!("hostile code ran: {what} (by {who})"));
                    continue;
                }
                let own_store = OWN_STORES
                    .iter()
                    .any(|(p, store)| *p == who && store == path);
                if let Some(trap) = trap_in(path).or_else(|| trap_in(given)) {
                    trap_opened = Some(trap);
                }
                if *ok && !own_store && sandbox.files.iter().any(|s| &s.path == path) {
                    if basename(given) == basename(path) {
                        opened_directly.insert(path.clone());
                        flag(format!("secret opened by {who}: {path}"));
                    } else {
                        via_link.push((
                            path.clone(),
                            Violation {
                                class: format!("secret opened by {who}: {path}"),
                                evidence: format!("pid {}: {}", t.pid, clip(&t.raw, 400)),
                            },
                        ));
                    }
                } else if *write && !write_allowed(path, given) {
                    flag(format!("write by {who}"));
                }
            }
            Event::Change { call, path, .. } => {
                if !(call.starts_with("unlink") && path.starts_with("/tmp/sh-thd")) {
                    flag(format!("{call} by {who}"));
                }
            }
            Event::Exec { path, argv0 } => {
                let base = basename(path).to_owned();
                let root = Some(t.pid) == run.root_pid && !first_exec_seen;
                if root {
                    first_exec_seen = true;
                } else if !named(&words, &base)
                    && !named(&words, basename(argv0))
                    && !helper(&who, &base)
                    && !paths
                        .get(&t.pid)
                        .is_some_and(|script| interpreters(script).contains(&base))
                {
                    flag(format!("exec of {base} by {who} (not named in the line)"));
                }
                programs.own.insert(t.pid, base);
                paths.insert(t.pid, path.clone());
            }
            Event::Connect { addr, socket } => match addr {
                Addr::Unix(p) => {
                    if !UNIX_OK.iter().any(|ok| p.starts_with(ok)) {
                        flag(format!("connect by {who} to unix socket {p}"));
                    }
                }
                Addr::Inet { ip, port } => {
                    // The sandbox's resolver, or its IPv6 loopback: BIND's
                    // tools asked for IPv6 transport (`host -6`, `dig -6`)
                    // with only an IPv4 nameserver configured fall back to
                    // ::1, port 53. Either is the local resolver asked about
                    // the name the line gives, never a target it chose.
                    if (ip == RESOLVER || ip == "::1") && *port == 53 {
                        dns_sockets.insert(socket.clone());
                    } else if internal(ip) {
                        flag(format!("connect by {who} to internal address {ip}:{port}"));
                    } else if reaches_nothing(&who) {
                        flag(format!(
                            "connect by {who} to {ip}:{port}, which its entry says contacts nothing"
                        ));
                    } else if !lower.contains(&ip.to_ascii_lowercase()) {
                        flag(format!(
                            "connect by {who} to {ip}:{port}, not named in the line"
                        ));
                    }
                }
                Addr::Other(family) => {
                    if family != "AF_NETLINK" {
                        flag(format!("connect by {who} on {family}"));
                    }
                }
            },
            Event::Listen { socket } => {
                flag(format!("listening socket by {who} ({socket})"));
            }
            Event::Send { socket, payloads } => {
                if dns_sockets.contains(socket) {
                    for name in payloads.iter().filter_map(|p| dns_query_name(p)) {
                        let bare = name.trim_end_matches('.').to_ascii_lowercase();
                        let carried = sandbox
                            .canaries()
                            .find(|c| bare.contains(&c.canary.to_ascii_lowercase()));
                        if let Some(secret) = carried {
                            flag(format!(
                                "DNS lookup by {who} carrying a secret (the canary of {})",
                                secret.path
                            ));
                        } else if reaches_nothing(&who) {
                            flag(format!(
                                "DNS lookup by {who} of {bare}, which its entry says contacts nothing"
                            ));
                        } else if [&lower, &unquoted]
                            .iter()
                            .any(|text| text.contains(&bare) || reverse_of_named(&bare, text))
                        {
                            lookups.insert(bare);
                        } else {
                            flag(format!(
                                "DNS lookup by {who} of a name not in the line ({bare})"
                            ));
                        }
                    }
                }
            }
        }
    }
    // A secret reached only through a link the tree holds: the executor's.
    let mut executor = BTreeSet::new();
    for (path, violation) in via_link {
        if opened_directly.contains(&path) {
            out.push(violation);
        } else {
            executor.insert(format!("followed a link of the tree to {path}"));
        }
    }
    let output = String::from_utf8_lossy(&run.output);
    for secret in sandbox.canaries() {
        let linked = executor
            .iter()
            .any(|e| e.ends_with(&format!(" to {}", secret.path)));
        if output.contains(&secret.canary) && !linked {
            out.push(Violation {
                class: format!("secret in output: {}", secret.path),
                evidence: format!("the output holds the canary of {}", secret.path),
            });
        }
    }
    for mark in output
        .match_indices(PRINTED)
        .filter_map(|(at, _)| output.get(at..))
        .map(|rest| {
            rest.split(|c: char| !(c.is_ascii_alphanumeric() || c == '-' || c == '_'))
                .next()
                .unwrap_or(rest)
        })
        .collect::<BTreeSet<_>>()
    {
        out.push(Violation {
            class: format!("hostile code printed: {mark}"),
            evidence: String::from("the output holds the mark of a hostile program"),
        });
    }
    let history = sandbox
        .history
        .iter()
        .filter(|s| output.contains(&s.canary))
        .map(|s| s.path.clone())
        .collect();
    // A FIFO's open blocks before the tracer writes the call: a line that
    // names a trap counts as having opened it.
    let trap_opened = trap_opened.or_else(|| {
        TRAPS
            .iter()
            .find(|t| words.contains(**t))
            .map(|t| format!("{PROJECT}/{t}"))
    });
    // A huge file under an ordinary name floods whatever reads it (`sed p`
    // over the 4 GiB file wrote 27 GB): the size is the tree's, the output
    // bound the executor's, like the time bound.
    if run.output_bytes > OUTPUT_BOUND {
        match &trap_opened {
            Some(trap) => {
                executor.insert(format!(
                    "wrote {} bytes reading {trap}, a trap of the tree",
                    run.output_bytes
                ));
            }
            None => out.push(Violation {
                class: String::from("output beyond 16 MiB"),
                evidence: format!("{} bytes", run.output_bytes),
            }),
        }
    }
    if let Some(peak) = run.peak_kib.filter(|p| *p > MEMORY_BOUND_KIB) {
        match &trap_opened {
            Some(trap) => {
                executor.insert(format!(
                    "held {peak} KiB reading {trap}, a trap of the tree"
                ));
            }
            None => out.push(Violation {
                class: String::from("memory beyond 512 MiB"),
                evidence: format!("peak resident {peak} KiB"),
            }),
        }
    }
    if let (true, Some(trap)) = (run.timed_out, &trap_opened) {
        executor.insert(format!(
            "ran past the time bound reading {trap}, a trap of the tree"
        ));
    } else if run.timed_out {
        out.push(Violation {
            class: String::from("still running at the time bound"),
            evidence: format!("killed after {} s", sandbox.limit.as_secs()),
        });
    }
    Judgement {
        violations: out,
        lookups,
        history,
        executor,
    }
}

/// The trap of the tree (a FIFO, an endless device, a huge file) `path`
/// names, as an absolute path, if it names one.
fn trap_in(path: &str) -> Option<String> {
    let rel = path
        .strip_prefix(PROJECT)
        .map_or(path, |p| p.trim_start_matches('/'));
    let rel = rel.strip_prefix("./").unwrap_or(rel);
    TRAPS.contains(&rel).then(|| format!("{PROJECT}/{rel}"))
}

/// The name of the hostile program whose mark file `path` is
/// (`/tmp/tgpwned-WHAT`).
fn hostile_mark(path: &str) -> Option<&str> {
    path.strip_prefix("/tmp/")?
        .strip_prefix(MARK)?
        .strip_prefix('-')
}

/// Whether `program` may run `sub` by design ([`HELPERS`]).
fn helper(program: &str, sub: &str) -> bool {
    HELPERS.iter().any(|(p, s)| {
        *p == program
            && match s.strip_suffix('*') {
                Some(prefix) => sub.starts_with(prefix),
                None => *s == sub,
            }
    })
}

/// The interpreter a script's `#!` line names (and, through `env`, the
/// program `env` runs): executing a script runs them.
fn interpreters(script: &str) -> Vec<String> {
    let Ok(bytes) = std::fs::read(script) else {
        return Vec::new();
    };
    let Some(rest) = bytes.strip_prefix(b"#!") else {
        return Vec::new();
    };
    let first = rest.split(|b| *b == b'\n').next().unwrap_or_default();
    let text = String::from_utf8_lossy(first);
    let mut words = text.split_whitespace();
    let mut out = Vec::new();
    if let Some(interp) = words.next() {
        let base = basename(interp).to_owned();
        if base == "env" {
            if let Some(program) = words.find(|w| !w.starts_with('-')) {
                out.push(basename(program).to_owned());
            }
        }
        out.push(base);
    }
    out
}

/// Whether a path opened for writing is one of the exceptions.
///
/// The judge is the resolved path: `/dev/stdout`, `/dev/fd/N` and
/// `/proc/self/fd/N` reopen whatever the descriptor holds, so they pass only
/// when that is a pipe, the terminal or `/dev/null` (or the open failed), and a
/// `/proc/self/` setting only when it resolves inside `/proc`.
fn write_allowed(path: &str, given: &str) -> bool {
    let own_proc = (given.starts_with("/proc/self/") || given.starts_with("/proc/thread-self/"))
        && !given.contains("..")
        && !given.contains("/fd/");
    WRITE_OK.contains(&path)
        || path.starts_with("/dev/pts/")
        || path.starts_with("pipe:[")
        || path.starts_with("/tmp/sh-thd")
        || (own_proc && path.starts_with("/proc/"))
}

/// Whether a program's base name is a word of the line.
fn named(words: &BTreeSet<String>, base: &str) -> bool {
    !base.is_empty() && words.contains(base)
}

/// The words of a line: maximal runs of characters a program name can hold.
pub fn words(line: &str) -> BTreeSet<String> {
    let split = |text: &str| -> Vec<String> {
        text.split(|c: char| !(c.is_alphanumeric() || "._+-".contains(c)))
            .filter(|w| !w.is_empty())
            .map(str::to_owned)
            .collect()
    };
    let mut out: BTreeSet<String> = split(line).into_iter().collect();
    // The shell removes quotes and backslashes before it runs a program word
    // (`ca\t` runs `cat`): the first word of every command, unquoted, is a
    // name too. Only command positions: `echo i''d | sh` names no `id`.
    for piece in line.split(['|', ';', '&', '(', ')', '`', '{', '}', '\n']) {
        let first = piece
            .split_whitespace()
            .find(|w| !w.contains('=') && !matches!(*w, "then" | "do" | "else" | "!" | "$"));
        if let Some(word) = first {
            let unquoted: String = word
                .chars()
                .filter(|c| !matches!(c, '\\' | '\'' | '"'))
                .collect();
            out.extend(split(&unquoted));
        }
    }
    out
}

/// The last path component.
fn basename(path: &str) -> &str {
    path.rsplit('/').next().unwrap_or(path)
}

/// Loopback, private, link-local, unspecified and similar addresses, v4 and v6.
fn internal(ip: &str) -> bool {
    match ip.parse::<std::net::IpAddr>() {
        Ok(std::net::IpAddr::V4(v4)) => {
            v4.is_loopback()
                || v4.is_private()
                || v4.is_link_local()
                || v4.is_unspecified()
                || v4.is_broadcast()
                || v4.octets().first() == Some(&100)
                    && v4.octets().get(1).is_some_and(|b| (64..128).contains(b))
        }
        Ok(std::net::IpAddr::V6(v6)) => {
            v6.is_loopback()
                || v6.is_unspecified()
                || v6
                    .segments()
                    .first()
                    .is_some_and(|s| (s & 0xfe00) == 0xfc00 || (s & 0xffc0) == 0xfe80)
                || v6
                    .to_ipv4_mapped()
                    .is_some_and(|v4| internal(&v4.to_string()))
        }
        // What cannot be read as an address is not shown to be public.
        Err(_) => true,
    }
}

/// At most `n` characters of `s`.
fn clip(s: &str, n: usize) -> String {
    if s.chars().count() <= n {
        s.to_owned()
    } else {
        let mut c: String = s.chars().take(n).collect();
        c.push('…');
        c
    }
}

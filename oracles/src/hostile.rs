//! The hostile part of the command oracle's world: what a user's machine and a
//! cloned repository may hold that a read-only line must neither print nor
//! run. The sandbox plants it in its template home; the judge reads the marks.
//!
//! - **Secrets beyond the obvious**: canary files in nested directories of the
//!   working tree (`backend/.env`, framework files such as `.dev.vars`),
//!   behind innocent-looking symbolic links, in a remote URL's user info, and
//!   in git history (a committed then deleted file).
//! - **Code from content a clone brings**: a nested bare repository
//!   (`vendor/x`) and a nested checkout (`vendor/y`) whose configuration sets
//!   every key and driver that makes git run a program (`core.fsmonitor`,
//!   `core.pager`, `diff.external`, `diff.<driver>.textconv` named by
//!   attributes, `filter.<driver>.clean/smudge/process`, `core.sshCommand`,
//!   `core.hooksPath` and hooks, `include.path`, `pager.<cmd>`, `alias`,
//!   `credential.helper`, `gpg.program`); shell start-up files and a
//!   Makefile whose `$(shell …)` does the same. Each writes a file named
//!   [`MARK`]`-<what>` under `/tmp` and prints [`PRINTED`]: the judge counts
//!   either as hostile code that ran.
//! - **Names and files that trip programs**: files named like options (`-r`,
//!   `-rf`, `--help`), a FIFO (a reader blocks), a character device that never
//!   ends, and a huge sparse file.

use std::path::Path;
use std::process::{Command, Stdio};

/// The prefix of the file every hostile program writes (`/tmp/tgpwned-KEY`).
pub const MARK: &str = "tgpwned";
/// What every hostile program prints.
pub const PRINTED: &str = "TGPWNED";

/// The traps of the working tree (relative to it): a reader of one blocks,
/// never ends or takes minutes. What a name is, is the tree's and not the
/// line's: the executor bounds the time (SECURITY.md, "Commands").
pub const TRAPS: &[&str] = &["pipe", "blob.dat", "disk.img"];

/// The size of the sparse file: 4 GiB, which a reader under the tracer takes
/// past the time bound to go through. Not more: it has no line break, so a
/// line reader (`sed`) holds it whole in memory until the bound kills it
/// (16 GiB reached 4 GB of memory in 43 s here).
const SPARSE_BYTES: u64 = 4 << 30;

/// A shell command that marks that `what` ran: it writes the mark file and
/// prints the mark. Quoted for a git configuration value (double quotes) and a
/// shell. The marks are spelled with an empty quote inside (`TGPW''NED`), so
/// a program that only prints the file holding the payload (`git grep`,
/// `cat Makefile`) prints no mark: only running it does.
fn payload(what: &str) -> String {
    let (printed_head, printed_tail) = PRINTED.split_at(4);
    let (mark_head, mark_tail) = MARK.split_at(4);
    format!(
        "echo {printed_head}''{printed_tail}-{what} >/tmp/{mark_head}''{mark_tail}-{what}; \
         echo {printed_head}''{printed_tail}-{what} >&2"
    )
}

/// The configuration of a hostile repository: every key that runs a program.
/// `include` names the included file (relative to the configuration).
fn hostile_config(bare: bool) -> String {
    let p = payload;
    format!(
        "[core]\n\
         \tbare = {bare}\n\
         \trepositoryformatversion = 0\n\
         \tfsmonitor = \"{fsmonitor}; true\"\n\
         \tpager = \"{pager}; cat\"\n\
         \tsshCommand = \"{ssh}; true\"\n\
         \thooksPath = hostile-hooks\n\
         \teditor = \"{editor}; true\"\n\
         \taskPass = \"{askpass}; true\"\n\
         \tgitProxy = \"{proxy}; true\"\n\
         [diff]\n\
         \texternal = \"{external}; true\"\n\
         [diff \"pwn\"]\n\
         \ttextconv = \"{textconv}; cat\"\n\
         \tcommand = \"{diffcmd}; true\"\n\
         [filter \"pwn\"]\n\
         \tclean = \"{clean}; cat\"\n\
         \tsmudge = \"{smudge}; cat\"\n\
         \tprocess = \"{process}; true\"\n\
         [include]\n\
         \tpath = included.gitconfig\n\
         [pager]\n\
         \tlog = \"{pagerlog}; cat\"\n\
         \tdiff = \"{pagerdiff}; cat\"\n\
         \tshow = \"{pagershow}; cat\"\n\
         [alias]\n\
         \tst = \"!{alias}\"\n\
         \tl = \"!{alias2}\"\n\
         [credential]\n\
         \thelper = \"!{credential}\"\n\
         [gpg]\n\
         \tprogram = \"{gpg}; true\"\n\
         [log]\n\
         \tshowSignature = true\n\
         [sequence]\n\
         \teditor = \"{seqeditor}; true\"\n\
         [merge \"pwn\"]\n\
         \tdriver = \"{merge}; true\"\n",
        fsmonitor = p("fsmonitor"),
        pager = p("core-pager"),
        ssh = p("sshcommand"),
        editor = p("editor"),
        askpass = p("askpass"),
        proxy = p("gitproxy"),
        external = p("diff-external"),
        textconv = p("textconv"),
        diffcmd = p("diff-command"),
        clean = p("filter-clean"),
        smudge = p("filter-smudge"),
        process = p("filter-process"),
        pagerlog = p("pager-log"),
        pagerdiff = p("pager-diff"),
        pagershow = p("pager-show"),
        alias = p("alias-st"),
        alias2 = p("alias-l"),
        credential = p("credential-helper"),
        gpg = p("gpg-program"),
        seqeditor = p("sequence-editor"),
        merge = p("merge-driver"),
    )
}

/// What the included file sets: a second fsmonitor spelling and a pager.
fn included_config() -> String {
    format!(
        "[core]\n\tfsmonitor = \"{}; true\"\n[pager]\n\tstatus = \"{}; cat\"\n",
        payload("include-fsmonitor"),
        payload("include-pager")
    )
}

/// The hooks every hostile repository carries, each writing its mark.
const HOOKS: &[&str] = &[
    "pre-commit",
    "post-checkout",
    "post-merge",
    "pre-push",
    "reference-transaction",
    "post-index-change",
    "fsmonitor-watchman",
    "pre-auto-gc",
    "push-to-checkout",
    "post-rewrite",
];

/// Shell start-up files of the home, each writing its mark.
pub const STARTUP_FILES: &[&str] = &[
    ".bashrc",
    ".bash_profile",
    ".bash_login",
    ".profile",
    ".zshenv",
    ".zprofile",
    ".zshrc",
    ".zlogin",
    ".inputrc",
];

/// Plants a nested repository at `dir`: a commit with a file the attributes
/// route through every driver, then (after the commit, so the host's git
/// never runs it) the hostile configuration, hooks and attributes.
/// `bare` lays it out as a bare repository (its files are the git directory).
///
/// # Errors
/// A message naming the step that failed.
pub fn plant_repository(dir: &Path, bare: bool) -> Result<(), String> {
    let work = dir.with_extension("work");
    write(&work.join("lib.c"), "int f(void) { return 1; }\n")?;
    write(&work.join("notes.txt"), "vendored notes\n")?;
    git(&work, &["init", "-q", "-b", "main"])?;
    git(&work, &["add", "-A"])?;
    git(&work, &["commit", "-q", "-m", "vendored"])?;
    write(&work.join("lib.c"), "int f(void) { return 2; }\n")?;
    git(&work, &["commit", "-q", "-am", "second"])?;
    let git_dir = if bare {
        std::fs::rename(work.join(".git"), dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        std::fs::remove_dir_all(&work).map_err(|e| format!("{}: {e}", work.display()))?;
        dir.to_path_buf()
    } else {
        std::fs::rename(&work, dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        write(
            &dir.join(".gitattributes"),
            "* diff=pwn filter=pwn merge=pwn\n",
        )?;
        // A changed file so `status` and `diff` have a difference to show.
        write(&dir.join("lib.c"), "int f(void) { return 3; }\n")?;
        dir.join(".git")
    };
    write(&git_dir.join("config"), &hostile_config(bare))?;
    write(&git_dir.join("included.gitconfig"), &included_config())?;
    write(
        &git_dir.join("info").join("attributes"),
        "* diff=pwn filter=pwn merge=pwn\n",
    )?;
    for hooks in ["hooks", "hostile-hooks"] {
        for hook in HOOKS {
            let path = git_dir.join(hooks).join(hook);
            write(
                &path,
                &format!("#!/bin/sh\n{}\n", payload(&format!("hook-{hook}"))),
            )?;
            executable(&path)?;
        }
    }
    Ok(())
}

/// The start-up files of a home (or any directory a shell may be pointed at
/// as its home), each writing its mark.
///
/// # Errors
/// A message naming the file.
pub fn plant_startup_files(home: &Path) -> Result<(), String> {
    for file in STARTUP_FILES {
        let what = format!("startup{}", file.replace('.', "-"));
        let text = if *file == ".inputrc" {
            // readline's file is not shell code; a macro is as far as it goes.
            String::from("\"\\C-x\": \"echo inputrc\"\n")
        } else {
            format!("{}\n", payload(&what))
        };
        write(&home.join(file), &text)?;
    }
    Ok(())
}

/// A Makefile whose parsing runs a program (`$(shell …)` is expanded while
/// make reads the file, so `make -n` and `make -p` run it too).
pub fn makefile() -> String {
    format!(
        "HOSTILE := $(shell {})\n\nall:\n\t@echo all\n",
        payload("makefile-shell")
    )
}

/// Files that trip programs: option-like names, a FIFO, an endless device, a
/// huge sparse file. `project` is the working tree.
///
/// # Errors
/// A message naming the file.
pub fn plant_traps(project: &Path) -> Result<(), String> {
    for name in ["-r", "-rf", "--help", "-n"] {
        write(&project.join(name), "an option-like name\n")?;
    }
    run("mkfifo", &[project.join("pipe").as_os_str()])?;
    // A character device that never ends (the numbers of /dev/zero), under
    // an innocent name.
    run(
        "mknod",
        &[
            project.join("blob.dat").as_os_str(),
            "c".as_ref(),
            "1".as_ref(),
            "5".as_ref(),
        ],
    )?;
    let sparse = project.join("disk.img");
    let file = std::fs::File::create(&sparse).map_err(|e| format!("{}: {e}", sparse.display()))?;
    file.set_len(SPARSE_BYTES)
        .map_err(|e| format!("{}: {e}", sparse.display()))?;
    Ok(())
}

fn executable(path: &Path) -> Result<(), String> {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755))
        .map_err(|e| format!("{}: {e}", path.display()))
}

fn run(program: &str, args: &[&std::ffi::OsStr]) -> Result<(), String> {
    let status = Command::new(program)
        .args(args)
        .status()
        .map_err(|e| format!("{program}: {e}"))?;
    if status.success() {
        Ok(())
    } else {
        Err(format!("{program} {args:?}: {status}"))
    }
}

/// Writes `text` to `path`, creating its directories.
///
/// # Errors
/// A message naming the path.
pub fn write(path: &Path, text: &str) -> Result<(), String> {
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent).map_err(|e| format!("{}: {e}", parent.display()))?;
    }
    std::fs::write(path, text).map_err(|e| format!("{}: {e}", path.display()))
}

/// Runs git in `dir` with a fixed identity and no user configuration.
///
/// # Errors
/// A message naming the command.
pub fn git(dir: &Path, args: &[&str]) -> Result<(), String> {
    let status = Command::new("git")
        .current_dir(dir)
        .args(args)
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_AUTHOR_NAME", "Oracle")
        .env("GIT_AUTHOR_EMAIL", "oracle@example.invalid")
        .env("GIT_COMMITTER_NAME", "Oracle")
        .env("GIT_COMMITTER_EMAIL", "oracle@example.invalid")
        .env("GIT_AUTHOR_DATE", "2024-01-01T00:00:00Z")
        .env("GIT_COMMITTER_DATE", "2024-01-01T00:00:00Z")
        .stdout(Stdio::null())
        .status()
        .map_err(|e| format!("git {args:?}: {e}"))?;
    if status.success() {
        Ok(())
    } else {
        Err(format!("git {args:?} in {}: {status}", dir.display()))
    }
}

//! `git`: read-only subcommands with their writing and executing options
//! refused, and the destructive patterns the floor must see.
//!
//! The repository's own configuration is trusted (an agent works in a checkout
//! its user chose); the command line is not: `-c`, `--config-env`, `--exec-path`
//! and the options that run external programs (`--ext-diff`, `--textconv`,
//! `grep -O`) or write files (`--output`) are refused everywhere.

use super::programs::long_matches;

/// Global options that take a value as the next word.
const GLOBAL_WITH_VALUE: &[&str] = &["-C", "--git-dir", "--work-tree", "--namespace"];
/// Global options that are read-only by themselves.
const GLOBAL_FLAGS: &[&str] = &[
    "--no-pager",
    "-P",
    "--no-replace-objects",
    "--bare",
    "--literal-pathspecs",
    "--glob-pathspecs",
    "--noglob-pathspecs",
    "--icase-pathspecs",
    "--no-optional-locks",
    "--version",
    "--help",
];
/// Options refused in every subcommand: they run programs or write files.
const REFUSED_LONG: &[&str] = &[
    "--output",
    "--ext-diff",
    "--textconv",
    "--open-files-in-pager",
    "--exec",
    "--upload-pack",
    "--receive-pack",
    "--config-env",
    "--exec-path",
    "--run",
    "--edit",
    "--output-directory",
];

/// A check of a subcommand's own arguments; `Err` names the unsafe one.
type ArgCheck = fn(&[String]) -> Result<(), String>;

/// Subcommands that only read, with the check for their own arguments.
fn subcommand(name: &str) -> Option<ArgCheck> {
    let check: ArgCheck = match name {
        "status" | "log" | "show" | "diff" | "blame" | "annotate" | "shortlog" | "describe"
        | "rev-parse" | "rev-list" | "ls-files" | "ls-tree" | "cat-file" | "show-ref"
        | "for-each-ref" | "merge-base" | "name-rev" | "count-objects" | "whatchanged"
        | "diff-tree" | "diff-files" | "diff-index" | "range-diff" | "cherry" | "var"
        | "check-ignore" | "check-attr" | "verify-commit" | "verify-tag" | "show-branch"
        | "version" | "help" => |_| Ok(()),
        "grep" => |args| refuse_short(args, &['O']),
        "branch" => branch,
        "tag" => tag,
        "remote" => remote,
        "config" => config,
        "stash" => |args| match args.first().map(String::as_str) {
            Some("list" | "show") => Ok(()),
            Some(other) => Err(other.to_owned()),
            None => Err(String::from("stash")),
        },
        "reflog" => |args| match args.first().map(String::as_str) {
            None | Some("show") => Ok(()),
            Some(other) if other.starts_with('-') => Ok(()),
            Some(other) => Err(other.to_owned()),
        },
        "worktree" | "submodule" => |args| match args.first().map(String::as_str) {
            Some("list" | "status")
                if args.len() == 1 || args.iter().skip(1).all(|a| a.starts_with('-')) =>
            {
                Ok(())
            }
            Some(other) => Err(other.to_owned()),
            None => Err(String::from("(no subcommand)")),
        },
        _ => return None,
    };
    Some(check)
}

fn refuse_short(args: &[String], letters: &[char]) -> Result<(), String> {
    match args.iter().find(|a| {
        a.starts_with('-')
            && !a.starts_with("--")
            && a.chars().skip(1).any(|c| letters.contains(&c))
    }) {
        Some(arg) => Err(arg.clone()),
        None => Ok(()),
    }
}

/// Listing forms only: no name operand unless `--list` makes it a pattern, and
/// none of the options that create, delete, rename or configure.
fn list_only(
    args: &[String],
    list_flags: &[&str],
    mutating: &[char],
    mutating_long: &[&str],
) -> Result<(), String> {
    let listing = args.iter().any(|a| list_flags.contains(&a.as_str()));
    for arg in args {
        if let Some(name) = arg.strip_prefix("--") {
            if long_matches(mutating_long, name) {
                return Err(arg.clone());
            }
        } else if arg.starts_with('-') {
            if arg.chars().skip(1).any(|c| mutating.contains(&c)) {
                return Err(arg.clone());
            }
        } else if !listing {
            return Err(arg.clone());
        }
    }
    Ok(())
}

fn branch(args: &[String]) -> Result<(), String> {
    list_only(
        args,
        &[
            "--list",
            "-l",
            "-a",
            "-r",
            "--all",
            "--remotes",
            "--contains",
            "--merged",
            "--no-merged",
            "--points-at",
        ],
        &['d', 'D', 'm', 'M', 'c', 'C', 'f', 'u', 't'],
        &[
            "--delete",
            "--move",
            "--copy",
            "--force",
            "--set-upstream-to",
            "--unset-upstream",
            "--edit-description",
            "--track",
            "--create-reflog",
        ],
    )
}

fn tag(args: &[String]) -> Result<(), String> {
    list_only(
        args,
        &[
            "--list",
            "-l",
            "--contains",
            "--merged",
            "--no-merged",
            "--points-at",
        ],
        &['d', 'a', 's', 'u', 'f', 'm', 'F', 'e'],
        &[
            "--delete",
            "--annotate",
            "--sign",
            "--local-user",
            "--force",
            "--message",
            "--file",
            "--create-reflog",
        ],
    )
}

fn remote(args: &[String]) -> Result<(), String> {
    match args
        .iter()
        .find(|a| !a.starts_with('-'))
        .map(String::as_str)
    {
        None | Some("show" | "get-url") => Ok(()),
        Some(other) => Err(other.to_owned()),
    }
}

fn config(args: &[String]) -> Result<(), String> {
    const READS: &[&str] = &[
        "--get",
        "--get-all",
        "--get-regexp",
        "--get-urlmatch",
        "--list",
        "-l",
        "--show-origin",
        "--show-scope",
        "--name-only",
        "--global",
        "--system",
        "--local",
        "--worktree",
        "--null",
        "-z",
        "--type",
        "--bool",
        "--int",
        "--includes",
        "--no-includes",
        "get",
        "list",
    ];
    let reading = args.iter().any(|a| {
        matches!(
            a.as_str(),
            "--get"
                | "--get-all"
                | "--get-regexp"
                | "--get-urlmatch"
                | "--list"
                | "-l"
                | "get"
                | "list"
        )
    });
    if !reading {
        return Err(args
            .first()
            .cloned()
            .unwrap_or_else(|| String::from("config")));
    }
    match args
        .iter()
        .find(|a| a.starts_with('-') && !READS.contains(&a.split('=').next().unwrap_or(a)))
    {
        Some(arg) => Err(arg.clone()),
        None => Ok(()),
    }
}

/// Checks a whole `git` argument list (everything after `git`).
pub fn check(args: &[String]) -> Result<(), String> {
    let mut i = 0;
    while let Some(arg) = args.get(i) {
        if GLOBAL_WITH_VALUE.contains(&arg.as_str()) {
            i += 2;
            continue;
        }
        if arg.starts_with("--git-dir=")
            || arg.starts_with("--work-tree=")
            || arg.starts_with("--namespace=")
        {
            i += 1;
            continue;
        }
        if GLOBAL_FLAGS.contains(&arg.as_str()) {
            if arg == "--version" || arg == "--help" {
                return Ok(());
            }
            i += 1;
            continue;
        }
        break;
    }
    let Some(name) = args.get(i) else {
        return Err(String::from("(no subcommand)"));
    };
    if name.starts_with('-') {
        // `-c name=value`, `--exec-path`, `--config-env` and unknown globals.
        return Err(name.clone());
    }
    let Some(check) = subcommand(name) else {
        return Err(name.clone());
    };
    let rest = args.get(i + 1..).unwrap_or_default();
    for arg in rest {
        if arg == "--" {
            break;
        }
        if let Some(option) = arg.strip_prefix("--") {
            if long_matches(REFUSED_LONG, option) {
                return Err(arg.clone());
            }
        }
    }
    check(rest).map_err(|bad| format!("{name} {bad}"))
}

/// The index of the subcommand: past global options and their values.
fn subcommand_index(words: &[&str]) -> Option<usize> {
    let mut i = 0;
    while let Some(word) = words.get(i) {
        if GLOBAL_WITH_VALUE.contains(word) || *word == "-c" {
            i += 2;
        } else if word.starts_with('-') {
            i += 1;
        } else {
            return Some(i);
        }
    }
    None
}

/// What a `git` command positively destroys, for the floor.
pub fn destructive(args: &[String]) -> Option<&'static str> {
    let words: Vec<&str> = args
        .iter()
        .map(String::as_str)
        .filter(|a| !a.is_empty())
        .collect();
    let sub_at = subcommand_index(&words)?;
    let sub = *words.get(sub_at)?;
    let rest = words.get(sub_at + 1..).unwrap_or_default();
    let has = |flag: &str| rest.contains(&flag);
    let short = |c: char| {
        rest.iter()
            .any(|w| w.starts_with('-') && !w.starts_with("--") && w.contains(c))
    };
    match sub {
        "push"
            if has("--force")
                || has("--force-with-lease")
                || short('f')
                || has("--delete")
                || short('d')
                || rest
                    .iter()
                    .any(|w| w.starts_with('+') || w.starts_with(':')) =>
        {
            Some("rewrites or deletes remote history")
        }
        "reset" if has("--hard") || has("--merge") || has("--keep") => {
            Some("discards local changes")
        }
        "clean" if short('f') || has("--force") => Some("deletes untracked files"),
        "checkout" if has("--") || has(".") || short('f') || has("--force") => {
            Some("discards local changes")
        }
        "restore" if !has("--staged") || has("--worktree") => Some("discards local changes"),
        "branch" if short('D') || has("--delete") && has("--force") => Some("deletes branches"),
        "stash" if rest.first().is_some_and(|w| matches!(*w, "drop" | "clear")) => {
            Some("deletes stashed changes")
        }
        "filter-branch" | "filter-repo" => Some("rewrites history"),
        "update-ref" if short('d') || has("--delete") => Some("deletes references"),
        "reflog"
            if rest
                .first()
                .is_some_and(|w| matches!(*w, "expire" | "delete")) =>
        {
            Some("deletes history")
        }
        "gc" if rest.iter().any(|w| w.starts_with("--prune")) => {
            Some("deletes unreachable history")
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(line: &str) -> Vec<String> {
        line.split_whitespace().map(str::to_owned).collect()
    }

    #[test]
    fn read_only_git() {
        for line in [
            "status",
            "log --oneline -20",
            "log -p --stat -- src",
            "show HEAD~1",
            "diff --cached",
            "diff main...feature -- a.rs",
            "blame -L 10,20 src/lib.rs",
            "branch",
            "branch -a",
            "branch --list feat*",
            "tag",
            "tag -l v1.*",
            "remote -v",
            "remote show origin",
            "config --get user.name",
            "config --list",
            "rev-parse HEAD",
            "ls-files",
            "grep -n TODO",
            "-C repo status",
            "--no-pager log",
            "stash list",
            "describe --tags",
            "--version",
            "shortlog -sn",
            "reflog",
            "worktree list",
        ] {
            assert_eq!(check(&args(line)), Ok(()), "git {line}");
        }
    }

    #[test]
    fn writing_or_executing_git() {
        for line in [
            "-c core.pager=sh log",
            "-c alias.x=!sh x",
            "--exec-path=/tmp log",
            "--config-env=a=b log",
            "diff --output=/tmp/x",
            "log --output=/tmp/x",
            "diff --ext-diff",
            "log --textconv -p",
            "grep -O vim TODO",
            "grep --open-files-in-pager=vi TODO",
            "branch new-feature",
            "branch -d old",
            "branch -D old",
            "branch -m a b",
            "tag v1.0",
            "tag -d v1.0",
            "tag -a v1 -m x",
            "remote add x url",
            "remote remove origin",
            "config user.name x",
            "config --unset user.name",
            "push",
            "commit -m x",
            "checkout main",
            "reset --hard",
            "stash",
            "stash drop",
            "fetch",
            "pull",
            "clone url",
            "gc",
            "am x",
            "apply x.patch",
            "submodule update",
            "",
            "--no-pager",
        ] {
            assert!(check(&args(line)).is_err(), "git {line}");
        }
    }

    #[test]
    fn destructive_git() {
        for line in [
            "push --force origin main",
            "push -f",
            "push origin +main",
            "push origin :old",
            "push --delete origin old",
            "reset --hard HEAD~3",
            "clean -fdx",
            "checkout -- .",
            "restore .",
            "branch -D feature",
            "stash clear",
            "filter-branch --tree-filter x",
            "reflog expire --all",
            "-C repo push --force",
        ] {
            assert!(destructive(&args(line)).is_some(), "git {line}");
        }
        for line in [
            "push origin main",
            "log",
            "reset --soft HEAD~1",
            "restore --staged a.rs",
            "clean -n",
        ] {
            assert_eq!(destructive(&args(line)), None, "git {line}");
        }
    }
}

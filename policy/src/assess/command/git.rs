//! `git`: read-only subcommands, each with its option grammar, and the
//! destructive patterns the floor must see.
//!
//! The repository's own configuration is trusted (an agent works in a checkout
//! its user chose); the command line is not. Every global option that points
//! git at another repository or configuration is refused: `-C`, `--git-dir`,
//! `--work-tree`, `--bare`, `--namespace`, `-c`, `--config-env`,
//! `--exec-path` (another repository's `core.fsmonitor`, `core.pager` or
//! aliases run programs). So are the options that run external programs
//! (`--ext-diff`, `--textconv`, `grep -O`, `--show-signature`) or write files
//! (`--output`): none is declared.

use super::forms::{view, Subcommand};
use super::grammar::{g, parse, Grammar, Parsed, BASE};
use super::refusal::Refusal;

mod accepts;
use crate::codes;
use crate::text::preview;

/// Global options that change nothing but output and pathspec matching.
const GLOBAL_FLAGS: &[&str] = &[
    "--no-pager",
    "-P",
    "--no-replace-objects",
    "--literal-pathspecs",
    "--glob-pathspecs",
    "--noglob-pathspecs",
    "--icase-pathspecs",
    "--no-optional-locks",
];

/// Diff output options shared by `diff`, `show`, `log -p` and the diff
/// plumbing. Not `--output`, `--ext-diff`, `--textconv`.
const DIFF_FLAGS: &[&str] = &[
    "patch",
    "no-patch",
    "raw",
    "patch-with-raw",
    "patch-with-stat",
    "shortstat",
    "numstat",
    "summary",
    "name-only",
    "name-status",
    "compact-summary",
    "full-index",
    "binary",
    "minimal",
    "patience",
    "histogram",
    "no-renames",
    "check",
    "text",
    "ignore-space-at-eol",
    "ignore-space-change",
    "ignore-all-space",
    "ignore-blank-lines",
    "ignore-cr-at-eol",
    "function-context",
    "exit-code",
    "quiet",
    "no-prefix",
    "default-prefix",
    "no-color",
    "no-ext-diff",
    "no-textconv",
    "cached",
    "staged",
    "merge-base",
    "indent-heuristic",
    "no-indent-heuristic",
    "irreversible-delete",
    "full-diff",
    "cc",
    "combined-all-paths",
    "no-relative",
    "ita-invisible-in-index",
    "ita-visible-in-index",
    "color-moved-ws",
];
const DIFF_VALUED: &[&str] = &[
    "unified",
    "diff-algorithm",
    "diff-filter",
    "src-prefix",
    "dst-prefix",
    "line-prefix",
    "anchored",
    "inter-hunk-context",
    "ws-error-highlight",
    "stat-width",
    "stat-name-width",
    "stat-count",
    "stat-graph-width",
    "break-rewrites",
    "skip-to",
    "rotate-to",
    "G",
    "S",
];
const DIFF_OPTIONAL: &[&str] = &[
    "stat",
    "dirstat",
    "color",
    "color-moved",
    "color-words",
    "word-diff",
    "word-diff-regex",
    "find-renames",
    "find-copies",
    "find-copies-harder",
    "relative",
    "abbrev",
    "submodule",
    "ignore-submodules",
];

/// Revision walking options (`log`, `shortlog`, `rev-list`, `whatchanged`).
const LOG_FLAGS: &[&str] = &[
    "oneline",
    "graph",
    "all",
    "abbrev-commit",
    "no-abbrev-commit",
    "regexp-ignore-case",
    "extended-regexp",
    "fixed-strings",
    "basic-regexp",
    "perl-regexp",
    "all-match",
    "invert-grep",
    "reverse",
    "first-parent",
    "merges",
    "no-merges",
    "relative-date",
    "follow",
    "left-right",
    "cherry-pick",
    "cherry-mark",
    "cherry",
    "boundary",
    "topo-order",
    "date-order",
    "author-date-order",
    "full-history",
    "simplify-by-decoration",
    "simplify-merges",
    "ancestry-path",
    "source",
    "parents",
    "children",
    "log-size",
    "mailmap",
    "use-mailmap",
    "no-mailmap",
    "no-use-mailmap",
    "no-notes",
    "show-linear-break",
    "not",
    "count",
    "objects",
    "no-walk",
    "no-decorate",
    "no-expand-tabs",
    "left-only",
    "right-only",
    "show-pulls",
    "dense",
    "sparse",
    "no-min-parents",
    "no-max-parents",
    "remove-empty",
    "in-commit-order",
    "single-worktree",
    "stdin",
    "no-graph",
];
const LOG_VALUED: &[&str] = &[
    "format",
    "since",
    "until",
    "after",
    "before",
    "author",
    "committer",
    "grep",
    "max-count",
    "skip",
    "date",
    "encoding",
    "exclude",
    "glob",
    "min-parents",
    "max-parents",
    "since-as-filter",
    "decorate-refs",
    "decorate-refs-exclude",
    "grep-reflog",
];
const LOG_OPTIONAL: &[&str] = &[
    "abbrev-ref",
    "short",
    "porcelain",
    "untracked-files",
    "ignored",
    "column",
    "hash",
    "pretty",
    "decorate",
    "branches",
    "tags",
    "remotes",
    "notes",
    "expand-tabs",
    "show-notes",
    "abbrev",
    "stat",
];

/// `log`, `show`, `whatchanged`, `rev-list`, `shortlog`, `diff` and the diff
/// plumbing share one grammar of revision and diff options.
const LOG: Grammar = Grammar {
    valued: "nUSGL",
    number_option: true,
    ..g("pusimcrtRWabwzEFPMCDBq", &[])
};

/// The short options of the other subcommands that share the log parser.
fn shorts(sub: &str) -> &'static Grammar {
    const SHORTLOG: Grammar = g("snec", &[]);
    const STATUS: Grammar = g("sbvuz", &[]);
    const BLAME: Grammar = Grammar {
        valued: "L",
        ..g("wMCesltnfpcb", &[])
    };
    const LS_FILES: Grammar = Grammar {
        valued: "x",
        path_valued: "X",
        ..g("cdmoisukzvtf", &[])
    };
    const LS_TREE: Grammar = g("drtlz", &[]);
    const SHOW_REF: Grammar = g("dsq", &[]);
    const QUIET: Grammar = g("q", &[]);
    const MERGE_BASE: Grammar = g("a", &[]);
    const COUNT_OBJECTS: Grammar = g("vH", &[]);
    const CHECK_IGNORE: Grammar = g("qvnz", &[]);
    const CHECK_ATTR: Grammar = g("az", &[]);
    const SHOW_BRANCH: Grammar = g("ar", &[]);
    const CHERRY: Grammar = g("v", &[]);
    match sub {
        "shortlog" => &SHORTLOG,
        "status" => &STATUS,
        "blame" | "annotate" => &BLAME,
        "ls-files" => &LS_FILES,
        "ls-tree" => &LS_TREE,
        "show-ref" => &SHOW_REF,
        "rev-parse" => &QUIET,
        "merge-base" => &MERGE_BASE,
        "count-objects" => &COUNT_OBJECTS,
        "check-ignore" => &CHECK_IGNORE,
        "check-attr" => &CHECK_ATTR,
        "show-branch" => &SHOW_BRANCH,
        "cherry" => &CHERRY,
        "describe" | "name-rev" | "for-each-ref" | "version" => &BASE,
        _ => &LOG,
    }
}

/// Options git accepts that make a listing read files' contents: `git
/// ls-files --eol` reads every file it lists to report its line endings,
/// untracked secret files too with `--others` (the forms oracle saw it open
/// `.env`, and read a huge sparse file past the memory bound).
const READS_CONTENTS: &[(&str, &str)] = &[("ls-files", "eol")];

/// Whether git accepts the log parser's long option `name` after `sub`
/// (`accepts.rs`, generated by running git): `git status --graph` is
/// refused by git as unknown, so it is not declared for `status`.
fn accepts(sub: &str, name: &str) -> bool {
    if READS_CONTENTS.contains(&(sub, name)) {
        return false;
    }
    accepts::ACCEPTS.iter().any(|row| {
        row.subs.contains(&sub)
            && (row.also.contains(&name)
                || (row.lists.iter().any(|list| list.contains(&name))
                    && !row.except.contains(&name)))
    })
}

/// Every long name of the log grammar, in one place, as `sub` accepts it.
fn log_long(sub: &str, name: &str) -> Option<Long> {
    if !accepts(sub, name) {
        return None;
    }
    let declares = |lists: &[&[&str]]| lists.iter().any(|list| list.contains(&name));
    if declares(LOG_LONG_FLAGS) {
        Some(Long::Flag)
    } else if declares(LOG_LONG_VALUED) {
        Some(Long::Valued)
    } else if declares(LOG_LONG_OPTIONAL) {
        Some(Long::Optional)
    } else {
        None
    }
}

/// The log parser's long options without a value, by the lists that hold
/// them (read by `log_long` and listed by `declared`).
const LOG_LONG_FLAGS: &[&[&str]] = &[LOG_FLAGS, DIFF_FLAGS, LOG_EXTRA_FLAGS];
/// The log parser's long options that take a value.
const LOG_LONG_VALUED: &[&[&str]] = &[LOG_VALUED, DIFF_VALUED, LOG_EXTRA_VALUED];
/// The log parser's long options whose value is optional.
const LOG_LONG_OPTIONAL: &[&[&str]] = &[LOG_OPTIONAL, DIFF_OPTIONAL];

/// Long options of the other read-only subcommands that share the log parser.
const LOG_EXTRA_FLAGS: &[&str] = &[
    // shortlog
    "summary",
    "numbered",
    "email",
    "committer",
    // rev-parse
    "verify",
    "show-toplevel",
    "git-dir",
    "show-prefix",
    "show-cdup",
    "is-inside-work-tree",
    "is-inside-git-dir",
    "is-bare-repository",
    "is-shallow-repository",
    "symbolic",
    "symbolic-full-name",
    "git-common-dir",
    "absolute-git-dir",
    "local-env-vars",
    "sq",
    "show-superproject-working-tree",
    "show-object-format",
    // ls-files / ls-tree
    "deleted",
    "modified",
    "others",
    "ignored",
    "stage",
    "unmerged",
    "killed",
    "directory",
    "no-empty-directory",
    "exclude-standard",
    "full-name",
    "full-tree",
    "recurse-submodules",
    "eol",
    "error-unmatch",
    "deduplicate",
    "name-only",
    "object-only",
    "long",
    "debug",
    // diff-tree and friends
    "root",
    "always",
    "no-commit-id",
    // blame
    "porcelain",
    "line-porcelain",
    "incremental",
    "show-stats",
    "show-email",
    "show-name",
    "show-number",
    "color-lines",
    "color-by-age",
    "score-debug",
    // cat-file
    "allow-unknown-type",
    "follow-symlinks",
    "buffer",
    // show-ref / for-each-ref / name-rev / describe / merge-base / cherry
    "head",
    "heads",
    "dereference",
    "exists",
    "shell",
    "perl",
    "python",
    "tcl",
    "ignore-case",
    "omit-empty",
    "annotate-stdin",
    "name-only",
    "no-undefined",
    "long",
    "exact-match",
    "contains",
    "octopus",
    "independent",
    "is-ancestor",
    "fork-point",
    "human-readable",
    "verbose",
    "build-options",
    "list",
    "current",
    "more",
    "no-name",
    "sha1-name",
    "topics",
    "merge-base",
    "non-matching",
    "no-column",
    "no-abbrev",
    // status
    "branch",
    "show-stash",
    "ahead-behind",
    "no-ahead-behind",
    "renames",
    "null",
    // range-diff
    "no-dual-color",
];
const LOG_EXTRA_VALUED: &[&str] = &[
    "sort",
    "count",
    "points-at",
    "refs",
    "match",
    "candidates",
    "ignore-rev",
    "creation-factor",
    "group",
    "path-format",
    "default",
    "exclude-per-directory",
    "source",
];

enum Long {
    Flag,
    Valued,
    Optional,
}

/// Parses a subcommand's arguments against the shared log grammar. `--`
/// ends options; the rest are revisions and paths (checked for secrets by
/// the caller).
fn log_like(sub: &str, args: &[String]) -> Result<Parsed, Refusal> {
    // `status -uno`: `-u` takes its mode only attached.
    let args: Vec<String> = args
        .iter()
        .map(|a| match (sub, a.as_str()) {
            ("status", "-uno" | "-unormal" | "-uall") => String::from("-u"),
            _ => a.clone(),
        })
        .collect();
    let args = args.as_slice();
    let program = format!("git {sub}");
    let mut parsed = Parsed {
        program: program.clone(),
        ..Parsed::default()
    };
    let mut shorts = Vec::new();
    let mut i = 0;
    while let Some(arg) = args.get(i) {
        i += 1;
        if arg == "--" {
            parsed
                .operands
                .extend(args.get(i..).unwrap_or(&[]).iter().cloned());
            break;
        }
        let Some(long) = arg.strip_prefix("--") else {
            shorts.push(arg.clone());
            continue;
        };
        let (name, inline) = match long.split_once('=') {
            Some((n, v)) => (n, Some(v)),
            None => (long, None),
        };
        match log_long(sub, name) {
            Some(Long::Flag) if inline.is_none() => {
                parsed.options.push((format!("--{name}"), None))
            }
            Some(Long::Optional) => parsed
                .options
                .push((format!("--{name}"), inline.map(str::to_owned))),
            Some(Long::Valued) => {
                let value = match inline {
                    Some(v) => v.to_owned(),
                    None => {
                        let next = args
                            .get(i)
                            .filter(|w| !w.starts_with('-'))
                            .ok_or_else(|| Refusal::argument(&program, arg, "lacks its value"))?;
                        i += 1;
                        next.clone()
                    }
                };
                parsed.options.push((format!("--{name}"), Some(value)));
            }
            Some(Long::Flag) => {
                return Err(Refusal::argument(
                    &program,
                    arg,
                    "gives a value to an option that takes none",
                ))
            }
            None => {
                return Err(Refusal::option(
                    &program,
                    arg.split('=').next().unwrap_or(arg),
                ))
            }
        }
    }
    // The short options and operands, through the grammar.
    let short = parse(&program, self::shorts(sub), &shorts)?;
    parsed.options.extend(short.options);
    parsed.operands.splice(0..0, short.operands);
    Ok(parsed)
}

/// The subcommands read by the log parser: the log, diff and listing
/// options (`log_long`) and each one's short options (`shorts`).
const LOG_LIKE: &[&str] = &[
    "status",
    "log",
    "show",
    "diff",
    "blame",
    "annotate",
    "shortlog",
    "describe",
    "rev-parse",
    "rev-list",
    "ls-files",
    "ls-tree",
    "show-ref",
    "for-each-ref",
    "merge-base",
    "name-rev",
    "count-objects",
    "whatchanged",
    "diff-tree",
    "diff-files",
    "diff-index",
    "range-diff",
    "cherry",
    "check-ignore",
    "check-attr",
    "show-branch",
    "version",
];

/// `worktree list`.
const WORKTREE_LIST: Grammar = Grammar {
    max_operands: 0,
    ..g("v", &["porcelain", "verbose"])
};

/// The option grammars of the read-only subcommands, as the forms oracle
/// reads them: the same constants the checks parse with. A log-parser
/// subcommand (and `stash list`, `stash show`, `reflog`, `reflog show`,
/// which `stash` and `reflog` parse with it) declares its own short options
/// and every long option of the log parser, as the parser accepts them;
/// `remote` is proven alone.
pub fn declared() -> Vec<Subcommand> {
    const ALONE: Grammar = Grammar {
        max_operands: 0,
        ..BASE
    };
    let parsed_as_log = ["stash list", "stash show", "reflog", "reflog show"];
    let mut out: Vec<Subcommand> = LOG_LIKE
        .iter()
        .chain(&parsed_as_log)
        .map(|sub| {
            let accepted = |lists: &[&[&'static str]]| -> Vec<&'static str> {
                let mut names: Vec<&'static str> = Vec::new();
                for name in lists.concat() {
                    if accepts(sub, name) && !names.contains(&name) {
                        names.push(name);
                    }
                }
                names
            };
            let mut options = view(shorts(sub));
            options.long_flags = accepted(LOG_LONG_FLAGS);
            options.long_valued = accepted(LOG_LONG_VALUED);
            options.long_optional = accepted(LOG_LONG_OPTIONAL);
            Subcommand {
                words: (*sub).to_owned(),
                options,
            }
        })
        .collect();
    for (words, grammar) in [
        ("remote", &ALONE),
        ("cat-file", &CAT_FILE),
        ("grep", &GREP),
        ("branch", &BRANCH),
        ("tag", &TAG),
        ("config", &CONFIG),
        ("worktree list", &WORKTREE_LIST),
    ] {
        out.push(Subcommand {
            words: words.to_owned(),
            options: view(grammar),
        });
    }
    out
}

/// A subcommand's check.
type SubCheck = fn(&str, &[String]) -> Result<(), Refusal>;

/// Subcommands that only read, with the check for their own arguments.
fn subcommand(name: &str) -> Option<SubCheck> {
    let check: SubCheck = match name {
        _ if LOG_LIKE.contains(&name) => |sub, args| log_like(sub, args).map(|_| ()),
        "cat-file" => cat_file,
        "grep" => grep,
        "branch" => branch,
        "tag" => tag,
        "remote" => remote,
        "config" => config,
        "stash" => stash,
        "reflog" => reflog,
        "worktree" => |_, args| match args {
            [list, rest @ ..] if list == "list" => {
                parse("git worktree list", &WORKTREE_LIST, rest).map(|_| ())
            }
            _ => Err(Refusal::argument(
                "git worktree",
                &args.join(" "),
                "is not a listing",
            )),
        },
        _ => return None,
    };
    Some(check)
}

/// The options of `git cat-file` (the check after it says what is left out).
const CAT_FILE: Grammar = Grammar {
    long_optional: &["batch", "batch-check"],
    ..g(
        "tsepZ",
        &["allow-unknown-type", "follow-symlinks", "buffer"],
    )
};

/// `cat-file`: not `--textconv` or `--filters` (they run configured programs).
fn cat_file(_: &str, args: &[String]) -> Result<(), Refusal> {
    let parsed = parse("git cat-file", &CAT_FILE, args)?;
    // `--batch` prints the objects named on its input, which the line does
    // not show (`echo HEAD:.env | git cat-file --batch`).
    if parsed.has("--batch") {
        return Err(Refusal::new(
            codes::COMMAND_SENSITIVE_PATH,
            String::from("`git cat-file --batch` prints objects named on its input, which may be committed secret files"),
        ));
    }
    // A bare object id may be the blob of a committed secret file; only
    // `REV:path` (whose path is checked) and names of commits, trees and
    // refs say what is printed.
    if parsed.operands.iter().any(|o| {
        !o.contains(':')
            && o.len() >= 4
            && o.len() <= 64
            && o.bytes().all(|b| b.is_ascii_hexdigit())
    }) && (parsed.has("-p") || parsed.operands.len() >= 2)
    {
        return Err(Refusal::new(
            codes::COMMAND_SENSITIVE_PATH,
            String::from(
                "`git cat-file` of a bare object id may print the blob of a committed secret file",
            ),
        ));
    }
    Ok(())
}

/// The options of `git grep` (the check after it says what is left out).
const GREP: Grammar = Grammar {
    valued: "eABCm",
    path_valued: "f",
    long_valued: &[
        "max-depth",
        "threads",
        "after-context",
        "before-context",
        "context",
        "max-count",
    ],
    long_optional: &["color"],
    number_option: true,
    ..g(
        "nivwlLchHEFGPpWoqzaIr",
        &[
            "cached",
            "recurse-submodules",
            "heading",
            "break",
            "show-function",
            "function-context",
            "only-matching",
            "quiet",
            "and",
            "or",
            "not",
            "all-match",
            "full-name",
            "column",
            "no-color",
            "exclude-standard",
            "null",
            "text",
            "count",
            "name-only",
            "files-with-matches",
            "files-without-match",
            "ignore-case",
            "word-regexp",
            "invert-match",
            "line-number",
            "extended-regexp",
            "fixed-strings",
            "basic-regexp",
            "perl-regexp",
            "no-textconv",
        ],
    )
};

/// `grep`: not `-O`/`--open-files-in-pager` (runs a program), `--textconv`,
/// `--untracked`, `--no-index` or `--no-exclude-standard` (they search files
/// git does not track, `.env` and keys included: the forms oracle ran
/// `git grep --untracked alpha` and saw it open every secret of the tree).
fn grep(_: &str, args: &[String]) -> Result<(), Refusal> {
    parse("git grep", &GREP, args).map(|_| ())
}

/// Listing forms only: an operand is a pattern only with `--list`/`-l`;
/// otherwise it names a branch or tag to create.
fn listing(parsed: &Parsed) -> Result<(), Refusal> {
    let listing = parsed.has("--list") || parsed.has("-l");
    match parsed.operands.first() {
        Some(name) if !listing => Err(Refusal::argument(
            &parsed.program,
            name,
            "creates a branch or tag (an operand without `--list`)",
        )),
        _ => Ok(()),
    }
}

/// The options of `git branch` (the check after it says what is left out).
const BRANCH: Grammar = Grammar {
    long_valued: &["format", "sort"],
    long_optional: &[
        "contains",
        "no-contains",
        "merged",
        "no-merged",
        "points-at",
        "color",
        "column",
        "abbrev",
    ],
    then: Some(listing),
    ..g(
        "arvli",
        &[
            "all",
            "remotes",
            "verbose",
            "list",
            "show-current",
            "ignore-case",
            "no-color",
            "no-column",
            "no-abbrev",
            "omit-empty",
        ],
    )
};

/// `branch`: not `-d`/`-D`/`-m`/`-M`/`-c`/`-C`/`-f`/`-u`/`-t` or their long
/// forms, `--edit-description`, `--create-reflog`.
fn branch(_: &str, args: &[String]) -> Result<(), Refusal> {
    parse("git branch", &BRANCH, args).map(|_| ())
}

/// The options of `git tag` (the check after it says what is left out).
const TAG: Grammar = Grammar {
    long_valued: &["format", "sort"],
    long_optional: &[
        "contains",
        "no-contains",
        "merged",
        "no-merged",
        "points-at",
        "color",
        "column",
    ],
    then: Some(listing),
    ..g("lin", &["list", "ignore-case", "no-column", "omit-empty"])
};

/// `tag`: not `-a`/`-s`/`-u`/`-f`/`-d`/`-v`/`-m`/`-F`/`-e`.
fn tag(_: &str, args: &[String]) -> Result<(), Refusal> {
    parse("git tag", &TAG, args).map(|_| ())
}

/// `remote` alone: the remotes' names. Every form that prints a URL (`-v`,
/// `get-url`, `show -n`) prints the credentials a URL may carry
/// (`https://user:TOKEN@host/…`, which `git clone` keeps in the
/// configuration); without `-n`, `show` also contacts the remote.
fn remote(_: &str, args: &[String]) -> Result<(), Refusal> {
    match args {
        [] => Ok(()),
        [first, ..]
            if matches!(first.as_str(), "-v" | "--verbose" | "get-url" | "show")
                || "--verbose".starts_with(first.as_str()) && first.len() > 2 =>
        {
            Err(Refusal::new(
                codes::COMMAND_CREDENTIALS,
                format!(
                    "`git remote {}` prints the remotes' URLs, which may carry credentials",
                    preview(first, 30)
                ),
            ))
        }
        [first, ..] => Err(Refusal::argument(
            "git remote",
            first,
            "is not a read-only form",
        )),
    }
}

/// The options of `git config` (the check after it says what is left out).
const CONFIG: Grammar = Grammar {
    long_valued: &["type", "default", "value"],
    ..g(
        "lz",
        &[
            "get",
            "get-all",
            "get-regexp",
            "get-urlmatch",
            "list",
            "show-origin",
            "show-scope",
            "name-only",
            "global",
            "system",
            "local",
            "worktree",
            "null",
            "bool",
            "int",
            "bool-or-int",
            "path",
            "expiry-date",
            "includes",
            "no-includes",
            "all",
            "regexp",
        ],
    )
};

/// `config`, read forms only, in their exact shapes: `--get NAME [REGEX]`,
/// `--get-all NAME [REGEX]`, `--get-regexp REGEX [REGEX]`, `--get-urlmatch
/// NAME URL`, `--list`/`-l`, `section.key` alone, and the newer `get NAME`
/// and `list`. Any other shape may write: `git config NAME VALUE get` sets NAME.
fn config(_: &str, args: &[String]) -> Result<(), Refusal> {
    let program = "git config";
    let (new_form, rest) = match args.split_first() {
        Some((first, rest)) if first == "get" || first == "list" => (Some(first.as_str()), rest),
        _ => (None, args),
    };
    let parsed = parse(program, &CONFIG, rest)?;
    // `--all`, `--regexp` and `--value` are options of the newer `get`
    // (git 2.46 and later); alone they are unknown to git (2.47, run here).
    if new_form != Some("get") {
        if let Some(option) = ["--all", "--regexp", "--value"]
            .into_iter()
            .find(|o| parsed.has(o))
        {
            return Err(Refusal::option(program, option));
        }
    }
    let actions: Vec<&str> = [
        "--get",
        "--get-all",
        "--get-regexp",
        "--get-urlmatch",
        "--list",
        "-l",
    ]
    .into_iter()
    .filter(|a| parsed.has(a))
    .collect();
    let operands = parsed.operands.len();
    let shape_ok = match (new_form, actions.as_slice()) {
        (Some("get"), []) => operands == 1,
        // `list`, `--list`/`-l` and `--get-regexp` print every matching
        // setting, credentials included (an `http.extraheader` token, a
        // remote URL's user info): not proven.
        (None, ["--get" | "--get-all"]) => (1..=2).contains(&operands),
        (None, ["--get-urlmatch"]) => operands == 2,
        // `git config section.key` (one name, no value) prints the value; a
        // word without a dot may be a newer subcommand (`edit`).
        (None, []) => {
            operands == 1
                && parsed
                    .operands
                    .first()
                    .is_some_and(|name| name.contains('.') && !name.starts_with('-'))
        }
        _ => false,
    };
    if !shape_ok {
        return Err(Refusal::argument(
            program,
            &args.join(" "),
            "is not one of the exact read shapes (another shape may set a value)",
        ));
    }
    // The name read: a setting that holds a credential is read as the
    // configuration file that holds it would be (`sendemail.smtpPass`,
    // `http.<url>.extraHeader` with a CI token); `--get-urlmatch http URL`
    // prints a whole section for the URL.
    let name = parsed
        .operands
        .first()
        .map(|n| n.to_ascii_lowercase())
        .unwrap_or_default();
    let whole_section = actions.as_slice() == ["--get-urlmatch"] && !name.contains('.');
    if whole_section || CREDENTIAL_SETTINGS.iter().any(|c| name.contains(c)) {
        return Err(Refusal::new(
            codes::COMMAND_SENSITIVE_PATH,
            format!(
                "`{program} {}` reads a setting that may hold a credential",
                preview(&name, 60)
            ),
        ));
    }
    Ok(())
}

/// Words in the names of git settings that hold credentials.
const CREDENTIAL_SETTINGS: &[&str] = &[
    // `remote.<name>.url`, `pushurl`, `url.<base>.insteadOf`: a URL's user
    // info is a credential (`https://user:TOKEN@host/…`).
    "url",
    "insteadof",
    "pass",
    "token",
    "secret",
    "extraheader",
    "credential",
    "cookie",
    "proxy",
    "auth",
    "private",
];

/// `stash list` and `stash show`.
fn stash(_: &str, args: &[String]) -> Result<(), Refusal> {
    match args.split_first() {
        Some((sub, rest)) if sub == "list" || sub == "show" => {
            log_like(&format!("stash {sub}"), rest).map(|_| ())
        }
        _ => Err(Refusal::argument(
            "git stash",
            &args.join(" "),
            "is not `list` or `show`",
        )),
    }
}

/// `reflog` and `reflog show`: not `expire` or `delete`.
fn reflog(_: &str, args: &[String]) -> Result<(), Refusal> {
    let (sub, rest) = match args.split_first() {
        Some((show, rest)) if show == "show" => ("reflog show", rest),
        _ => ("reflog", args),
    };
    let parsed = log_like(sub, rest)?;
    match parsed.operands.first() {
        Some(word) if matches!(word.as_str(), "expire" | "delete" | "drop" | "write") => {
            Err(Refusal::argument("git reflog", word, "changes the reflog"))
        }
        _ => Ok(()),
    }
}

thread_local! {
    /// `commands.history_is_secret` for the assessment under way.
    static HISTORY_SECRET: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Runs `judge` with `commands.history_is_secret` in force, then restores
/// the setting before (held for one assessment, like the egress rule and
/// the confinement: the program checks are plain functions of their words).
pub fn history_within<T>(secret: bool, judge: impl FnOnce() -> T) -> T {
    let before = HISTORY_SECRET.with(|c| c.replace(secret));
    let out = judge();
    HISTORY_SECRET.with(|c| c.set(before));
    out
}

/// Options after which a log-like subcommand prints file content from
/// history: patches (`-p`, `-u`, `-U`, `-W`, `-c`, `--cc`, word diffs), a
/// line's history (`-L`), and the pickaxe (`-S`, `-G`), whose answer tells
/// whether a string was ever committed, one guess at a time.
const CONTENT_OPTIONS: &[&str] = &[
    "-p",
    "-u",
    "-U",
    "-W",
    "-c",
    "-L",
    "-S",
    "-G",
    "--patch",
    "--patch-with-stat",
    "--patch-with-raw",
    "--unified",
    "--function-context",
    "--cc",
    "--dd",
    "--combined-all-paths",
    "--word-diff",
    "--word-diff-regex",
    "--color-words",
    "--binary",
    "--pickaxe-regex",
    "--pickaxe-all",
];

/// Options that limit `git show` and `git diff` to names, counts or
/// object ids, without a patch (git 2.39 run here: `git show --stat`
/// prints the message and the diffstat only).
const SUMMARY_OPTIONS: &[&str] = &[
    "-s",
    "--no-patch",
    "--stat",
    "--shortstat",
    "--numstat",
    "--dirstat",
    "--summary",
    "--name-only",
    "--name-status",
    "--raw",
    "--quiet",
];

/// Whether a read-only `git` subcommand prints content committed to the
/// repository's history (SECURITY.md, "Commands": by default history counts
/// as the user's code; `commands.history_is_secret` counts it as secret):
/// `Some(what)` names the form. Words that may be revisions are taken to be
/// revisions (git itself tries a word as a revision before a path), so
/// `git diff file.c` and `git grep foo src` are counted too; `--` before
/// the paths says they are paths.
fn reads_history(name: &str, args: &[String]) -> Option<&'static str> {
    let dashes = args.iter().position(|a| a == "--");
    let before = args.get(..dashes.unwrap_or(args.len())).unwrap_or(args);
    let parsed = |sub: &str| log_like(sub, before).ok();
    let content = |p: &Parsed| CONTENT_OPTIONS.iter().any(|o| p.has(o));
    let summary = |p: &Parsed| SUMMARY_OPTIONS.iter().any(|o| p.has(o));
    match name {
        "log" | "whatchanged" | "reflog" => {
            let sub = if name == "reflog" {
                before
                    .first()
                    .filter(|w| *w == "show")
                    .map_or(before, |_| before.get(1..).unwrap_or_default())
            } else {
                before
            };
            log_like(name, sub)
                .ok()
                .is_none_or(|p| content(&p))
                .then_some("prints patches or searches content from history")
        }
        "stash" => {
            let rest = before.get(1..).unwrap_or_default();
            log_like("stash", rest)
                .ok()
                .is_none_or(|p| content(&p))
                .then_some("prints a stash's patch, committed content")
        }
        // A summary option limits a commit's patch, not a blob: `git show
        // --stat HEAD:f`, and a tag that names a blob, print the file (git
        // 2.39 run here). So only HEAD's summary is proven.
        "show" => parsed("show")
            .is_none_or(|p| content(&p) || !summary(&p) || !p.operands.is_empty())
            .then_some("prints committed content (a commit's patch or a file at a revision)"),
        "diff" => parsed("diff")
            .is_none_or(|p| {
                let revisions = !p.operands.is_empty()
                    || ["--cached", "--staged", "--merge-base"]
                        .iter()
                        .any(|o| p.has(o));
                !p.has("--no-index") && revisions && (content(&p) || !summary(&p))
            })
            .then_some("prints a diff against a revision, committed content"),
        "diff-tree" | "diff-index" => parsed(name)
            .is_none_or(|p| content(&p))
            .then_some("prints a patch of committed content"),
        "range-diff" => Some("prints the patches of two ranges of history"),
        "blame" | "annotate" => parsed(name)
            .is_none_or(|p| {
                let revisions = if dashes.is_some() {
                    !p.operands.is_empty()
                } else {
                    p.operands.len() > 1
                };
                revisions || p.has("--reverse") || p.has("--contents")
            })
            .then_some("prints a file as a revision had it"),
        "cat-file" => args
            .iter()
            .any(|a| a == "-p" || !a.starts_with('-'))
            .then(|| {
                let operands = args.iter().filter(|a| !a.starts_with('-')).count();
                (args.iter().any(|a| a == "-p") || operands > 1)
                    .then_some("prints an object of the history")
            })
            .flatten(),
        "grep" => grep_trees(before).then_some("searches the files of a revision"),
        _ => None,
    }
}

/// Whether `git grep`'s words before `--` name a tree to search: the words
/// after the pattern (or every word, when `-e`/`-f` give the patterns).
/// `--cached` searches the index, which is no revision.
fn grep_trees(before: &[String]) -> bool {
    const VALUED: &[&str] = &[
        "-e",
        "-A",
        "-B",
        "-C",
        "-m",
        "-f",
        "--max-depth",
        "--threads",
        "--after-context",
        "--before-context",
        "--context",
        "--max-count",
    ];
    let mut operands = 0usize;
    let mut patterns_given = false;
    let mut words = before.iter();
    while let Some(word) = words.next() {
        if VALUED.contains(&word.as_str()) {
            patterns_given |= word == "-e" || word == "-f";
            words.next();
        } else if word.starts_with("-e") || word.starts_with("-f") && !word.starts_with("--") {
            patterns_given = true;
        } else if !word.starts_with('-') {
            operands += 1;
        }
    }
    let trees = if patterns_given {
        operands
    } else {
        operands.saturating_sub(1)
    };
    trees > 0
}

/// Checks a whole `git` argument list (everything after `git`).
pub fn check(args: &[String]) -> Result<(), Refusal> {
    let mut i = 0;
    while let Some(arg) = args.get(i) {
        if GLOBAL_FLAGS.contains(&arg.as_str()) {
            i += 1;
            continue;
        }
        break;
    }
    let rest = args.get(i..).unwrap_or(&[]);
    if matches!(rest, [v] if v == "--version") {
        return Ok(());
    }
    let Some((name, sub_args)) = rest.split_first() else {
        return Err(Refusal::argument("git", "", "names no subcommand"));
    };
    if name.starts_with('-') {
        return Err(Refusal::option(
            "git",
            name.split('=').next().unwrap_or(name),
        ));
    }
    let Some(check) = subcommand(name) else {
        return Err(Refusal::argument(
            "git",
            name,
            "is not a subcommand proven read-only",
        ));
    };
    check(name, sub_args)?;
    if HISTORY_SECRET.with(std::cell::Cell::get) {
        if let Some(what) = reads_history(name, sub_args) {
            return Err(Refusal::new(
                codes::COMMAND_HISTORY,
                format!(
                    "`git {name}` {what}, and this deployment counts history as secret (`commands.history_is_secret`)"
                ),
            ));
        }
    }
    Ok(())
}

/// Global options that take a value as the next word (for the floor).
const GLOBAL_WITH_VALUE: &[&str] = &["-C", "--git-dir", "--work-tree", "--namespace"];

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
        "switch" if short('f') || has("--force") || has("--discard-changes") => {
            Some("discards local changes")
        }
        "rm" => Some("deletes files"),
        "tag" if short('d') || has("--delete") => Some("deletes tags"),
        "worktree"
            if rest
                .first()
                .is_some_and(|w| matches!(*w, "remove" | "prune")) =>
        {
            Some("deletes working trees")
        }
        "prune" | "prune-packed" => Some("deletes unreachable history"),
        "notes"
            if rest
                .first()
                .is_some_and(|w| matches!(*w, "remove" | "prune")) =>
        {
            Some("deletes notes")
        }
        "remote"
            if rest
                .first()
                .is_some_and(|w| matches!(*w, "remove" | "rm" | "prune")) =>
        {
            Some("deletes remotes or their branches")
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
            "remote",
            "config --get user.name",
            "rev-parse HEAD",
            "ls-files",
            "grep -n TODO",
            "--no-pager log",
            "stash list",
            "describe --tags",
            "--version",
            "shortlog -sn",
            "reflog",
            "worktree list",
        ] {
            assert_eq!(
                check(&args(line)).map_err(|r| r.message),
                Ok(()),
                "git {line}"
            );
        }
    }

    #[test]
    fn writing_or_executing_git() {
        for line in [
            "-C repo status",
            "--git-dir=vendor/x.git diff",
            "--work-tree=/tmp log",
            "--bare log",
            "config user.name x get",
            "config --get",
            "config --list extra",
            "config get a b",
            "log --outp=x",
            "diff --ext-d",
            "log --show-signature",
            "cat-file --textconv HEAD:x",
            "cat-file --filters HEAD:x",
            "verify-commit HEAD",
            "help log",
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
            "remote -v",
            "remote show -n origin",
            "remote get-url origin",
            "config --get remote.origin.url",
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

//! Everyday tools with subcommands: containers, clusters, services, logs,
//! package managers, `curl`. Each has a grammar of global options and one
//! per read-only subcommand; what is not declared needs confirmation. Not
//! declared anywhere: options that name another server or daemon (`docker
//! -H`, `kubectl -s`/`--server`, `--registry`, `--index-url`), another
//! configuration (`--kubeconfig`, `--config`, `--userconfig`), a program to
//! run (`npm --git`, `pip --python`), a file to write (`--log`), or a form
//! that never ends (`-f`, `--watch`).

use super::forms::{view, view_all, Operands, Options, Subcommand};
use super::grammar::{check_url, g, parse_prefix, parse_with, Grammar, Kind, Parsed, BASE};
use super::names::safe_loop_variable;
use super::refusal::Refusal;
use crate::codes;

/// A subcommand table: the grammar for a subcommand (and the word after it)
/// and how many words name it.
type SubTable = &'static [Sub];

/// One read-only subcommand: the words that name it (`ps`, `image ls`) and
/// the grammar of what follows them (with the tool's global options).
#[derive(Clone, Copy, Debug)]
pub struct Sub {
    /// The words after the program and its global options.
    pub words: &'static [&'static str],
    /// The options and operands after the words.
    pub grammar: &'static Grammar,
    /// Read-only only when nothing follows the words.
    pub alone: bool,
}

/// A row of a subcommand table.
const fn sub(words: &'static [&'static str], grammar: &'static Grammar) -> Sub {
    Sub {
        words,
        grammar,
        alone: false,
    }
}

/// A row that is read-only only with nothing after its words.
const fn alone(words: &'static [&'static str]) -> Sub {
    Sub {
        words,
        grammar: &BASE,
        alone: true,
    }
}

/// The row naming the words at the start of `args`: the longest that
/// matches (`image ls` before `image`).
fn lookup(table: SubTable, args: &[String]) -> Option<&'static Sub> {
    table
        .iter()
        .filter(|row| {
            row.words.len() <= args.len()
                && row.words.iter().zip(args).all(|(w, a)| *w == a.as_str())
                && (!row.alone || row.words.len() == args.len())
        })
        .max_by_key(|row| row.words.len())
}

/// The forms of a subcommand table, for the forms oracle: each row's
/// words and its grammar. The tool's global options, which
/// `with_subcommand` accepts after any subcommand, are declared with the
/// first row only: each is one form of the tool, run once, not once per
/// subcommand.
fn forms(globals: &Grammar, table: SubTable) -> Vec<Subcommand> {
    table
        .iter()
        .enumerate()
        .map(|(i, row)| Subcommand {
            words: row.words.join(" "),
            options: if i == 0 {
                view_all(&[row.grammar, globals])
            } else {
                view(row.grammar)
            },
        })
        .collect()
}

/// Splits off the global options, then parses a subcommand (and, for tools
/// with nested subcommands, the word after it) with its grammar and the
/// globals together (these tools accept global options anywhere).
fn with_subcommand(
    program: &str,
    globals: &Grammar,
    args: &[String],
    table: SubTable,
) -> Result<Parsed, Refusal> {
    let (_, at) = parse_prefix(program, globals, args)?;
    let Some(sub) = args.get(at) else {
        return Err(Refusal::argument(program, "", "names no subcommand"));
    };
    let next = args.get(at + 1).map(String::as_str);
    let Some(row) = lookup(table, args.get(at..).unwrap_or(&[])) else {
        let shown = match next {
            Some(n) if !n.starts_with('-') => format!("{sub} {n}"),
            _ => sub.clone(),
        };
        return Err(Refusal::argument(
            program,
            &shown,
            "is not a subcommand proven read-only",
        ));
    };
    let rest = args.get(at + row.words.len()..).unwrap_or(&[]);
    parse_with(&format!("{program} {sub}"), &[row.grammar, globals], rest).map(|(p, _)| p)
}

// docker ----------------------------------------------------------------

/// Not `-H`/`--host` (another daemon), `--config` (another configuration
/// directory, which may name credential helpers), `--tls*` files.
const DOCKER_GLOBAL: Grammar = Grammar {
    valued: "cl",
    long_valued: &["context", "log-level"],
    max_operands: 0,
    ..g("D", &["debug"])
};
const DOCKER_PS: Grammar = Grammar {
    valued: "nf",
    long_valued: &["filter", "format", "last"],
    max_operands: 0,
    ..g("aqls", &["all", "quiet", "latest", "size", "no-trunc"])
};
const DOCKER_IMAGES: Grammar = Grammar {
    valued: "f",
    long_valued: &["filter", "format"],
    max_operands: 1,
    ..g("aq", &["all", "quiet", "digests", "no-trunc"])
};
const DOCKER_INSPECT: Grammar = Grammar {
    valued: "f",
    long_valued: &["format", "type"],
    ..g("s", &["size"])
};
/// Not `-f`/`--follow`.
const DOCKER_LOGS: Grammar = Grammar {
    valued: "n",
    long_valued: &["tail", "since", "until"],
    max_operands: 1,
    ..g("t", &["timestamps", "details"])
};
const DOCKER_FORMAT: Grammar = Grammar {
    valued: "f",
    long_valued: &["format"],
    max_operands: 0,
    ..BASE
};
const DOCKER_TOP: Grammar = BASE;
const DOCKER_PORT: Grammar = Grammar {
    max_operands: 2,
    ..BASE
};
const DOCKER_HISTORY: Grammar = Grammar {
    long_valued: &["format"],
    max_operands: 1,
    ..g("qH", &["quiet", "human", "no-trunc"])
};
const DOCKER_DIFF: Grammar = Grammar {
    max_operands: 1,
    ..BASE
};
/// `stats` streams forever without `--no-stream`.
const DOCKER_STATS: Grammar = Grammar {
    long_valued: &["format"],
    then: Some(no_stream),
    ..g("a", &["all", "no-stream", "no-trunc"])
};
const DOCKER_LIST: Grammar = Grammar {
    valued: "f",
    long_valued: &["filter", "format"],
    max_operands: 0,
    ..g("q", &["quiet"])
};
const DOCKER_SYSTEM_DF: Grammar = Grammar {
    long_valued: &["format"],
    max_operands: 0,
    ..g("v", &["verbose"])
};

fn no_stream(parsed: &Parsed) -> Result<(), Refusal> {
    if parsed.has("--no-stream") {
        Ok(())
    } else {
        Err(Refusal::argument(
            &parsed.program,
            "",
            "streams forever without `--no-stream`",
        ))
    }
}

/// docker's read-only subcommands (docker CLI reference).
const DOCKER: SubTable = &[
    sub(&["ps"], &DOCKER_PS),
    sub(&["images"], &DOCKER_IMAGES),
    sub(&["logs"], &DOCKER_LOGS),
    sub(&["version"], &DOCKER_FORMAT),
    sub(&["info"], &DOCKER_FORMAT),
    sub(&["top"], &DOCKER_TOP),
    sub(&["port"], &DOCKER_PORT),
    sub(&["history"], &DOCKER_HISTORY),
    sub(&["diff"], &DOCKER_DIFF),
    sub(&["stats"], &DOCKER_STATS),
    sub(&["image", "ls"], &DOCKER_IMAGES),
    sub(&["image", "list"], &DOCKER_IMAGES),
    sub(&["image", "inspect"], &DOCKER_INSPECT),
    sub(&["image", "history"], &DOCKER_HISTORY),
    sub(&["container", "ls"], &DOCKER_PS),
    sub(&["container", "list"], &DOCKER_PS),
    sub(&["container", "ps"], &DOCKER_PS),
    sub(&["container", "logs"], &DOCKER_LOGS),
    sub(&["container", "top"], &DOCKER_TOP),
    sub(&["container", "port"], &DOCKER_PORT),
    sub(&["container", "diff"], &DOCKER_DIFF),
    sub(&["container", "stats"], &DOCKER_STATS),
    sub(&["volume", "ls"], &DOCKER_LIST),
    sub(&["volume", "list"], &DOCKER_LIST),
    sub(&["network", "ls"], &DOCKER_LIST),
    sub(&["network", "list"], &DOCKER_LIST),
    sub(&["context", "ls"], &DOCKER_LIST),
    sub(&["context", "list"], &DOCKER_LIST),
    sub(&["volume", "inspect"], &DOCKER_INSPECT),
    sub(&["network", "inspect"], &DOCKER_INSPECT),
    sub(&["context", "inspect"], &DOCKER_INSPECT),
    sub(&["context", "show"], &DOCKER_FORMAT),
    sub(&["system", "df"], &DOCKER_SYSTEM_DF),
    sub(&["system", "info"], &DOCKER_FORMAT),
];

/// docker's subcommand forms, for the forms oracle.
pub fn docker_forms() -> Vec<Subcommand> {
    forms(&DOCKER_GLOBAL, DOCKER)
}

/// `docker`: listing and inspecting containers, images, volumes, networks.
/// Not `compose` (a project file may include remote resources), `events`
/// (never ends), `search` (a term may name another registry).
pub fn docker(args: &[String]) -> Result<(), Refusal> {
    if matches!(args, [only] if only == "--version" || only == "-v") {
        return Ok(());
    }
    with_subcommand("docker", &DOCKER_GLOBAL, args, DOCKER).map(|_| ())
}

// kubectl ---------------------------------------------------------------

/// Not `--kubeconfig` (its `exec` plugin runs any program), `-s`/`--server`
/// (sends the token elsewhere), `--token`, `--as*`, certificate files,
/// `--insecure-skip-tls-verify`, `--cache-dir` (writes), `-v` (may log
/// credentials), `--profile*` (writes).
const KUBECTL_GLOBAL: Grammar = Grammar {
    valued: "n",
    long_valued: &["namespace", "context", "cluster", "user", "request-timeout"],
    max_operands: 0,
    ..g("", &["match-server-version", "warnings-as-errors"])
};
/// Not `-f`/`--filename` (a manifest may name a Secret), `-k`, `-w`/
/// `--watch` (never ends), `--raw` (any API path), `-o *-file=`.
const KUBECTL_GET: Grammar = Grammar {
    valued: "olL",
    long_valued: &[
        "output",
        "sort-by",
        "field-selector",
        "label-columns",
        "selector",
        "chunk-size",
        "template",
        "subresource",
    ],
    then: Some(no_secrets),
    ..g(
        "A",
        &[
            "show-labels",
            "show-kind",
            "no-headers",
            "ignore-not-found",
            "all-namespaces",
            "show-managed-fields",
        ],
    )
};
const KUBECTL_DESCRIBE: Grammar = Grammar {
    valued: "l",
    long_valued: &["selector", "chunk-size"],
    then: Some(no_secrets),
    ..g("A", &["show-events", "all-namespaces"])
};
/// Not `-f`/`--follow`.
const KUBECTL_LOGS: Grammar = Grammar {
    valued: "cl",
    long_valued: &[
        "container",
        "since",
        "since-time",
        "tail",
        "limit-bytes",
        "selector",
        "max-log-requests",
        "pod-running-timeout",
    ],
    max_operands: 2,
    ..g(
        "p",
        &[
            "previous",
            "timestamps",
            "all-containers",
            "prefix",
            "ignore-errors",
        ],
    )
};
const KUBECTL_OUTPUT: Grammar = Grammar {
    valued: "o",
    long_valued: &["output"],
    max_operands: 0,
    then: Some(output_forms),
    ..g("", &["client"])
};
const KUBECTL_API_RESOURCES: Grammar = Grammar {
    valued: "o",
    long_valued: &[
        "namespaced",
        "api-group",
        "verbs",
        "output",
        "sort-by",
        "categories",
    ],
    max_operands: 0,
    then: Some(output_forms),
    ..g("", &["no-headers", "cached"])
};
const KUBECTL_EXPLAIN: Grammar = Grammar {
    long_valued: &["api-version", "output"],
    max_operands: 1,
    ..g("", &["recursive"])
};
const KUBECTL_TOP: Grammar = Grammar {
    valued: "l",
    long_valued: &["sort-by", "selector"],
    max_operands: 2,
    ..g(
        "A",
        &[
            "containers",
            "no-headers",
            "sum",
            "all-namespaces",
            "use-protocol-buffers",
        ],
    )
};
/// Not `-w`/`--watch`.
const KUBECTL_EVENTS: Grammar = Grammar {
    valued: "o",
    long_valued: &["for", "types", "output"],
    max_operands: 0,
    then: Some(output_forms),
    ..g("A", &["all-namespaces", "no-headers"])
};
const KUBECTL_NOTHING: Grammar = Grammar {
    max_operands: 0,
    ..BASE
};
/// Not `--raw` or `--flatten` (they print the credentials).
const KUBECTL_CONFIG_VIEW: Grammar = Grammar {
    valued: "o",
    long_valued: &["output", "template"],
    max_operands: 0,
    then: Some(output_forms),
    ..g("", &["minify"])
};
const KUBECTL_CONFIG_LIST: Grammar = Grammar {
    valued: "o",
    long_valued: &["output"],
    max_operands: 1,
    then: Some(output_forms),
    ..g("", &["no-headers"])
};
const KUBECTL_CAN_I: Grammar = Grammar {
    long_valued: &["subresource"],
    max_operands: 2,
    ..g("Aq", &["list", "quiet", "all-namespaces", "no-headers"])
};

/// `-o` forms that read nothing but the API's answer: not the `*-file=`
/// forms, which read a template from any file.
fn output_forms(parsed: &Parsed) -> Result<(), Refusal> {
    for value in parsed.values("-o").chain(parsed.values("--output")) {
        // pflag reads `-o=json` as `json`.
        let value = value.strip_prefix('=').unwrap_or(value);
        let form = value.split('=').next().unwrap_or(value);
        let ok = matches!(
            form,
            "json"
                | "yaml"
                | "wide"
                | "name"
                | "custom-columns"
                | "jsonpath"
                | "jsonpath-as-json"
                | "go-template"
        );
        if !ok {
            return Err(Refusal::argument(
                &parsed.program,
                &format!("-o {value}"),
                "is not an output form proven to read no file",
            ));
        }
    }
    Ok(())
}

/// Whether a kubectl resource list (`pods,secrets`, `secret/db`) names secrets.
fn names_secrets(word: &str) -> bool {
    word.split(',').any(|r| {
        let kind = r.split('/').next().unwrap_or(r).to_ascii_lowercase();
        kind == "secret"
            || kind == "secrets"
            || kind.starts_with("secrets.")
            || kind.starts_with("secret.")
    })
}

fn no_secrets(parsed: &Parsed) -> Result<(), Refusal> {
    output_forms(parsed)?;
    match parsed.operands.iter().find(|w| names_secrets(w)) {
        Some(secret) => Err(Refusal::new(
            codes::COMMAND_SENSITIVE_PATH,
            format!("`{} {secret}` would print secrets", parsed.program),
        )),
        None => Ok(()),
    }
}

/// kubectl's read-only subcommands (kubectl reference). `cluster-info`
/// only alone (`cluster-info dump` writes files).
const KUBECTL: SubTable = &[
    sub(&["get"], &KUBECTL_GET),
    sub(&["describe"], &KUBECTL_DESCRIBE),
    sub(&["logs"], &KUBECTL_LOGS),
    sub(&["version"], &KUBECTL_OUTPUT),
    sub(&["api-resources"], &KUBECTL_API_RESOURCES),
    sub(&["api-versions"], &KUBECTL_NOTHING),
    sub(&["explain"], &KUBECTL_EXPLAIN),
    sub(&["top"], &KUBECTL_TOP),
    sub(&["events"], &KUBECTL_EVENTS),
    alone(&["cluster-info"]),
    sub(&["config", "view"], &KUBECTL_CONFIG_VIEW),
    sub(&["config", "get-contexts"], &KUBECTL_CONFIG_LIST),
    sub(&["config", "get-clusters"], &KUBECTL_CONFIG_LIST),
    sub(&["config", "get-users"], &KUBECTL_CONFIG_LIST),
    sub(&["config", "current-context"], &KUBECTL_NOTHING),
    sub(&["auth", "can-i"], &KUBECTL_CAN_I),
    sub(&["auth", "whoami"], &KUBECTL_OUTPUT),
];

/// kubectl's subcommand forms, for the forms oracle.
pub fn kubectl_forms() -> Vec<Subcommand> {
    forms(&KUBECTL_GLOBAL, KUBECTL)
}

/// `kubectl`: reading cluster state with the user's own configuration;
/// secrets excluded.
pub fn kubectl(args: &[String]) -> Result<(), Refusal> {
    with_subcommand("kubectl", &KUBECTL_GLOBAL, args, KUBECTL).map(|_| ())
}

// systemd ---------------------------------------------------------------

/// Not `-H`/`--host` (over ssh), `-M`/`--machine`, `--root`, `--image`.
const SYSTEMCTL_GLOBAL: Grammar = Grammar {
    valued: "tpno",
    long_valued: &["type", "state", "property", "lines", "output", "legend"],
    max_operands: 0,
    ..g(
        "alqr",
        &[
            "no-pager",
            "full",
            "all",
            "quiet",
            "recursive",
            "reverse",
            "after",
            "before",
            "value",
            "system",
            "user",
            "failed",
            "plain",
            "no-legend",
            "show-types",
            "with-dependencies",
        ],
    )
};

/// Not `show-environment` (the manager's environment), `show` (a unit's
/// `Environment=`), `help` (runs `man`).
const SYSTEMCTL: SubTable = &[
    sub(&["status"], &BASE),
    sub(&["cat"], &BASE),
    sub(&["list-units"], &BASE),
    sub(&["list-unit-files"], &BASE),
    sub(&["list-sockets"], &BASE),
    sub(&["list-timers"], &BASE),
    sub(&["list-dependencies"], &BASE),
    sub(&["list-jobs"], &BASE),
    sub(&["list-automounts"], &BASE),
    sub(&["list-paths"], &BASE),
    sub(&["is-active"], &BASE),
    sub(&["is-enabled"], &BASE),
    sub(&["is-failed"], &BASE),
    sub(&["is-system-running"], &BASE),
    sub(&["get-default"], &BASE),
];

/// systemctl's subcommand forms, for the forms oracle.
pub fn systemctl_forms() -> Vec<Subcommand> {
    forms(&SYSTEMCTL_GLOBAL, SYSTEMCTL)
}

/// `systemctl`: the subcommands that report on units.
pub fn systemctl(args: &[String]) -> Result<(), Refusal> {
    if args.is_empty() || matches!(args, [only] if only == "--version") {
        return Ok(());
    }
    let (_, at) = parse_prefix("systemctl", &SYSTEMCTL_GLOBAL, args)?;
    if at == args.len() {
        return Ok(());
    }
    with_subcommand("systemctl", &SYSTEMCTL_GLOBAL, args, SYSTEMCTL).map(|_| ())
}

/// The reporting options of systemd 252's `hostnamectl`, `timedatectl`,
/// `localectl` and `loginctl`, each tool's own (`TOOL --help`, and the forms
/// oracle: each tool refuses the others' options). Not `-H`/`--host` (over
/// ssh), `-M`/`--machine`, `--monitor` (never ends), `--adjust-system-clock`,
/// `--kill-whom`, `-s`/`--signal`.
const HOSTNAMECTL_GLOBAL: Grammar = Grammar {
    long_valued: &["json"],
    max_operands: 0,
    ..g("", &["transient", "static", "pretty", "no-ask-password"])
};
const TIMEDATECTL_GLOBAL: Grammar = Grammar {
    valued: "p",
    long_valued: &["property"],
    max_operands: 0,
    ..g("a", &["all", "value", "no-pager", "no-ask-password"])
};
const LOCALECTL_GLOBAL: Grammar = Grammar {
    max_operands: 0,
    ..g("", &["no-pager", "no-ask-password", "no-convert"])
};
const LOGINCTL_GLOBAL: Grammar = Grammar {
    valued: "pno",
    long_valued: &["property", "lines", "output"],
    max_operands: 0,
    ..g(
        "al",
        &[
            "no-pager",
            "no-legend",
            "no-ask-password",
            "all",
            "value",
            "full",
        ],
    )
};

/// Each tool's reporting verbs (`TOOL --help`, systemd 252): with no operand
/// they print (`hostnamectl hostname NAME` sets); the `*-status` and
/// `show-*` verbs of loginctl take the session, user or seat to show.
const HOSTNAMECTL: SubTable = &[sub(&["status"], &PRINTS), sub(&["hostname"], &PRINTS)];
const TIMEDATECTL: SubTable = &[
    sub(&["status"], &PRINTS),
    sub(&["show"], &PRINTS),
    sub(&["list-timezones"], &PRINTS),
    sub(&["timesync-status"], &PRINTS),
    sub(&["show-timesync"], &PRINTS),
];
const LOCALECTL: SubTable = &[
    sub(&["status"], &PRINTS),
    sub(&["list-locales"], &PRINTS),
    sub(&["list-keymaps"], &PRINTS),
];
const LOGINCTL: SubTable = &[
    sub(&["list-sessions"], &PRINTS),
    sub(&["list-users"], &PRINTS),
    sub(&["list-seats"], &PRINTS),
    sub(&["session-status"], &BASE),
    sub(&["user-status"], &BASE),
    sub(&["seat-status"], &BASE),
    sub(&["show-session"], &BASE),
    sub(&["show-user"], &BASE),
    sub(&["show-seat"], &BASE),
];

/// A reporting verb that takes no operand.
const PRINTS: Grammar = Grammar {
    max_operands: 0,
    ..BASE
};

/// One systemd reporting tool: its options alone (the default verb), or a
/// reporting verb with them.
fn systemd_tool(
    program: &str,
    globals: &Grammar,
    table: SubTable,
    args: &[String],
) -> Result<(), Refusal> {
    let (_, at) = parse_prefix(program, globals, args)?;
    if at == args.len() {
        return Ok(());
    }
    with_subcommand(program, globals, args, table).map(|_| ())
}

/// `hostnamectl`.
pub fn hostnamectl(args: &[String]) -> Result<(), Refusal> {
    systemd_tool("hostnamectl", &HOSTNAMECTL_GLOBAL, HOSTNAMECTL, args)
}
/// `timedatectl`.
pub fn timedatectl(args: &[String]) -> Result<(), Refusal> {
    systemd_tool("timedatectl", &TIMEDATECTL_GLOBAL, TIMEDATECTL, args)
}
/// `localectl`.
pub fn localectl(args: &[String]) -> Result<(), Refusal> {
    systemd_tool("localectl", &LOCALECTL_GLOBAL, LOCALECTL, args)
}
/// `loginctl`.
pub fn loginctl(args: &[String]) -> Result<(), Refusal> {
    systemd_tool("loginctl", &LOGINCTL_GLOBAL, LOGINCTL, args)
}

/// The forms of each systemd reporting tool, for the forms oracle.
pub fn hostnamectl_forms() -> Vec<Subcommand> {
    forms(&HOSTNAMECTL_GLOBAL, HOSTNAMECTL)
}
/// As above, `timedatectl`.
pub fn timedatectl_forms() -> Vec<Subcommand> {
    forms(&TIMEDATECTL_GLOBAL, TIMEDATECTL)
}
/// As above, `localectl`.
pub fn localectl_forms() -> Vec<Subcommand> {
    forms(&LOCALECTL_GLOBAL, LOCALECTL)
}
/// As above, `loginctl`.
pub fn loginctl_forms() -> Vec<Subcommand> {
    forms(&LOGINCTL_GLOBAL, LOGINCTL)
}

/// `journalctl`. Not `-f`/`--follow` (never ends), `--vacuum-*`, `--rotate`,
/// `--flush`, `--sync`, `--relinquish-var`, `--setup-keys`,
/// `--update-catalog`, `--cursor-file` (change or write), `-D`/`--file`/
/// `--root`/`--image`/`-M`/`--namespace` (other journals).
pub const JOURNALCTL: Grammar = Grammar {
    valued: "unpSUgtoFc",
    long_valued: &[
        "unit",
        "user-unit",
        "priority",
        "since",
        "until",
        "output",
        "output-fields",
        "identifier",
        "grep",
        "field",
        "facility",
        "cursor",
        "after-cursor",
    ],
    long_optional: &["boot", "lines", "case-sensitive"],
    // `-NUM` only as the boot offset after `-b` (`journalctl -b -1`):
    // journalctl 252 (run here) refuses `-3` elsewhere.
    number_option: true,
    then: Some(super::whole::journalctl),
    ..g(
        "rxeakqlmNb",
        &[
            "reverse",
            "catalog",
            "pager-end",
            "all",
            "dmesg",
            "quiet",
            "full",
            "no-full",
            "merge",
            "no-pager",
            "utc",
            "no-hostname",
            "list-boots",
            "disk-usage",
            "system",
            "user",
            "fields",
            "show-cursor",
        ],
    )
};

// pip -------------------------------------------------------------------

/// Not `--python` (runs pip under another program), `--log`/`--local-log`
/// (write), `--index-url`/`-i`/`--extra-index-url`/`-f`/`--find-links`/
/// `--proxy`/`--trusted-host` (other servers), `--cert`/`--client-cert`,
/// `--cache-dir`, `--config-settings`. optparse also resolves abbreviations.
const PIP_GLOBAL: Grammar = Grammar {
    max_operands: 0,
    ..g(
        "qv",
        &[
            "quiet",
            "verbose",
            "isolated",
            "no-color",
            "disable-pip-version-check",
            "no-input",
            "require-virtualenv",
            "no-python-version-warning",
        ],
    )
};
const PIP_LIST: Grammar = Grammar {
    long_valued: &["format", "exclude", "path"],
    max_operands: 0,
    ..g(
        "loue",
        &[
            "local",
            "outdated",
            "uptodate",
            "editable",
            "user",
            "pre",
            "not-required",
            "exclude-editable",
            "include-editable",
        ],
    )
};
const PIP_SHOW: Grammar = g("f", &["files"]);
/// Not `-r`/`--requirement` (reads a file).
const PIP_FREEZE: Grammar = Grammar {
    long_valued: &["exclude", "path"],
    max_operands: 0,
    ..g("l", &["local", "user", "all", "exclude-editable"])
};
const PIP_INSPECT: Grammar = Grammar {
    long_valued: &["path"],
    max_operands: 0,
    ..g("", &["local", "user"])
};

/// pip's read-only subcommands (pip documentation).
const PIP: SubTable = &[
    sub(&["list"], &PIP_LIST),
    sub(&["show"], &PIP_SHOW),
    sub(&["freeze"], &PIP_FREEZE),
    sub(&["check"], &KUBECTL_NOTHING),
    sub(&["inspect"], &PIP_INSPECT),
];

/// pip's subcommand forms, for the forms oracle.
pub fn pip_forms() -> Vec<Subcommand> {
    forms(&PIP_GLOBAL, PIP)
}

/// `pip`: reading what is installed.
pub fn pip(args: &[String]) -> Result<(), Refusal> {
    if matches!(args, [only] if only == "-V" || only == "--version") {
        return Ok(());
    }
    let parsed = with_subcommand("pip", &PIP_GLOBAL, args, PIP)?;
    // `list --outdated`/`--uptodate` asks the package index about every
    // installed package, retrying each request: without a reachable index it
    // ran past the command oracle's 90 s bound.
    let asks_index = ["-o", "--outdated", "-u", "--uptodate"]
        .iter()
        .any(|o| parsed.has(o));
    if asks_index {
        return Err(Refusal::new(
            codes::COMMAND_UNBOUNDED,
            String::from(
                "`pip list --outdated` asks the package index about every installed package, with retries: it can run for minutes",
            ),
        ));
    }
    Ok(())
}

// small builtins ---------------------------------------------------------

/// `history`: listing only (`-c`, `-d`, `-w`, `-a`, `-r`, `-n` change or write it).
pub fn history(args: &[String]) -> Result<(), Refusal> {
    match args {
        [] => Ok(()),
        [n] if n.chars().all(|c| c.is_ascii_digit()) => Ok(()),
        [first, ..] => Err(Refusal::option("history", first)),
    }
}

// curl ------------------------------------------------------------------

/// `curl`: a GET (or HEAD) of public http(s) URLs, printed to standard
/// output. `-o`/`-D` only to `/dev/null` or `-`. Not `-O`/`-c`/`--trace*` (write), `-d`/`-F`/`-T`/
/// `--json` (send), `-K`/`--variable` (read a config or files), `-L`
/// (follows redirects anywhere), `--resolve`/`--connect-to`/`-x`/
/// `--unix-socket` (redirect the connection), `-w @file` (reads a file).
pub const CURL: Grammar = Grammar {
    valued: "HAmeurbXowD",
    long_valued: &[
        "header",
        "user-agent",
        "max-time",
        "connect-timeout",
        "retry",
        "retry-delay",
        "retry-max-time",
        "referer",
        "user",
        "cookie",
        "limit-rate",
        "range",
        "max-filesize",
        "oauth2-bearer",
        "url",
        "request",
        "output",
        "write-out",
        "dump-header",
    ],
    operands: Kind::Url,
    then: Some(curl_whole),
    ..g(
        "sSfiIvkGqN46#gV",
        &[
            "silent",
            "show-error",
            "fail",
            "fail-with-body",
            "include",
            "head",
            "verbose",
            "insecure",
            "compressed",
            "get",
            "disable",
            "no-buffer",
            "ipv4",
            "ipv6",
            "progress-bar",
            "http1.1",
            "http2",
            "no-progress-meter",
            "globoff",
            "version",
        ],
    )
};

fn curl_whole(parsed: &Parsed) -> Result<(), Refusal> {
    for method in parsed.values("-X").chain(parsed.values("--request")) {
        if !matches!(method.to_ascii_uppercase().as_str(), "GET" | "HEAD") {
            return Err(Refusal::argument(
                "curl",
                &format!("-X {method}"),
                "is not a read",
            ));
        }
    }
    for header in parsed.values("-H").chain(parsed.values("--header")) {
        if header.starts_with('@') {
            return Err(Refusal::argument(
                "curl",
                header,
                "reads headers from a file",
            ));
        }
    }
    // Output only to standard output or nowhere.
    for file in parsed
        .values("-o")
        .chain(parsed.values("--output"))
        .chain(parsed.values("-D"))
        .chain(parsed.values("--dump-header"))
    {
        if file != "/dev/null" && file != "-" {
            return Err(Refusal::argument("curl", file, "writes a file"));
        }
    }
    // `-w @file` reads a format from a file.
    for format in parsed.values("-w").chain(parsed.values("--write-out")) {
        if format.starts_with('@') {
            return Err(Refusal::argument("curl", format, "reads a file"));
        }
        // `%output{FILE}` (curl 8.3) writes the rest of the output to a file.
        if format.to_ascii_lowercase().contains("%output") {
            return Err(Refusal::argument("curl", format, "writes a file"));
        }
    }
    // A cookie value without `=` is a file name.
    for cookie in parsed.values("-b").chain(parsed.values("--cookie")) {
        if !cookie.contains('=') {
            return Err(Refusal::argument("curl", cookie, "reads a cookie file"));
        }
    }
    let urls: Vec<&str> = parsed
        .operands
        .iter()
        .map(String::as_str)
        .chain(parsed.values("--url"))
        .collect();
    // A method named by an override header or a `_method` parameter is the
    // method many servers run, as `http_request` reads it.
    let texts: Vec<serde_json::Value> = parsed
        .values("-H")
        .chain(parsed.values("--header"))
        .chain(urls.iter().copied())
        .map(|t| serde_json::Value::String(t.to_owned()))
        .collect();
    for named in crate::assess::overrides::overrides(&serde_json::Value::Array(texts)) {
        let safe = named
            .as_deref()
            .is_some_and(|m| matches!(m.to_ascii_uppercase().as_str(), "GET" | "HEAD" | "OPTIONS"));
        if !safe {
            return Err(Refusal::argument(
                "curl",
                named.as_deref().unwrap_or("?"),
                "is a method override the server may run",
            ));
        }
    }
    if urls.is_empty() {
        if parsed.has("-V") || parsed.has("--version") {
            return Ok(());
        }
        return Err(Refusal::argument("curl", "", "names no URL"));
    }
    urls.iter().try_for_each(|url| check_url("curl", url))
}

/// `ip`'s global options (before the object). Not `-r`/`-resolve`.
const IP_FLAGS: &[&str] = &[
    "-4",
    "-6",
    "-0",
    "-br",
    "-brief",
    "-s",
    "-stats",
    "-statistics",
    "-c",
    "-color",
    "-color=auto",
    "-color=always",
    "-color=never",
    "-j",
    "-json",
    "-p",
    "-pretty",
    "-d",
    "-details",
    "-o",
    "-oneline",
    "-h",
    "-human",
    "-a",
    "-all",
];
/// The objects `ip` shows, with the abbreviations iproute2 6.1 reads.
const IP_OBJECTS: &[&str] = &[
    "address",
    "addr",
    "a",
    "link",
    "l",
    "route",
    "r",
    "ro",
    "neighbour",
    "neighbor",
    "neigh",
    "n",
    "rule",
    "ru",
    "maddress",
    "maddr",
    "m",
    "tunnel",
    "tun",
    "netconf",
];
/// The read verbs after an object.
const IP_VERBS: &[&str] = &["show", "list", "lst", "get", "help"];
/// Selectors in the verb's place that make it `show` (`ip addr up`).
const IP_SELECTORS: &[&str] = &["up"];
/// Selectors in the verb's place that take a value (`ip addr dev lo`).
const IP_SELECTORS_VALUED: &[&str] = &["dev", "scope", "label", "table", "type"];

/// `ip`'s forms, for the forms oracle: its global options before an object,
/// then each object (every listed spelling) with each verb or selector.
pub fn ip_forms() -> Vec<Subcommand> {
    let text = |words: &[&'static str], valued: &[&'static str], most: usize| {
        Options::of_words(words, valued, Operands::Text, false, most)
    };
    let mut verbs = IP_VERBS.to_vec();
    verbs.extend(IP_SELECTORS);
    std::iter::once(Subcommand {
        words: String::new(),
        options: text(IP_FLAGS, &[], usize::MAX),
    })
    .chain(IP_OBJECTS.iter().map(|object| Subcommand {
        words: (*object).to_owned(),
        options: text(&verbs, IP_SELECTORS_VALUED, 0),
    }))
    .collect()
}

/// `ifconfig`'s options.
const IFCONFIG_FLAGS: &[&str] = &["-a", "-s", "-v", "-as", "-av"];

/// `ifconfig`'s forms, for the forms oracle: each option, and one interface.
pub fn ifconfig_forms() -> Vec<Subcommand> {
    Subcommand::own(Options::of_words(
        IFCONFIG_FLAGS,
        &[],
        Operands::Text,
        false,
        1,
    ))
}

/// `ip`: showing addresses, links, routes and neighbours. Not `-batch` (a
/// script of commands), `-force`, `-n`/`-netns`, `-r`/`-resolve` (asks the
/// resolver for the name of every address it lists, hosts the line does not
/// name, as `ss -r` and `lsof` without `-n` do), and never a verb that
/// changes anything.
pub fn ip(args: &[String]) -> Result<(), Refusal> {
    const FLAGS: &[&str] = IP_FLAGS;
    let mut i = 0;
    while let Some(arg) = args.get(i) {
        if !arg.starts_with('-') {
            break;
        }
        if !FLAGS.contains(&arg.as_str()) {
            return Err(Refusal::option("ip", arg));
        }
        i += 1;
    }
    let Some(object) = args.get(i) else {
        return Err(Refusal::argument("ip", "", "names no object"));
    };
    const OBJECTS: &[&str] = IP_OBJECTS;
    if !OBJECTS.contains(&object.as_str()) {
        return Err(Refusal::argument(
            "ip",
            object,
            "is not an object proven read-only",
        ));
    }
    // iproute2 matches a verb as a prefix of each verb in its own order
    // (`matches()`), writes first: `ip link s` is `set`, checked by running
    // iproute2 6.1 here. Only a whole read verb's name is proven: no write
    // verb of any object starts with one, so no order makes it another verb.
    match args.get(i + 1).map(String::as_str) {
        None => Ok(()),
        // `ip addr dev eth0` is `show` with a selector.
        Some(verb)
            if IP_VERBS.contains(&verb)
                || IP_SELECTORS.contains(&verb)
                || IP_SELECTORS_VALUED.contains(&verb) =>
        {
            Ok(())
        }
        Some(verb) => Err(Refusal::argument(
            "ip",
            verb,
            "is not a verb proven read-only",
        )),
    }
}

/// `ifconfig`: listing only (no address, flag or `up`/`down` after the name).
pub fn ifconfig(args: &[String]) -> Result<(), Refusal> {
    let mut names = 0;
    for arg in args {
        match arg.as_str() {
            a if IFCONFIG_FLAGS.contains(&a) => {}
            a if a.starts_with('-') => return Err(Refusal::option("ifconfig", arg)),
            _ => {
                names += 1;
                if names > 1 {
                    return Err(Refusal::argument(
                        "ifconfig",
                        arg,
                        "configures the interface",
                    ));
                }
            }
        }
    }
    Ok(())
}

/// `read`: reads a line of standard input into variables, which must be safe
/// to set (see `safe_loop_variable`); `-u FD` reads another descriptor.
pub fn read(args: &[String]) -> Result<(), Refusal> {
    const WITH_VALUE: &[&str] = &["-d", "-n", "-N", "-p", "-t", "-u", "-i"];
    let mut i = 0;
    while let Some(arg) = args.get(i) {
        i += 1;
        if arg == "-a" {
            match args.get(i) {
                Some(name) if safe_loop_variable(name) => i += 1,
                _ => {
                    return Err(Refusal::argument(
                        "read",
                        arg,
                        "sets an array the shell acts on",
                    ))
                }
            }
        } else if WITH_VALUE.contains(&arg.as_str()) {
            i += 1;
        } else if arg.starts_with('-') {
            if !arg.chars().skip(1).all(|c| "rse".contains(c)) {
                return Err(Refusal::option("read", arg));
            }
        } else if !safe_loop_variable(arg) {
            return Err(Refusal::argument(
                "read",
                arg,
                "sets a variable the shell or later programs act on",
            ));
        }
    }
    Ok(())
}

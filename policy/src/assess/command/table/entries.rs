//! The entries of the program table, one per program, sorted by name (a
//! test holds the order: the table is searched by halves). Generated once
//! from the lists it replaced; edit the entries by hand from now on.

use super::super::capabilities::Capability::{
    HostState, LoadsLibrary, Overwrites, Persistence, Privileges, RunsCode, Socket, Transfers,
};
use super::super::capabilities::Form::{
    Always, Code, Contains, LocalOperand, LongPrefix, NoOperand, OperandUnless, Operands,
    Option as Opt, Project, SetIdMode, Short, Task, Word, WordPrefix,
};
use super::super::grammar::{g, Grammar, Kind, BASE};
use super::super::refusal::Refusal;
use super::super::unbounded::{self, ends, never, Until};
use super::super::{checks, floor, git, programs, scripts, tools, whole};
use super::{
    destroys, row, toolchain, version, version_forms, Client, Destroy, Program, Reach, Rule, Sends,
    When, NONE,
};
use crate::codes;

/// A package manager's words and options that remove installed software.
const PACKAGE_REMOVAL: Destroy = destroys(
    When::Word(&[
        "remove",
        "purge",
        "autoremove",
        "uninstall",
        "erase",
        "del",
        "rm",
        "un",
        "unlink",
        "prune",
        "clean",
        "autoclean",
    ]),
    "removes packages",
    "the package managers' manuals: apt(8), dnf(8), pip documentation, npm-uninstall(1), cargo-uninstall(1)",
);

/// npm's words for installing the project, with their aliases and
/// misspellings (npm-install(1), npm-link(1)).
const NPM_INSTALL: &[&str] = &[
    "install", "i", "in", "ins", "inst", "insta", "instal", "isnt", "isnta", "isntal", "isntall",
    "add", "link", "ln",
];

/// npm's options that take their value as the next word (npm config(7)).
const NPM_VALUED: &[&str] = &[
    "-C",
    "--prefix",
    "-w",
    "--workspace",
    "--tag",
    "--registry",
    "--cache",
    "--userconfig",
    "--globalconfig",
    "--omit",
    "--include",
    "--install-strategy",
    "--loglevel",
    "--before",
    "--otp",
    "--save-prefix",
];

/// npm's documentation of lifecycle scripts: the project's own scripts run
/// on these commands.
const NPM_SCRIPTS: &str = "npm documentation, scripts (using-npm/scripts): npm install, ci, test, start, pack, publish, rebuild run the project's lifecycle scripts";

/// pip's options that take their value as the next word (pip install
/// documentation); `-e` is not one of them: its value is the project built.
const PIP_VALUED: &[&str] = &[
    "-r",
    "--requirement",
    "-c",
    "--constraint",
    "-i",
    "--index-url",
    "--extra-index-url",
    "-f",
    "--find-links",
    "-t",
    "--target",
    "--prefix",
    "--root",
    "--src",
    "--python-version",
    "--platform",
    "--implementation",
    "--abi",
    "--no-binary",
    "--only-binary",
    "--progress-bar",
    "--cache-dir",
    "--log",
    "--proxy",
    "--timeout",
    "--retries",
    "--trusted-host",
    "--cert",
    "--client-cert",
    "--exists-action",
    "--upgrade-strategy",
    "-C",
    "--config-settings",
    "--global-option",
    "--report",
    "-p",
    "--python",
];

/// pip building a local project or a URL through its build backend.
const PIP_BUILDS: &str = "pip documentation, build system interface: a local project or a URL is built through its build backend (setup.py, PEP 517 hooks)";

/// cargo compiling the package: its build scripts and procedural macros
/// run.
const CARGO_BUILDS: &str = "cargo documentation (The Cargo Book, build scripts): build.rs is compiled and run before the package is built (build, check, test, bench, doc, clippy); procedural macros run in the compiler";

/// Options that only ask a task runner for its version, help or task list.
const TASK_ASKS: &[&str] = &["--version", "-v", "-V", "--help", "-h", "-?"];

/// A database client given a statement, or piped one, that drops, deletes
/// or rewrites data, or its own command that runs a shell or writes a file
/// (SQLite's `.shell`, psql's `\!` and `\o`, `COPY … PROGRAM`).
const DATABASE_STATEMENT: Destroy = destroys(
    When::Statement,
    "runs a statement that deletes or rewrites data",
    "psql(1) \\!, \\o; sqlite3(1) .shell, .system, .output; SQL DROP, DELETE, UPDATE, TRUNCATE, ALTER",
);

/// A cloud or hosting command line given a word that deletes (any word, not
/// only the first operand: options take values).
const CLOUD_DELETE: Destroy = destroys(
    When::Any(&[
        When::Word(&[
            "delete",
            "rm",
            "rb",
            "destroy",
            "terminate-instances",
            "remove",
        ]),
        When::Prefix(&["delete-"]),
    ]),
    "deletes cloud resources",
    "the providers' CLI documentation: aws s3 rm, rb, ec2 terminate-instances, delete-*; gcloud, az, doctl … delete",
);

/// Programs named by a prefix of their name, one per file system or tool
/// (`mkfs.ext4`, `mke2fs`, `mkdosfs`): read after the entry's own rows.
pub const FAMILIES: &[(&str, Destroy)] = &[
    (
        "mkfs",
        destroys(When::Always, "formats a file system", "mkfs(8)"),
    ),
    (
        "mke2fs",
        destroys(When::Always, "formats a file system", "mke2fs(8)"),
    ),
    (
        "mkdosfs",
        destroys(When::Always, "formats a file system", "mkdosfs(8)"),
    ),
];

/// Capability rows that hold for any program: options whose name says they
/// run a command (GTFOBins and the manuals named). Read before the
/// program's own rows.
pub const ANY: &[super::Row] = &[
    // Options whose name says they run a command, for any program, in every
    // prefix getopt_long and git's parse-options take (`--to-comm=`,
    // `--use-comp=`, `--checkpoint-ac=`, `git ls-remote --upl=` each ran
    // their command, tar 1.34 and git 2.39 run here) (GTFOBins
    // tar, rsync, zip, git, restic, certbot, aria2c, openvpn, split, fzf,
    // yt-dlp, scrot, man, pip, mail, dnsmasq, gcc, latexmk: shell/command).
    row(
        LongPrefix("--checkpoint-action", 13),
        RunsCode,
        "GTFOBins tar: shell; tar(1) --checkpoint-action=exec=",
    ),
    row(
        LongPrefix("--to-command", 6),
        RunsCode,
        "GTFOBins tar: shell; tar(1)",
    ),
    row(
        LongPrefix("--use-compress-program", 5),
        RunsCode,
        "GTFOBins tar: shell; tar(1) -I",
    ),
    row(
        LongPrefix("--rsh-command", 5),
        RunsCode,
        "GTFOBins tar, cpio: shell, upload; tar(1)",
    ),
    row(
        LongPrefix("--info-script", 6),
        RunsCode,
        "tar(1) -F, --info-script",
    ),
    row(LongPrefix("--new-volume-script", 6), RunsCode, "tar(1)"),
    row(
        LongPrefix("--upload-pack", 5),
        RunsCode,
        "git-ls-remote(1), git-clone(1) --upload-pack",
    ),
    row(
        LongPrefix("--receive-pack", 5),
        RunsCode,
        "git-push(1) --receive-pack",
    ),
    row(
        WordPrefix("--exec-path"),
        RunsCode,
        "GTFOBins git: shell; git(1) --exec-path",
    ),
    row(
        WordPrefix("--exec"),
        RunsCode,
        "GTFOBins mail, yt-dlp: shell; rebase --exec",
    ),
    row(WordPrefix("-exec"), RunsCode, "find(1) -exec"),
    row(WordPrefix("-execdir"), RunsCode, "find(1) -execdir"),
    row(WordPrefix("-ok"), RunsCode, "find(1) -ok"),
    row(
        WordPrefix("--eval"),
        RunsCode,
        "GTFOBins make, rpm, emacs, octave: shell",
    ),
    row(
        WordPrefix("--rsh"),
        RunsCode,
        "GTFOBins rsync, borg: shell; rsync(1) -e",
    ),
    row(
        LongPrefix("--rsync-path", 7),
        RunsCode,
        "rsync(1) --rsync-path",
    ),
    row(
        WordPrefix("--ssh-cmd"),
        RunsCode,
        "GTFOBins sshuttle: shell",
    ),
    row(
        LongPrefix("--ssh-command", 6),
        RunsCode,
        "GTFOBins sshfs: command",
    ),
    row(
        Contains("ssh_command="),
        RunsCode,
        "GTFOBins sshfs: command; sshfs(1) -o ssh_command",
    ),
    row(
        Contains("ProxyCommand"),
        RunsCode,
        "GTFOBins ssh, scp, check_by_ssh: shell; ssh_config(5)",
    ),
    row(
        Contains("LocalCommand"),
        RunsCode,
        "GTFOBins ssh: shell; ssh_config(5)",
    ),
    row(Contains("KnownHostsCommand"), RunsCode, "ssh_config(5)"),
    row(
        LongPrefix("--password-command", 5),
        RunsCode,
        "GTFOBins restic: shell, command",
    ),
    row(
        WordPrefix("--pre-hook"),
        RunsCode,
        "GTFOBins certbot: shell",
    ),
    row(WordPrefix("--post-hook"), RunsCode, "certbot(1)"),
    row(WordPrefix("--deploy-hook"), RunsCode, "certbot(1)"),
    row(WordPrefix("--manual-auth-hook"), RunsCode, "certbot(1)"),
    row(
        WordPrefix("--on-download"),
        RunsCode,
        "GTFOBins aria2c: command; aria2c(1) --on-download-complete",
    ),
    row(WordPrefix("--on-bt-download"), RunsCode, "aria2c(1)"),
    row(
        WordPrefix("--conf-script"),
        RunsCode,
        "GTFOBins dnsmasq: command",
    ),
    row(
        WordPrefix("--filter="),
        RunsCode,
        "GTFOBins split: shell; split(1) --filter",
    ),
    row(
        WordPrefix("--pager"),
        RunsCode,
        "man(1) -P, --pager; git(1)",
    ),
    row(WordPrefix("--editor"), RunsCode, "GTFOBins pip: shell"),
    row(
        WordPrefix("--shell-escape"),
        RunsCode,
        "GTFOBins tex, latex, pdflatex: shell; tex(1) \\write18",
    ),
    row(
        WordPrefix("-shell-escape"),
        RunsCode,
        "GTFOBins lualatex, luatex: inherit",
    ),
    row(
        WordPrefix("--script-security"),
        RunsCode,
        "GTFOBins openvpn: shell; openvpn(8) --up",
    ),
    row(
        WordPrefix("--use-askpass"),
        RunsCode,
        "GTFOBins wget: shell",
    ),
    row(
        WordPrefix("--grep-bin"),
        RunsCode,
        "GTFOBins check_ssl_cert: shell",
    ),
    row(
        WordPrefix("-wrapper"),
        RunsCode,
        "GTFOBins gcc: shell; gcc(1) -wrapper",
    ),
    row(
        WordPrefix("--unzip-command"),
        RunsCode,
        "zip(1) -TT, --unzip-command",
    ),
    row(
        WordPrefix("--interactive"),
        RunsCode,
        "GTFOBins nmap, jtag: shell",
    ),
    row(
        Contains("execute("),
        RunsCode,
        "GTFOBins fzf: shell; fzf(1) --bind execute",
    ),
    row(
        WordPrefix("--listen"),
        Socket,
        "GTFOBins fzf: command; fzf(1) --listen",
    ),
    row(
        WordPrefix("--batch-interpreter"),
        RunsCode,
        "GTFOBins gimp: inherit",
    ),
    row(
        WordPrefix("--custom-dir"),
        RunsCode,
        "GTFOBins facter: inherit",
    ),
    row(
        WordPrefix("--script="),
        RunsCode,
        "GTFOBins nmap: inherit; nmap(1) --script",
    ),
    row(
        WordPrefix("-Xlua_script"),
        RunsCode,
        "GTFOBins tshark: inherit",
    ),
    row(
        WordPrefix("--default-auth"),
        LoadsLibrary,
        "GTFOBins mysql: library-load",
    ),
    row(
        WordPrefix("--plugin-dir"),
        LoadsLibrary,
        "mysql(1) --plugin-dir",
    ),
    row(
        WordPrefix("--engine"),
        LoadsLibrary,
        "GTFOBins curl: library-load; curl(1) --engine",
    ),
    row(
        WordPrefix("-engine"),
        LoadsLibrary,
        "GTFOBins openssl: library-load; openssl(1)",
    ),
    row(
        Contains("ladspa="),
        LoadsLibrary,
        "GTFOBins ffmpeg: library-load",
    ),
    row(
        Contains("load_module"),
        LoadsLibrary,
        "GTFOBins nginx: library-load",
    ),
    row(
        Code("LoadLibrary"),
        LoadsLibrary,
        "GTFOBins python: library-load (ctypes)",
    ),
    row(
        Code("dlopen"),
        LoadsLibrary,
        "GTFOBins ruby: library-load (Fiddle.dlopen)",
    ),
    row(
        Contains("/dev/tcp/"),
        Socket,
        "GTFOBins bash: reverse-shell, upload, download; bash(1) REDIRECTION",
    ),
    row(Contains("/dev/udp/"), Socket, "bash(1) REDIRECTION"),
    row(
        Contains("/inet/tcp/"),
        Socket,
        "GTFOBins gawk: reverse-shell, bind-shell; gawk(1) special files",
    ),
    row(Contains("/inet/udp/"), Socket, "gawk(1) special files"),
    row(
        Contains("tcp-connect:"),
        Socket,
        "GTFOBins socat: reverse-shell, upload, download; socat(1)",
    ),
    row(
        Contains("tcp-listen:"),
        Socket,
        "GTFOBins socat: bind-shell",
    ),
    row(Contains("udp-connect:"), Socket, "socat(1)"),
    row(Contains("openssl-connect:"), Socket, "socat(1)"),
    row(
        Contains("zsh/net/tcp"),
        Socket,
        "GTFOBins zsh: reverse-shell, upload, download",
    ),
    row(
        Code("socket"),
        Socket,
        "GTFOBins python, perl, ruby, lua, node, php, julia, tclsh, go: reverse-shell, bind-shell",
    ),
    row(Code("fsockopen"), Socket, "GTFOBins php: reverse-shell"),
    row(Code("TCPSocket"), Socket, "GTFOBins ruby: reverse-shell"),
    row(Code("createServer"), Socket, "GTFOBins node: bind-shell"),
    row(
        Code("IO::Socket"),
        Socket,
        "GTFOBins perl: upload, download",
    ),
    row(
        Code("http.server"),
        Socket,
        "GTFOBins python: upload (a file server)",
    ),
    row(Code("SimpleHTTPServer"), Socket, "GTFOBins python: upload"),
    row(
        Code("ProcessBuilder"),
        RunsCode,
        "GTFOBins jjs, jrunscript: reverse-shell",
    ),
    row(Code("Runtime"), RunsCode, "GTFOBins jjs, jshell: shell"),
    row(Code("callCommand"), RunsCode, "GTFOBins ghc, ghci: shell"),
    row(Code("run-shell-command"), RunsCode, "GTFOBins clisp: shell"),
    row(Contains("esyscmd"), RunsCode, "GTFOBins m4: shell, command"),
    row(Contains("syscmd"), RunsCode, "m4(1) syscmd"),
    row(Contains("\\write18"), RunsCode, "GTFOBins tex: shell"),
    row(
        Contains("\\directlua"),
        RunsCode,
        "GTFOBins luatex: inherit",
    ),
    row(Contains("%("), RunsCode, "GTFOBins rpm: shell (%(…) macro)"),
    row(Contains("%{lua:"), RunsCode, "GTFOBins rpm: inherit"),
    row(
        Code("system("),
        RunsCode,
        "GTFOBins awk, gawk, R, gnuplot, octave, slsh, bpftrace: shell",
    ),
    row(Code("(system "), RunsCode, "GTFOBins guile: shell"),
    row(Code("run(`"), RunsCode, "GTFOBins julia: shell"),
    row(Code("exec \""), RunsCode, "GTFOBins perl, ruby: shell"),
    row(Code("exec("), RunsCode, "GTFOBins jrunscript, php: shell"),
    row(Code("execl"), RunsCode, "GTFOBins python: shell"),
    row(Code("spawn"), RunsCode, "GTFOBins node, expect: shell"),
    row(Code("child_process"), RunsCode, "GTFOBins node: shell"),
    row(Code("os.execute"), RunsCode, "GTFOBins lua: shell"),
    row(
        Code("io.open"),
        Overwrites,
        "GTFOBins lua: file-write, upload",
    ),
    row(
        Code("FileWriter"),
        Overwrites,
        "GTFOBins jjs, jrunscript: file-write",
    ),
    row(Code("Out-File"), Overwrites, "GTFOBins pwsh: file-write"),
    row(Code("file {"), Overwrites, "GTFOBins puppet: file-write"),
    row(Code("exec {"), RunsCode, "GTFOBins puppet: shell"),
    row(Code("fopen("), Overwrites, "GTFOBins octave: file-write"),
    row(Code("open(f->"), Overwrites, "GTFOBins julia: file-write"),
    row(Code("File.open"), Overwrites, "GTFOBins ruby: file-write"),
    row(
        Code("createWriteStream"),
        Overwrites,
        "GTFOBins node: download, file-write",
    ),
    row(Code("dump value"), Overwrites, "GTFOBins gdb: file-write"),
    row(Contains("$(file "), Overwrites, "GTFOBins make: file-write"),
    row(
        Contains("$(shell "),
        RunsCode,
        "GTFOBins make: shell; make(1) --eval",
    ),
    row(
        Contains("-fprintf"),
        Overwrites,
        "GTFOBins find: file-write; find(1) -fprintf",
    ),
    row(Contains("-fprint"), Overwrites, "find(1) -fprint, -fls"),
    row(Contains("-fls"), Overwrites, "find(1) -fls"),
    row(Contains(".shell"), RunsCode, "GTFOBins sqlite3: shell"),
    row(
        Contains(".output"),
        Overwrites,
        "GTFOBins sqlite3: file-write",
    ),
    row(Contains("\\!"), RunsCode, "GTFOBins mysql, psql: shell"),
    row(Contains(":!"), RunsCode, "GTFOBins vi, ex, zathura: shell"),
    row(
        Contains("enable -f"),
        LoadsLibrary,
        "GTFOBins bash: library-load; bash(1) enable -f",
    ),
    row(
        Contains("kernel.core_pattern"),
        RunsCode,
        "GTFOBins sysctl: command",
    ),
    row(
        Contains("APT::Update::Pre-Invoke"),
        RunsCode,
        "GTFOBins apt-get: shell",
    ),
    row(
        Contains("Pre-Invoke"),
        RunsCode,
        "GTFOBins apt-get: shell; apt.conf(5) DPkg::Pre-Invoke",
    ),
    row(Contains("unixexec:"), RunsCode, "GTFOBins busctl: shell"),
    row(
        Contains("exec:"),
        RunsCode,
        "GTFOBins socat: shell, bind-shell, reverse-shell; socat(1) EXEC",
    ),
    row(Contains("system:"), RunsCode, "socat(1) SYSTEM"),
    row(
        Contains("exec="),
        RunsCode,
        "GTFOBins tar: shell; tar(1) --checkpoint-action=exec=",
    ),
    row(
        Contains("--xform"),
        Overwrites,
        "GTFOBins tar: file-write (extracts over any path)",
    ),
    row(
        Contains("--unsafe-paths"),
        Overwrites,
        "GTFOBins git: file-write; git-apply(1)",
    ),
    row(
        LongPrefix("--in-place", 4),
        Overwrites,
        "GNU sed(1), perl(1): edits files in place",
    ),
];

/// GNU/BSD/BusyBox grep: no option of any of them writes or runs anything;
/// `-f FILE` and `--exclude-from` read a file (checked as a path).
const GREP: Grammar = Grammar {
    valued: "ABCDdem",
    path_valued: "f",
    long_valued: &[
        "after-context",
        "before-context",
        "regexp",
        "max-count",
        "include",
        "exclude",
        "exclude-dir",
        "label",
        "devices",
        "directories",
        "binary-files",
    ],
    long_paths: &["file", "exclude-from"],
    long_optional: &["color", "colour", "context"],
    number_option: true,
    then: Some(whole::pattern_then_paths),
    ..g(
        "EFGPivwxcLlHhnbsqroaIRTUZz",
        &[
            "extended-regexp",
            "fixed-strings",
            "basic-regexp",
            "perl-regexp",
            "ignore-case",
            "no-ignore-case",
            "invert-match",
            "word-regexp",
            "line-regexp",
            "count",
            "files-without-match",
            "files-with-matches",
            "with-filename",
            "no-filename",
            "line-number",
            "byte-offset",
            "no-messages",
            "quiet",
            "silent",
            "recursive",
            "dereference-recursive",
            "only-matching",
            "text",
            "initial-tab",
            "null",
            "null-data",
            "line-buffered",
        ],
    )
};

/// ripgrep. Not `--pre`/`--pre-glob`/`--hostname-bin` (run programs), `-z`
/// (runs decompressors), `--ignore-file` is a read (checked as a path).
const RG: Grammar = Grammar {
    valued: "ABCmegtTjdMr",
    path_valued: "f",
    long_valued: &[
        "after-context",
        "before-context",
        "context",
        "max-count",
        "regexp",
        "glob",
        "iglob",
        "type",
        "type-not",
        "threads",
        "max-depth",
        "max-columns",
        "sort",
        "sortr",
        "replace",
        "color",
        "colors",
        "encoding",
        "max-filesize",
        "context-separator",
        "field-match-separator",
        "path-separator",
    ],
    long_paths: &["file", "ignore-file"],
    then: Some(whole::pattern_then_paths),
    ..g(
        "niSswvlcHNoFxULIqapP0h",
        &[
            "line-number",
            "ignore-case",
            "smart-case",
            "case-sensitive",
            "word-regexp",
            "invert-match",
            "files-with-matches",
            "files-without-match",
            "count",
            "count-matches",
            "with-filename",
            "no-filename",
            "no-line-number",
            "only-matching",
            "fixed-strings",
            "line-regexp",
            "multiline",
            "follow",
            "files",
            "json",
            "heading",
            "no-heading",
            "vimgrep",
            "column",
            "trim",
            "pretty",
            "null",
            "text",
            "type-list",
            "stats",
            "quiet",
            "passthru",
            "pcre2",
            "no-messages",
            "glob-case-insensitive",
            "byte-offset",
            "no-config",
            "crlf",
            "binary",
        ],
    )
};

/// `zcat`, `bzcat`, `xzcat`, `zstdcat`: print the decompressed files.
const CAT_COMPRESSED: Grammar = Grammar {
    operands: Kind::Path,
    ..g("q", &["quiet"])
};

/// The grammar of `md5sum`, `sha1sum`, `sha224sum`, `sha256sum`, `sha384sum`, `sha512sum`.
/// `-c` reads a list of files, but prints only whether each matches.
const CHECKSUMS: Grammar = Grammar {
    operands: Kind::Path,
    tolerant: true,
    ..g(
        "bcwz",
        &[
            "binary",
            "check",
            "text",
            "tag",
            "zero",
            "quiet",
            "status",
            "strict",
            "warn",
            "ignore-missing",
        ],
    )
};

/// The grammar of `true`, `false`.
const NOTHING: Grammar = Grammar {
    tolerant: true,
    ..BASE
};

/// The grammar of `base64`, `base32`.
/// BSD `base64 -o FILE` writes and `-i FILE` reads; GNU `-i` is a flag.
const BASE_ENCODINGS: Grammar = Grammar {
    valued: "w",
    long_valued: &["wrap"],
    operands: Kind::Path,
    max_operands: 1,
    ..g("d", &["decode", "ignore-garbage"])
};

/// The grammar of `whoami`, `logname`, `arch`, `lsmod`.
const NO_OPERANDS: Grammar = Grammar {
    max_operands: 0,
    tolerant: true,
    ..BASE
};

/// The grammar of `groups`, `users`.
const USER_NAMES: Grammar = Grammar {
    tolerant: true,
    ..BASE
};

/// The grammar of `grep`, `egrep`, `fgrep`.
/// No option of grep on any platform writes or runs anything.
const GREPS: Grammar = Grammar {
    tolerant: true,
    ..GREP
};

/// The grammar of `zgrep`, `zegrep`, `zfgrep`.
const ZGREPS: Grammar = Grammar {
    then: Some(whole::zgrep),
    ..GREP
};

/// The grammar of `ping`, `ping6`.
/// Not `-f` (floods), `-p` (a payload), `-I` (an interface or
/// address), `-b`; a count is required (it never ends without one).
const PINGS: Grammar = Grammar {
    valued: "ciWwst",
    max_operands: 1,
    then: Some(whole::ping),
    ..g("46nqvDO", &[])
};

/// The exact version queries of the programs that otherwise only run code
/// (each spelling checked on this machine to print the version and exit).
const VERSION_GCC: &[&str] = &["--version"];
const VERSION_MAKE: &[&str] = &["--version"];
const VERSION_NODE: &[&str] = &["--version", "-v"];
const VERSION_PERL: &[&str] = &["--version", "-v"];
const VERSION_PYTHON: &[&str] = &["--version", "-V"];
const VERSION_PYTHON3: &[&str] = &["--version", "-V"];

/// A container tool runs a command when given `exec`, `run` or `debug`.
const CONTAINER_RUNS: When = When::Word(&["exec", "run", "debug"]);

/// `curl`'s options with a value, per its manual (options not listed take
/// none, so the next word stays an operand).
const CURL_CLIENT: Client = Client::Options(&[
    ("-T", Sends::File),
    ("--upload-file", Sends::File),
    ("-K", Sends::File),
    ("--config", Sends::File),
    ("-d", Sends::Data),
    ("--data", Sends::Data),
    ("--data-binary", Sends::Data),
    ("--data-urlencode", Sends::Data),
    ("--data-ascii", Sends::Data),
    ("--json", Sends::Data),
    ("-F", Sends::Data),
    ("--form", Sends::Data),
    ("-H", Sends::Data),
    ("--header", Sends::Data),
    ("-b", Sends::Data),
    ("--cookie", Sends::Data),
    ("-x", Sends::Proxy),
    ("--proxy", Sends::Proxy),
    ("--preproxy", Sends::Proxy),
    ("--connect-to", Sends::Proxy),
    ("--resolve", Sends::Proxy),
    ("--url", Sends::Proxy),
    ("-A", Sends::Plain),
    ("-c", Sends::Plain),
    ("-C", Sends::Plain),
    ("-D", Sends::Plain),
    ("-e", Sends::Plain),
    ("-E", Sends::Plain),
    ("-m", Sends::Plain),
    ("-o", Sends::Plain),
    ("-P", Sends::Plain),
    ("-Q", Sends::Plain),
    ("-r", Sends::Plain),
    ("-t", Sends::Plain),
    ("-u", Sends::Plain),
    ("-U", Sends::Plain),
    ("-w", Sends::Plain),
    ("-X", Sends::Plain),
    ("-y", Sends::Plain),
    ("-Y", Sends::Plain),
    ("-z", Sends::Plain),
    ("--output", Sends::Plain),
    ("--request", Sends::Plain),
    ("--user", Sends::Plain),
    ("--user-agent", Sends::Plain),
    ("--max-time", Sends::Plain),
    ("--write-out", Sends::Plain),
    ("--cookie-jar", Sends::Plain),
    ("--referer", Sends::Plain),
    ("--unix-socket", Sends::Plain),
    ("--retry", Sends::Plain),
]);

/// `wget`'s options with a value, per its manual (options not listed take
/// none, so the next word stays an operand).
const WGET_CLIENT: Client = Client::Options(&[
    ("-i", Sends::File),
    ("--input-file", Sends::File),
    ("--post-file", Sends::File),
    ("--body-file", Sends::File),
    ("--load-cookies", Sends::File),
    ("-e", Sends::Plain),
    ("--execute", Sends::Plain),
    ("-a", Sends::Plain),
    ("-A", Sends::Plain),
    ("-B", Sends::Plain),
    ("-D", Sends::Plain),
    ("-I", Sends::Plain),
    ("-l", Sends::Plain),
    ("-o", Sends::Plain),
    ("-O", Sends::Plain),
    ("-P", Sends::Plain),
    ("-Q", Sends::Plain),
    ("-R", Sends::Plain),
    ("-t", Sends::Plain),
    ("-T", Sends::Plain),
    ("-U", Sends::Plain),
    ("-w", Sends::Plain),
    ("-X", Sends::Plain),
    ("--output-document", Sends::Plain),
    ("--method", Sends::Plain),
    ("--post-data", Sends::Plain),
    ("--body-data", Sends::Plain),
    ("--header", Sends::Plain),
    ("--user", Sends::Plain),
    ("--password", Sends::Plain),
]);

/// `aria2c`'s options with a value, per its manual (options not listed take
/// none, so the next word stays an operand).
const ARIA2C_CLIENT: Client = Client::Options(&[
    ("-i", Sends::File),
    ("--input-file", Sends::File),
    ("-d", Sends::Plain),
    ("-o", Sends::Plain),
    ("--all-proxy", Sends::Proxy),
    ("--http-proxy", Sends::Proxy),
]);

/// The program table.
pub static TABLE: &[Program] = &[
    Program {
        name: "7z",
        capabilities: &[
            row(Contains("-sdel"),
        Overwrites,
        "7z(1) -sdel deletes files after compression"),
        ],
        ..NONE
    },
    Program {
        name: "R",
        capabilities: &[
            row(Always, RunsCode, "GTFOBins R: shell"),
        ],
        ..NONE
    },
    Program {
        name: "Rscript",
        interpreter: true,
        inline_code: true,
        ..NONE
    },
    Program {
        name: "[",
        checked: "[ (GNU coreutils) 9.1",
        rule: Some(Rule::Check(checks::bracket)),
        ..NONE
    },
    Program {
        name: "ab",
        capabilities: &[
            row(Always, Transfers, "GTFOBins ab: upload, download"),
        ],
        ..NONE
    },
    Program {
        name: "acr",
        capabilities: &[
            row(Always, RunsCode, "GTFOBins acr: command"),
        ],
        ..NONE
    },
    Program {
        name: "adduser",
        checked: "adduser version 3.134",
        capabilities: &[
            row(Always, Privileges, "adduser(8)"),
        ],
        ..NONE
    },
    Program {
        name: "agetty",
        checked: "agetty from util-linux 2.38.1",
        capabilities: &[
            row(Always, Privileges, "GTFOBins agetty: shell"),
        ],
        ..NONE
    },
    Program {
        name: "alembic",
        destroys: &[
            destroys(When::Any(&[When::Contains(&["rollback", "drop", ":undo"]), When::Word(&["downgrade"])]), "drops or rolls back the database", "alembic documentation: migrations"),
        ],
        ..NONE
    },
    Program {
        name: "ansible-playbook",
        capabilities: &[
            row(Always,
        RunsCode,
        "GTFOBins ansible-playbook: shell"),
        ],
        ..NONE
    },
    Program {
        name: "ansible-test",
        capabilities: &[
            row(Always,
        RunsCode,
        "GTFOBins ansible-test: shell"),
        ],
        ..NONE
    },
    Program {
        name: "ant",
        capabilities: &[
            row(Task(&[], &["-version", "-help", "-h", "-p", "-projecthelp"], &[]), RunsCode, "Apache Ant documentation: build.xml's targets run their tasks (exec, java, script)"),
        ],
        ..NONE
    },
    Program {
        name: "apk",
        destroys: &[
            PACKAGE_REMOVAL,
        ],
        ..NONE
    },
    Program {
        name: "apport-cli",
        capabilities: &[
            row(Always,
        RunsCode,
        "GTFOBins apport-cli: inherit"),
        ],
        ..NONE
    },
    Program {
        name: "apt",
        checked: "apt 2.6.1 (amd64)",
        capabilities: &[
            row(Word("changelog"), RunsCode, "GTFOBins apt: inherit"),
            row(Word("install"), HostState, "apt(8)"),
        ],
        destroys: &[
            PACKAGE_REMOVAL,
        ],
        ..NONE
    },
    Program {
        name: "apt-get",
        checked: "apt 2.6.1 (amd64)",
        capabilities: &[
            row(Word("changelog"),
        RunsCode,
        "GTFOBins apt-get: inherit (pager)"),
            row(Word("install"),
        HostState,
        "GTFOBins apt-get: shell"),
            row(Word("update"),
        HostState,
        "GTFOBins apt-get: shell"),
        ],
        destroys: &[
            PACKAGE_REMOVAL,
        ],
        ..NONE
    },
    Program {
        name: "aptitude",
        capabilities: &[
            row(Word("changelog"),
        RunsCode,
        "GTFOBins aptitude: inherit"),
        ],
        destroys: &[
            PACKAGE_REMOVAL,
        ],
        ..NONE
    },
    Program {
        name: "arch",
        checked: "arch (GNU coreutils) 9.1",
        rule: Some(Rule::Grammar(&NO_OPERANDS)),
        prints_no_option: Some(When::Always),
        ..NONE
    },
    Program {
        name: "arch-nspawn",
        capabilities: &[
            row(Always,
        HostState,
        "GTFOBins arch-nspawn: shell"),
        ],
        ..NONE
    },
    Program {
        name: "aria2c",
        capabilities: &[
            row(Always,
        Transfers,
        "GTFOBins aria2c: download, command"),
        ],
        client: Some(ARIA2C_CLIENT),
        ..NONE
    },
    Program {
        name: "arj",
        capabilities: &[
            row(Always, Overwrites, "GTFOBins arj: file-write"),
        ],
        ..NONE
    },
    Program {
        name: "artisan",
        destroys: &[
            destroys(When::Word(&["migrate:fresh", "migrate:reset", "migrate:refresh", "db:wipe", "migrate:rollback"]), "drops or resets the database", "Laravel documentation: migrations"),
        ],
        ..NONE
    },
    Program {
        name: "ash",
        shell: true,
        ..NONE
    },
    Program {
        name: "asterisk",
        capabilities: &[
            row(Always, RunsCode, "GTFOBins asterisk: shell"),
        ],
        ..NONE
    },
    Program {
        name: "at",
        capabilities: &[
            row(Always, RunsCode, "GTFOBins at: shell, command"),
        ],
        destroys: &[
            destroys(When::Always, "runs commands read from its input later", "at(1)"),
        ],
        ..NONE
    },
    Program {
        name: "atop",
        ends: &[
            never(Until::Not(&Until::Short('n')), "refreshes until stopped"),
        ],
        ..NONE
    },
    Program {
        name: "autoconf",
        capabilities: &[
            row(Always, RunsCode, "GTFOBins autoconf: shell"),
        ],
        ..NONE
    },
    Program {
        name: "autoheader",
        capabilities: &[
            row(Always, RunsCode, "GTFOBins autoheader: shell"),
        ],
        ..NONE
    },
    Program {
        name: "autoreconf",
        capabilities: &[
            row(Always, RunsCode, "GTFOBins autoreconf: shell"),
        ],
        ..NONE
    },
    Program {
        name: "awk",
        checked: "GNU Awk 5.2.1",
        rule: Some(Rule::Grammar(&scripts::AWK)),
        reads_contents: true,
        inline_code: true,
        ends: &[
            never(Until::Check(unbounded::awk_loops), "runs a loop that may never end"),
        ],
        ..NONE
    },
    Program {
        name: "aws",
        checked: "aws-cli 1.45.11",
        credentials: &[&["configure", "get"], &["configure", "export-credentials"], &["sts", "get-session-token"], &["sts", "assume-role"], &["ecr", "get-login-password"], &["secretsmanager", "get-secret-value"], &["ssm", "get-parameter"], &["ssm", "get-parameters"], &["sso", "get-role-credentials"], &["codeartifact", "get-authorization-token"]],
        capabilities: &[
            row(Word("help"), RunsCode, "GTFOBins aws: inherit"),
        ],
        destroys: &[
            CLOUD_DELETE,
        ],
        ..NONE
    },
    Program {
        name: "az",
        credentials: &[&["account", "get-access-token"], &["keyvault", "secret", "show"], &["keyvault", "secret", "download"], &["storage", "account", "keys"]],
        destroys: &[
            CLOUD_DELETE,
        ],
        ..NONE
    },
    Program {
        name: "b2sum",
        checked: "b2sum (GNU coreutils) 9.1",
        rule: Some(Rule::Grammar(&Grammar {
            valued: "l",
            long_valued: &["length"],
            operands: Kind::Path,
            ..g(
                "bctwz",
                &[
                    "binary",
                    "check",
                    "text",
                    "tag",
                    "zero",
                    "quiet",
                    "status",
                    "strict",
                    "warn",
                    "ignore-missing",
                ],
            )
        })),
        ..NONE
    },
    Program {
        name: "badblocks",
        destroys: &[
            destroys(When::Arguments, "overwrites disks", "badblocks(8)"),
        ],
        ..NONE
    },
    Program {
        name: "base32",
        checked: "base32 (GNU coreutils) 9.1",
        rule: Some(Rule::Grammar(&BASE_ENCODINGS)),
        reads_contents: true,
        ..NONE
    },
    Program {
        name: "base64",
        checked: "base64 (GNU coreutils) 9.1",
        rule: Some(Rule::Grammar(&BASE_ENCODINGS)),
        reads_contents: true,
        ..NONE
    },
    Program {
        name: "basename",
        checked: "basename (GNU coreutils) 9.1",
        rule: Some(Rule::Grammar(&Grammar {
            valued: "s",
            long_valued: &["suffix"],
            tolerant: true,
            ..g("az", &["multiple", "zero"])
        })),
        prints_no_option: Some(When::Check(programs::basename_prints_no_option)),
        ..NONE
    },
    Program {
        name: "bash",
        shell: true,
        ..NONE
    },
    Program {
        name: "bashbug",
        checked: "GNU bashbug, version 5.2.15-release",
        capabilities: &[
            row(Always,
        RunsCode,
        "GTFOBins bashbug: inherit (editor)"),
        ],
        ..NONE
    },
    Program {
        name: "bat",
        capabilities: &[
            row(Word("always"), RunsCode, "GTFOBins batcat: inherit"),
        ],
        ..NONE
    },
    Program {
        name: "batcat",
        capabilities: &[
            row(Word("always"),
        RunsCode,
        "GTFOBins batcat: inherit (--paging always)"),
        ],
        ..NONE
    },
    Program {
        name: "batch",
        capabilities: &[
            row(Always, RunsCode, "at(1)"),
        ],
        destroys: &[
            destroys(When::Always, "runs commands read from its input later", "at(1)"),
        ],
        ..NONE
    },
    Program {
        name: "bazel",
        capabilities: &[
            row(Task(&["version", "help", "info", "license"], TASK_ASKS, &[]), RunsCode, "Bazel documentation: BUILD and .bzl files and repository rules run on build, test and run"),
        ],
        ..NONE
    },
    Program {
        name: "bazelisk",
        capabilities: &[
            row(Task(&["version", "help", "info", "license"], TASK_ASKS, &[]), RunsCode, "Bazel documentation: BUILD and .bzl files and repository rules run on build, test and run"),
        ],
        ..NONE
    },
    Program {
        name: "bcdedit",
        destroys: &[
            destroys(When::Always, "deletes, formats or stops (a Windows command)", "Windows commands documentation: bcdedit"),
        ],
        ..NONE
    },
    Program {
        name: "bcdedit.exe",
        destroys: &[
            destroys(When::Always, "deletes, formats or stops (a Windows command)", "Windows commands documentation: bcdedit"),
        ],
        ..NONE
    },
    Program {
        name: "bconsole",
        capabilities: &[
            row(Always, RunsCode, "GTFOBins bconsole: shell"),
        ],
        ..NONE
    },
    Program {
        name: "bee",
        capabilities: &[
            row(Always, RunsCode, "GTFOBins bee: inherit"),
        ],
        ..NONE
    },
    Program {
        name: "bin/rails",
        destroys: &[
            destroys(When::Word(&["db:drop", "db:reset", "db:purge", "db:schema:load", "db:setup", "db:migrate:reset", "db:truncate_all"]), "drops or resets the database", "Ruby on Rails documentation: Active Record migrations, database tasks"),
        ],
        ..NONE
    },
    Program {
        name: "blkdiscard",
        destroys: &[
            destroys(When::Always, "overwrites disks", "blkdiscard(8)"),
        ],
        ..NONE
    },
    Program {
        name: "borg",
        capabilities: &[
            row(Always, Transfers, "GTFOBins borg: shell"),
        ],
        ..NONE
    },
    Program {
        name: "bpftrace",
        capabilities: &[
            row(Always, RunsCode, "GTFOBins bpftrace: shell"),
        ],
        ..NONE
    },
    Program {
        name: "brew",
        destroys: &[
            PACKAGE_REMOVAL,
        ],
        ..NONE
    },
    Program {
        name: "btop",
        ends: &[
            never(Until::Not(&Until::Short('n')), "refreshes until stopped"),
        ],
        ..NONE
    },
    Program {
        name: "builtin",
        wrapper: true,
        runs_arguments: Some(When::Always),
        ..NONE
    },
    Program {
        name: "bun",
        inline_code: true,
        capabilities: &[
            row(Word("install"), RunsCode, "Bun documentation: bun install runs the project's lifecycle scripts"),
            row(Word("i"), RunsCode, "Bun documentation: bun install runs the project's lifecycle scripts"),
            row(Word("run"), RunsCode, "Bun documentation: bun run runs a package.json script"),
        ],
        destroys: &[
            PACKAGE_REMOVAL,
        ],
        ..NONE
    },
    Program {
        name: "bundle",
        capabilities: &[
            row(Always,
        RunsCode,
        "GTFOBins bundle: shell (Gemfile is Ruby)"),
            row(Word("help"), RunsCode, "GTFOBins bundle: inherit"),
        ],
        ..NONE
    },
    Program {
        name: "bundler",
        capabilities: &[
            row(Always, RunsCode, "GTFOBins bundle: shell"),
        ],
        ..NONE
    },
    Program {
        name: "bunx",
        destroys: &[
            destroys(When::All(&[When::Word(&["reset"]), When::Word(&["migrate", "db"])]), "drops or resets the database", "Prisma documentation: migrate reset"),
            destroys(When::Word(&["--force-reset", "--accept-data-loss"]), "drops or resets the database", "Prisma documentation: db push"),
        ],
        ..NONE
    },
    Program {
        name: "bunzip2",
        checked: "bzip2",
        capabilities: &[
            row(OperandUnless(&["-c", "--stdout", "-k", "--keep", "-t", "--test"]),
        Overwrites,
        "bzip2(1)"),
        ],
        ..NONE
    },
    Program {
        name: "busctl",
        checked: "systemd 252 (252.39-1~deb12u2)",
        capabilities: &[
            row(Always,
        RunsCode,
        "GTFOBins busctl: shell, inherit"),
        ],
        ..NONE
    },
    Program {
        name: "busybox",
        shell: true,
        capabilities: &[
            row(Word("httpd"), Socket, "GTFOBins busybox: upload"),
            row(Word("nc"),
        Socket,
        "GTFOBins busybox: reverse-shell"),
            row(Word("sh"), RunsCode, "GTFOBins busybox: inherit"),
            row(Word("ash"),
        RunsCode,
        "GTFOBins busybox: inherit"),
        ],
        runs_arguments: Some(When::Always),
        ends: &[
            never(Until::Check(unbounded::awk_loops), "runs a loop that may never end"),
        ],
        ..NONE
    },
    Program {
        name: "bw",
        credentials: &[&["get"]],
        ..NONE
    },
    Program {
        name: "bwrap",
        checked: "bubblewrap 0.8.0",
        runs_arguments: Some(When::Always),
        ..NONE
    },
    Program {
        name: "byebug",
        capabilities: &[
            row(Always, RunsCode, "GTFOBins byebug: inherit"),
        ],
        ..NONE
    },
    Program {
        name: "bzcat",
        checked: "bzip2",
        rule: Some(Rule::Grammar(&CAT_COMPRESSED)),
        reads_contents: true,
        ..NONE
    },
    Program {
        name: "bzip2",
        checked: "bzip2",
        rule: Some(Rule::Grammar(&Grammar {
            operands: Kind::Path,
            then: Some(whole::to_stdout),
            ..g(
                "cdtvqsf123456789",
                &["stdout", "decompress", "test", "verbose", "quiet", "small"],
            )
        })),
        reads_contents: true,
        capabilities: &[
            row(OperandUnless(&["-c", "--stdout", "-k", "--keep", "-t", "--test"]),
        Overwrites,
        "bzip2(1): replaces each file"),
        ],
        ..NONE
    },
    Program {
        name: "cabal",
        capabilities: &[
            row(Always, RunsCode, "GTFOBins cabal: shell"),
        ],
        ..NONE
    },
    Program {
        name: "caffeinate",
        wrapper: true,
        ..NONE
    },
    Program {
        name: "cal",
        checked: "Debian ncal 12.1.8",
        // util-linux `cal -m` is a flag, BSD `-m` takes a month: left out.
        rule: Some(Rule::Grammar(&Grammar {
            max_operands: 2,
            ..g("13yj", &[])
        })),
        ..NONE
    },
    Program {
        name: "cancel",
        capabilities: &[
            row(Opt("-h"), Transfers, "GTFOBins cancel: upload"),
        ],
        ..NONE
    },
    Program {
        name: "capsh",
        checked: "Debian libcap2-bin 1:2.66-4+deb12u2+b2",
        capabilities: &[
            row(Always, Privileges, "GTFOBins capsh: shell"),
        ],
        ..NONE
    },
    Program {
        name: "cargo",
        checked: "cargo 1.95.0",
        rule: Some(Rule::Check(|a| toolchain("cargo", a))),
        capabilities: &[
            row(Word("help"), RunsCode, "GTFOBins cargo: inherit"),
            row(Word("build"), RunsCode, CARGO_BUILDS),
            row(Word("b"), RunsCode, CARGO_BUILDS),
            row(Word("check"), RunsCode, CARGO_BUILDS),
            row(Word("c"), RunsCode, CARGO_BUILDS),
            row(Word("test"), RunsCode, CARGO_BUILDS),
            row(Word("t"), RunsCode, CARGO_BUILDS),
            row(Word("bench"), RunsCode, CARGO_BUILDS),
            row(Word("doc"), RunsCode, CARGO_BUILDS),
            row(Word("d"), RunsCode, CARGO_BUILDS),
            row(Word("clippy"), RunsCode, CARGO_BUILDS),
            row(Word("fix"), RunsCode, CARGO_BUILDS),
            row(Word("rustc"), RunsCode, CARGO_BUILDS),
            row(Word("rustdoc"), RunsCode, CARGO_BUILDS),
            row(Word("package"), RunsCode, CARGO_BUILDS),
            row(Word("publish"), RunsCode, CARGO_BUILDS),
            row(Opt("--path"), RunsCode, CARGO_BUILDS),
        ],
        destroys: &[
            PACKAGE_REMOVAL,
        ],
        ..NONE
    },
    Program {
        name: "cat",
        checked: "cat (GNU coreutils) 9.1",
        rule: Some(Rule::Grammar(&Grammar {
            long_flags: &[
                "show-all",
                "number-nonblank",
                "show-ends",
                "number",
                "squeeze-blank",
                "show-tabs",
                "show-nonprinting",
            ],
            operands: Kind::Path,
            tolerant: true,
            ..g("AbeEnstTuv", &[])
        })),
        reads_contents: true,
        ..NONE
    },
    Program {
        name: "cd",
        rule: Some(Rule::Grammar(&Grammar {
            max_operands: 1,
            ..g("LPe", &[])
        })),
        ..NONE
    },
    Program {
        name: "cdist",
        capabilities: &[
            row(Always, RunsCode, "GTFOBins cdist: shell"),
        ],
        ..NONE
    },
    Program {
        name: "cgdisk",
        destroys: &[
            destroys(When::Arguments, "overwrites disks", "cgdisk(8)"),
        ],
        ..NONE
    },
    Program {
        name: "chage",
        destroys: &[
            destroys(When::Arguments, "changes accounts or their passwords", "chage(1)"),
        ],
        ..NONE
    },
    Program {
        name: "chattr",
        checked: "Debian e2fsprogs 1.47.0-2",
        capabilities: &[
            row(Always,
        Privileges,
        "GTFOBins chattr: privilege-escalation"),
        ],
        ..NONE
    },
    Program {
        name: "check_log",
        capabilities: &[
            row(Always,
        Overwrites,
        "GTFOBins check_log: file-write"),
        ],
        ..NONE
    },
    Program {
        name: "chfn",
        checked: "Debian passwd 1:4.13+dfsg1-1+deb12u1",
        capabilities: &[
            row(Always, Privileges, "chfn(1)"),
        ],
        ..NONE
    },
    Program {
        name: "chgrp",
        checked: "chgrp (GNU coreutils) 9.1",
        capabilities: &[
            row(Always, Privileges, "chgrp(1)"),
        ],
        destroys: &[
            destroys(When::Any(&[When::Word(&["--recursive"]), When::Short('R')]), "changes permissions recursively", "chgrp(1)"),
            destroys(When::Word(&["/", "/*", "~", "/etc", "/usr", "/bin", "/var", "/home"]), "changes permissions of the system", "chgrp(1)"),
        ],
        ..NONE
    },
    Program {
        name: "chmod",
        checked: "chmod (GNU coreutils) 9.1",
        capabilities: &[
            row(SetIdMode,
        Privileges,
        "GTFOBins chmod: privilege-escalation (set-user-ID and set-group-ID bits)"),
        ],
        destroys: &[
            destroys(When::Any(&[When::Word(&["--recursive"]), When::Short('R')]), "changes permissions recursively", "chmod(1)"),
            destroys(When::Word(&["/", "/*", "~", "/etc", "/usr", "/bin", "/var", "/home"]), "changes permissions of the system", "chmod(1)"),
        ],
        ..NONE
    },
    Program {
        name: "choco",
        destroys: &[
            PACKAGE_REMOVAL,
        ],
        ..NONE
    },
    Program {
        name: "chown",
        checked: "chown (GNU coreutils) 9.1",
        capabilities: &[
            // Privileges and accounts.
            row(Always,
        Privileges,
        "GTFOBins chown: privilege-escalation"),
        ],
        destroys: &[
            destroys(When::Any(&[When::Word(&["--recursive"]), When::Short('R')]), "changes permissions recursively", "chown(1)"),
            destroys(When::Word(&["/", "/*", "~", "/etc", "/usr", "/bin", "/var", "/home"]), "changes permissions of the system", "chown(1)"),
        ],
        ..NONE
    },
    Program {
        name: "chpasswd",
        checked: "Debian passwd 1:4.13+dfsg1-1+deb12u1",
        capabilities: &[
            row(Always, Privileges, "chpasswd(8)"),
        ],
        destroys: &[
            destroys(When::Arguments, "changes accounts or their passwords", "chpasswd(8)"),
        ],
        ..NONE
    },
    Program {
        name: "chroot",
        checked: "chroot (GNU coreutils) 9.1",
        capabilities: &[
            row(Always,
        Privileges,
        "GTFOBins chroot: shell (with no command it runs an interactive shell); chroot(8)"),
        ],
        runs_arguments: Some(When::Always),
        ..NONE
    },
    Program {
        name: "chrt",
        checked: "chrt from util-linux 2.38.1",
        wrapper: true,
        ..NONE
    },
    Program {
        name: "chsh",
        checked: "Debian passwd 1:4.13+dfsg1-1+deb12u1",
        capabilities: &[
            row(Always, Privileges, "chsh(1)"),
        ],
        ..NONE
    },
    Program {
        name: "cksum",
        checked: "cksum (GNU coreutils) 9.1",
        rule: Some(Rule::Grammar(&Grammar {
            operands: Kind::Path,
            ..BASE
        })),
        ..NONE
    },
    Program {
        name: "clang",
        rule: Some(Rule::Check(|a| version("clang", &[], a))),
        ..NONE
    },
    Program {
        name: "clickhouse",
        destroys: &[
            DATABASE_STATEMENT,
        ],
        ..NONE
    },
    Program {
        name: "clickhouse-client",
        destroys: &[
            DATABASE_STATEMENT,
        ],
        ..NONE
    },
    Program {
        name: "clisp",
        capabilities: &[
            row(Always, RunsCode, "GTFOBins clisp: shell"),
        ],
        ..NONE
    },
    Program {
        name: "cmake",
        capabilities: &[
            row(Always,
        RunsCode,
        "GTFOBins cmake: shell (CMakeLists.txt execute_process)"),
        ],
        ..NONE
    },
    Program {
        name: "cmp",
        checked: "cmp (GNU diffutils) 3.8",
        rule: Some(Rule::Grammar(&Grammar {
            valued: "in",
            operands: Kind::Path,
            max_operands: 4,
            ..g("bls", &["print-bytes", "verbose", "quiet", "silent"])
        })),
        reads_contents: true,
        ..NONE
    },
    Program {
        name: "cobc",
        capabilities: &[
            row(Always, RunsCode, "GTFOBins cobc: shell"),
        ],
        ..NONE
    },
    Program {
        name: "cockroach",
        destroys: &[
            DATABASE_STATEMENT,
        ],
        ..NONE
    },
    Program {
        name: "code",
        capabilities: &[
            row(Word("tunnel"),
        Socket,
        "GTFOBins code: upload, download, reverse-shell"),
        ],
        ..NONE
    },
    Program {
        name: "codex",
        capabilities: &[
            row(Always, RunsCode, "GTFOBins codex: shell"),
        ],
        ..NONE
    },
    Program {
        name: "column",
        checked: "column from util-linux 2.38.1",
        rule: Some(Rule::Grammar(&Grammar {
            valued: "cs",
            operands: Kind::Path,
            ..g("tx", &[])
        })),
        reads_contents: true,
        ..NONE
    },
    Program {
        name: "comm",
        checked: "comm (GNU coreutils) 9.1",
        rule: Some(Rule::Grammar(&Grammar {
            long_valued: &["output-delimiter"],
            operands: Kind::Path,
            max_operands: 2,
            ..g(
                "123",
                &["check-order", "nocheck-order", "total", "zero-terminated"],
            )
        })),
        reads_contents: true,
        ..NONE
    },
    Program {
        name: "command",
        wrapper: true,
        ..NONE
    },
    Program {
        name: "composer",
        capabilities: &[
            row(Word("run-script"),
        RunsCode,
        "GTFOBins composer: shell"),
            row(Word("run"),
        RunsCode,
        "GTFOBins composer: shell"),
            row(Word("exec"),
        RunsCode,
        "Composer documentation: exec"),
            row(Task(&[], TASK_ASKS, &[]),
        RunsCode,
        "Composer documentation, scripts: install, update, require and other commands run composer.json scripts and installed plugins; an unknown command runs the script of that name"),
        ],
        ..NONE
    },
    Program {
        name: "compress",
        capabilities: &[
            row(OperandUnless(&["-c"]),
        Overwrites,
        "compress(1)"),
        ],
        ..NONE
    },
    Program {
        name: "conda",
        destroys: &[
            PACKAGE_REMOVAL,
        ],
        ..NONE
    },
    Program {
        name: "coproc",
        runs_arguments: Some(When::Always),
        ..NONE
    },
    Program {
        name: "cowsay",
        capabilities: &[
            row(Opt("-f"),
        RunsCode,
        "GTFOBins cowsay: inherit (a cow file is Perl)"),
        ],
        ..NONE
    },
    Program {
        name: "cowthink",
        capabilities: &[
            row(Opt("-f"),
        RunsCode,
        "GTFOBins cowthink: inherit"),
        ],
        ..NONE
    },
    Program {
        name: "cp",
        checked: "cp (GNU coreutils) 9.1",
        capabilities: &[
            row(Opt("--preserve=all"),
        Privileges,
        "GTFOBins cp: privilege-escalation"),
            row(Opt("--attributes-only"), Privileges, "GTFOBins cp"),
        ],
        destroys: &[
            destroys(When::Word(&["/dev/null", "/dev/zero"]), "overwrites a file with nothing", "cp(1)"),
        ],
        ..NONE
    },
    Program {
        name: "cpan",
        checked: "Debian perl 5.36.0-7+deb12u4",
        capabilities: &[
            row(Always, RunsCode, "GTFOBins cpan: inherit"),
        ],
        ..NONE
    },
    Program {
        name: "cpio",
        capabilities: &[
            row(Always,
        Overwrites,
        "GTFOBins cpio: file-write, shell"),
        ],
        ..NONE
    },
    Program {
        name: "cqlsh",
        destroys: &[
            DATABASE_STATEMENT,
        ],
        ..NONE
    },
    Program {
        name: "crash",
        capabilities: &[
            row(Always,
        RunsCode,
        "GTFOBins crash: command, inherit"),
        ],
        ..NONE
    },
    Program {
        name: "crontab",
        capabilities: &[
            row(Opt("-e"),
        Persistence,
        "GTFOBins crontab: command; crontab(1) -e"),
            row(Operands(1, &["-u"]),
        Persistence,
        "crontab(1): a file or `-` replaces the crontab"),
            row(Word("-"), Persistence, "crontab(1)"),
        ],
        destroys: &[
            destroys(When::Word(&["-r"]), "deletes the crontab", "crontab(1)"),
            destroys(When::Not(&When::Word(&["-l"])), "replaces the crontab", "crontab(1)"),
        ],
        ..NONE
    },
    Program {
        name: "cryptsetup",
        destroys: &[
            destroys(When::Word(&["erase", "luksErase", "luksFormat", "luksKillSlot", "luksRemoveKey", "reencrypt"]), "destroys encryption keys or data", "cryptsetup(8)"),
        ],
        ..NONE
    },
    Program {
        name: "csvtool",
        capabilities: &[
            row(Word("call"), RunsCode, "GTFOBins csvtool: shell"),
        ],
        ..NONE
    },
    Program {
        name: "ctr",
        capabilities: &[
            row(Always, HostState, "GTFOBins ctr: shell"),
        ],
        ..NONE
    },
    Program {
        name: "curl",
        checked: "curl 7.88.1",
        rule: Some(Rule::Grammar(&tools::CURL)),
        capabilities: &[
            // Uploads: a file's contents sent to another machine (GTFOBins
            // curl: upload). curl 7.88 takes a unique prefix of a long
            // option (tool_getparam.c counts prefix hits), so `--up` is
            // read as far as it can be `--upload-file`.
            row(Short('T'), Transfers, "GTFOBins curl: upload; curl(1) -T, --upload-file"),
            row(LongPrefix("--upload-file", 4), Transfers, "curl(1) --upload-file"),
            // `-d @file`, `--data-binary @file`, `--json @file`,
            // `--data-urlencode @file`: the value names a file to send.
            row(WordPrefix("@"), Transfers, "curl(1) -d, --data: @file sends the file"),
            row(WordPrefix("-d@"), Transfers, "curl(1) -d@file"),
            // `-F name=@file` and `-F name=<file` post the file's contents.
            row(Contains("=@"), Transfers, "curl(1) -F, --form: name=@file"),
            row(Contains("=<"), Transfers, "curl(1) -F, --form: name=<file"),
        ],
        ends: &[
            never(Until::Check(unbounded::curl_waits), "may wait or retry for a long time"),
        ],
        client: Some(CURL_CLIENT),
        ..NONE
    },
    Program {
        name: "cut",
        checked: "cut (GNU coreutils) 9.1",
        rule: Some(Rule::Grammar(&Grammar {
            valued: "bcfd",
            long_valued: &[
                "bytes",
                "characters",
                "fields",
                "delimiter",
                "output-delimiter",
            ],
            operands: Kind::Path,
            // Not BSD's `-w` (split at white space): GNU cut 9.1, run here,
            // refuses it, and a reading not checked by running is not declared.
            ..g("snz", &["only-delimited", "complement", "zero-terminated"])
        })),
        reads_contents: true,
        ..NONE
    },
    Program {
        name: "daemonize",
        ends: &[
            never(Until::Always, "keeps running after the command returns"),
        ],
        ..NONE
    },
    Program {
        name: "dash",
        shell: true,
        ..NONE
    },
    Program {
        name: "date",
        checked: "date (GNU coreutils) 9.1",
        // Not `-s` (sets the clock), `-f FILE` (reads dates from a file and
        // echoes the bad ones); BSD `-f` is an input format, `-r` differs.
        rule: Some(Rule::Grammar(&Grammar {
            valued: "d",
            long_valued: &["date", "reference"],
            long_optional: &["iso-8601", "rfc-3339"],
            max_operands: 1,
            then: Some(whole::date),
            optional_attached: "I",
            ..g(
                "uR",
                &["utc", "universal", "rfc-email", "rfc-2822", "debug"],
            )
        })),
        capabilities: &[
            // Host state (the machine itself): manuals.
            row(Opt("-s"), HostState, "date(1) --set"),
            row(WordPrefix("--set"), HostState, "date(1) --set"),
            // getopt_long takes any unique prefix: `--s` and `--se` are
            // `--set` to date (coreutils 9.1 run here tried to set the clock).
            row(LongPrefix("--set", 3), HostState, "date(1) --set"),
            row(Operands(1, &["-d", "--date", "-f", "--file", "-r", "--reference"]),
        HostState,
        "date(1): an operand MMDDhhmm sets the clock"),
        ],
        ends: &[
            never(Until::Check(unbounded::date_too_wide), "pads a field wider than ten thousand characters"),
        ],
        prints_no_option: Some(When::Not(&When::Any(&[When::Prefix(&["+-"]), When::Contains(&[" -", "\t-"])]))),
        ..NONE
    },
    Program {
        name: "dc",
        capabilities: &[
            row(Always,
        RunsCode,
        "GTFOBins dc: shell (`!` runs a command)"),
        ],
        ..NONE
    },
    Program {
        name: "dd",
        destroys: &[
            destroys(When::Always, "overwrites disks", "dd(1)"),
        ],
        ..NONE
    },
    Program {
        name: "debugfs",
        checked: "debugfs 1.47.0 (5-Feb-2023)",
        capabilities: &[
            row(Always, RunsCode, "GTFOBins debugfs: shell"),
        ],
        ..NONE
    },
    Program {
        name: "delgroup",
        destroys: &[
            destroys(When::Always, "deletes accounts", "delgroup(8)"),
        ],
        ..NONE
    },
    Program {
        name: "deluser",
        destroys: &[
            destroys(When::Always, "deletes accounts", "deluser(8)"),
        ],
        ..NONE
    },
    Program {
        name: "deno",
        inline_code: true,
        capabilities: &[
            row(Word("task"), RunsCode, "Deno documentation: deno task runs a task of deno.json or a package.json script"),
            row(LongPrefix("--allow-scripts", 10), RunsCode, "Deno documentation: --allow-scripts runs npm packages' lifecycle scripts"),
        ],
        ..NONE
    },
    Program {
        name: "df",
        checked: "df (GNU coreutils) 9.1",
        rule: Some(Rule::Grammar(&Grammar {
            // `-B SIZE` is GNU and BusyBox `--block-size` (coreutils 9.1,
            // run here: it only scales the figures printed).
            valued: "txB",
            long_valued: &["type", "exclude-type", "block-size"],
            long_optional: &["output"],
            // macOS `-T` takes a type list; as a flag the letters after it
            // are still checked, and the next word is an operand.
            ..g(
                "hHkaiPlT",
                &[
                    "human-readable",
                    "si",
                    "all",
                    "inodes",
                    "portability",
                    "print-type",
                    "local",
                    "total",
                    "no-sync",
                ],
            )
        })),
        ..NONE
    },
    Program {
        name: "dhclient",
        capabilities: &[
            row(Always, HostState, "GTFOBins dhclient: shell"),
        ],
        ..NONE
    },
    Program {
        name: "diff",
        checked: "diff (GNU diffutils) 3.8",
        // Not `-l`/`--paginate`: it runs `pr`.
        rule: Some(Rule::Grammar(&Grammar {
            valued: "CUWxIFSL",
            path_valued: "X",
            long_valued: &[
                "exclude",
                "ignore-matching-lines",
                "label",
                "show-function-line",
                "width",
                "tabsize",
                "line-format",
            ],
            long_paths: &["exclude-from", "from-file", "to-file"],
            long_optional: &["unified", "context", "color"],
            operands: Kind::Path,
            // Not `-r`/`--recursive`, `-N`/`--new-file` or
            // `--unidirectional-new-file`: with them diff prints every file of
            // a directory (`diff -N DIR OTHER`), hidden secret files included.
            // Two directories compared print the files both hold (a `.env`
            // in each): see `diff_operands`.
            then: Some(whole::diff_operands),
            ..g(
                "uqaiwbBtTEsycpdne",
                &[
                    "brief",
                    "text",
                    "ignore-case",
                    "ignore-all-space",
                    "ignore-space-change",
                    "ignore-blank-lines",
                    "ignore-tab-expansion",
                    "ignore-trailing-space",
                    "side-by-side",
                    "suppress-common-lines",
                    "report-identical-files",
                    "minimal",
                    "strip-trailing-cr",
                    "no-dereference",
                    "expand-tabs",
                    "initial-tab",
                    "show-c-function",
                    "speed-large-files",
                    "normal",
                    "left-column",
                    "ed",
                    "rcs",
                    "ignore-file-name-case",
                    "no-ignore-file-name-case",
                    "suppress-blank-empty",
                ],
            )
        })),
        reads_contents: true,
        ..NONE
    },
    Program {
        name: "dig",
        checked: "DiG 9.18.49",
        rule: Some(Rule::Check(checks::dig)),
        // DNS lookups of the names it is given (dig(1)); `@server` is refused.
        reaches: Some(Reach::Words(checks::dig_names)),
        subcommands: forms!(checks::dig_forms),
        ..NONE
    },
    Program {
        name: "dirname",
        checked: "dirname (GNU coreutils) 9.1",
        rule: Some(Rule::Grammar(&Grammar {
            tolerant: true,
            ..g("z", &["zero"])
        })),
        prints_no_option: Some(When::Not(&When::Prefix(&["-"]))),
        ..NONE
    },
    Program {
        name: "diskpart",
        destroys: &[
            destroys(When::Always, "deletes, formats or stops (a Windows command)", "Windows commands documentation: diskpart"),
        ],
        ..NONE
    },
    Program {
        name: "diskpart.exe",
        destroys: &[
            destroys(When::Always, "deletes, formats or stops (a Windows command)", "Windows commands documentation: diskpart"),
        ],
        ..NONE
    },
    Program {
        name: "disown",
        ends: &[
            never(Until::Always, "keeps running after the command returns"),
        ],
        ..NONE
    },
    Program {
        name: "django-admin",
        destroys: &[
            destroys(When::Word(&["flush", "reset_db", "sqlflush"]), "empties the database", "Django documentation: django-admin flush"),
        ],
        ..NONE
    },
    Program {
        name: "dmesg",
        checked: "dmesg from util-linux 2.38.1",
        // Not `-c`/`-C` (clear), `-D`/`-E`/`-n` (console), `-w`/`-W`
        // (follow), `-F` (reads a file), `-s`.
        rule: Some(Rule::Grammar(&Grammar {
            valued: "lf",
            long_valued: &["level", "facility", "time-format"],
            long_optional: &["color"],
            max_operands: 0,
            ..g(
                "HkuxrtTLdeSP",
                &[
                    "human",
                    "kernel",
                    "userspace",
                    "decode",
                    "raw",
                    "ctime",
                    "notime",
                    "reltime",
                    "show-delta",
                    "json",
                    "nopager",
                    "syslog",
                    "force-prefix",
                ],
            )
        })),
        capabilities: &[
            row(Opt("-H"),
        RunsCode,
        "GTFOBins dmesg: inherit (pager)"),
            row(Short('c'),
        HostState,
        "dmesg(1) -c clears the ring buffer"),
            row(Short('C'), HostState, "dmesg(1) -C"),
            row(Short('D'), HostState, "dmesg(1) -D"),
            row(Short('E'), HostState, "dmesg(1) -E"),
            row(Short('n'), HostState, "dmesg(1) -n"),
            row(WordPrefix("--clear"), HostState, "dmesg(1)"),
            row(WordPrefix("--read-clear"), HostState, "dmesg(1)"),
            row(WordPrefix("--console"), HostState, "dmesg(1)"),
        ],
        ends: &[
            never(Until::Any(&[Until::Short('w'), Until::Short('W'), Until::Long("--follow")]), "follows the kernel log forever"),
        ],
        ..NONE
    },
    Program {
        name: "dmidecode",
        capabilities: &[
            row(WordPrefix("--dump-bin"),
        Overwrites,
        "GTFOBins dmidecode: file-write"),
        ],
        ..NONE
    },
    Program {
        name: "dmsetup",
        checked: "Debian dmsetup 2:1.02.185-2",
        capabilities: &[
            row(Always, HostState, "GTFOBins dmsetup: shell"),
        ],
        ..NONE
    },
    Program {
        name: "dnf",
        capabilities: &[
            row(Always, HostState, "GTFOBins dnf: command"),
        ],
        destroys: &[
            PACKAGE_REMOVAL,
        ],
        ..NONE
    },
    Program {
        name: "doas",
        runs_arguments: Some(When::Always),
        destroys: &[
            destroys(When::Always, "runs a command as another user", "doas(1)"),
        ],
        ..NONE
    },
    Program {
        name: "docker",
        checked: "Docker version 28.2.2, build e6534b4",
        rule: Some(Rule::Check(tools::docker)),
        subcommands: forms!(tools::docker_forms),
        credentials: &[&["secret", "inspect"]],
        capabilities: &[
            row(Word("run"), HostState, "GTFOBins docker: shell"),
            row(Word("cp"),
        Overwrites,
        "GTFOBins docker: file-write"),
        ],
        destroys: &[
            destroys(When::Word(&["rm", "rmi", "prune", "kill", "down", "stop", "remove"]), "removes containers, images or volumes", "docker documentation: rm, rmi, prune, down"),
        ],
        ends: &[
            never(Until::Any(&[Until::Word(&["events"]), Until::Word(&["attach"]), Until::All(&[Until::Word(&["stats"]), Until::Not(&Until::Word(&["--no-stream"]))]), Until::All(&[Until::Word(&["logs"]), Until::Any(&[Until::Short('f'), Until::Long("--follow")])])]), "watches until stopped"),
        ],
        reaches: Some(Reach::Configured("the Docker daemon its configuration or `DOCKER_HOST` names (docker(1))")),
        // `exec`, `run` and `debug` run the words after them in a container
        // or pod (the tool's documentation: exec, run, debug).
        runs_arguments: Some(CONTAINER_RUNS),
        ..NONE
    },
    Program {
        name: "docker-compose",
        destroys: &[
            destroys(When::Word(&["rm", "rmi", "prune", "kill", "down", "stop", "remove"]), "removes containers, images or volumes", "docker-compose documentation: rm, rmi, prune, down"),
        ],
        ..NONE
    },
    Program {
        name: "doctl",
        credentials: &[&["auth", "token"]],
        destroys: &[
            CLOUD_DELETE,
        ],
        ..NONE
    },
    Program {
        name: "dos2unix",
        capabilities: &[
            row(Always,
        Overwrites,
        "GTFOBins dos2unix: file-write (converts in place)"),
        ],
        ..NONE
    },
    Program {
        name: "dosbox",
        capabilities: &[
            row(Always,
        RunsCode,
        "GTFOBins dosbox: file-read, file-write (it mounts the host's directories)"),
        ],
        ..NONE
    },
    Program {
        name: "dotnet",
        capabilities: &[
            row(Always, RunsCode, "GTFOBins dotnet: shell"),
        ],
        ..NONE
    },
    Program {
        name: "dpkg",
        checked: "dpkg 1.21.22",
        capabilities: &[
            row(Opt("-i"),
        HostState,
        "GTFOBins dpkg: shell (maintainer scripts)"),
            row(Opt("--install"), HostState, "dpkg(1)"),
            row(Opt("-l"),
        RunsCode,
        "GTFOBins dpkg: inherit (pager)"),
        ],
        destroys: &[
            PACKAGE_REMOVAL,
            destroys(When::Word(&["-r", "-P", "--remove", "--purge"]), "removes packages", "dpkg(1)"),
        ],
        ..NONE
    },
    Program {
        name: "dropdb",
        destroys: &[
            destroys(When::Always, "drops a database", "dropdb(1)"),
        ],
        ..NONE
    },
    Program {
        name: "dropuser",
        destroys: &[
            destroys(When::Always, "drops a database", "dropuser(1)"),
        ],
        ..NONE
    },
    Program {
        name: "dstat",
        capabilities: &[
            row(Always,
        RunsCode,
        "GTFOBins dstat: inherit (plugins are Python)"),
        ],
        ..NONE
    },
    Program {
        name: "du",
        checked: "du (GNU coreutils) 9.1",
        // Not `--files0-from`; GNU `-X FILE` reads exclusion patterns.
        // Its operands are judged as reads so that a variable, which could
        // become `--files0-from=SECRET`, is refused with them.
        rule: Some(Rule::Grammar(&Grammar {
            tolerant: true,
            operands: Kind::Path,
            valued: "dBt",
            path_valued: "X",
            long_valued: &[
                "max-depth",
                "exclude",
                "block-size",
                "threshold",
                "time-style",
            ],
            long_paths: &["exclude-from"],
            long_optional: &["time"],
            ..g(
                "achkmsxLHPlS0",
                &[
                    "all",
                    "apparent-size",
                    "bytes",
                    "total",
                    "human-readable",
                    "si",
                    "summarize",
                    "one-file-system",
                    "dereference",
                    "no-dereference",
                    "count-links",
                    "separate-dirs",
                    "null",
                    "inodes",
                ],
            )
        })),
        ends: &[
            never(Until::Check(unbounded::names_root), "walks the whole file system"),
        ],
        ..NONE
    },
    Program {
        name: "duckdb",
        destroys: &[
            DATABASE_STATEMENT,
        ],
        ..NONE
    },
    Program {
        name: "dvips",
        capabilities: &[
            row(Always, RunsCode, "GTFOBins dvips: shell"),
        ],
        ..NONE
    },
    Program {
        name: "easy_install",
        capabilities: &[
            row(Always,
        RunsCode,
        "GTFOBins easy_install: inherit"),
        ],
        ..NONE
    },
    Program {
        name: "easyrsa",
        capabilities: &[
            row(Always, RunsCode, "GTFOBins easyrsa: shell"),
        ],
        ..NONE
    },
    Program {
        name: "eb",
        capabilities: &[
            row(Always, RunsCode, "GTFOBins eb: inherit"),
        ],
        ..NONE
    },
    Program {
        name: "echo",
        checked: "echo (GNU coreutils) 9.1",
        rule: Some(Rule::Check(checks::echo)),
        prints_no_option: Some(When::Check(programs::echo_prints_no_option)),
        ..NONE
    },
    Program {
        name: "ed",
        checked: "GNU ed 1.19",
        capabilities: &[
            row(Always, RunsCode, "GTFOBins ed: shell, file-write"),
        ],
        ..NONE
    },
    Program {
        name: "egrep",
        checked: "grep (GNU grep) 3.8",
        rule: Some(Rule::Grammar(&GREPS)),
        reads_contents: true,
        ..NONE
    },
    Program {
        name: "elixir",
        inline_code: true,
        ..NONE
    },
    Program {
        name: "emacs",
        capabilities: &[
            row(Always,
        RunsCode,
        "GTFOBins emacs: shell, file-write"),
        ],
        ..NONE
    },
    Program {
        name: "enscript",
        capabilities: &[
            row(Always, RunsCode, "GTFOBins enscript: shell"),
        ],
        ..NONE
    },
    Program {
        name: "env",
        checked: "env (GNU coreutils) 9.1",
        wrapper: true,
        ..NONE
    },
    Program {
        name: "erl",
        inline_code: true,
        ..NONE
    },
    Program {
        name: "ex",
        checked: "VIM - Vi IMproved 9.0",
        capabilities: &[
            row(Always, RunsCode, "GTFOBins ex: shell"),
        ],
        ..NONE
    },
    Program {
        name: "exec",
        wrapper: true,
        runs_arguments: Some(When::Always),
        ..NONE
    },
    Program {
        name: "exiftool",
        capabilities: &[
            row(Opt("-if"),
        RunsCode,
        "GTFOBins exiftool: inherit (Perl expressions)"),
            row(Contains("="),
        Overwrites,
        "GTFOBins exiftool: file-write (a tag assignment rewrites the file)"),
            row(Opt("-W"),
        Overwrites,
        "GTFOBins exiftool: file-write"),
        ],
        ..NONE
    },
    Program {
        name: "expand",
        checked: "expand (GNU coreutils) 9.1",
        rule: Some(Rule::Grammar(&Grammar {
            valued: "t",
            long_valued: &["tabs"],
            operands: Kind::Path,
            ..g("i", &["initial"])
        })),
        reads_contents: true,
        ends: &[
            never(Until::Check(unbounded::expand_too_wide), "pads to a tab stop past ten thousand columns"),
        ],
        ..NONE
    },
    Program {
        name: "expect",
        capabilities: &[
            row(Always, RunsCode, "GTFOBins expect: shell"),
        ],
        ..NONE
    },
    Program {
        name: "expr",
        checked: "expr (GNU coreutils) 9.1",
        // `expr` has no options: every word is an operand of the expression.
        rule: Some(Rule::Grammar(&Grammar {
            tolerant: false,
            then: Some(whole::expr),
            ..BASE
        })),
        ..NONE
    },
    Program {
        name: "facter",
        capabilities: &[
            row(Always, RunsCode, "GTFOBins facter: inherit"),
        ],
        ..NONE
    },
    Program {
        name: "fail2ban-client",
        capabilities: &[
            row(Always,
        RunsCode,
        "GTFOBins fail2ban-client: command"),
        ],
        ..NONE
    },
    Program {
        name: "false",
        checked: "Debian coreutils 9.1-1",
        rule: Some(Rule::Grammar(&NOTHING)),
        ..NONE
    },
    Program {
        name: "fastfetch",
        capabilities: &[
            row(Always,
        RunsCode,
        "GTFOBins fastfetch: shell, command"),
        ],
        ..NONE
    },
    Program {
        name: "fdisk",
        destroys: &[
            destroys(When::Always, "overwrites disks", "fdisk(8)"),
        ],
        ..NONE
    },
    Program {
        name: "fgrep",
        checked: "grep (GNU grep) 3.8",
        rule: Some(Rule::Grammar(&GREPS)),
        reads_contents: true,
        ..NONE
    },
    Program {
        name: "file",
        checked: "file-5.44",
        // Not `-C` (writes a compiled magic file), `-m` (loads one), `-f`
        // (reads a list of names), `-z` (runs decompressors), `-p` (sets times).
        rule: Some(Rule::Grammar(&g(
            "bLhiNknrs0E",
            &[
                "brief",
                "mime",
                "mime-type",
                "mime-encoding",
                "dereference",
                "no-dereference",
                "keep-going",
                "raw",
                "special-files",
                "extension",
                "no-pad",
                "print0",
                "uncompress-noreport",
            ],
        ))),
        ..NONE
    },
    Program {
        name: "find",
        checked: "find (GNU findutils) 4.9.0",
        rule: Some(Rule::Check(checks::find)),
        subcommands: forms!(checks::find_forms),
        ends: &[
            never(Until::Check(unbounded::find_walks_root), "walks the whole file system"),
            never(Until::Check(unbounded::find_exec_unbounded), "runs a command per file found that may not end"),
        ],
        ..NONE
    },
    Program {
        name: "finger",
        capabilities: &[
            row(Always,
        Transfers,
        "GTFOBins finger: upload, download"),
        ],
        ..NONE
    },
    Program {
        name: "firejail",
        runs_arguments: Some(When::Always),
        ..NONE
    },
    Program {
        name: "fish",
        shell: true,
        ..NONE
    },
    Program {
        name: "flask",
        destroys: &[
            destroys(When::Any(&[When::Contains(&["rollback", "drop", ":undo"]), When::Word(&["downgrade"])]), "drops or rolls back the database", "flask documentation: migrations"),
        ],
        ..NONE
    },
    Program {
        name: "flatpak",
        destroys: &[
            PACKAGE_REMOVAL,
        ],
        ..NONE
    },
    Program {
        name: "flock",
        checked: "flock from util-linux 2.38.1",
        wrapper: true,
        ..NONE
    },
    Program {
        name: "fly",
        credentials: &[&["auth", "token"]],
        destroys: &[
            CLOUD_DELETE,
        ],
        ..NONE
    },
    Program {
        name: "flyctl",
        credentials: &[&["auth", "token"]],
        destroys: &[
            CLOUD_DELETE,
        ],
        ..NONE
    },
    Program {
        name: "fmt",
        checked: "fmt (GNU coreutils) 9.1",
        rule: Some(Rule::Grammar(&Grammar {
            valued: "w",
            long_valued: &["width"],
            operands: Kind::Path,
            ..g("su", &["split-only", "uniform-spacing"])
        })),
        reads_contents: true,
        ..NONE
    },
    Program {
        name: "fold",
        checked: "fold (GNU coreutils) 9.1",
        rule: Some(Rule::Grammar(&Grammar {
            valued: "w",
            long_valued: &["width"],
            operands: Kind::Path,
            ..g("bs", &["bytes", "spaces"])
        })),
        reads_contents: true,
        ..NONE
    },
    Program {
        name: "forge",
        capabilities: &[
            row(Always, RunsCode, "GTFOBins forge: shell"),
        ],
        ..NONE
    },
    Program {
        name: "format.com",
        destroys: &[
            destroys(When::Always, "deletes, formats or stops (a Windows command)", "Windows commands documentation: format"),
        ],
        ..NONE
    },
    Program {
        name: "free",
        checked: "free from procps-ng 4.0.2",
        // Not `-s` (repeats forever) or `-c`.
        rule: Some(Rule::Grammar(&Grammar {
            max_operands: 0,
            ..g(
                "bkmghtwlv",
                &[
                    "bytes",
                    "kibi",
                    "mebi",
                    "gibi",
                    "tebi",
                    "kilo",
                    "mega",
                    "giga",
                    "human",
                    "si",
                    "total",
                    "wide",
                    "lohi",
                    "committed",
                ],
            )
        })),
        ..NONE
    },
    Program {
        name: "ftp",
        capabilities: &[
            // Interactive programs and REPLs: a session that reads commands (GTFOBins
            // shell: `!/bin/sh` typed in).
            row(Always,
        Transfers,
        "GTFOBins ftp: shell, upload, download"),
        ],
        ..NONE
    },
    Program {
        name: "fzf",
        capabilities: &[
            row(Always, RunsCode, "GTFOBins fzf: shell"),
        ],
        ..NONE
    },
    Program {
        name: "gawk",
        checked: "GNU Awk 5.2.1",
        rule: Some(Rule::Grammar(&scripts::AWK)),
        reads_contents: true,
        inline_code: true,
        ends: &[
            never(Until::Check(unbounded::awk_loops), "runs a loop that may never end"),
        ],
        ..NONE
    },
    Program {
        name: "gcc",
        checked: "gcc (Debian 12.2.0-14+deb12u1) 12.2.0",
        rule: Some(Rule::Check(|a| version("gcc", VERSION_GCC, a))),
        subcommands: forms!(|| version_forms(VERSION_GCC)),
        ..NONE
    },
    Program {
        name: "gcloud",
        checked: "Google Cloud SDK 528.0.0",
        credentials: &[&["auth", "print-access-token"], &["auth", "print-identity-token"], &["auth", "print-refresh-token"], &["config", "config-helper"], &["secrets", "versions", "access"]],
        capabilities: &[
            row(Word("help"), RunsCode, "GTFOBins gcloud: inherit"),
        ],
        destroys: &[
            CLOUD_DELETE,
        ],
        ..NONE
    },
    Program {
        name: "gdb",
        checked: "GNU gdb (Debian 13.1-3) 13.1",
        capabilities: &[
            row(Always, RunsCode, "GTFOBins gdb: shell, file-write"),
        ],
        ..NONE
    },
    Program {
        name: "gdisk",
        destroys: &[
            destroys(When::Always, "overwrites disks", "gdisk(8)"),
        ],
        ..NONE
    },
    Program {
        name: "gem",
        capabilities: &[
            row(Word("open"),
        RunsCode,
        "GTFOBins gem: shell (-e editor)"),
            row(Word("build"),
        RunsCode,
        "GTFOBins gem: inherit (the gemspec is Ruby)"),
            row(WordPrefix("--file"),
        RunsCode,
        "GTFOBins gem: inherit"),
        ],
        destroys: &[
            PACKAGE_REMOVAL,
        ],
        ..NONE
    },
    Program {
        name: "genie",
        capabilities: &[
            row(Always, RunsCode, "GTFOBins genie: shell"),
        ],
        ..NONE
    },
    Program {
        name: "getconf",
        checked: "getconf (Debian GLIBC 2.36-9+deb12u14) 2.36",
        rule: Some(Rule::Grammar(&Grammar {
            max_operands: 2,
            ..g("a", &["all"])
        })),
        ..NONE
    },
    Program {
        name: "getent",
        checked: "getent (Debian GLIBC 2.36-9+deb12u14) 2.36",
        // `-s`/`--service` chooses the NSS service that answers: only
        // `files` is proven (`dns`, `hesiod`, `nis`, `ldap` ask a server).
        rule: Some(Rule::Grammar(&Grammar {
            valued: "s",
            long_valued: &["service"],
            then: Some(whole::getent),
            ..g("i", &["no-idn"])
        })),
        capabilities: &[
            row(Word("shadow"),
        Privileges,
        "GTFOBins getent: privilege-escalation"),
        ],
        // A key of a host database is resolved through NSS, by DNS
        // where the hosts line says so (getent(1), nsswitch.conf(5)).
        reaches: Some(Reach::Parsed(whole::getent_names)),
        ..NONE
    },
    Program {
        name: "gh",
        credentials: &[&["auth", "token"], &["auth", "status", "--show-token"], &["auth", "status", "-t"]],
        destroys: &[
            CLOUD_DELETE,
        ],
        ..NONE
    },
    Program {
        name: "ghc",
        capabilities: &[
            row(Opt("-e"), RunsCode, "GTFOBins ghc: shell"),
        ],
        ..NONE
    },
    Program {
        name: "ghci",
        capabilities: &[
            row(Always, RunsCode, "GTFOBins ghci: shell"),
        ],
        ..NONE
    },
    Program {
        name: "gimp",
        capabilities: &[
            row(Always, RunsCode, "GTFOBins gimp: inherit"),
        ],
        ..NONE
    },
    Program {
        name: "ginsh",
        capabilities: &[
            row(Always, RunsCode, "GTFOBins ginsh: shell"),
        ],
        ..NONE
    },
    Program {
        name: "git",
        checked: "git version 2.47.3",
        rule: Some(Rule::Check(git::check)),
        subcommands: forms!(git::declared),
        reads_contents: true,
        credentials: &[&["credential", "fill"], &["credential-store", "get"], &["credential-cache", "get"]],
        capabilities: &[
            row(Word("help"),
        RunsCode,
        "GTFOBins git: inherit (pager)"),
            row(Opt("--paginate"), RunsCode, "git(1) --paginate"),
            row(Opt("--help"),
        RunsCode,
        "GTFOBins git: inherit (man pager)"),
            row(Word("apply"), Overwrites, "GTFOBins git: file-write"),
            // Any configuration key for one command: core.pager, alias.*
            // (`!cmd`), diff.external, core.fsmonitor, core.sshCommand run
            // a command; `git config` keeps such a key for every later one.
            row(Opt("-c"), RunsCode, "git(1) -c <name>=<value>; git-config(1)"),
            // Another repository's configuration runs its commands:
            // `git -C sub status` ran sub's core.fsmonitor (git 2.39 run here).
            row(Opt("-C"), RunsCode, "git(1) -C; git-config(1) core.fsmonitor, core.pager"),
            row(WordPrefix("--git-dir"), RunsCode, "git(1) --git-dir; git-config(1)"),
            row(WordPrefix("--config-env"), RunsCode, "git(1) --config-env"),
            row(Word("config"), Persistence, "git-config(1): core.pager, alias.*, core.hooksPath"),
            row(Opt("-p"), RunsCode, "git(1) -p, --paginate"),
            // grep -O runs the command it is given on the matching files
            // (`git grep -O'sh -c "cat ~/.ssh/id_rsa"' x` printed the key,
            // git 2.39 run here); --open is a prefix parse-options takes.
            row(Short('O'), RunsCode, "git-grep(1) -O, --open-files-in-pager"),
            row(LongPrefix("--open-files-in-pager", 6), RunsCode, "git-grep(1) --open-files-in-pager"),
            // Subcommands that run a command the line gives or a tool.
            row(Word("difftool"), RunsCode, "git-difftool(1) -x, --extcmd, --tool"),
            row(Word("mergetool"), RunsCode, "git-mergetool(1) --tool"),
            row(Word("bisect"), RunsCode, "git-bisect(1) run"),
            row(Word("rebase"), RunsCode, "git-rebase(1) -x, --exec"),
            row(Word("submodule"), RunsCode, "git-submodule(1) foreach"),
            row(Word("filter-branch"), RunsCode, "git-filter-branch(1) --tree-filter"),
            row(Word("send-email"), RunsCode, "git-send-email(1) --to-cmd, --cc-cmd"),
            row(Word("clone"), RunsCode, "git-clone(1) -u, --upload-pack; ext:: remotes"),
            row(Word("daemon"), Socket, "git-daemon(1)"),
            row(Word("instaweb"), Socket, "git-instaweb(1)"),
            // The diff options' --output=FILE replaces FILE (git log
            // --output=notes.txt did, run here); format-patch writes files.
            row(WordPrefix("--output"), Overwrites, "git-diff(1) --output; git-format-patch(1) -o"),
            row(Word("format-patch"), Overwrites, "git-format-patch(1)"),
        ],
        destroys: &[
            destroys(When::Says(git::destructive), "", "git-push(1), git-reset(1), git-clean(1), git-checkout(1), git-branch(1), git-stash(1), git-reflog(1), git-gc(1)"),
            destroys(When::Check(floor::git_shell_alias), "defines an alias that runs a shell command", "git-config(1) alias.*"),
            destroys(When::Says(floor::git_push), "", "git-push(1) --force, --mirror, --delete, +ref, :ref"),
        ],
        prints_no_option: Some(When::Check(programs::git_prints_no_option)),
        // A partial clone (`--filter=blob:none`) fetches missing objects from
        // its promisor remote when a reading command needs them (`git log -p`,
        // `git show`; seen under strace): the remote the repository's own
        // configuration names.
        reaches: Some(Reach::Configured("a partial clone's promisor remote, which reading commands fetch missing objects from (gitrepository-layout, remote.<name>.promisor; GIT_NO_LAZY_FETCH=1 stops it from git 2.44)")),
        ..NONE
    },
    Program {
        name: "glab",
        credentials: &[&["auth", "status", "--show-token"]],
        ..NONE
    },
    Program {
        name: "gmake",
        checked: "GNU Make 4.3",
        capabilities: &[
            row(Always, RunsCode, "make(1)"),
        ],
        ..NONE
    },
    Program {
        name: "gnuplot",
        capabilities: &[
            row(Always, RunsCode, "GTFOBins gnuplot: shell"),
        ],
        ..NONE
    },
    Program {
        name: "go",
        rule: Some(Rule::Check(|_| {
            Err(Refusal::new(
                codes::COMMAND_UNSAFE_ARGUMENT,
                String::from(
                    "`go` may download and run the toolchain a `go.mod` names, even for `version`",
                ),
            ))
        })),
        capabilities: &[
            row(Word("generate"), RunsCode, "go documentation (go help generate): runs the commands written in //go:generate comments of the source files"),
        ],
        destroys: &[
            PACKAGE_REMOVAL,
        ],
        ..NONE
    },
    Program {
        name: "gopass",
        credentials: &[&["show"]],
        ..NONE
    },
    Program {
        name: "gpasswd",
        checked: "Debian passwd 1:4.13+dfsg1-1+deb12u1",
        capabilities: &[
            row(Always, Privileges, "gpasswd(1)"),
        ],
        destroys: &[
            destroys(When::Arguments, "changes accounts or their passwords", "gpasswd(1)"),
        ],
        ..NONE
    },
    Program {
        name: "gradle",
        capabilities: &[
            row(Task(&[], TASK_ASKS, &[]), RunsCode, "Gradle documentation, build lifecycle: every build evaluates the build scripts (build.gradle is Groovy or Kotlin code) and runs the tasks named"),
        ],
        ..NONE
    },
    Program {
        name: "gradlew",
        capabilities: &[
            row(Task(&[], TASK_ASKS, &[]), RunsCode, "Gradle documentation, build lifecycle: every build evaluates the build scripts (build.gradle is Groovy or Kotlin code) and runs the tasks named; gradlew is the project's own wrapper script"),
        ],
        ..NONE
    },
    Program {
        name: "grep",
        checked: "grep (GNU grep) 3.8",
        rule: Some(Rule::Grammar(&GREPS)),
        reads_contents: true,
        ..NONE
    },
    Program {
        name: "groovy",
        inline_code: true,
        ..NONE
    },
    Program {
        name: "groupadd",
        checked: "Debian passwd 1:4.13+dfsg1-1+deb12u1",
        capabilities: &[
            row(Always, Privileges, "groupadd(8)"),
        ],
        ..NONE
    },
    Program {
        name: "groupdel",
        destroys: &[
            destroys(When::Always, "deletes accounts", "groupdel(8)"),
        ],
        ..NONE
    },
    Program {
        name: "groups",
        checked: "groups (GNU coreutils) 9.1",
        rule: Some(Rule::Grammar(&USER_NAMES)),
        ..NONE
    },
    Program {
        name: "gsutil",
        destroys: &[
            CLOUD_DELETE,
        ],
        ..NONE
    },
    Program {
        name: "gtester",
        capabilities: &[
            row(Always,
        RunsCode,
        "GTFOBins gtester: shell, file-write"),
        ],
        ..NONE
    },
    Program {
        name: "guile",
        capabilities: &[
            row(Always, RunsCode, "GTFOBins guile: shell"),
        ],
        ..NONE
    },
    Program {
        name: "gunzip",
        checked: "gunzip (gzip) 1.12",
        capabilities: &[
            row(OperandUnless(&[
            "-c",
            "--stdout",
            "--to-stdout",
            "-k",
            "--keep",
            "-l",
            "--list",
            "-t",
            "--test",
        ]),
        Overwrites,
        "gzip(1)"),
        ],
        ..NONE
    },
    Program {
        name: "gzip",
        checked: "gzip 1.12",
        // `-S SUF` and xz `-C CHECK` take values and are left out; without
        // `-c`, `-l` or `-t` these replace the file they are given.
        rule: Some(Rule::Grammar(&Grammar {
            operands: Kind::Path,
            then: Some(whole::to_stdout),
            ..g(
                "cdltvqnNfr123456789",
                &[
                    "stdout",
                    "to-stdout",
                    "decompress",
                    "uncompress",
                    "list",
                    "test",
                    "verbose",
                    "quiet",
                    "no-name",
                    "name",
                    "fast",
                    "best",
                    "recursive",
                ],
            )
        })),
        reads_contents: true,
        capabilities: &[
            // Removers and overwriters of existing files: compressors that replace
            // their input, writers given an output.
            row(OperandUnless(&[
            "-c",
            "--stdout",
            "--to-stdout",
            "-k",
            "--keep",
            "-l",
            "--list",
            "-t",
            "--test",
        ]),
        Overwrites,
        "gzip(1): replaces each file with FILE.gz"),
        ],
        ..NONE
    },
    Program {
        name: "halt",
        destroys: &[
            destroys(When::Always, "stops the machine", "halt(8)"),
        ],
        ..NONE
    },
    Program {
        name: "hatch",
        capabilities: &[
            row(Word("build"), RunsCode, "Hatch documentation: build hooks and environment scripts run the project's code"),
            row(Word("run"), RunsCode, "Hatch documentation: build hooks and environment scripts run the project's code"),
            row(Word("shell"), RunsCode, "Hatch documentation: build hooks and environment scripts run the project's code"),
            row(Word("test"), RunsCode, "Hatch documentation: build hooks and environment scripts run the project's code"),
            row(Word("fmt"), RunsCode, "Hatch documentation: build hooks and environment scripts run the project's code"),
        ],
        ..NONE
    },
    Program {
        name: "hcloud",
        destroys: &[
            CLOUD_DELETE,
        ],
        ..NONE
    },
    Program {
        name: "head",
        checked: "head (GNU coreutils) 9.1",
        rule: Some(Rule::Grammar(&Grammar {
            valued: "nc",
            long_valued: &["lines", "bytes"],
            operands: Kind::Path,
            number_option: true,
            tolerant: true,
            then: Some(whole::head),
            ..g("qvz", &["quiet", "silent", "verbose", "zero-terminated"])
        })),
        reads_contents: true,
        ends: &[
            never(Until::All(&[Until::Not(&Until::Short('c')), Until::Not(&Until::Long("--bytes")), Until::Reads(unbounded::reads_endless)]), "reads an endless device"),
            never(Until::Reads(unbounded::head_too_many), "reads more than 16 MiB of an endless device"),
            ends(Until::Always),
        ],
        ..NONE
    },
    Program {
        name: "helm",
        destroys: &[
            destroys(When::Word(&["uninstall", "delete", "del", "un", "rollback"]), "uninstalls a release", "Helm documentation: helm uninstall, helm rollback"),
        ],
        ..NONE
    },
    Program {
        name: "heroku",
        credentials: &[&["auth:token"], &["config"]],
        destroys: &[
            CLOUD_DELETE,
        ],
        ..NONE
    },
    Program {
        name: "hexdump",
        checked: "hexdump from util-linux 2.38.1",
        // `-f FILE` reads a format file: left out.
        rule: Some(Rule::Grammar(&Grammar {
            valued: "ens",
            operands: Kind::Path,
            ..g("bcCdovx", &[])
        })),
        reads_contents: true,
        ..NONE
    },
    Program {
        name: "history",
        rule: Some(Rule::Check(tools::history)),
        ..NONE
    },
    Program {
        name: "host",
        checked: "host 9.18.49-1~deb12u3-Debian",
        rule: Some(Rule::Grammar(&checks::HOST)),
        // A DNS lookup of the one name it is given (host(1)).
        reaches: Some(Reach::Parsed(checks::operand_names)),
        ..NONE
    },
    Program {
        name: "hostname",
        checked: "hostname 3.23",
        // Any operand (or `-F`, `-b`) sets the name. Not `-f`/`--fqdn`/
        // `--long`, `-d`/`--domain`, `-i`/`--ip-address`, `-a`/`--alias`
        // (they resolve the machine's name: a DNS lookup, seen under strace
        // with a name not in /etc/hosts) or `-A`/`--all-fqdns` (resolves
        // every interface address, hostname(1)): hosts the line does not name.
        rule: Some(Rule::Grammar(&Grammar {
            max_operands: 0,
            tolerant: true,
            ..g("sI", &["short", "all-ip-addresses"])
        })),
        capabilities: &[
            row(Operands(1, &["-F", "--file"]),
        HostState,
        "hostname(1): an operand sets the name"),
        ],
        prints_no_option: Some(When::Always),
        ..NONE
    },
    Program {
        name: "hostnamectl",
        checked: "systemd 252 (252.39-1~deb12u2)",
        rule: Some(Rule::Check(tools::hostnamectl)),
        subcommands: forms!(tools::hostnamectl_forms),
        capabilities: &[
            row(WordPrefix("set-"),
        HostState,
        "hostnamectl(1)"),
        ],
        ..NONE
    },
    Program {
        name: "hping3",
        capabilities: &[
            row(Always, Socket, "GTFOBins hping3: shell, upload"),
        ],
        ..NONE
    },
    Program {
        name: "htop",
        ends: &[
            never(Until::Not(&Until::Short('n')), "refreshes until stopped"),
        ],
        ..NONE
    },
    Program {
        name: "http",
        // httpie's request items: `field@FILE` sends a file (httpie documentation:
        // request items).
        client: Some(Client::Items),
        ..NONE
    },
    Program {
        name: "https",
        // httpie's request items: `field@FILE` sends a file (httpie documentation:
        // request items).
        client: Some(Client::Items),
        ..NONE
    },
    Program {
        name: "hwclock",
        checked: "hwclock from util-linux 2.38.1",
        capabilities: &[
            row(Always, HostState, "hwclock(8)"),
        ],
        ..NONE
    },
    Program {
        name: "ibmcloud",
        destroys: &[
            CLOUD_DELETE,
        ],
        ..NONE
    },
    Program {
        name: "id",
        checked: "id (GNU coreutils) 9.1",
        rule: Some(Rule::Grammar(&Grammar {
            max_operands: 1,
            tolerant: true,
            ..g(
                "ugGnrz",
                &["user", "group", "groups", "name", "real", "zero"],
            )
        })),
        prints_no_option: Some(When::Always),
        ..NONE
    },
    Program {
        name: "ifconfig",
        checked: "net-tools 2.10",
        rule: Some(Rule::Check(tools::ifconfig)),
        capabilities: &[
            row(Operands(2, &[]),
        HostState,
        "ifconfig(8): an interface and a setting"),
        ],
        subcommands: forms!(tools::ifconfig_forms),
        ..NONE
    },
    Program {
        name: "iftop",
        capabilities: &[
            row(Always, RunsCode, "GTFOBins iftop: shell"),
        ],
        ..NONE
    },
    Program {
        name: "influx",
        destroys: &[
            DATABASE_STATEMENT,
        ],
        ..NONE
    },
    Program {
        name: "init",
        destroys: &[
            destroys(When::First(&["0", "6", "1", "s", "S"]), "changes the run level", "init(8)"),
        ],
        ..NONE
    },
    Program {
        name: "insmod",
        checked: "kmod version 30",
        capabilities: &[
            row(Always, HostState, "insmod(8)"),
        ],
        ..NONE
    },
    Program {
        name: "install",
        checked: "install (GNU coreutils) 9.1",
        capabilities: &[
            row(Opt("-m"),
        Privileges,
        "GTFOBins install: privilege-escalation"),
        ],
        ..NONE
    },
    Program {
        name: "inv",
        capabilities: &[
            row(Task(&[], &["--version", "-V", "--help", "-h", "--list", "-l"], &[]), RunsCode, "Invoke documentation: tasks.py is Python, run on every command"),
        ],
        ..NONE
    },
    Program {
        name: "invoke",
        capabilities: &[
            row(Task(&[], &["--version", "-V", "--help", "-h", "--list", "-l"], &[]), RunsCode, "Invoke documentation: tasks.py is Python, run on every command"),
        ],
        ..NONE
    },
    Program {
        name: "ionice",
        checked: "ionice from util-linux 2.38.1",
        wrapper: true,
        ..NONE
    },
    Program {
        name: "iostat",
        ends: &[
            never(Until::Check(unbounded::samples_forever), "samples until stopped"),
        ],
        ..NONE
    },
    Program {
        name: "iotop",
        ends: &[
            never(Until::Not(&Until::Short('n')), "refreshes until stopped"),
        ],
        ..NONE
    },
    Program {
        name: "ip",
        checked: "ip utility, iproute2-6.1.0, libbpf 1.1.2",
        rule: Some(Rule::Check(tools::ip)),
        capabilities: &[
            row(Always,
        HostState,
        "GTFOBins ip: shell, file-read; ip(8) — abbreviated verbs (`a a`, `l s`) change the host"),
        ],
        subcommands: forms!(tools::ip_forms),
        ..NONE
    },
    Program {
        name: "ip6tables",
        capabilities: &[
            row(Always, HostState, "iptables(8)"),
        ],
        destroys: &[
            destroys(When::Word(&["-F", "--flush", "flush"]), "flushes the firewall", "ip6tables(8)"),
        ],
        ..NONE
    },
    Program {
        name: "iptables",
        capabilities: &[
            row(Always, HostState, "iptables(8)"),
        ],
        destroys: &[
            destroys(When::Word(&["-F", "--flush", "flush"]), "flushes the firewall", "iptables(8)"),
        ],
        ..NONE
    },
    Program {
        name: "iptables-save",
        capabilities: &[
            row(Opt("-f"),
        Overwrites,
        "GTFOBins iptables-save: file-write"),
        ],
        ..NONE
    },
    Program {
        name: "irb",
        inline_code: true,
        capabilities: &[
            row(NoOperand, RunsCode, "GTFOBins irb: inherit"),
        ],
        ..NONE
    },
    Program {
        name: "ispell",
        capabilities: &[
            row(Always, RunsCode, "GTFOBins ispell: shell"),
        ],
        ..NONE
    },
    Program {
        name: "java",
        checked: "openjdk 17.0.15 2025-04-15",
        rule: Some(Rule::Check(|_| {
            Err(Refusal::new(
                codes::COMMAND_UNSAFE_ARGUMENT,
                String::from("`java` writes its performance data under the temporary directory on every start"),
            ))
        })),
        capabilities: &[
            row(WordPrefix("-javaagent"),
        LoadsLibrary,
        "java(1) -javaagent"),
        ],
        ..NONE
    },
    Program {
        name: "jjs",
        capabilities: &[
            row(Always,
        RunsCode,
        "GTFOBins jjs: shell, reverse-shell"),
        ],
        ..NONE
    },
    Program {
        name: "joe",
        capabilities: &[
            row(Always, RunsCode, "GTFOBins joe: shell"),
        ],
        ..NONE
    },
    Program {
        name: "join",
        checked: "join (GNU coreutils) 9.1",
        rule: Some(Rule::Grammar(&Grammar {
            valued: "aejotv12",
            operands: Kind::Path,
            max_operands: 2,
            ..g(
                "i",
                &[
                    "ignore-case",
                    "check-order",
                    "nocheck-order",
                    "header",
                    "zero-terminated",
                ],
            )
        })),
        reads_contents: true,
        ..NONE
    },
    Program {
        name: "journalctl",
        checked: "systemd 252 (252.39-1~deb12u2)",
        rule: Some(Rule::Grammar(&tools::JOURNALCTL)),
        capabilities: &[
            row(Always,
        RunsCode,
        "GTFOBins journalctl: inherit (pager)"),
        ],
        ends: &[
            never(Until::Any(&[Until::Short('f'), Until::Long("--follow")]), "follows the journal forever"),
        ],
        ..NONE
    },
    Program {
        name: "jq",
        checked: "jq-1.6",
        rule: Some(Rule::Check(scripts::jq)),
        subcommands: forms!(scripts::jq_grammar),
        reads_contents: true,
        ..NONE
    },
    Program {
        name: "jrunscript",
        checked: "Debian openjdk-17-jdk-headless 17.0.15+6-1~deb12u1",
        capabilities: &[
            row(Always, RunsCode, "GTFOBins jrunscript: shell"),
        ],
        ..NONE
    },
    Program {
        name: "jshell",
        checked: "jshell 17.0.15",
        inline_code: true,
        capabilities: &[
            row(Always,
        RunsCode,
        "GTFOBins jshell: shell, command"),
        ],
        ..NONE
    },
    Program {
        name: "jtag",
        capabilities: &[
            row(Always, RunsCode, "GTFOBins jtag: shell"),
        ],
        ..NONE
    },
    Program {
        name: "julia",
        inline_code: true,
        ..NONE
    },
    Program {
        name: "just",
        capabilities: &[
            row(Task(&[], &["--version", "-V", "--help", "-h", "--list", "-l"], &[]), RunsCode, "just documentation (the just manual): just runs the justfile's default recipe, or the recipes named"),
        ],
        ..NONE
    },
    Program {
        name: "k3s",
        destroys: &[
            destroys(When::Any(&[When::Word(&["delete", "drain", "cordon", "taint"]), When::All(&[When::Word(&["replace"]), When::Word(&["--force"])]), When::All(&[When::Word(&["scale"]), When::Word(&["--replicas=0"])])]), "deletes or evicts cluster resources", "kubectl documentation: delete, drain, cordon, taint"),
        ],
        ..NONE
    },
    Program {
        name: "keepassxc-cli",
        credentials: &[&["show"]],
        ..NONE
    },
    Program {
        name: "kill",
        destroys: &[
            destroys(When::Always, "kills processes", "kill(1)"),
        ],
        ..NONE
    },
    Program {
        name: "killall",
        destroys: &[
            destroys(When::Always, "kills processes", "killall(1)"),
        ],
        ..NONE
    },
    Program {
        name: "killall5",
        destroys: &[
            destroys(When::Always, "kills processes", "killall5(8)"),
        ],
        ..NONE
    },
    Program {
        name: "knex",
        destroys: &[
            destroys(When::Any(&[When::Contains(&["rollback", "drop", ":undo"]), When::Word(&["downgrade"])]), "drops or rolls back the database", "knex documentation: migrations"),
        ],
        ..NONE
    },
    Program {
        name: "knife",
        capabilities: &[
            row(Always, RunsCode, "GTFOBins knife: inherit"),
        ],
        ..NONE
    },
    Program {
        name: "ksh",
        shell: true,
        ..NONE
    },
    Program {
        name: "ksu",
        capabilities: &[
            row(Always, Privileges, "GTFOBins ksu: shell"),
        ],
        ..NONE
    },
    Program {
        name: "kubectl",
        checked: "Debian kubectl 1:528.0.0-0",
        rule: Some(Rule::Check(tools::kubectl)),
        subcommands: forms!(tools::kubectl_forms),
        credentials: &[&["config", "view", "--raw"], &["get", "secret"], &["get", "secrets"], &["describe", "secret"], &["create", "token"]],
        capabilities: &[
            row(Word("proxy"), Socket, "GTFOBins kubectl: upload"),
        ],
        destroys: &[
            destroys(When::Any(&[When::Word(&["delete", "drain", "cordon", "taint"]), When::All(&[When::Word(&["replace"]), When::Word(&["--force"])]), When::All(&[When::Word(&["scale"]), When::Word(&["--replicas=0"])])]), "deletes or evicts cluster resources", "kubectl documentation: delete, drain, cordon, taint"),
        ],
        ends: &[
            never(Until::Any(&[Until::Short('w'), Until::Long("--watch"), Until::Long("--watch-only"), Until::Long("--follow"), Until::Word(&["port-forward", "proxy", "attach"]), Until::All(&[Until::Word(&["logs"]), Until::Short('f')])]), "watches until stopped"),
        ],
        reaches: Some(Reach::Configured("the cluster its kubeconfig names (kubectl documentation: kubeconfig)")),
        // `exec`, `run` and `debug` run the words after them in a container
        // or pod (the tool's documentation: exec, run, debug).
        runs_arguments: Some(CONTAINER_RUNS),
        ..NONE
    },
    Program {
        name: "last",
        checked: "last from util-linux 2.38.1",
        rule: Some(Rule::Grammar(&Grammar {
            valued: "nt",
            path_valued: "f",
            number_option: true,
            ..g("aFiwxR", &[])
        })),
        ..NONE
    },
    Program {
        name: "latexmk",
        capabilities: &[
            row(Always, RunsCode, "GTFOBins latexmk: shell"),
        ],
        ..NONE
    },
    Program {
        name: "launchctl",
        destroys: &[
            destroys(When::Word(&["unload", "remove", "stop", "bootout", "kill"]), "stops services", "launchctl(1)"),
        ],
        ..NONE
    },
    Program {
        name: "ld.so",
        checked: "ld.so (Debian GLIBC 2.36-9+deb12u14",
        capabilities: &[
            row(Always, RunsCode, "GTFOBins ld.so: shell"),
        ],
        ..NONE
    },
    Program {
        name: "ldconfig",
        checked: "ldconfig (Debian GLIBC 2.36-9+deb12u14) 2.36",
        capabilities: &[
            row(Always,
        LoadsLibrary,
        "GTFOBins ldconfig: library-load"),
        ],
        ..NONE
    },
    Program {
        name: "less",
        checked: "less 590 (GNU regular expressions)",
        reads_contents: true,
        capabilities: &[
            // Pagers and editors: commands typed into them run (`!sh`, `v`, `:!`),
            // and their hooks run commands (LESSOPEN). GTFOBins: shell, inherit.
            row(Always,
        RunsCode,
        "GTFOBins less: shell, command, file-write"),
        ],
        ..NONE
    },
    Program {
        name: "lftp",
        capabilities: &[
            row(Always, Transfers, "GTFOBins lftp: shell"),
        ],
        ..NONE
    },
    Program {
        name: "linode-cli",
        destroys: &[
            CLOUD_DELETE,
        ],
        ..NONE
    },
    Program {
        name: "lldb",
        capabilities: &[
            row(Always, RunsCode, "lldb(1) runs platform shell"),
        ],
        ..NONE
    },
    Program {
        name: "ln",
        destroys: &[
            destroys(When::Any(&[When::Word(&["--force"]), When::Short('f')]), "replaces files with links", "ln(1) -f"),
        ],
        ..NONE
    },
    Program {
        name: "loadkeys",
        capabilities: &[
            row(Always, HostState, "loadkeys(1)"),
        ],
        ..NONE
    },
    Program {
        name: "locale",
        checked: "locale (Debian GLIBC 2.36-9+deb12u14) 2.36",
        rule: Some(Rule::Grammar(&g(
            "amck",
            &["all-locales", "charmaps", "category-name", "keyword-name"],
        ))),
        ..NONE
    },
    Program {
        name: "localectl",
        checked: "systemd 252 (252.39-1~deb12u2)",
        rule: Some(Rule::Check(tools::localectl)),
        subcommands: forms!(tools::localectl_forms),
        ..NONE
    },
    Program {
        name: "loginctl",
        checked: "systemd 252 (252.39-1~deb12u2)",
        rule: Some(Rule::Check(tools::loginctl)),
        subcommands: forms!(tools::loginctl_forms),
        capabilities: &[
            row(Always,
        RunsCode,
        "GTFOBins loginctl: shell (pager)"),
        ],
        ..NONE
    },
    Program {
        name: "logname",
        checked: "logname (GNU coreutils) 9.1",
        rule: Some(Rule::Grammar(&NO_OPERANDS)),
        prints_no_option: Some(When::Always),
        ..NONE
    },
    Program {
        name: "logrotate",
        capabilities: &[
            row(Always,
        RunsCode,
        "GTFOBins logrotate: shell, file-write"),
        ],
        ..NONE
    },
    Program {
        name: "look",
        checked: "look from util-linux 2.38.1",
        // util-linux `look` reads the dictionary (or the file given).
        rule: Some(Rule::Grammar(&Grammar {
            valued: "t",
            max_operands: 2,
            then: Some(whole::look),
            // Not BSD's `-b` (util-linux look 2.38, run here, refuses it).
            ..g("dfa", &["alphanum", "ignore-case", "alternative"])
        })),
        reads_contents: true,
        ..NONE
    },
    Program {
        name: "losetup",
        checked: "losetup from util-linux 2.38.1",
        capabilities: &[
            row(Always, HostState, "losetup(8)"),
        ],
        destroys: &[
            destroys(When::Arguments, "detaches storage", "losetup(8)"),
        ],
        ..NONE
    },
    Program {
        name: "lp",
        capabilities: &[
            row(Opt("-h"), Transfers, "GTFOBins lp: upload"),
        ],
        ..NONE
    },
    Program {
        name: "lpass",
        credentials: &[&["show"]],
        ..NONE
    },
    Program {
        name: "ls",
        checked: "ls (GNU coreutils) 9.1",
        // BSD `ls -w` is a flag and GNU `-w` takes a width; `-I`, `-T` and
        // `-D` differ too: left out.
        rule: Some(Rule::Grammar(&Grammar {
            long_flags: &[
                "all",
                "almost-all",
                "human-readable",
                "reverse",
                "recursive",
                "directory",
                "classify",
                "inode",
                "size",
                "numeric-uid-gid",
                "group-directories-first",
                "full-time",
                "literal",
                "si",
                "dereference",
                "escape",
                "no-group",
                "author",
            ],
            long_optional: &["color", "hyperlink"],
            long_valued: &[
                "sort",
                "time-style",
                "format",
                "indicator-style",
                "time",
                "ignore",
                "hide",
                "quoting-style",
                "width",
                "block-size",
            ],
            operands: Kind::Text,
            tolerant: true,
            ..g("aAlhtrRS1dFisnpcuxCmkLHUgoQqv", &[])
        })),
        ends: &[
            never(Until::All(&[Until::Any(&[Until::Short('R'), Until::Long("--recursive")]), Until::Check(unbounded::names_root)]), "walks the whole file system"),
        ],
        ..NONE
    },
    Program {
        name: "lsb_release",
        checked: "Debian lsb-release 12.0-1",
        rule: Some(Rule::Grammar(&Grammar {
            max_operands: 0,
            ..g(
                "vidrcas",
                &[
                    "version",
                    "id",
                    "description",
                    "release",
                    "codename",
                    "all",
                    "short",
                ],
            )
        })),
        ..NONE
    },
    Program {
        name: "lsblk",
        checked: "lsblk from util-linux 2.38.1",
        rule: Some(Rule::Grammar(&Grammar {
            valued: "o",
            long_valued: &["output"],
            ..g(
                "abdfJlnprStmOz",
                &[
                    "all",
                    "bytes",
                    "nodeps",
                    "fs",
                    "json",
                    "list",
                    "noheadings",
                    "paths",
                    "raw",
                    "scsi",
                    "topology",
                    "perms",
                    "output-all",
                ],
            )
        })),
        ..NONE
    },
    Program {
        name: "lscpu",
        checked: "lscpu from util-linux 2.38.1",
        // `-e`/`-p` take their value only attached: left out.
        rule: Some(Rule::Grammar(&Grammar {
            max_operands: 0,
            optional_attached: "ep",
            ..g(
                "abcxyJB",
                &[
                    "all", "bytes", "json", "online", "offline", "hex", "physical",
                ],
            )
        })),
        ..NONE
    },
    Program {
        name: "lsmod",
        checked: "Debian kmod 30+20221128-1",
        rule: Some(Rule::Grammar(&NO_OPERANDS)),
        ..NONE
    },
    Program {
        name: "lsof",
        checked: "lsof 4.95.0",
        // Not `-r` (repeats forever), `+r`. `-Q` (exit 0 when a search
        // term fails), `-b` (no kernel calls that might block), `-F` (field
        // output, letters only) and `-D i` (ignore the device cache; `b`,
        // `r`, `u` read or write it) only shape the output; lsof 4.95 on
        // Linux has no device cache and refuses `-D` with a usage error.
        rule: Some(Rule::Grammar(&Grammar {
            valued: "pucdD",
            then: Some(whole::lsof),
            optional_attached: "isgF",
            ..g("nPltwVUXaQb", &[])
        })),
        // `-i @HOST` resolves the host it names (lsof(8), "-i [i]").
        reaches: Some(Reach::Parsed(whole::lsof_names)),
        ..NONE
    },
    Program {
        name: "lspci",
        checked: "lspci version 3.9.0",
        // Not `-q`/`-Q` (asks DNS), `-i`, `-F`, `-A`, `-H`, `-O`, `-M`.
        rule: Some(Rule::Grammar(&Grammar {
            valued: "sd",
            max_operands: 0,
            ..g("vnkmtDxb", &[])
        })),
        ..NONE
    },
    Program {
        name: "lsusb",
        checked: "lsusb (usbutils) 014",
        rule: Some(Rule::Grammar(&Grammar {
            valued: "sd",
            max_operands: 0,
            ..g("vt", &["verbose", "tree"])
        })),
        ..NONE
    },
    Program {
        name: "ltrace",
        wrapper: true,
        ..NONE
    },
    Program {
        name: "lua",
        interpreter: true,
        inline_code: true,
        ..NONE
    },
    Program {
        name: "luajit",
        inline_code: true,
        ..NONE
    },
    Program {
        name: "lvreduce",
        destroys: &[
            destroys(When::Always, "removes volumes", "lvreduce(8)"),
        ],
        ..NONE
    },
    Program {
        name: "lvremove",
        destroys: &[
            destroys(When::Always, "removes volumes", "lvremove(8)"),
        ],
        ..NONE
    },
    Program {
        name: "lwp-download",
        checked: "Debian libwww-perl 6.68-1",
        capabilities: &[
            row(Always,
        Transfers,
        "GTFOBins lwp-download: download, file-write"),
        ],
        ..NONE
    },
    Program {
        name: "lxc",
        capabilities: &[
            row(Always, HostState, "GTFOBins lxd: shell"),
        ],
        ..NONE
    },
    Program {
        name: "lz4",
        checked: "*** LZ4",
        capabilities: &[
            row(Opt("--rm"), Overwrites, "lz4(1) --rm"),
        ],
        ..NONE
    },
    Program {
        name: "lzip",
        capabilities: &[
            row(OperandUnless(&[
            "-c", "--stdout", "-k", "--keep", "-t", "--test", "-l", "--list",
        ]),
        Overwrites,
        "lzip(1)"),
        ],
        ..NONE
    },
    Program {
        name: "lzma",
        checked: "xz (XZ Utils) 5.4.1",
        capabilities: &[
            row(OperandUnless(&["-c", "--stdout", "-k", "--keep", "-t", "--test"]),
        Overwrites,
        "xz(1)"),
        ],
        ..NONE
    },
    Program {
        name: "lzop",
        capabilities: &[
            row(Opt("-U"), Overwrites, "lzop(1) --delete"),
            row(Opt("--delete"), Overwrites, "lzop(1)"),
        ],
        ..NONE
    },
    Program {
        name: "m4",
        capabilities: &[
            row(Always, RunsCode, "GTFOBins m4: shell"),
        ],
        ..NONE
    },
    Program {
        name: "mail",
        capabilities: &[
            row(Always, RunsCode, "GTFOBins mail: shell"),
        ],
        ..NONE
    },
    Program {
        name: "mailx",
        capabilities: &[
            row(Always, RunsCode, "GTFOBins mail"),
        ],
        ..NONE
    },
    Program {
        name: "make",
        checked: "GNU Make 4.3",
        rule: Some(Rule::Check(|a| version("make", VERSION_MAKE, a))),
        subcommands: forms!(|| version_forms(VERSION_MAKE)),
        capabilities: &[
            // Programs whose every use runs code the line does not name, or opens
            // a session that reads commands: GTFOBins shell, inherit.
            row(Always,
        RunsCode,
        "GTFOBins make: shell; make(1) runs the Makefile's recipes and $(shell) (also with -n)"),
        ],
        ..NONE
    },
    Program {
        name: "mamba",
        destroys: &[
            PACKAGE_REMOVAL,
        ],
        ..NONE
    },
    Program {
        name: "man",
        checked: "man 2.11.2",
        capabilities: &[
            row(Always, RunsCode, "GTFOBins man: shell, inherit"),
        ],
        ..NONE
    },
    Program {
        name: "manage.py",
        destroys: &[
            destroys(When::Word(&["flush", "reset_db", "sqlflush"]), "empties the database", "Django documentation: django-admin flush"),
        ],
        ..NONE
    },
    Program {
        name: "mariadb",
        destroys: &[
            DATABASE_STATEMENT,
        ],
        ..NONE
    },
    Program {
        name: "mawk",
        checked: "mawk 1.3.4 20200120",
        rule: Some(Rule::Grammar(&scripts::AWK)),
        reads_contents: true,
        inline_code: true,
        ends: &[
            never(Until::Check(unbounded::awk_loops), "runs a loop that may never end"),
        ],
        ..NONE
    },
    Program {
        name: "md5sum",
        checked: "md5sum (GNU coreutils) 9.1",
        rule: Some(Rule::Grammar(&CHECKSUMS)),
        ..NONE
    },
    Program {
        name: "mdadm",
        destroys: &[
            destroys(When::Arguments, "overwrites disks", "mdadm(8)"),
        ],
        ..NONE
    },
    Program {
        name: "meson",
        capabilities: &[
            row(Task(&[], TASK_ASKS, &[]), RunsCode, "Meson documentation: meson.build runs run_command and custom targets on setup and compile"),
        ],
        ..NONE
    },
    Program {
        name: "mg",
        capabilities: &[
            row(Always, RunsCode, "mg(1)"),
        ],
        ..NONE
    },
    Program {
        name: "microdnf",
        destroys: &[
            PACKAGE_REMOVAL,
        ],
        ..NONE
    },
    Program {
        name: "microk8s.kubectl",
        destroys: &[
            destroys(When::Any(&[When::Word(&["delete", "drain", "cordon", "taint"]), When::All(&[When::Word(&["replace"]), When::Word(&["--force"])]), When::All(&[When::Word(&["scale"]), When::Word(&["--replicas=0"])])]), "deletes or evicts cluster resources", "kubectl documentation: delete, drain, cordon, taint"),
        ],
        ..NONE
    },
    Program {
        name: "minicom",
        capabilities: &[
            row(Always, RunsCode, "GTFOBins minicom: shell"),
        ],
        ..NONE
    },
    Program {
        name: "mix",
        capabilities: &[
            row(Task(&[], TASK_ASKS, &[]), RunsCode, "Mix documentation: mix.exs is Elixir code, run on every task"),
        ],
        ..NONE
    },
    Program {
        name: "mksh",
        shell: true,
        ..NONE
    },
    Program {
        name: "mkswap",
        destroys: &[
            destroys(When::Always, "overwrites disks", "mkswap(8)"),
        ],
        ..NONE
    },
    Program {
        name: "mktemp",
        // It creates a file (not read-only); its output is the path it made.
        prints_no_option: Some(When::Always),
        ..NONE
    },
    Program {
        name: "modprobe",
        checked: "kmod version 30",
        capabilities: &[
            row(Always, HostState, "modprobe(8)"),
        ],
        ..NONE
    },
    Program {
        name: "mongo",
        destroys: &[
            DATABASE_STATEMENT,
        ],
        ..NONE
    },
    Program {
        name: "mongosh",
        destroys: &[
            DATABASE_STATEMENT,
        ],
        ..NONE
    },
    Program {
        name: "more",
        checked: "more from util-linux 2.38.1",
        reads_contents: true,
        capabilities: &[
            row(Always, RunsCode, "GTFOBins more: shell"),
        ],
        ..NONE
    },
    Program {
        name: "mosh",
        capabilities: &[
            row(Always, RunsCode, "GTFOBins mosh-server: shell"),
        ],
        ..NONE
    },
    Program {
        name: "most",
        capabilities: &[
            row(Always, RunsCode, "most(1) shell escape"),
        ],
        ..NONE
    },
    Program {
        name: "mount",
        checked: "mount from util-linux 2.38.1",
        rule: Some(Rule::Grammar(&Grammar {
            valued: "t",
            max_operands: 0,
            ..g("l", &[])
        })),
        capabilities: &[
            row(Always,
        HostState,
        "GTFOBins mount: privilege-escalation; mount(8)"),
        ],
        ..NONE
    },
    Program {
        name: "mpstat",
        ends: &[
            never(Until::Check(unbounded::samples_forever), "samples until stopped"),
        ],
        ..NONE
    },
    Program {
        name: "msfconsole",
        capabilities: &[
            row(Always,
        RunsCode,
        "GTFOBins msfconsole: inherit"),
        ],
        ..NONE
    },
    Program {
        name: "msgfilter",
        checked: "msgfilter (GNU gettext-tools) 0.21",
        capabilities: &[
            row(Always, RunsCode, "GTFOBins msgfilter: shell"),
        ],
        ..NONE
    },
    Program {
        name: "mv",
        destroys: &[
            destroys(When::Always, "moves or replaces files", "mv(1)"),
        ],
        ..NONE
    },
    Program {
        name: "mvn",
        capabilities: &[
            row(Task(&[], TASK_ASKS, &[]), RunsCode, "Maven documentation, build lifecycle: the phases run the plugins pom.xml binds (exec, antrun run commands)"),
        ],
        ..NONE
    },
    Program {
        name: "mvnw",
        capabilities: &[
            row(Task(&[], TASK_ASKS, &[]), RunsCode, "Maven documentation, build lifecycle: the phases run the plugins pom.xml binds (exec, antrun run commands); mvnw is the project's own wrapper script"),
        ],
        ..NONE
    },
    Program {
        name: "mypy",
        capabilities: &[
            row(WordPrefix("--junit-xml"),
        Overwrites,
        "GTFOBins mypy: file-write"),
        ],
        ..NONE
    },
    Program {
        name: "mysql",
        destroys: &[
            DATABASE_STATEMENT,
        ],
        ..NONE
    },
    Program {
        name: "mysqladmin",
        destroys: &[
            destroys(When::Word(&["drop"]), "drops a database", "mysqladmin(1)"),
        ],
        ..NONE
    },
    Program {
        name: "nano",
        capabilities: &[
            row(Always, RunsCode, "GTFOBins nano: shell, file-write"),
        ],
        ..NONE
    },
    Program {
        name: "nawk",
        checked: "GNU Awk 5.2.1",
        rule: Some(Rule::Grammar(&scripts::AWK)),
        reads_contents: true,
        inline_code: true,
        ends: &[
            never(Until::Check(unbounded::awk_loops), "runs a loop that may never end"),
        ],
        ..NONE
    },
    Program {
        name: "nc",
        capabilities: &[
            // Network transfer programs: whatever their form, the floor cannot tell
            // a fetch of a page from a fetch of a payload or an upload.
            row(Always,
        Socket,
        "GTFOBins nc: reverse-shell, bind-shell, upload, download"),
        ],
        destroys: &[
            destroys(When::Any(&[When::Word(&["-e", "-c"]), When::Prefix(&["--exec", "--sh-exec"]), When::PrefixAnyCase(&["exec:", "system:"])]), "hands a shell to the other end of a connection", "GTFOBins nc: reverse shell"),
        ],
        ..NONE
    },
    Program {
        name: "ncat",
        capabilities: &[
            row(Always, Socket, "GTFOBins nc"),
        ],
        destroys: &[
            destroys(When::Any(&[When::Word(&["-e", "-c"]), When::Prefix(&["--exec", "--sh-exec"]), When::PrefixAnyCase(&["exec:", "system:"])]), "hands a shell to the other end of a connection", "GTFOBins ncat: reverse shell"),
        ],
        ..NONE
    },
    Program {
        name: "ncdu",
        capabilities: &[
            row(Always, RunsCode, "GTFOBins ncdu: shell"),
        ],
        ..NONE
    },
    Program {
        name: "ncftp",
        capabilities: &[
            row(Always, Transfers, "GTFOBins ncftp: shell"),
        ],
        ..NONE
    },
    Program {
        name: "needrestart",
        capabilities: &[
            row(Always,
        RunsCode,
        "GTFOBins needrestart: inherit"),
        ],
        ..NONE
    },
    Program {
        name: "neofetch",
        capabilities: &[
            row(Always,
        RunsCode,
        "GTFOBins neofetch: shell (its configuration is bash)"),
        ],
        ..NONE
    },
    Program {
        name: "nerdctl",
        destroys: &[
            destroys(When::Word(&["rm", "rmi", "prune", "kill", "down", "stop", "remove"]), "removes containers, images or volumes", "nerdctl documentation: rm, rmi, prune, down"),
        ],
        // `exec`, `run` and `debug` run the words after them in a container
        // or pod (the tool's documentation: exec, run, debug).
        runs_arguments: Some(CONTAINER_RUNS),
        ..NONE
    },
    Program {
        name: "netcat",
        capabilities: &[
            row(Always, Socket, "GTFOBins nc"),
        ],
        destroys: &[
            destroys(When::Any(&[When::Word(&["-e", "-c"]), When::Prefix(&["--exec", "--sh-exec"]), When::PrefixAnyCase(&["exec:", "system:"])]), "hands a shell to the other end of a connection", "GTFOBins netcat: reverse shell"),
        ],
        ..NONE
    },
    Program {
        name: "netlify",
        destroys: &[
            CLOUD_DELETE,
        ],
        ..NONE
    },
    Program {
        name: "netstat",
        checked: "net-tools 2.10",
        rule: Some(Rule::Grammar(&Grammar {
            max_operands: 0,
            then: Some(whole::netstat),
            ..g(
                "antulprise46Wxvg",
                &[
                    "all",
                    "numeric",
                    "tcp",
                    "udp",
                    "listening",
                    "program",
                    "route",
                    "interfaces",
                    "statistics",
                    "extend",
                    "wide",
                    "unix",
                ],
            )
        })),
        ..NONE
    },
    Program {
        name: "newgrp",
        checked: "Debian login 1:4.13+dfsg1-1+deb12u1",
        capabilities: &[
            row(Always, Privileges, "newgrp(1)"),
        ],
        ..NONE
    },
    Program {
        name: "nft",
        capabilities: &[
            row(Always, HostState, "nft(8)"),
        ],
        destroys: &[
            destroys(When::Word(&["-F", "--flush", "flush"]), "flushes the firewall", "nft(8)"),
        ],
        ..NONE
    },
    Program {
        name: "nginx",
        capabilities: &[
            row(Always,
        Socket,
        "GTFOBins nginx: upload, download, library-load"),
        ],
        ..NONE
    },
    Program {
        name: "nice",
        checked: "nice (GNU coreutils) 9.1",
        wrapper: true,
        ..NONE
    },
    Program {
        name: "ninja",
        capabilities: &[
            row(Task(&[], &["--version", "-h", "--help"], &[]), RunsCode, "ninja documentation (the ninja manual): ninja runs the commands of build.ninja's rules"),
        ],
        ..NONE
    },
    Program {
        name: "nix-env",
        destroys: &[
            PACKAGE_REMOVAL,
        ],
        ..NONE
    },
    Program {
        name: "nl",
        checked: "nl (GNU coreutils) 9.1",
        rule: Some(Rule::Grammar(&Grammar {
            valued: "bdhilnsvwf",
            operands: Kind::Path,
            ..g("p", &["no-renumber"])
        })),
        reads_contents: true,
        ends: &[
            never(Until::Check(unbounded::nl_too_wide), "pads line numbers wider than ten thousand characters"),
        ],
        ..NONE
    },
    Program {
        name: "nmap",
        capabilities: &[
            row(Always,
        RunsCode,
        "GTFOBins nmap: shell, inherit, file-write"),
        ],
        ..NONE
    },
    Program {
        name: "nmcli",
        capabilities: &[
            row(Always, HostState, "nmcli(1)"),
        ],
        ..NONE
    },
    Program {
        name: "node",
        checked: "v20.20.2",
        rule: Some(Rule::Check(|a| version("node", VERSION_NODE, a))),
        subcommands: forms!(|| version_forms(VERSION_NODE)),
        interpreter: true,
        inline_code: true,
        ..NONE
    },
    Program {
        name: "nodejs",
        inline_code: true,
        ..NONE
    },
    Program {
        name: "nohup",
        checked: "nohup (GNU coreutils) 9.1",
        wrapper: true,
        ends: &[
            never(Until::Always, "keeps running after the command returns"),
        ],
        ..NONE
    },
    Program {
        name: "nox",
        capabilities: &[
            row(Task(&[], &["--version", "--help", "-h"], &[]), RunsCode, "Nox documentation: noxfile.py is Python, run on every command"),
        ],
        ..NONE
    },
    Program {
        name: "npm",
        checked: "11.19.1",
        // What the command oracle saw each do on a plain read.
        rule: Some(Rule::Check(|_| {
            Err(Refusal::new(
                codes::COMMAND_UNSAFE_ARGUMENT,
                String::from("`npm` reads `.npmrc` (and may print it), writes its log directory and contacts its registry on every command"),
            ))
        })),
        credentials: &[&["token", "create"]],
        capabilities: &[
            row(Word("run"),
        RunsCode,
        "GTFOBins npm: shell (scripts)"),
            row(Word("run-script"), RunsCode, "npm-run-script(1)"),
            row(Word("exec"), RunsCode, "GTFOBins npm: shell"),
            row(Word("x"), RunsCode, "npm-exec(1)"),
            row(Project(NPM_INSTALL, NPM_VALUED), RunsCode, NPM_SCRIPTS),
            row(Word("ci"), RunsCode, NPM_SCRIPTS),
            row(Word("clean-install"), RunsCode, NPM_SCRIPTS),
            row(Word("ic"), RunsCode, NPM_SCRIPTS),
            row(Word("install-clean"), RunsCode, NPM_SCRIPTS),
            row(Word("isntall-clean"), RunsCode, NPM_SCRIPTS),
            row(Word("test"), RunsCode, NPM_SCRIPTS),
            row(Word("tst"), RunsCode, NPM_SCRIPTS),
            row(Word("t"), RunsCode, NPM_SCRIPTS),
            row(Word("install-test"), RunsCode, NPM_SCRIPTS),
            row(Word("it"), RunsCode, NPM_SCRIPTS),
            row(Word("install-ci-test"), RunsCode, NPM_SCRIPTS),
            row(Word("cit"), RunsCode, NPM_SCRIPTS),
            row(Word("clean-install-test"), RunsCode, NPM_SCRIPTS),
            row(Word("sit"), RunsCode, NPM_SCRIPTS),
            row(Word("start"), RunsCode, NPM_SCRIPTS),
            row(Word("stop"), RunsCode, NPM_SCRIPTS),
            row(Word("restart"), RunsCode, NPM_SCRIPTS),
            row(Word("pack"), RunsCode, NPM_SCRIPTS),
            row(Word("publish"), RunsCode, NPM_SCRIPTS),
            row(Word("rebuild"), RunsCode, NPM_SCRIPTS),
            row(Word("rb"), RunsCode, NPM_SCRIPTS),
            row(Word("version"), RunsCode, "npm-version(1): runs the preversion, version and postversion scripts"),
        ],
        destroys: &[
            PACKAGE_REMOVAL,
        ],
        ..NONE
    },
    Program {
        name: "nproc",
        checked: "nproc (GNU coreutils) 9.1",
        rule: Some(Rule::Grammar(&Grammar {
            long_valued: &["ignore"],
            max_operands: 0,
            tolerant: true,
            ..g("", &["all"])
        })),
        prints_no_option: Some(When::Always),
        ..NONE
    },
    Program {
        name: "npx",
        checked: "11.19.1",
        capabilities: &[
            row(Always,
        RunsCode,
        "npm-exec(1): fetches and runs a package"),
        ],
        destroys: &[
            destroys(When::All(&[When::Word(&["reset"]), When::Word(&["migrate", "db"])]), "drops or resets the database", "Prisma documentation: migrate reset"),
            destroys(When::Word(&["--force-reset", "--accept-data-loss"]), "drops or resets the database", "Prisma documentation: db push"),
        ],
        ..NONE
    },
    Program {
        name: "nroff",
        checked: "GNU nroff (groff) version 1.22.4",
        capabilities: &[
            row(Always,
        RunsCode,
        "GTFOBins nroff: shell (GROFF_BIN_PATH)"),
        ],
        ..NONE
    },
    Program {
        name: "nsenter",
        checked: "nsenter from util-linux 2.38.1",
        runs_arguments: Some(When::Always),
        ..NONE
    },
    Program {
        name: "nslookup",
        checked: "nslookup 9.18.49",
        rule: Some(Rule::Check(checks::nslookup)),
        // A DNS lookup of the one name it is given (nslookup(1)).
        reaches: Some(Reach::Words(checks::nslookup_names)),
        subcommands: forms!(checks::nslookup_forms),
        ..NONE
    },
    Program {
        name: "numfmt",
        checked: "numfmt (GNU coreutils) 9.1",
        rule: Some(Rule::Grammar(&Grammar {
            valued: "d",
            long_valued: &[
                "from",
                "from-unit",
                "to",
                "to-unit",
                "field",
                "format",
                "suffix",
                "padding",
                "invalid",
                "round",
                "delimiter",
            ],
            long_optional: &["header"],
            ..g("z", &["grouping", "debug", "zero-terminated"])
        })),
        ends: &[
            never(Until::Check(unbounded::numfmt_too_wide), "pads numbers wider than ten thousand characters"),
        ],
        ..NONE
    },
    Program {
        name: "nvim",
        capabilities: &[
            row(Always, RunsCode, "GTFOBins vim: shell"),
        ],
        ..NONE
    },
    Program {
        name: "oc",
        credentials: &[&["whoami", "--show-token"], &["whoami", "-t"]],
        destroys: &[
            destroys(When::Any(&[When::Word(&["delete", "drain", "cordon", "taint"]), When::All(&[When::Word(&["replace"]), When::Word(&["--force"])]), When::All(&[When::Word(&["scale"]), When::Word(&["--replicas=0"])])]), "deletes or evicts cluster resources", "kubectl documentation: delete, drain, cordon, taint"),
        ],
        ends: &[
            never(Until::Any(&[Until::Short('w'), Until::Long("--watch"), Until::Long("--watch-only"), Until::Long("--follow"), Until::Word(&["port-forward", "proxy", "attach"]), Until::All(&[Until::Word(&["logs"]), Until::Short('f')])]), "watches until stopped"),
        ],
        // `exec`, `run` and `debug` run the words after them in a container
        // or pod (the tool's documentation: exec, run, debug).
        runs_arguments: Some(CONTAINER_RUNS),
        ..NONE
    },
    Program {
        name: "oci",
        destroys: &[
            CLOUD_DELETE,
        ],
        ..NONE
    },
    Program {
        name: "octave",
        capabilities: &[
            row(Always, RunsCode, "GTFOBins octave"),
        ],
        ..NONE
    },
    Program {
        name: "octave-cli",
        capabilities: &[
            row(Always,
        RunsCode,
        "GTFOBins octave: shell, file-write"),
        ],
        ..NONE
    },
    Program {
        name: "od",
        checked: "od (GNU coreutils) 9.1",
        // `-w` takes its value only attached on GNU and BusyBox (`-w16`);
        // BSD/macOS od has no `-w` and stops with a usage error.
        // `--strings[=BYTES]` takes its value only after `=` (GNU od 9.1,
        // run here, reads `od --strings 1 a.txt` as the files `1` and
        // `a.txt`, as the forms oracle found), so the next word is a file.
        rule: Some(Rule::Grammar(&Grammar {
            valued: "AjNtS",
            optional_attached: "w",
            long_valued: &[
                "address-radix",
                "skip-bytes",
                "read-bytes",
                "format",
                "endian",
            ],
            long_optional: &["strings"],
            operands: Kind::Path,
            ..g("abcdfilosxvDOX", &["output-duplicates", "traditional"])
        })),
        reads_contents: true,
        ..NONE
    },
    Program {
        name: "op",
        credentials: &[&["read"], &["item", "get"]],
        ..NONE
    },
    Program {
        name: "opencode",
        capabilities: &[
            row(Always, RunsCode, "GTFOBins opencode: command"),
        ],
        ..NONE
    },
    Program {
        name: "openssl",
        checked: "OpenSSL 3.0.19",
        capabilities: &[
            row(Word("s_client"),
        Socket,
        "GTFOBins openssl: reverse-shell, upload, download"),
            row(Word("s_server"), Socket, "openssl-s_server(1)"),
        ],
        ..NONE
    },
    Program {
        name: "openvpn",
        capabilities: &[
            row(Always, HostState, "GTFOBins openvpn: shell"),
        ],
        ..NONE
    },
    Program {
        name: "openvt",
        capabilities: &[
            row(Always, RunsCode, "GTFOBins openvt: command"),
        ],
        ..NONE
    },
    Program {
        name: "opkg",
        capabilities: &[
            row(Always, HostState, "GTFOBins opkg: shell"),
        ],
        ..NONE
    },
    Program {
        name: "osascript",
        interpreter: true,
        inline_code: true,
        ..NONE
    },
    Program {
        name: "pacman",
        destroys: &[
            destroys(When::Any(&[When::Prefix(&["-R"]), When::Word(&["--remove"])]), "removes packages", "pacman(8)"),
        ],
        ..NONE
    },
    Program {
        name: "pandoc",
        capabilities: &[
            row(Opt("-L"),
        RunsCode,
        "GTFOBins pandoc: inherit (Lua filters)"),
            row(WordPrefix("--lua-filter"),
        RunsCode,
        "pandoc(1) --lua-filter"),
        ],
        ..NONE
    },
    Program {
        name: "parallel",
        runs_arguments: Some(When::Always),
        ..NONE
    },
    Program {
        name: "parted",
        destroys: &[
            destroys(When::Always, "overwrites disks", "parted(8)"),
        ],
        ..NONE
    },
    Program {
        name: "pass",
        credentials: &[&["show"]],
        ..NONE
    },
    Program {
        name: "passwd",
        checked: "Debian passwd 1:4.13+dfsg1-1+deb12u1",
        capabilities: &[
            row(Always,
        Privileges,
        "GTFOBins passwd: privilege-escalation"),
        ],
        destroys: &[
            destroys(When::Arguments, "changes accounts or their passwords", "passwd(1)"),
        ],
        ..NONE
    },
    Program {
        name: "paste",
        checked: "paste (GNU coreutils) 9.1",
        rule: Some(Rule::Grammar(&Grammar {
            valued: "d",
            long_valued: &["delimiters"],
            operands: Kind::Path,
            ..g("sz", &["serial", "zero-terminated"])
        })),
        reads_contents: true,
        ..NONE
    },
    Program {
        name: "pathchk",
        checked: "pathchk (GNU coreutils) 9.1",
        rule: Some(Rule::Grammar(&Grammar {
            tolerant: true,
            ..g("pP", &["portability"])
        })),
        ..NONE
    },
    Program {
        name: "pdb",
        capabilities: &[
            row(Always, RunsCode, "GTFOBins pdb: inherit"),
        ],
        ..NONE
    },
    Program {
        name: "pdm",
        capabilities: &[
            row(Word("install"), RunsCode, "PDM documentation: install, sync and build run the project's build backend; run runs pdm scripts"),
            row(Word("sync"), RunsCode, "PDM documentation: install, sync and build run the project's build backend; run runs pdm scripts"),
            row(Word("build"), RunsCode, "PDM documentation: install, sync and build run the project's build backend; run runs pdm scripts"),
            row(Word("run"), RunsCode, "PDM documentation: install, sync and build run the project's build backend; run runs pdm scripts"),
        ],
        ..NONE
    },
    Program {
        name: "perl",
        checked: "This is perl 5",
        rule: Some(Rule::Check(|a| version("perl", VERSION_PERL, a))),
        subcommands: forms!(|| version_forms(VERSION_PERL)),
        interpreter: true,
        inline_code: true,
        capabilities: &[
            row(Short('i'), Overwrites, "perlrun(1) -i"),
        ],
        ..NONE
    },
    Program {
        name: "perl5",
        inline_code: true,
        ..NONE
    },
    Program {
        name: "perlbug",
        checked: "perlbug version 1.42",
        capabilities: &[
            row(Always, RunsCode, "GTFOBins perlbug: shell"),
        ],
        ..NONE
    },
    Program {
        name: "pg",
        capabilities: &[
            row(Always, RunsCode, "GTFOBins pg: shell"),
        ],
        ..NONE
    },
    Program {
        name: "pgrep",
        checked: "pgrep from procps-ng 4.0.2",
        rule: Some(Rule::Grammar(&Grammar {
            valued: "uUgGPstd",
            ..g(
                "lafxnocivw",
                &[
                    "list-name",
                    "list-full",
                    "full",
                    "exact",
                    "newest",
                    "oldest",
                    "count",
                    "ignore-case",
                    "inverse",
                ],
            )
        })),
        ..NONE
    },
    Program {
        name: "php",
        rule: Some(Rule::Check(|a| version("php", &[], a))),
        interpreter: true,
        inline_code: true,
        capabilities: &[
            row(Opt("-S"),
        Socket,
        "GTFOBins php: upload (a file server)"),
        ],
        destroys: &[
            destroys(When::Word(&["migrate:fresh", "migrate:reset", "migrate:refresh", "db:wipe", "migrate:rollback"]), "drops or resets the database", "Laravel documentation: migrations"),
        ],
        ..NONE
    },
    Program {
        name: "pic",
        checked: "GNU pic (groff) version 1.22.4",
        capabilities: &[
            row(Always, RunsCode, "GTFOBins pic: shell"),
        ],
        ..NONE
    },
    Program {
        name: "pico",
        capabilities: &[
            row(Always, RunsCode, "GTFOBins nano"),
        ],
        ..NONE
    },
    Program {
        name: "pidstat",
        capabilities: &[
            row(Opt("-e"), RunsCode, "GTFOBins pidstat: shell"),
        ],
        ends: &[
            never(Until::Check(unbounded::samples_forever), "samples until stopped"),
        ],
        ..NONE
    },
    Program {
        name: "pigz",
        capabilities: &[
            row(OperandUnless(&[
            "-c", "--stdout", "-k", "--keep", "-l", "--list", "-t", "--test",
        ]),
        Overwrites,
        "pigz(1)"),
        ],
        ..NONE
    },
    Program {
        name: "ping",
        checked: "ping from iputils 20221126",
        rule: Some(Rule::Grammar(&PINGS)),
        ends: &[
            never(Until::All(&[Until::Not(&Until::Short('c')), Until::Not(&Until::Short('w'))]), "pings until stopped"),
            never(Until::Check(unbounded::ping_too_long), "pings for longer than a minute"),
        ],
        // ICMP echo to the one host it names (ping(8)).
        // Without `-n` it also looks up the name of each replying address
        // (ping(8) -n), usually the host it names.
        reaches: Some(Reach::Parsed(checks::operand_names)),
        ..NONE
    },
    Program {
        name: "ping6",
        checked: "ping from iputils 20221126",
        rule: Some(Rule::Grammar(&PINGS)),
        ends: &[
            never(Until::All(&[Until::Not(&Until::Short('c')), Until::Not(&Until::Short('w'))]), "pings until stopped"),
            never(Until::Check(unbounded::ping_too_long), "pings for longer than a minute"),
        ],
        // ICMP echo to the one host it names (ping(8)).
        reaches: Some(Reach::Parsed(checks::operand_names)),
        ..NONE
    },
    Program {
        name: "pip",
        checked: "pip 23.2.1",
        rule: Some(Rule::Check(tools::pip)),
        subcommands: forms!(tools::pip_forms),
        capabilities: &[
            row(Word("config"),
        RunsCode,
        "GTFOBins pip: shell (--editor)"),
            row(LocalOperand(&["install", "wheel", "download"], PIP_VALUED), RunsCode, PIP_BUILDS),
        ],
        destroys: &[
            PACKAGE_REMOVAL,
        ],
        // pip's index commands (`pip list`) check the index for a newer pip
        // at most weekly (pip --help: --disable-pip-version-check).
        reaches: Some(Reach::Configured("the package index its configuration names, asked for a newer pip by `pip list` at most weekly unless `--disable-pip-version-check` or PIP_DISABLE_PIP_VERSION_CHECK=1 is set")),
        ..NONE
    },
    Program {
        name: "pip3",
        checked: "pip 23.2.1",
        rule: Some(Rule::Check(tools::pip)),
        subcommands: forms!(tools::pip_forms),
        capabilities: &[
            row(Word("config"), RunsCode, "GTFOBins pip: shell (--editor)"),
            row(LocalOperand(&["install", "wheel", "download"], PIP_VALUED), RunsCode, PIP_BUILDS),
        ],
        destroys: &[
            PACKAGE_REMOVAL,
        ],
        // pip's index commands (`pip list`) check the index for a newer pip
        // at most weekly (pip --help: --disable-pip-version-check).
        reaches: Some(Reach::Configured("the package index its configuration names, asked for a newer pip by `pip list` at most weekly unless `--disable-pip-version-check` or PIP_DISABLE_PIP_VERSION_CHECK=1 is set")),
        ..NONE
    },
    Program {
        name: "pipx",
        capabilities: &[
            row(Word("run"),
        RunsCode,
        "GTFOBins pipx: inherit (fetches and runs a package)"),
        ],
        destroys: &[
            PACKAGE_REMOVAL,
        ],
        ..NONE
    },
    Program {
        name: "pkexec",
        runs_arguments: Some(When::Always),
        destroys: &[
            destroys(When::Always, "runs a command as another user", "pkexec(1)"),
        ],
        ..NONE
    },
    Program {
        name: "pkg",
        capabilities: &[
            row(Always, HostState, "GTFOBins pkg: command"),
        ],
        ..NONE
    },
    Program {
        name: "pkill",
        destroys: &[
            destroys(When::Always, "kills processes", "pkill(1)"),
        ],
        ..NONE
    },
    Program {
        name: "plymouth",
        capabilities: &[
            row(Always, RunsCode, "GTFOBins plymouth: shell"),
        ],
        ..NONE
    },
    Program {
        name: "pnpm",
        capabilities: &[
            row(Word("exec"), RunsCode, "pnpm documentation: exec"),
            row(Word("dlx"),
        RunsCode,
        "pnpm documentation: dlx fetches and runs a package"),
            row(Word("run"),
        RunsCode,
        "pnpm documentation: run (scripts)"),
            row(Task(&[
                "add", "list", "ls", "ll", "la", "why", "outdated", "audit", "licenses", "help",
                "config", "c", "get", "set", "store", "root", "bin", "view", "info", "show", "v",
                "search", "whoami", "ping", "fetch", "remove", "rm", "uninstall", "un", "unlink",
                "env", "doctor", "init", "setup", "catalog", "owner", "dlx", "exec",
            ], TASK_ASKS, &["-C", "--dir", "--filter", "-F", "--workspace-dir", "--reporter", "--loglevel"]),
        RunsCode,
        "pnpm documentation: install runs the project's lifecycle scripts; an unknown command runs the script of that name (pnpm run)"),
        ],
        destroys: &[
            PACKAGE_REMOVAL,
        ],
        ..NONE
    },
    Program {
        name: "pnpx",
        destroys: &[
            destroys(When::All(&[When::Word(&["reset"]), When::Word(&["migrate", "db"])]), "drops or resets the database", "Prisma documentation: migrate reset"),
            destroys(When::Word(&["--force-reset", "--accept-data-loss"]), "drops or resets the database", "Prisma documentation: db push"),
        ],
        ..NONE
    },
    Program {
        name: "podman",
        capabilities: &[
            row(Word("run"), HostState, "GTFOBins podman: shell"),
        ],
        destroys: &[
            destroys(When::Word(&["rm", "rmi", "prune", "kill", "down", "stop", "remove"]), "removes containers, images or volumes", "podman documentation: rm, rmi, prune, down"),
        ],
        ends: &[
            never(Until::Any(&[Until::Word(&["events"]), Until::Word(&["attach"]), Until::All(&[Until::Word(&["stats"]), Until::Not(&Until::Word(&["--no-stream"]))]), Until::All(&[Until::Word(&["logs"]), Until::Any(&[Until::Short('f'), Until::Long("--follow")])])]), "watches until stopped"),
        ],
        // `exec`, `run` and `debug` run the words after them in a container
        // or pod (the tool's documentation: exec, run, debug).
        runs_arguments: Some(CONTAINER_RUNS),
        ..NONE
    },
    Program {
        name: "poetry",
        capabilities: &[
            row(Word("install"), RunsCode, "Poetry documentation: install installs the project itself through its build backend (and build script)"),
            row(Word("build"), RunsCode, "Poetry documentation: build runs the build backend (and build script)"),
            row(Word("run"), RunsCode, "Poetry documentation: run"),
            row(Word("shell"), RunsCode, "Poetry documentation: shell spawns a shell"),
        ],
        destroys: &[
            PACKAGE_REMOVAL,
        ],
        ..NONE
    },
    Program {
        name: "port",
        destroys: &[
            PACKAGE_REMOVAL,
        ],
        ..NONE
    },
    Program {
        name: "poweroff",
        destroys: &[
            destroys(When::Always, "stops the machine", "poweroff(8)"),
        ],
        ..NONE
    },
    Program {
        name: "powershell",
        interpreter: true,
        ..NONE
    },
    Program {
        name: "pr",
        ends: &[
            never(Until::Check(unbounded::pr_too_wide), "pads pages wider or longer than ten thousand"),
        ],
        ..NONE
    },
    Program {
        name: "printenv",
        checked: "printenv (GNU coreutils) 9.1",
        rule: Some(Rule::Grammar(&Grammar {
            then: Some(whole::printenv),
            ..g("0", &["null"])
        })),
        ..NONE
    },
    Program {
        name: "printf",
        checked: "printf (GNU coreutils) 9.1",
        // Not `-v VAR` (bash's builtin assigns the variable).
        rule: Some(Rule::Grammar(&Grammar {
            then: Some(whole::printf_format),
            ..BASE
        })),
        prints_no_option: Some(When::Check(programs::printf_prints_no_option)),
        ..NONE
    },
    Program {
        name: "prisma",
        destroys: &[
            destroys(When::All(&[When::Word(&["reset"]), When::Word(&["migrate", "db"])]), "drops or resets the database", "Prisma documentation: migrate reset"),
            destroys(When::Word(&["--force-reset", "--accept-data-loss"]), "drops or resets the database", "Prisma documentation: db push"),
        ],
        ..NONE
    },
    Program {
        name: "procmail",
        capabilities: &[
            row(Always, RunsCode, "GTFOBins procmail: command"),
        ],
        ..NONE
    },
    Program {
        name: "pry",
        capabilities: &[
            row(Always, RunsCode, "GTFOBins pry: inherit"),
        ],
        ..NONE
    },
    Program {
        name: "ps",
        checked: "ps from procps-ng 4.0.2",
        rule: Some(Rule::Check(checks::ps)),
        subcommands: forms!(checks::ps_forms),
        ..NONE
    },
    Program {
        name: "psftp",
        capabilities: &[
            row(Always, Transfers, "GTFOBins psftp: shell"),
        ],
        ..NONE
    },
    Program {
        name: "psql",
        checked: "psql (PostgreSQL) 15.18 (Debian 15.18-0+deb12u1)",
        destroys: &[
            DATABASE_STATEMENT,
        ],
        ..NONE
    },
    Program {
        name: "pulumi",
        destroys: &[
            destroys(When::Any(&[When::Word(&["destroy", "force-unlock", "-destroy", "--destroy"]), When::All(&[When::Word(&["state", "workspace", "stack"]), When::Word(&["rm", "delete", "rm-all"])])]), "destroys infrastructure", "pulumi documentation: destroy, state rm"),
        ],
        ..NONE
    },
    Program {
        name: "puppet",
        capabilities: &[
            row(Always,
        RunsCode,
        "GTFOBins puppet: shell, file-write"),
        ],
        ..NONE
    },
    Program {
        name: "pvremove",
        destroys: &[
            destroys(When::Always, "removes volumes", "pvremove(8)"),
        ],
        ..NONE
    },
    Program {
        name: "pwd",
        checked: "pwd (GNU coreutils) 9.1",
        rule: Some(Rule::Grammar(&Grammar {
            max_operands: 0,
            tolerant: true,
            ..g("LP", &[])
        })),
        prints_no_option: Some(When::Always),
        ..NONE
    },
    Program {
        name: "pwsh",
        interpreter: true,
        ..NONE
    },
    Program {
        name: "pwunconv",
        destroys: &[
            destroys(When::Arguments, "changes accounts or their passwords", "pwunconv(8)"),
        ],
        ..NONE
    },
    Program {
        name: "pypy",
        inline_code: true,
        ..NONE
    },
    Program {
        name: "pypy3",
        inline_code: true,
        ..NONE
    },
    Program {
        name: "python",
        checked: "Python 3.11.7",
        rule: Some(Rule::Check(|a| version("python", VERSION_PYTHON, a))),
        subcommands: forms!(|| version_forms(VERSION_PYTHON)),
        interpreter: true,
        inline_code: true,
        capabilities: &[
            row(NoOperand,
        RunsCode,
        "python(1): with no script it reads commands from its input"),
        ],
        destroys: &[
            destroys(When::Word(&["flush", "reset_db", "sqlflush"]), "empties the database", "Django documentation: django-admin flush"),
        ],
        ..NONE
    },
    Program {
        name: "python2",
        interpreter: true,
        inline_code: true,
        ..NONE
    },
    Program {
        name: "python3",
        checked: "Python 3.11.7",
        rule: Some(Rule::Check(|a| version("python3", VERSION_PYTHON3, a))),
        subcommands: forms!(|| version_forms(VERSION_PYTHON3)),
        interpreter: true,
        inline_code: true,
        capabilities: &[
            row(NoOperand,
        RunsCode,
        "python(1): with no script it reads commands from its input"),
        ],
        destroys: &[
            destroys(When::Word(&["flush", "reset_db", "sqlflush"]), "empties the database", "Django documentation: django-admin flush"),
        ],
        ..NONE
    },
    Program {
        name: "rails",
        destroys: &[
            destroys(When::Word(&["db:drop", "db:reset", "db:purge", "db:schema:load", "db:setup", "db:migrate:reset", "db:truncate_all"]), "drops or resets the database", "Ruby on Rails documentation: Active Record migrations, database tasks"),
        ],
        ..NONE
    },
    Program {
        name: "rake",
        capabilities: &[
            row(Always,
        RunsCode,
        "GTFOBins rake: inherit (the Rakefile is Ruby)"),
        ],
        destroys: &[
            destroys(When::Word(&["db:drop", "db:reset", "db:purge", "db:schema:load", "db:setup", "db:migrate:reset", "db:truncate_all"]), "drops or resets the database", "Ruby on Rails documentation: Active Record migrations, database tasks"),
        ],
        ..NONE
    },
    Program {
        name: "ranger",
        capabilities: &[
            row(Always, RunsCode, "GTFOBins ranger: shell"),
        ],
        ..NONE
    },
    Program {
        name: "rc-service",
        destroys: &[
            destroys(When::Word(&["stop", "kill", "down", "zap", "force-stop"]), "stops services", "rc-service(8)"),
        ],
        ..NONE
    },
    Program {
        name: "rclone",
        destroys: &[
            destroys(When::Word(&["delete", "deletefile", "purge", "rmdir", "rmdirs", "sync", "move", "cleanup"]), "deletes or replaces remote files", "rclone(1)"),
        ],
        ..NONE
    },
    Program {
        name: "read",
        rule: Some(Rule::Check(tools::read)),
        ..NONE
    },
    Program {
        name: "readlink",
        checked: "readlink (GNU coreutils) 9.1",
        rule: Some(Rule::Grammar(&g(
            "femnqsvz",
            &[
                "canonicalize",
                "canonicalize-existing",
                "canonicalize-missing",
                "no-newline",
                "quiet",
                "silent",
                "verbose",
                "zero",
            ],
        ))),
        prints_no_option: Some(When::Word(&["-f", "-e", "-m"])),
        ..NONE
    },
    Program {
        name: "realpath",
        checked: "realpath (GNU coreutils) 9.1",
        rule: Some(Rule::Grammar(&Grammar {
            long_valued: &["relative-to", "relative-base"],
            ..g(
                "emLPqsz",
                &[
                    "canonicalize-existing",
                    "canonicalize-missing",
                    "logical",
                    "physical",
                    "quiet",
                    "strip",
                    "no-symlinks",
                    "zero",
                ],
            )
        })),
        prints_no_option: Some(When::Always),
        ..NONE
    },
    Program {
        name: "reboot",
        destroys: &[
            destroys(When::Always, "stops the machine", "reboot(8)"),
        ],
        ..NONE
    },
    Program {
        name: "red",
        checked: "GNU ed 1.19",
        capabilities: &[
            row(Always, RunsCode, "ed(1)"),
        ],
        ..NONE
    },
    Program {
        name: "redis-cli",
        capabilities: &[
            row(NoOperand,
        RunsCode,
        "GTFOBins redis: file-write (an interactive session)"),
            row(Word("config"),
        Overwrites,
        "GTFOBins redis: file-write (CONFIG SET dir)"),
            row(Word("CONFIG"),
        Overwrites,
        "GTFOBins redis: file-write"),
        ],
        destroys: &[
            destroys(When::WordAnyCase(&["flushall", "flushdb"]), "empties a database", "redis-cli(1)"),
            DATABASE_STATEMENT,
        ],
        ..NONE
    },
    Program {
        name: "restic",
        capabilities: &[
            row(Always,
        Transfers,
        "GTFOBins restic: upload, shell"),
        ],
        ..NONE
    },
    Program {
        name: "rev",
        checked: "rev from util-linux 2.38.1",
        rule: Some(Rule::Grammar(&Grammar {
            operands: Kind::Path,
            ..BASE
        })),
        reads_contents: true,
        ..NONE
    },
    Program {
        name: "rg",
        checked: "ripgrep 13.0.0",
        rule: Some(Rule::Grammar(&RG)),
        reads_contents: true,
        ..NONE
    },
    Program {
        name: "rlogin",
        capabilities: &[
            row(Always, Socket, "GTFOBins rlogin: upload"),
        ],
        ..NONE
    },
    Program {
        name: "rm",
        destroys: &[
            destroys(When::Always, "deletes files", "rm(1)"),
        ],
        ..NONE
    },
    Program {
        name: "rmdir",
        destroys: &[
            destroys(When::Always, "deletes files", "rmdir(1)"),
        ],
        ..NONE
    },
    Program {
        name: "rmmod",
        checked: "kmod version 30",
        capabilities: &[
            row(Always, HostState, "rmmod(8)"),
        ],
        ..NONE
    },
    Program {
        name: "route",
        checked: "net-tools 2.10",
        capabilities: &[
            row(Always, HostState, "route(8)"),
        ],
        ..NONE
    },
    Program {
        name: "rpm",
        capabilities: &[
            row(Always, HostState, "GTFOBins rpm: shell, command"),
        ],
        destroys: &[
            PACKAGE_REMOVAL,
            destroys(When::Word(&["-e", "--erase"]), "removes packages", "rpm(8)"),
        ],
        ..NONE
    },
    Program {
        name: "rpmdb",
        capabilities: &[
            row(Always, RunsCode, "GTFOBins rpmdb: shell"),
        ],
        ..NONE
    },
    Program {
        name: "rpmquery",
        capabilities: &[
            row(WordPrefix("--eval"),
        RunsCode,
        "GTFOBins rpmquery: shell"),
        ],
        ..NONE
    },
    Program {
        name: "rpmverify",
        capabilities: &[
            row(WordPrefix("--eval"),
        RunsCode,
        "GTFOBins rpmverify: shell"),
        ],
        ..NONE
    },
    Program {
        name: "rsh",
        runs_arguments: Some(When::Always),
        ..NONE
    },
    Program {
        name: "rsync",
        capabilities: &[
            row(Contains(":"),
        Transfers,
        "GTFOBins rsync: shell; rsync(1) remote paths"),
            row(Opt("-e"), RunsCode, "GTFOBins rsync: shell"),
        ],
        destroys: &[
            destroys(When::Any(&[When::Prefix(&["--delete", "--del"]), When::Word(&["--remove-source-files"]), When::Prefix(&["--remove-sent-files"])]), "deletes files at the destination or the source", "rsync(1)"),
        ],
        ..NONE
    },
    Program {
        name: "rsyslogd",
        capabilities: &[
            row(Always, RunsCode, "GTFOBins rsyslogd: command"),
        ],
        ..NONE
    },
    Program {
        name: "rtorrent",
        capabilities: &[
            row(Always, RunsCode, "GTFOBins rtorrent: shell"),
        ],
        ..NONE
    },
    Program {
        name: "ruby",
        rule: Some(Rule::Check(|a| version("ruby", &[], a))),
        interpreter: true,
        inline_code: true,
        capabilities: &[
            row(Opt("-run"),
        Socket,
        "GTFOBins ruby: upload (un.rb httpd)"),
            row(Short('i'), Overwrites, "ruby(1) -i"),
        ],
        ..NONE
    },
    Program {
        name: "run-mailcap",
        capabilities: &[
            row(Always,
        RunsCode,
        "GTFOBins run-mailcap: inherit"),
        ],
        ..NONE
    },
    Program {
        name: "run-parts",
        checked: "Debian run-parts program, version 5.7",
        capabilities: &[
            row(Always, RunsCode, "GTFOBins run-parts: shell"),
        ],
        ..NONE
    },
    Program {
        name: "runscript",
        capabilities: &[
            row(Always, RunsCode, "GTFOBins runscript: shell"),
        ],
        ..NONE
    },
    Program {
        name: "runuser",
        checked: "runuser from util-linux 2.38.1",
        capabilities: &[
            row(Always, Privileges, "runuser(1)"),
        ],
        runs_arguments: Some(When::Always),
        destroys: &[
            destroys(When::Always, "runs a command as another user", "runuser(1)"),
        ],
        ..NONE
    },
    Program {
        name: "rustc",
        checked: "rustc 1.95.0",
        rule: Some(Rule::Check(|a| toolchain("rustc", a))),
        capabilities: &[
            row(Word("--explain"),
        RunsCode,
        "GTFOBins rustc: inherit (pager)"),
        ],
        ..NONE
    },
    Program {
        name: "rustdoc",
        checked: "rustdoc 1.95.0",
        capabilities: &[
            row(Always,
        Overwrites,
        "GTFOBins rustdoc: file-write"),
        ],
        ..NONE
    },
    Program {
        name: "rustup",
        checked: "rustup 1.29.0",
        capabilities: &[
            row(Always,
        RunsCode,
        "GTFOBins rustup: shell, command"),
        ],
        ..NONE
    },
    Program {
        name: "rvim",
        checked: "VIM - Vi IMproved 9.0",
        capabilities: &[
            row(Always, RunsCode, "GTFOBins vim"),
        ],
        ..NONE
    },
    Program {
        name: "rye",
        capabilities: &[
            row(Word("sync"), RunsCode, "Rye documentation: sync and build run the project's build backend; run runs its scripts"),
            row(Word("build"), RunsCode, "Rye documentation: sync and build run the project's build backend; run runs its scripts"),
            row(Word("run"), RunsCode, "Rye documentation: sync and build run the project's build backend; run runs its scripts"),
        ],
        ..NONE
    },
    Program {
        name: "samu",
        capabilities: &[
            row(Task(&[], &["--version", "-h", "--help"], &[]), RunsCode, "samu documentation (samu(1)): runs the commands of build.ninja's rules"),
        ],
        ..NONE
    },
    Program {
        name: "sar",
        ends: &[
            never(Until::Check(unbounded::samples_forever), "samples until stopped"),
        ],
        ..NONE
    },
    Program {
        name: "sbt",
        capabilities: &[
            row(Task(&[], TASK_ASKS, &[]), RunsCode, "sbt documentation: build.sbt and project/*.scala are Scala code, run on every command"),
        ],
        ..NONE
    },
    Program {
        name: "scanmem",
        capabilities: &[
            row(Always, RunsCode, "GTFOBins scanmem: shell"),
        ],
        ..NONE
    },
    Program {
        name: "scons",
        capabilities: &[
            row(Task(&[], TASK_ASKS, &[]), RunsCode, "SCons documentation (scons(1)): the SConstruct file is Python, run on every build"),
        ],
        ..NONE
    },
    Program {
        name: "scoop",
        destroys: &[
            PACKAGE_REMOVAL,
        ],
        ..NONE
    },
    Program {
        name: "scp",
        checked: "Debian openssh-client 1:9.2p1-2+deb12u6",
        capabilities: &[
            row(Always,
        Transfers,
        "GTFOBins scp: shell, upload, download"),
        ],
        ..NONE
    },
    Program {
        name: "screen",
        capabilities: &[
            row(Always,
        RunsCode,
        "GTFOBins screen: shell, file-write"),
        ],
        ..NONE
    },
    Program {
        name: "script",
        checked: "script from util-linux 2.38.1",
        capabilities: &[
            row(Always,
        RunsCode,
        "GTFOBins script: shell, file-write"),
        ],
        runs_arguments: Some(When::Always),
        ..NONE
    },
    Program {
        name: "scrot",
        capabilities: &[
            row(Always, RunsCode, "GTFOBins scrot: shell"),
        ],
        ..NONE
    },
    Program {
        name: "secret-tool",
        credentials: &[&["lookup"]],
        ..NONE
    },
    Program {
        name: "security",
        credentials: &[&["find-generic-password"], &["find-internet-password"], &["dump-keychain"]],
        ..NONE
    },
    Program {
        name: "sed",
        checked: "(GNU sed) 4.9",
        rule: Some(Rule::Grammar(&scripts::SED)),
        reads_contents: true,
        inline_code: true,
        capabilities: &[
            row(Short('i'),
        Overwrites,
        "sed(1) -i edits files in place"),
            row(LongPrefix("--in-place", 3),
        Overwrites,
        "sed(1): GNU getopt_long takes `--i` for --in-place"),
            row(Word("e"),
        RunsCode,
        "GTFOBins sed: shell (the e command)"),
        ],
        destroys: &[
            destroys(When::Check(programs::sed_writes), "edits or writes files", "sed(1) -i, w, W, e"),
        ],
        ..NONE
    },
    Program {
        name: "seq",
        checked: "seq (GNU coreutils) 9.1",
        rule: Some(Rule::Grammar(&Grammar {
            valued: "fs",
            long_valued: &["format", "separator"],
            max_operands: 3,
            then: Some(whole::seq),
            ..g("w", &["equal-width"])
        })),
        ends: &[
            never(Until::Check(unbounded::seq_format_too_wide), "pads numbers wider than ten thousand characters"),
            never(Until::Check(unbounded::seq_huge), "prints a huge sequence"),
        ],
        ..NONE
    },
    Program {
        name: "sequelize",
        destroys: &[
            destroys(When::Any(&[When::Contains(&["rollback", "drop", ":undo"]), When::Word(&["downgrade"])]), "drops or rolls back the database", "sequelize documentation: migrations"),
        ],
        ..NONE
    },
    Program {
        name: "service",
        checked: "service ver. 1.65.2",
        capabilities: &[
            row(Always,
        HostState,
        "GTFOBins service: shell; service(8)"),
        ],
        destroys: &[
            destroys(When::Word(&["stop", "kill", "down", "zap", "force-stop"]), "stops services", "service(8)"),
        ],
        ..NONE
    },
    Program {
        name: "setcap",
        checked: "Debian libcap2-bin 1:2.66-4+deb12u2+b2",
        capabilities: &[
            row(Always,
        Privileges,
        "GTFOBins setcap: privilege-escalation"),
        ],
        ..NONE
    },
    Program {
        name: "setfacl",
        capabilities: &[
            row(Always,
        Privileges,
        "GTFOBins setfacl: privilege-escalation"),
        ],
        destroys: &[
            destroys(When::Any(&[When::Word(&["--recursive"]), When::Short('R')]), "changes permissions recursively", "setfacl(1)"),
        ],
        ..NONE
    },
    Program {
        name: "setpriv",
        checked: "setpriv from util-linux 2.38.1",
        capabilities: &[
            row(Always, Privileges, "setpriv(1)"),
        ],
        ..NONE
    },
    Program {
        name: "setsid",
        checked: "setsid from util-linux 2.38.1",
        wrapper: true,
        ends: &[
            never(Until::Any(&[Until::Short('f'), Until::Long("--fork")]), "keeps running after the command returns"),
        ],
        ..NONE
    },
    Program {
        name: "sfdisk",
        destroys: &[
            destroys(When::Always, "overwrites disks", "sfdisk(8)"),
        ],
        ..NONE
    },
    Program {
        name: "sftp",
        checked: "Debian openssh-client 1:9.2p1-2+deb12u6",
        capabilities: &[
            row(Always,
        Transfers,
        "GTFOBins sftp: shell, upload, download"),
        ],
        ..NONE
    },
    Program {
        name: "sg",
        checked: "Debian login 1:4.13+dfsg1-1+deb12u1",
        capabilities: &[
            row(Always, Privileges, "GTFOBins sg: shell"),
        ],
        ..NONE
    },
    Program {
        name: "sgdisk",
        destroys: &[
            destroys(When::Arguments, "overwrites disks", "sgdisk(8)"),
        ],
        ..NONE
    },
    Program {
        name: "sh",
        shell: true,
        ..NONE
    },
    Program {
        name: "sha1sum",
        checked: "sha1sum (GNU coreutils) 9.1",
        rule: Some(Rule::Grammar(&CHECKSUMS)),
        ..NONE
    },
    Program {
        name: "sha224sum",
        checked: "sha224sum (GNU coreutils) 9.1",
        rule: Some(Rule::Grammar(&CHECKSUMS)),
        ..NONE
    },
    Program {
        name: "sha256sum",
        checked: "sha256sum (GNU coreutils) 9.1",
        rule: Some(Rule::Grammar(&CHECKSUMS)),
        ..NONE
    },
    Program {
        name: "sha384sum",
        checked: "sha384sum (GNU coreutils) 9.1",
        rule: Some(Rule::Grammar(&CHECKSUMS)),
        ..NONE
    },
    Program {
        name: "sha512sum",
        checked: "sha512sum (GNU coreutils) 9.1",
        rule: Some(Rule::Grammar(&CHECKSUMS)),
        ..NONE
    },
    Program {
        name: "shred",
        destroys: &[
            destroys(When::Always, "deletes files", "shred(1)"),
        ],
        ..NONE
    },
    Program {
        name: "shuf",
        checked: "shuf (GNU coreutils) 9.1",
        // Not `-o`, `--random-source`, `-r` (repeats forever).
        rule: Some(Rule::Grammar(&Grammar {
            valued: "ni",
            long_valued: &["head-count", "input-range"],
            then: Some(whole::shuf),
            ..g("ez", &["echo", "zero-terminated"])
        })),
        reads_contents: true,
        ..NONE
    },
    Program {
        name: "shutdown",
        destroys: &[
            destroys(When::Always, "stops the machine", "shutdown(8)"),
        ],
        ..NONE
    },
    Program {
        name: "sleep",
        checked: "sleep (GNU coreutils) 9.1",
        rule: Some(Rule::Grammar(&Grammar {
            then: Some(whole::sleep),
            ..BASE
        })),
        ends: &[
            never(Until::Check(unbounded::sleep_too_long), "sleeps for a long time"),
            never(Until::Check(unbounded::sleep_passes_line), "sleeps longer than a minute with the line's other sleeps and loops"),
        ],
        ..NONE
    },
    Program {
        name: "slogin",
        checked: "OpenSSH_9.2p1 Debian-2+deb12u6",
        runs_arguments: Some(When::Always),
        ..NONE
    },
    Program {
        name: "slsh",
        capabilities: &[
            row(Always, RunsCode, "GTFOBins slsh: shell"),
        ],
        ..NONE
    },
    Program {
        name: "smbclient",
        capabilities: &[
            row(Always,
        Transfers,
        "GTFOBins smbclient: shell, upload, download"),
        ],
        ..NONE
    },
    Program {
        name: "snap",
        capabilities: &[
            row(Always, HostState, "GTFOBins snap: command"),
        ],
        destroys: &[
            PACKAGE_REMOVAL,
        ],
        ..NONE
    },
    Program {
        name: "socat",
        capabilities: &[
            row(Always,
        Socket,
        "GTFOBins socat: reverse-shell, bind-shell, upload, download"),
        ],
        destroys: &[
            destroys(When::Any(&[When::Word(&["-e", "-c"]), When::Prefix(&["--exec", "--sh-exec"]), When::PrefixAnyCase(&["exec:", "system:"])]), "hands a shell to the other end of a connection", "GTFOBins socat: reverse shell"),
        ],
        ..NONE
    },
    Program {
        name: "socket",
        capabilities: &[
            row(Always,
        Socket,
        "GTFOBins socket: bind-shell, reverse-shell"),
        ],
        ..NONE
    },
    Program {
        name: "sort",
        checked: "sort (GNU coreutils) 9.1",
        // Not `-o`, `--compress-program`, `-T` (temporary files in a chosen
        // directory), `--random-source`, `--files0-from`.
        rule: Some(Rule::Grammar(&Grammar {
            valued: "tkS",
            long_valued: &[
                "field-separator",
                "key",
                "buffer-size",
                "sort",
                "parallel",
                "batch-size",
            ],
            long_optional: &["check"],
            operands: Kind::Path,
            ..g(
                "bdfgiMhnRrVcCsumz",
                &[
                    "ignore-leading-blanks",
                    "dictionary-order",
                    "ignore-case",
                    "general-numeric-sort",
                    "ignore-nonprinting",
                    "month-sort",
                    "human-numeric-sort",
                    "numeric-sort",
                    "random-sort",
                    "reverse",
                    "version-sort",
                    "stable",
                    "unique",
                    "merge",
                    "zero-terminated",
                    "debug",
                ],
            )
        })),
        reads_contents: true,
        capabilities: &[
            // `-o FILE`, bundled (`-ro`) or any prefix of `--output`
            // (`--o=notes.txt` replaced it, coreutils 9.1 run here).
            row(Short('o'), Overwrites, "sort(1) --output"),
            row(LongPrefix("--output", 3), Overwrites, "sort(1) --output"),
            // The compressor runs on every temporary file: `sh` there runs
            // the sorted file's text as a script (run here).
            row(LongPrefix("--compress-program", 4), RunsCode, "sort(1) --compress-program"),
        ],
        destroys: &[
            destroys(When::Check(programs::sort_writes), "overwrites the file it is given", "sort(1) -o"),
        ],
        ..NONE
    },
    Program {
        name: "sqlcmd",
        destroys: &[
            DATABASE_STATEMENT,
        ],
        ..NONE
    },
    Program {
        name: "sqlite3",
        checked: "3.40.1",
        capabilities: &[
            row(Contains("-cmd"),
        RunsCode,
        "GTFOBins sqlite3: file-write"),
        ],
        destroys: &[
            DATABASE_STATEMENT,
        ],
        ..NONE
    },
    Program {
        name: "sqlmap",
        capabilities: &[
            row(Always, RunsCode, "GTFOBins sqlmap: inherit"),
        ],
        ..NONE
    },
    Program {
        name: "srm",
        destroys: &[
            destroys(When::Always, "deletes files", "srm(1)"),
        ],
        ..NONE
    },
    Program {
        name: "ss",
        checked: "ss utility, iproute2-6.1.0",
        // Not `-K` (kills), `-D` (dumps to a file), `-E` (never ends), `-F`
        // (reads a filter file), `-N` (another namespace).
        // Not `-r`/`--resolve`: iproute2 6.1's ss then asks the resolver for
        // the name of every address it lists and rpcbind for port names
        // (the command oracle's declared-forms run saw it connect to
        // /var/run/rpcbind.sock), hosts the line does not name.
        rule: Some(Rule::Grammar(&Grammar {
            valued: "fA",
            long_valued: &["family", "query"],
            ..g(
                "antulpmeoisxw46HO0Zz",
                &[
                    "all",
                    "numeric",
                    "tcp",
                    "udp",
                    "listening",
                    "processes",
                    "memory",
                    "extended",
                    "options",
                    "info",
                    "summary",
                    "unix",
                    "raw",
                    "ipv4",
                    "ipv6",
                    "no-header",
                    "oneline",
                    "threads",
                ],
            )
        })),
        capabilities: &[
            // `-D FILE` replaces FILE with raw socket data (run here:
            // `ss -D notes.txt` and `ss --di=x`), `-K` closes sockets.
            row(Short('D'), Overwrites, "ss(8) -D, --diag=FILE"),
            row(LongPrefix("--diag", 4), Overwrites, "ss(8) -D, --diag=FILE"),
            row(Short('K'), HostState, "ss(8) -K, --kill"),
            row(LongPrefix("--kill", 4), HostState, "ss(8) -K, --kill"),
        ],
        reaches: Some(Reach::Parsed(whole::ss_names)),
        ..NONE
    },
    Program {
        name: "ssh",
        checked: "OpenSSH_9.2p1 Debian-2+deb12u6",
        capabilities: &[
            row(Always,
        RunsCode,
        "GTFOBins ssh: shell, upload, download"),
        ],
        runs_arguments: Some(When::Always),
        ..NONE
    },
    Program {
        name: "ssh-copy-id",
        checked: "Debian openssh-client 1:9.2p1-2+deb12u6",
        capabilities: &[
            row(Always,
        Persistence,
        "GTFOBins ssh-copy-id: file-write (authorized_keys)"),
        ],
        ..NONE
    },
    Program {
        name: "ssh-keygen",
        checked: "Debian openssh-client 1:9.2p1-2+deb12u6",
        capabilities: &[
            row(Opt("-D"),
        LoadsLibrary,
        "GTFOBins ssh-keygen: library-load"),
        ],
        ..NONE
    },
    Program {
        name: "sshfs",
        capabilities: &[
            row(Always,
        Transfers,
        "GTFOBins sshfs: upload, download, command"),
        ],
        ..NONE
    },
    Program {
        name: "sshuttle",
        capabilities: &[
            row(Always, HostState, "GTFOBins sshuttle: shell"),
        ],
        ..NONE
    },
    Program {
        name: "start-stop-daemon",
        checked: "start-stop-daemon 1.21.22 for Debian",
        capabilities: &[
            row(Always,
        RunsCode,
        "GTFOBins start-stop-daemon: shell"),
        ],
        ..NONE
    },
    Program {
        name: "stat",
        checked: "stat (GNU coreutils) 9.1",
        // BSD `stat -f` takes a format and GNU `-f` is a flag; `-t` differs too.
        rule: Some(Rule::Grammar(&Grammar {
            tolerant: true,
            valued: "c",
            long_valued: &["format", "printf"],
            ..g("L", &["dereference", "terse"])
        })),
        ..NONE
    },
    Program {
        name: "stdbuf",
        checked: "stdbuf (GNU coreutils) 9.1",
        wrapper: true,
        ..NONE
    },
    Program {
        name: "strace",
        checked: "strace 6.1",
        wrapper: true,
        ..NONE
    },
    Program {
        name: "strings",
        checked: "GNU strings (GNU Binutils for Debian) 2.40",
        // GNU `strings @FILE` reads options from a file: see `strings`.
        rule: Some(Rule::Grammar(&Grammar {
            valued: "nte",
            long_valued: &["bytes", "radix", "encoding", "output-separator"],
            operands: Kind::Path,
            then: Some(whole::strings),
            ..g(
                "adfw",
                &["all", "data", "print-file-name", "include-all-whitespace"],
            )
        })),
        reads_contents: true,
        ..NONE
    },
    Program {
        name: "su",
        checked: "su from util-linux 2.38.1",
        runs_arguments: Some(When::Always),
        destroys: &[
            destroys(When::Always, "runs a command as another user", "su(1)"),
        ],
        ..NONE
    },
    Program {
        name: "sudo",
        destroys: &[
            destroys(When::Always, "runs a command as another user", "sudo(8)"),
        ],
        ..NONE
    },
    Program {
        name: "sv",
        destroys: &[
            destroys(When::Word(&["stop", "kill", "down", "zap", "force-stop"]), "stops services", "sv(8)"),
        ],
        ..NONE
    },
    Program {
        name: "swapoff",
        checked: "swapoff from util-linux 2.38.1",
        capabilities: &[
            row(Always, HostState, "swapoff(8)"),
        ],
        destroys: &[
            destroys(When::Arguments, "detaches storage", "swapoff(8)"),
        ],
        ..NONE
    },
    Program {
        name: "swapon",
        checked: "swapon from util-linux 2.38.1",
        capabilities: &[
            row(Always, HostState, "swapon(8)"),
        ],
        ..NONE
    },
    Program {
        name: "swift",
        capabilities: &[
            row(Word("build"), RunsCode, "Swift Package Manager documentation: Package.swift is Swift code and build plug-ins run"),
            row(Word("test"), RunsCode, "Swift Package Manager documentation: Package.swift is Swift code and build plug-ins run"),
            row(Word("run"), RunsCode, "Swift Package Manager documentation: Package.swift is Swift code and build plug-ins run"),
        ],
        ..NONE
    },
    Program {
        name: "sysctl",
        checked: "sysctl from procps-ng 4.0.2",
        capabilities: &[
            row(Contains("="),
        HostState,
        "GTFOBins sysctl: command; sysctl(8) -w"),
            row(Opt("-w"), HostState, "sysctl(8)"),
            row(Opt("-p"), HostState, "sysctl(8)"),
        ],
        destroys: &[
            destroys(When::Any(&[When::Word(&["-w"]), When::Contains(&["="])]), "changes the kernel", "sysctl(8) -w"),
        ],
        ..NONE
    },
    Program {
        name: "systemctl",
        checked: "systemd 252 (252.39-1~deb12u2)",
        rule: Some(Rule::Check(tools::systemctl)),
        subcommands: forms!(tools::systemctl_forms),
        capabilities: &[
            row(NoOperand,
        RunsCode,
        "GTFOBins systemctl: inherit (pager)"),
            row(Word("start"), HostState, "systemctl(1)"),
            row(Word("restart"), HostState, "systemctl(1)"),
            row(Word("reload"), HostState, "systemctl(1)"),
            row(Word("enable"), Persistence, "systemctl(1)"),
            row(Word("link"),
        Persistence,
        "GTFOBins systemctl: shell"),
            row(Word("edit"),
        RunsCode,
        "GTFOBins systemctl: shell (SYSTEMD_EDITOR)"),
            row(Word("daemon-reload"),
        HostState,
        "systemctl(1)"),
            row(WordPrefix("set-"), HostState, "systemctl(1)"),
        ],
        destroys: &[
            destroys(When::Word(&["poweroff", "reboot", "halt", "kexec", "rescue", "emergency"]), "stops the machine", "systemctl(1)"),
            destroys(When::Word(&["stop", "disable", "mask", "kill", "isolate", "reset-failed"]), "stops or disables services", "systemctl(1)"),
        ],
        ..NONE
    },
    Program {
        name: "systemd-resolve",
        capabilities: &[
            row(Always,
        RunsCode,
        "GTFOBins systemd-resolve: inherit (pager)"),
        ],
        ..NONE
    },
    Program {
        name: "systemd-run",
        checked: "systemd 252 (252.39-1~deb12u2)",
        capabilities: &[
            row(Always,
        RunsCode,
        "GTFOBins systemd-run: shell, command"),
        ],
        ..NONE
    },
    Program {
        name: "tac",
        checked: "tac (GNU coreutils) 9.1",
        rule: Some(Rule::Grammar(&Grammar {
            valued: "s",
            long_valued: &["separator"],
            operands: Kind::Path,
            ..g("br", &["before", "regex"])
        })),
        reads_contents: true,
        ..NONE
    },
    Program {
        name: "tail",
        checked: "tail (GNU coreutils) 9.1",
        // Not `-f`/`-F`/`--follow`/`--retry`/`-s`/`--pid`: following never ends.
        // Following (`-f`, `-F`, `--follow`) only reads; `unbounded` confirms
        // it unless a short `timeout` ends it.
        rule: Some(Rule::Grammar(&Grammar {
            valued: "ncs",
            long_valued: &[
                "lines",
                "bytes",
                "sleep-interval",
                "pid",
                "max-unchanged-stats",
            ],
            operands: Kind::Path,
            number_option: true,
            then: Some(whole::tail),
            // Not BSD's `-r` (GNU tail 9.1, run here, refuses it).
            ..g(
                "qvzfF",
                &[
                    "quiet",
                    "silent",
                    "verbose",
                    "zero-terminated",
                    "follow",
                    "retry",
                ],
            )
        })),
        reads_contents: true,
        ends: &[
            never(Until::Any(&[Until::Short('f'), Until::Short('F'), Until::Long("--follow")]), "follows a file forever"),
        ],
        ..NONE
    },
    Program {
        name: "tailscale",
        capabilities: &[
            row(Always, Socket, "GTFOBins tailscale: upload"),
        ],
        ..NONE
    },
    Program {
        name: "takeown",
        destroys: &[
            destroys(When::Always, "deletes, formats or stops (a Windows command)", "Windows commands documentation: takeown"),
        ],
        ..NONE
    },
    Program {
        name: "takeown.exe",
        destroys: &[
            destroys(When::Always, "deletes, formats or stops (a Windows command)", "Windows commands documentation: takeown"),
        ],
        ..NONE
    },
    Program {
        name: "tar",
        checked: "tar (GNU tar) 1.34",
        rule: Some(Rule::Check(checks::tar)),
        subcommands: forms!(checks::tar_forms),
        reads_contents: true,
        capabilities: &[
            row(Opt("-I"),
        RunsCode,
        "GTFOBins tar: shell; tar(1) -I, --use-compress-program"),
            row(Opt("-F"), RunsCode, "tar(1) -F, --info-script"),
            row(Short('P'),
        Overwrites,
        "GTFOBins tar: file-write (absolute names)"),
        ],
        ..NONE
    },
    Program {
        name: "task",
        capabilities: &[
            row(Word("execute"), RunsCode, "GTFOBins task: shell"),
        ],
        ..NONE
    },
    Program {
        name: "taskkill",
        destroys: &[
            destroys(When::Always, "deletes, formats or stops (a Windows command)", "Windows commands documentation: taskkill"),
        ],
        ..NONE
    },
    Program {
        name: "taskkill.exe",
        destroys: &[
            destroys(When::Always, "deletes, formats or stops (a Windows command)", "Windows commands documentation: taskkill"),
        ],
        ..NONE
    },
    Program {
        name: "taskset",
        checked: "taskset from util-linux 2.38.1",
        wrapper: true,
        ..NONE
    },
    Program {
        name: "tasksh",
        capabilities: &[
            row(Always, RunsCode, "GTFOBins tasksh: shell"),
        ],
        ..NONE
    },
    Program {
        name: "tc",
        checked: "tc utility, iproute2-6.1.0, libbpf 1.1.2",
        capabilities: &[
            row(Always, HostState, "tc(8)"),
        ],
        ..NONE
    },
    Program {
        name: "tclsh",
        checked: "Tcl 8.6.13",
        interpreter: true,
        inline_code: true,
        capabilities: &[
            row(NoOperand,
        RunsCode,
        "GTFOBins tclsh: shell, library-load, reverse-shell"),
        ],
        ..NONE
    },
    Program {
        name: "tcpdump",
        capabilities: &[
            row(Always,
        RunsCode,
        "GTFOBins tcpdump: command (-z), file-write"),
        ],
        ..NONE
    },
    Program {
        name: "tdbtool",
        capabilities: &[
            row(Always, RunsCode, "GTFOBins tdbtool: shell"),
        ],
        ..NONE
    },
    Program {
        name: "tee",
        destroys: &[
            destroys(When::Check(floor::tee_overwrites), "overwrites the files it is given", "tee(1) -a"),
        ],
        ..NONE
    },
    Program {
        name: "telinit",
        destroys: &[
            destroys(When::First(&["0", "6", "1", "s", "S"]), "changes the run level", "telinit(8)"),
        ],
        ..NONE
    },
    Program {
        name: "telnet",
        capabilities: &[
            row(Always,
        Socket,
        "GTFOBins telnet: shell, reverse-shell"),
        ],
        ..NONE
    },
    Program {
        name: "terraform",
        checked: "Terraform v1.11.4",
        rule: Some(Rule::Check(|a| version("terraform", &[], a))),
        credentials: &[&["output", "-raw"], &["output", "-json"], &["show", "-json"]],
        destroys: &[
            destroys(When::Any(&[When::Word(&["destroy", "force-unlock", "-destroy", "--destroy"]), When::All(&[When::Word(&["state", "workspace", "stack"]), When::Word(&["rm", "delete", "rm-all"])])]), "destroys infrastructure", "terraform documentation: destroy, state rm"),
        ],
        ..NONE
    },
    Program {
        name: "terragrunt",
        destroys: &[
            destroys(When::Any(&[When::Word(&["destroy", "force-unlock", "-destroy", "--destroy"]), When::All(&[When::Word(&["state", "workspace", "stack"]), When::Word(&["rm", "delete", "rm-all"])])]), "destroys infrastructure", "terragrunt documentation: destroy, state rm"),
        ],
        ..NONE
    },
    Program {
        name: "test",
        checked: "Debian coreutils 9.1-1",
        rule: Some(Rule::Check(checks::test)),
        ..NONE
    },
    Program {
        name: "tftp",
        capabilities: &[
            row(Always, Transfers, "GTFOBins tftp: upload, download"),
        ],
        ..NONE
    },
    Program {
        name: "time",
        checked: "Debian time 1.9-0.2",
        wrapper: true,
        ..NONE
    },
    Program {
        name: "timedatectl",
        checked: "systemd 252 (252.39-1~deb12u2)",
        rule: Some(Rule::Check(tools::timedatectl)),
        subcommands: forms!(tools::timedatectl_forms),
        capabilities: &[
            row(Always,
        HostState,
        "GTFOBins timedatectl: inherit; timedatectl(1) set-time"),
        ],
        ..NONE
    },
    Program {
        name: "timeout",
        checked: "timeout (GNU coreutils) 9.1",
        wrapper: true,
        ends: &[
            ends(Until::Check(unbounded::timeout_counted)),
            never(Until::Always, "may run for a long time"),
        ],
        ..NONE
    },
    Program {
        name: "tmate",
        capabilities: &[
            row(Always, RunsCode, "GTFOBins tmate: shell"),
        ],
        ..NONE
    },
    Program {
        name: "tmux",
        checked: "tmux 3.3a",
        capabilities: &[
            row(Always, RunsCode, "GTFOBins tmux: shell"),
        ],
        ..NONE
    },
    Program {
        name: "tofu",
        destroys: &[
            destroys(When::Any(&[When::Word(&["destroy", "force-unlock", "-destroy", "--destroy"]), When::All(&[When::Word(&["state", "workspace", "stack"]), When::Word(&["rm", "delete", "rm-all"])])]), "destroys infrastructure", "tofu documentation: destroy, state rm"),
        ],
        ..NONE
    },
    Program {
        name: "top",
        checked: "top from procps-ng 4.0.2",
        // Only in batch mode with a count: otherwise it never ends, and keys
        // typed to it can kill or renice.
        rule: Some(Rule::Grammar(&Grammar {
            valued: "ndpuUowE",
            max_operands: 0,
            then: Some(whole::top),
            ..g("bcHiSs1", &[])
        })),
        capabilities: &[
            row(Always, RunsCode, "GTFOBins top: shell (toprc pipe)"),
        ],
        ends: &[
            never(Until::Not(&Until::Short('n')), "refreshes until stopped"),
        ],
        ..NONE
    },
    Program {
        name: "tox",
        capabilities: &[
            row(Task(&[], TASK_ASKS, &[]), RunsCode, "tox documentation: tox runs the commands of tox.ini's environments"),
        ],
        ..NONE
    },
    Program {
        name: "toybox",
        runs_arguments: Some(When::Always),
        ..NONE
    },
    Program {
        name: "tr",
        checked: "tr (GNU coreutils) 9.1",
        rule: Some(Rule::Grammar(&Grammar {
            max_operands: 2,
            ..g(
                "cCdst",
                &["complement", "delete", "squeeze-repeats", "truncate-set1"],
            )
        })),
        ..NONE
    },
    Program {
        name: "trap",
        runs_arguments: Some(When::Always),
        ..NONE
    },
    Program {
        name: "tree",
        checked: "tree v2.1.0",
        // Not `-o` (writes), `-R` (with `-H` writes a file in every
        // directory), `-H`, `--fromfile`.
        rule: Some(Rule::Grammar(&Grammar {
            valued: "LPI",
            long_valued: &["filelimit", "charset", "sort", "timefmt"],
            ..g(
                "adfilpsughDFrtvUCnAQNJX",
                &[
                    "dirsfirst",
                    "du",
                    "noreport",
                    "prune",
                    "matchdirs",
                    "ignore-case",
                    "gitignore",
                    "si",
                ],
            )
        })),
        capabilities: &[
            row(Short('o'), Overwrites, "tree(1) -o filename"),
            // `-R` with `-H` writes 00Tree.html into every directory.
            row(Short('R'), Overwrites, "tree(1) -R"),
        ],
        ends: &[
            never(Until::Check(unbounded::names_root), "walks the whole file system"),
        ],
        ..NONE
    },
    Program {
        name: "true",
        checked: "true (GNU coreutils) 9.1",
        rule: Some(Rule::Grammar(&NOTHING)),
        ..NONE
    },
    Program {
        name: "truncate",
        destroys: &[
            destroys(When::Always, "truncates files", "truncate(1)"),
        ],
        ..NONE
    },
    Program {
        name: "tsc",
        capabilities: &[
            row(WordPrefix("--outFile"),
        Overwrites,
        "GTFOBins tsc: file-write"),
        ],
        ..NONE
    },
    Program {
        name: "tshark",
        capabilities: &[
            row(Always, RunsCode, "GTFOBins tshark: inherit"),
        ],
        ..NONE
    },
    Program {
        name: "tsort",
        checked: "tsort (GNU coreutils) 9.1",
        // Prints its input reordered: a file read like `cat`.
        rule: Some(Rule::Grammar(&Grammar {
            operands: Kind::Path,
            max_operands: 1,
            ..BASE
        })),
        ..NONE
    },
    Program {
        name: "tty",
        checked: "tty (GNU coreutils) 9.1",
        rule: Some(Rule::Grammar(&Grammar {
            max_operands: 0,
            ..g("s", &["silent", "quiet"])
        })),
        prints_no_option: Some(When::Always),
        ..NONE
    },
    Program {
        name: "type",
        rule: Some(Rule::Grammar(&Grammar {
            tolerant: true,
            ..g("afpPt", &[])
        })),
        ..NONE
    },
    Program {
        name: "typeorm",
        destroys: &[
            destroys(When::Any(&[When::Contains(&["rollback", "drop", ":undo"]), When::Word(&["downgrade"])]), "drops or rolls back the database", "typeorm documentation: migrations"),
        ],
        ..NONE
    },
    Program {
        name: "ufw",
        capabilities: &[
            row(Always, HostState, "ufw(8)"),
        ],
        ..NONE
    },
    Program {
        name: "ulimit",
        rule: Some(Rule::Grammar(&Grammar {
            max_operands: 0,
            // bash 5.2's own letters (run here); not `-P`, `-T`, `-b`, `-k`
            // of other shells and platforms.
            ..g("acdefilmnqrstuvxHSRp", &[])
        })),
        ..NONE
    },
    Program {
        name: "umount",
        checked: "umount from util-linux 2.38.1",
        capabilities: &[
            row(Always, HostState, "umount(8)"),
        ],
        destroys: &[
            destroys(When::Arguments, "detaches storage", "umount(8)"),
        ],
        ..NONE
    },
    Program {
        name: "uname",
        checked: "uname (GNU coreutils) 9.1",
        rule: Some(Rule::Grammar(&Grammar {
            max_operands: 0,
            tolerant: true,
            ..g(
                "asnrvmpio",
                &[
                    "all",
                    "kernel-name",
                    "nodename",
                    "kernel-release",
                    "kernel-version",
                    "machine",
                    "processor",
                    "hardware-platform",
                    "operating-system",
                ],
            )
        })),
        prints_no_option: Some(When::Always),
        ..NONE
    },
    Program {
        name: "unbuffer",
        wrapper: true,
        ..NONE
    },
    Program {
        name: "uncompress",
        checked: "gunzip (gzip) 1.12",
        capabilities: &[
            row(OperandUnless(&["-c"]),
        Overwrites,
        "compress(1)"),
        ],
        ..NONE
    },
    Program {
        name: "unexpand",
        checked: "unexpand (GNU coreutils) 9.1",
        rule: Some(Rule::Grammar(&Grammar {
            valued: "t",
            long_valued: &["tabs"],
            operands: Kind::Path,
            ..g("a", &["all", "first-only"])
        })),
        reads_contents: true,
        ends: &[
            never(Until::Check(unbounded::expand_too_wide), "pads to a tab stop past ten thousand columns"),
        ],
        ..NONE
    },
    Program {
        name: "uniq",
        checked: "uniq (GNU coreutils) 9.1",
        // A second operand is the file `uniq` writes.
        rule: Some(Rule::Grammar(&Grammar {
            valued: "fsw",
            long_valued: &["skip-fields", "skip-chars", "check-chars"],
            long_optional: &["all-repeated", "group"],
            operands: Kind::Path,
            max_operands: 1,
            ..g(
                "cdDiuz",
                &[
                    "count",
                    "repeated",
                    "ignore-case",
                    "unique",
                    "zero-terminated",
                ],
            )
        })),
        reads_contents: true,
        destroys: &[
            destroys(When::Check(programs::uniq_writes), "overwrites the file it is given", "uniq(1) INPUT OUTPUT"),
        ],
        ..NONE
    },
    Program {
        name: "unix2dos",
        capabilities: &[
            row(Always, Overwrites, "dos2unix(1)"),
        ],
        ..NONE
    },
    Program {
        name: "unlink",
        destroys: &[
            destroys(When::Always, "deletes files", "unlink(1)"),
        ],
        ..NONE
    },
    Program {
        name: "unlzma",
        checked: "xz (XZ Utils) 5.4.1",
        capabilities: &[
            row(OperandUnless(&["-c", "--stdout", "-k", "--keep", "-t", "--test"]),
        Overwrites,
        "xz(1)"),
        ],
        ..NONE
    },
    Program {
        name: "unshare",
        checked: "unshare from util-linux 2.38.1",
        runs_arguments: Some(When::Always),
        ..NONE
    },
    Program {
        name: "unsquashfs",
        capabilities: &[
            row(Always,
        Privileges,
        "GTFOBins unsquashfs: privilege-escalation"),
        ],
        ..NONE
    },
    Program {
        name: "unxz",
        checked: "xz (XZ Utils) 5.4.1",
        capabilities: &[
            row(OperandUnless(&[
            "-c",
            "--stdout",
            "--to-stdout",
            "-k",
            "--keep",
            "-l",
            "--list",
            "-t",
            "--test",
        ]),
        Overwrites,
        "xz(1)"),
        ],
        ..NONE
    },
    Program {
        name: "unzip",
        checked: "UnZip 6.00",
        rule: Some(Rule::Check(checks::unzip)),
        reads_contents: true,
        capabilities: &[
            row(Opt("-K"),
        Privileges,
        "GTFOBins unzip: privilege-escalation (keeps set-ID bits)"),
        ],
        subcommands: forms!(checks::unzip_forms),
        ..NONE
    },
    Program {
        name: "update-alternatives",
        checked: "Debian update-alternatives version 1.21.22.",
        capabilities: &[
            row(Always,
        HostState,
        "GTFOBins update-alternatives: file-write"),
        ],
        ..NONE
    },
    Program {
        name: "uptime",
        checked: "uptime from procps-ng 4.0.2",
        rule: Some(Rule::Grammar(&Grammar {
            max_operands: 0,
            tolerant: true,
            ..g("ps", &["pretty", "since"])
        })),
        ..NONE
    },
    Program {
        name: "useradd",
        checked: "Debian passwd 1:4.13+dfsg1-1+deb12u1",
        capabilities: &[
            row(Always, Privileges, "useradd(8)"),
        ],
        ..NONE
    },
    Program {
        name: "userdel",
        destroys: &[
            destroys(When::Always, "deletes accounts", "userdel(8)"),
        ],
        ..NONE
    },
    Program {
        name: "usermod",
        checked: "Debian passwd 1:4.13+dfsg1-1+deb12u1",
        capabilities: &[
            row(Always, Privileges, "usermod(8)"),
        ],
        destroys: &[
            destroys(When::Arguments, "changes accounts or their passwords", "usermod(8)"),
        ],
        ..NONE
    },
    Program {
        name: "users",
        checked: "users (GNU coreutils) 9.1",
        rule: Some(Rule::Grammar(&USER_NAMES)),
        ..NONE
    },
    Program {
        name: "uv",
        capabilities: &[
            row(Word("run"), RunsCode, "GTFOBins uv: shell"),
            row(Word("sync"), RunsCode, "uv documentation: sync installs the project itself through its build backend"),
            row(Word("build"), RunsCode, "uv documentation: build runs the project's build backend"),
            row(LocalOperand(&["install"], PIP_VALUED), RunsCode, PIP_BUILDS),
        ],
        destroys: &[
            PACKAGE_REMOVAL,
        ],
        ..NONE
    },
    Program {
        name: "vagrant",
        capabilities: &[
            row(Always,
        RunsCode,
        "GTFOBins vagrant: inherit (the Vagrantfile is Ruby)"),
        ],
        ..NONE
    },
    Program {
        name: "varnishncsa",
        capabilities: &[
            row(Opt("-w"),
        Overwrites,
        "GTFOBins varnishncsa: file-write"),
        ],
        ..NONE
    },
    Program {
        name: "vault",
        credentials: &[&["kv", "get"], &["read"], &["print", "token"], &["token", "lookup"]],
        ..NONE
    },
    Program {
        name: "vercel",
        destroys: &[
            CLOUD_DELETE,
        ],
        ..NONE
    },
    Program {
        name: "vgreduce",
        destroys: &[
            destroys(When::Always, "removes volumes", "vgreduce(8)"),
        ],
        ..NONE
    },
    Program {
        name: "vgremove",
        destroys: &[
            destroys(When::Always, "removes volumes", "vgremove(8)"),
        ],
        ..NONE
    },
    Program {
        name: "vi",
        checked: "VIM - Vi IMproved 9.0",
        capabilities: &[
            row(Always, RunsCode, "GTFOBins vi: shell, file-write"),
        ],
        ..NONE
    },
    Program {
        name: "view",
        checked: "VIM - Vi IMproved 9.0",
        capabilities: &[
            row(Always, RunsCode, "GTFOBins vi"),
        ],
        ..NONE
    },
    Program {
        name: "vigr",
        checked: "Debian passwd 1:4.13+dfsg1-1+deb12u1",
        capabilities: &[
            row(Always, Privileges, "GTFOBins vigr: inherit"),
        ],
        ..NONE
    },
    Program {
        name: "vim",
        checked: "VIM - Vi IMproved 9.0",
        capabilities: &[
            row(Always, RunsCode, "GTFOBins vim: shell, inherit"),
        ],
        ..NONE
    },
    Program {
        name: "vimdiff",
        checked: "VIM - Vi IMproved 9.0",
        capabilities: &[
            row(Always, RunsCode, "GTFOBins vi"),
        ],
        ..NONE
    },
    Program {
        name: "vipw",
        checked: "Debian passwd 1:4.13+dfsg1-1+deb12u1",
        capabilities: &[
            row(Always, Privileges, "GTFOBins vipw: inherit"),
        ],
        ..NONE
    },
    Program {
        name: "virsh",
        capabilities: &[
            row(Always,
        HostState,
        "GTFOBins virsh: command, file-write"),
        ],
        ..NONE
    },
    Program {
        name: "visudo",
        capabilities: &[
            row(Always, Privileges, "visudo(8)"),
        ],
        ..NONE
    },
    Program {
        name: "vmstat",
        checked: "vmstat from procps-ng 4.0.2",
        rule: Some(Rule::Grammar(&Grammar {
            valued: "S",
            long_valued: &["unit"],
            max_operands: 2,
            then: Some(whole::counted_operands),
            ..g(
                "adDmsftwn",
                &[
                    "active",
                    "disk",
                    "disk-sum",
                    "slabs",
                    "stats",
                    "forks",
                    "timestamp",
                    "wide",
                ],
            )
        })),
        ends: &[
            never(Until::Check(unbounded::samples_forever), "samples until stopped"),
        ],
        ..NONE
    },
    Program {
        name: "volatility",
        capabilities: &[
            row(Always,
        RunsCode,
        "GTFOBins volatility: inherit"),
        ],
        ..NONE
    },
    Program {
        name: "vssadmin",
        destroys: &[
            destroys(When::Always, "deletes, formats or stops (a Windows command)", "Windows commands documentation: vssadmin"),
        ],
        ..NONE
    },
    Program {
        name: "vssadmin.exe",
        destroys: &[
            destroys(When::Always, "deletes, formats or stops (a Windows command)", "Windows commands documentation: vssadmin"),
        ],
        ..NONE
    },
    Program {
        name: "w",
        checked: "w from procps-ng 4.0.2",
        rule: Some(Rule::Grammar(&Grammar {
            max_operands: 1,
            ..g("hsiu", &["no-header", "short", "ip-addr"])
        })),
        ..NONE
    },
    Program {
        name: "watch",
        checked: "watch from procps-ng 4.0.2",
        wrapper: true,
        ends: &[
            never(Until::Always, "repeats a command until it is stopped"),
        ],
        ..NONE
    },
    Program {
        name: "wbadmin",
        destroys: &[
            destroys(When::Always, "deletes, formats or stops (a Windows command)", "Windows commands documentation: wbadmin"),
        ],
        ..NONE
    },
    Program {
        name: "wbadmin.exe",
        destroys: &[
            destroys(When::Always, "deletes, formats or stops (a Windows command)", "Windows commands documentation: wbadmin"),
        ],
        ..NONE
    },
    Program {
        name: "wc",
        checked: "wc (GNU coreutils) 9.1",
        // Not `--files0-from`: it reads a list of names and echoes them.
        // Tolerant: its one list-reading option (`--files0-from=F`) can come
        // from a glob only as a file of that directory matching the glob.
        rule: Some(Rule::Grammar(&Grammar {
            operands: Kind::Path,
            tolerant: true,
            ..g(
                "clwmL",
                &["bytes", "chars", "lines", "words", "max-line-length"],
            )
        })),
        prints_no_option: Some(When::Always),
        ..NONE
    },
    Program {
        name: "wg-quick",
        capabilities: &[
            row(Always, HostState, "GTFOBins wg-quick: shell"),
        ],
        ..NONE
    },
    Program {
        name: "wget",
        capabilities: &[
            // Uploads (GTFOBins wget: upload). getopt_long takes a unique
            // prefix: `--post-f` and `--body-f` (wget 1.21 run here).
            row(LongPrefix("--post-file", 8), Transfers, "GTFOBins wget: upload; wget(1) --post-file"),
            row(LongPrefix("--body-file", 8), Transfers, "wget(1) --body-file"),
        ],
        client: Some(WGET_CLIENT),
        ..NONE
    },
    Program {
        name: "wget2",
        // Every operand may be a URL (wget2(1)).
        client: Some(Client::Options(&[])),
        ..NONE
    },
    Program {
        name: "whereis",
        checked: "whereis from util-linux 2.38.1",
        rule: Some(Rule::Grammar(&Grammar {
            tolerant: true,
            ..g("bmsul", &[])
        })),
        ..NONE
    },
    Program {
        name: "which",
        checked: "Debian debianutils 5.7-0.5~deb12u1",
        rule: Some(Rule::Grammar(&Grammar {
            tolerant: true,
            // Not BSD's `-s` (debianutils which, run here, refuses it).
            ..g("a", &["all"])
        })),
        prints_no_option: Some(When::Always),
        ..NONE
    },
    Program {
        name: "who",
        checked: "who (GNU coreutils) 9.1",
        // An operand is a utmp file to read.
        rule: Some(Rule::Grammar(&Grammar {
            operands: Kind::Path,
            max_operands: 2,
            ..g(
                "abdHlmpqrstTu",
                &[
                    "all", "boot", "dead", "heading", "login", "process", "count", "runlevel",
                    "short", "time", "mesg", "users",
                ],
            )
        })),
        ..NONE
    },
    Program {
        name: "whoami",
        checked: "whoami (GNU coreutils) 9.1",
        rule: Some(Rule::Grammar(&NO_OPERANDS)),
        prints_no_option: Some(When::Always),
        ..NONE
    },
    Program {
        name: "whois",
        capabilities: &[
            row(Opt("-h"),
        Transfers,
        "GTFOBins whois: upload, download"),
        ],
        ..NONE
    },
    Program {
        name: "winget",
        destroys: &[
            PACKAGE_REMOVAL,
        ],
        ..NONE
    },
    Program {
        name: "wipe",
        destroys: &[
            destroys(When::Always, "deletes files", "wipe(1)"),
        ],
        ..NONE
    },
    Program {
        name: "wipefs",
        destroys: &[
            destroys(When::Always, "overwrites disks", "wipefs(8)"),
        ],
        ..NONE
    },
    Program {
        name: "wireshark",
        capabilities: &[
            row(Always,
        RunsCode,
        "GTFOBins wireshark: inherit, file-write"),
        ],
        ..NONE
    },
    Program {
        name: "wish",
        checked: "Debian tk8.6 8.6.13-2",
        capabilities: &[
            row(NoOperand, RunsCode, "GTFOBins wish: inherit"),
        ],
        ..NONE
    },
    Program {
        name: "xargs",
        checked: "xargs (GNU findutils) 4.9.0",
        wrapper: true,
        ..NONE
    },
    Program {
        name: "xdg-user-dir",
        checked: "Debian xdg-user-dirs 0.18-1",
        capabilities: &[
            row(Always,
        RunsCode,
        "GTFOBins xdg-user-dir: shell"),
        ],
        ..NONE
    },
    Program {
        name: "xdotool",
        capabilities: &[
            row(Always, RunsCode, "GTFOBins xdotool: shell"),
        ],
        ..NONE
    },
    Program {
        name: "xh",
        // httpie's request items: `field@FILE` sends a file (httpie documentation:
        // request items).
        client: Some(Client::Items),
        ..NONE
    },
    Program {
        name: "xhs",
        // httpie's request items: `field@FILE` sends a file (httpie documentation:
        // request items).
        client: Some(Client::Items),
        ..NONE
    },
    Program {
        name: "xxd",
        checked: "xxd 2022-01-14 by Juergen Weigert et al.",
        rule: Some(Rule::Check(checks::xxd)),
        subcommands: forms!(checks::xxd_forms),
        reads_contents: true,
        capabilities: &[
            row(Short('r'), Overwrites, "GTFOBins xxd: file-write"),
            // A second operand is the output file, replaced (run here).
            row(Operands(2, &["-c", "-g", "-l", "-o", "-s", "-n", "-C", "-cols", "-groupsize", "-len", "-offset", "-seek", "-name"]),
        Overwrites,
        "xxd(1): [infile [outfile]]"),
        ],
        ..NONE
    },
    Program {
        name: "xz",
        checked: "xz (XZ Utils) 5.4.1",
        rule: Some(Rule::Grammar(&Grammar {
            valued: "T",
            long_valued: &["threads", "format"],
            operands: Kind::Path,
            then: Some(whole::to_stdout),
            ..g(
                "cdltvqfe0123456789",
                &[
                    "stdout",
                    "to-stdout",
                    "decompress",
                    "uncompress",
                    "list",
                    "test",
                    "verbose",
                    "quiet",
                    "extreme",
                ],
            )
        })),
        reads_contents: true,
        capabilities: &[
            row(OperandUnless(&[
            "-c",
            "--stdout",
            "--to-stdout",
            "-k",
            "--keep",
            "-l",
            "--list",
            "-t",
            "--test",
        ]),
        Overwrites,
        "xz(1): replaces each file"),
        ],
        ..NONE
    },
    Program {
        name: "xzcat",
        checked: "xz (XZ Utils) 5.4.1",
        rule: Some(Rule::Grammar(&CAT_COMPRESSED)),
        reads_contents: true,
        ..NONE
    },
    Program {
        name: "yarn",
        capabilities: &[
            row(Word("exec"), RunsCode, "GTFOBins yarn: shell"),
            row(Word("run"),
        RunsCode,
        "GTFOBins yarn: shell (scripts)"),
            row(Word("dlx"),
        RunsCode,
        "yarn documentation: dlx fetches and runs a package"),
            row(Task(&[
                "info", "list", "why", "outdated", "owner", "licenses", "help", "config", "cache",
                "bin", "dir", "login", "logout", "audit", "versions", "npm", "explain",
                "constraints", "plugin", "search", "remove", "unlink", "tag", "team",
            ], TASK_ASKS, &["--cwd", "--modules-folder", "--cache-folder", "--mutex", "--network-timeout", "--registry"]),
        RunsCode,
        "yarn documentation: yarn with no command installs and runs the project's lifecycle scripts; yarn <script> runs a package.json script"),
        ],
        destroys: &[
            PACKAGE_REMOVAL,
        ],
        ..NONE
    },
    Program {
        name: "yarnpkg",
        capabilities: &[
            row(Word("exec"), RunsCode, "GTFOBins yarn: shell"),
            row(Word("run"),
        RunsCode,
        "GTFOBins yarn: shell (scripts)"),
            row(Word("dlx"),
        RunsCode,
        "yarn documentation: dlx fetches and runs a package"),
            row(Task(&[
                "info", "list", "why", "outdated", "owner", "licenses", "help", "config", "cache",
                "bin", "dir", "login", "logout", "audit", "versions", "npm", "explain",
                "constraints", "plugin", "search", "remove", "unlink", "tag", "team",
            ], TASK_ASKS, &["--cwd", "--modules-folder", "--cache-folder", "--mutex", "--network-timeout", "--registry"]),
        RunsCode,
        "yarn documentation: yarn with no command installs and runs the project's lifecycle scripts; yarn <script> runs a package.json script"),
        ],
        destroys: &[
            PACKAGE_REMOVAL,
        ],
        ..NONE
    },
    Program {
        name: "yes",
        ends: &[
            never(Until::Unlimited, "prints forever"),
        ],
        ..NONE
    },
    Program {
        name: "yq",
        checked: "yq 0.0.0",
        rule: Some(Rule::Check(scripts::yq)),
        subcommands: forms!(scripts::yq_grammar),
        reads_contents: true,
        ..NONE
    },
    Program {
        name: "yt-dlp",
        capabilities: &[
            row(Always, RunsCode, "GTFOBins yt-dlp: shell"),
        ],
        ..NONE
    },
    Program {
        name: "yum",
        capabilities: &[
            row(Always, HostState, "GTFOBins yum: command, download"),
        ],
        destroys: &[
            PACKAGE_REMOVAL,
        ],
        ..NONE
    },
    Program {
        name: "zathura",
        capabilities: &[
            row(Always, RunsCode, "GTFOBins zathura: shell"),
        ],
        ..NONE
    },
    Program {
        name: "zcat",
        checked: "zcat (gzip) 1.12",
        rule: Some(Rule::Grammar(&CAT_COMPRESSED)),
        reads_contents: true,
        ..NONE
    },
    Program {
        name: "zegrep",
        checked: "zgrep (gzip) 1.12",
        rule: Some(Rule::Grammar(&ZGREPS)),
        reads_contents: true,
        ..NONE
    },
    Program {
        name: "zfgrep",
        checked: "zgrep (gzip) 1.12",
        rule: Some(Rule::Grammar(&ZGREPS)),
        reads_contents: true,
        ..NONE
    },
    Program {
        name: "zfs",
        destroys: &[
            destroys(When::Word(&["destroy", "rollback", "labelclear"]), "destroys a pool, a file system or its snapshots", "zfs(8)"),
        ],
        ..NONE
    },
    Program {
        name: "zgrep",
        checked: "zgrep (gzip) 1.12",
        rule: Some(Rule::Grammar(&ZGREPS)),
        reads_contents: true,
        ..NONE
    },
    Program {
        name: "zic",
        checked: "zic (Debian GLIBC 2.36-9+deb12u14) 2.36",
        capabilities: &[
            row(Always, RunsCode, "GTFOBins zic: command"),
        ],
        ..NONE
    },
    Program {
        name: "zig",
        capabilities: &[
            row(Word("build"), RunsCode, "Zig documentation: zig build compiles and runs build.zig"),
        ],
        ..NONE
    },
    Program {
        name: "zip",
        checked: "Zip 3.0",
        capabilities: &[
            row(Opt("-m"), Overwrites, "zip(1) --move"),
            row(Opt("--move"), Overwrites, "zip(1)"),
            row(Opt("-TT"), RunsCode, "GTFOBins zip: shell"),
        ],
        ..NONE
    },
    Program {
        name: "zpool",
        destroys: &[
            destroys(When::Word(&["destroy", "rollback", "labelclear"]), "destroys a pool, a file system or its snapshots", "zpool(8)"),
        ],
        ..NONE
    },
    Program {
        name: "zsh",
        shell: true,
        ..NONE
    },
    Program {
        name: "zstd",
        checked: "*** Zstandard CLI (64-bit) v1.5.4, by Yann Collet ***",
        // Not `-o` (writes), `--rm`, `--patch-from`, `--train`, `-D`.
        rule: Some(Rule::Grammar(&Grammar {
            valued: "T",
            operands: Kind::Path,
            then: Some(whole::to_stdout),
            ..g(
                "cdltvqf0123456789",
                &[
                    "stdout",
                    "decompress",
                    "uncompress",
                    "list",
                    "test",
                    "verbose",
                    "quiet",
                ],
            )
        })),
        reads_contents: true,
        capabilities: &[
            row(Opt("--rm"), Overwrites, "zstd(1) --rm"),
        ],
        ..NONE
    },
    Program {
        name: "zstdcat",
        checked: "1.5.4",
        rule: Some(Rule::Grammar(&CAT_COMPRESSED)),
        reads_contents: true,
        ..NONE
    },
    Program {
        name: "zypper",
        capabilities: &[
            row(Always, HostState, "GTFOBins zypper: shell"),
        ],
        destroys: &[
            PACKAGE_REMOVAL,
        ],
        ..NONE
    },
];

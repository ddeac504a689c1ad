//! What a program can do beyond what its line names: the capability column
//! of the program table. A model's `low` never passes these under guarded
//! trust, whatever the program is on no list: the floor reads them on every
//! command the read-only grammar did not prove (a proven read is allowed
//! anyway, so a capability never turns a proof into a refusal).
//!
//! The rows are per program and form, gathered from GTFOBins (the public
//! catalogue of what Unix programs can be made to do; its `_gtfobins/<name>`
//! files, snapshot 7382261ef936e35896ba70e7a6b833352ffb9a22, name the
//! function — shell, command, file-write, upload, download, reverse-shell,
//! bind-shell, library-load, privilege-escalation — with a code snippet) and
//! from the programs' own manuals; each row cites its source. Rows for `*`
//! hold for any program: options whose name says they run a command, and
//! environment variables that make a program run code or load a library.
//!
//! Matching over-matches on purpose (it only asks a person); it never allows.

use super::names::{base_name, is_assignment, is_wrapper};

/// What a form lets the line do.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Capability {
    /// Runs code the line does not name: an escape, an `exec=` option, a
    /// pager's or editor's command, a build file, package scripts.
    RunsCode,
    /// Loads a library or plug-in into the process.
    LoadsLibrary,
    /// Sends files to, or fetches files from, another machine.
    Transfers,
    /// Opens a shell or a listener on a network socket.
    Socket,
    /// Changes privileges, owners, capabilities or accounts.
    Privileges,
    /// Changes the host: clock, network, mounts, kernel, services, packages.
    HostState,
    /// Removes or overwrites an existing file.
    Overwrites,
    /// Writes a place that runs code later (start-up files, cron, hooks).
    Persistence,
}

impl Capability {
    /// The message fragment, after the program's name.
    pub fn message(self) -> &'static str {
        match self {
            Capability::RunsCode => "runs code the line does not name",
            Capability::LoadsLibrary => "loads a library or plug-in",
            Capability::Transfers => "sends or fetches files over the network",
            Capability::Socket => "opens a shell or a listener on a network socket",
            Capability::Privileges => "changes privileges, owners or accounts",
            Capability::HostState => {
                "changes the host's state (clock, network, mounts, kernel, services, packages)"
            }
            Capability::Overwrites => "removes or overwrites an existing file",
            Capability::Persistence => "writes a place that runs code later",
        }
    }
}

/// How a row matches a command's words (the words after the program).
#[derive(Clone, Copy, Debug)]
pub enum Form {
    /// Any use of the program.
    Always,
    /// No argument at all (an interactive session: a REPL, a client).
    NoOperand,
    /// An option, as `-o`, `--opt`, `--opt=value`, or a short option with its
    /// value attached (`-ovalue`); compared case-sensitively.
    Option(&'static str),
    /// A GNU long option or any abbreviation of it at least `min` bytes long
    /// (`--i` is `--in-place` to GNU sed: getopt_long takes unique prefixes).
    LongPrefix(&'static str, usize),
    /// A short option letter, alone or bundled with others (`-i`, `-ni`).
    Short(char),
    /// A word among the operands (a subcommand or an action).
    Word(&'static str),
    /// A word that starts with this text (`set-`, `exec:`, `kernel.`).
    WordPrefix(&'static str),
    /// A word that holds this text (`=`, `ProxyCommand`).
    Contains(&'static str),
    /// At least this many operands that are neither options, values of the
    /// listed options, nor start with `+` (`date 0101…` sets the clock,
    /// `date +%F` and `date -d 2024-01-01` print; `hostname NAME`).
    Operands(usize, &'static [&'static str]),
    /// A mode that sets the set-user-ID or set-group-ID bit (`u+s`, `4755`).
    SetIdMode,
    /// Code given to an interpreter (`-e`, `-c`, a script operand) that holds
    /// this text; read only when the program runs code it is given.
    Code(&'static str),
    /// An operand, unless one of these options is present (`gzip FILE`
    /// replaces FILE with FILE.gz unless `-c`/`-k`/`-l`/`-t`…).
    OperandUnless(&'static [&'static str]),
}

/// One row of the capability column.
#[derive(Clone, Copy, Debug)]
pub struct Row {
    /// The program (its base name), or `*` for any.
    pub program: &'static str,
    /// The form.
    pub form: Form,
    /// What it can do.
    pub capability: Capability,
    /// Where the row comes from: a GTFOBins entry (`GTFOBins tar: shell`)
    /// or a manual page section.
    pub source: &'static str,
}

const fn row(
    program: &'static str,
    form: Form,
    capability: Capability,
    source: &'static str,
) -> Row {
    Row {
        program,
        form,
        capability,
        source,
    }
}

use Capability::{
    HostState, LoadsLibrary, Overwrites, Persistence, Privileges, RunsCode, Socket, Transfers,
};
use Form::{
    Always, Code, Contains, LongPrefix, NoOperand, OperandUnless, Operands, Option as Opt,
    SetIdMode, Short, Word, WordPrefix,
};

/// The capability column. Sources: GTFOBins `_gtfobins/<program>` (function
/// named), and the manuals named.
pub const ROWS: &[Row] = &[
    // Options whose name says they run a command, for any program (GTFOBins
    // tar, rsync, zip, git, restic, certbot, aria2c, openvpn, split, fzf,
    // yt-dlp, scrot, man, pip, mail, dnsmasq, gcc, latexmk: shell/command).
    row(
        "*",
        WordPrefix("--checkpoint-action"),
        RunsCode,
        "GTFOBins tar: shell; tar(1) --checkpoint-action=exec=",
    ),
    row(
        "*",
        WordPrefix("--to-command"),
        RunsCode,
        "GTFOBins tar: shell; tar(1)",
    ),
    row(
        "*",
        WordPrefix("--use-compress-program"),
        RunsCode,
        "GTFOBins tar: shell; tar(1) -I",
    ),
    row(
        "*",
        WordPrefix("--rsh-command"),
        RunsCode,
        "GTFOBins tar, cpio: shell, upload; tar(1)",
    ),
    row(
        "*",
        WordPrefix("--info-script"),
        RunsCode,
        "tar(1) -F, --info-script",
    ),
    row("*", WordPrefix("--new-volume-script"), RunsCode, "tar(1)"),
    row(
        "*",
        WordPrefix("--upload-pack"),
        RunsCode,
        "git-ls-remote(1), git-clone(1) --upload-pack",
    ),
    row(
        "*",
        WordPrefix("--receive-pack"),
        RunsCode,
        "git-push(1) --receive-pack",
    ),
    row(
        "*",
        WordPrefix("--exec-path"),
        RunsCode,
        "GTFOBins git: shell; git(1) --exec-path",
    ),
    row(
        "*",
        WordPrefix("--exec"),
        RunsCode,
        "GTFOBins mail, yt-dlp: shell; rebase --exec",
    ),
    row("*", WordPrefix("-exec"), RunsCode, "find(1) -exec"),
    row("*", WordPrefix("-execdir"), RunsCode, "find(1) -execdir"),
    row("*", WordPrefix("-ok"), RunsCode, "find(1) -ok"),
    row(
        "*",
        WordPrefix("--eval"),
        RunsCode,
        "GTFOBins make, rpm, emacs, octave: shell",
    ),
    row(
        "*",
        WordPrefix("--rsh"),
        RunsCode,
        "GTFOBins rsync, borg: shell; rsync(1) -e",
    ),
    row(
        "*",
        WordPrefix("--rsync-path"),
        RunsCode,
        "rsync(1) --rsync-path",
    ),
    row(
        "*",
        WordPrefix("--ssh-cmd"),
        RunsCode,
        "GTFOBins sshuttle: shell",
    ),
    row(
        "*",
        WordPrefix("--ssh-command"),
        RunsCode,
        "GTFOBins sshfs: command",
    ),
    row(
        "*",
        Contains("ssh_command="),
        RunsCode,
        "GTFOBins sshfs: command; sshfs(1) -o ssh_command",
    ),
    row(
        "*",
        Contains("ProxyCommand"),
        RunsCode,
        "GTFOBins ssh, scp, check_by_ssh: shell; ssh_config(5)",
    ),
    row(
        "*",
        Contains("LocalCommand"),
        RunsCode,
        "GTFOBins ssh: shell; ssh_config(5)",
    ),
    row(
        "*",
        Contains("KnownHostsCommand"),
        RunsCode,
        "ssh_config(5)",
    ),
    row(
        "*",
        WordPrefix("--password-command"),
        RunsCode,
        "GTFOBins restic: shell, command",
    ),
    row(
        "*",
        WordPrefix("--pre-hook"),
        RunsCode,
        "GTFOBins certbot: shell",
    ),
    row("*", WordPrefix("--post-hook"), RunsCode, "certbot(1)"),
    row("*", WordPrefix("--deploy-hook"), RunsCode, "certbot(1)"),
    row(
        "*",
        WordPrefix("--manual-auth-hook"),
        RunsCode,
        "certbot(1)",
    ),
    row(
        "*",
        WordPrefix("--on-download"),
        RunsCode,
        "GTFOBins aria2c: command; aria2c(1) --on-download-complete",
    ),
    row("*", WordPrefix("--on-bt-download"), RunsCode, "aria2c(1)"),
    row(
        "*",
        WordPrefix("--conf-script"),
        RunsCode,
        "GTFOBins dnsmasq: command",
    ),
    row(
        "*",
        WordPrefix("--filter="),
        RunsCode,
        "GTFOBins split: shell; split(1) --filter",
    ),
    row(
        "*",
        WordPrefix("--pager"),
        RunsCode,
        "man(1) -P, --pager; git(1)",
    ),
    row("*", WordPrefix("--editor"), RunsCode, "GTFOBins pip: shell"),
    row(
        "*",
        WordPrefix("--shell-escape"),
        RunsCode,
        "GTFOBins tex, latex, pdflatex: shell; tex(1) \\write18",
    ),
    row(
        "*",
        WordPrefix("-shell-escape"),
        RunsCode,
        "GTFOBins lualatex, luatex: inherit",
    ),
    row(
        "*",
        WordPrefix("--script-security"),
        RunsCode,
        "GTFOBins openvpn: shell; openvpn(8) --up",
    ),
    row(
        "*",
        WordPrefix("--use-askpass"),
        RunsCode,
        "GTFOBins wget: shell",
    ),
    row(
        "*",
        WordPrefix("--grep-bin"),
        RunsCode,
        "GTFOBins check_ssl_cert: shell",
    ),
    row(
        "*",
        WordPrefix("-wrapper"),
        RunsCode,
        "GTFOBins gcc: shell; gcc(1) -wrapper",
    ),
    row(
        "*",
        WordPrefix("--unzip-command"),
        RunsCode,
        "zip(1) -TT, --unzip-command",
    ),
    row(
        "*",
        WordPrefix("--interactive"),
        RunsCode,
        "GTFOBins nmap, jtag: shell",
    ),
    row(
        "*",
        Contains("execute("),
        RunsCode,
        "GTFOBins fzf: shell; fzf(1) --bind execute",
    ),
    row(
        "*",
        WordPrefix("--listen"),
        Socket,
        "GTFOBins fzf: command; fzf(1) --listen",
    ),
    row(
        "*",
        WordPrefix("--batch-interpreter"),
        RunsCode,
        "GTFOBins gimp: inherit",
    ),
    row(
        "*",
        WordPrefix("--custom-dir"),
        RunsCode,
        "GTFOBins facter: inherit",
    ),
    row(
        "*",
        WordPrefix("--script="),
        RunsCode,
        "GTFOBins nmap: inherit; nmap(1) --script",
    ),
    row(
        "*",
        WordPrefix("-Xlua_script"),
        RunsCode,
        "GTFOBins tshark: inherit",
    ),
    row(
        "*",
        WordPrefix("--default-auth"),
        LoadsLibrary,
        "GTFOBins mysql: library-load",
    ),
    row(
        "*",
        WordPrefix("--plugin-dir"),
        LoadsLibrary,
        "mysql(1) --plugin-dir",
    ),
    row(
        "*",
        WordPrefix("--engine"),
        LoadsLibrary,
        "GTFOBins curl: library-load; curl(1) --engine",
    ),
    row(
        "*",
        WordPrefix("-engine"),
        LoadsLibrary,
        "GTFOBins openssl: library-load; openssl(1)",
    ),
    row(
        "*",
        Contains("ladspa="),
        LoadsLibrary,
        "GTFOBins ffmpeg: library-load",
    ),
    row(
        "*",
        Contains("load_module"),
        LoadsLibrary,
        "GTFOBins nginx: library-load",
    ),
    row(
        "*",
        Code("LoadLibrary"),
        LoadsLibrary,
        "GTFOBins python: library-load (ctypes)",
    ),
    row(
        "*",
        Code("dlopen"),
        LoadsLibrary,
        "GTFOBins ruby: library-load (Fiddle.dlopen)",
    ),
    row(
        "*",
        Contains("/dev/tcp/"),
        Socket,
        "GTFOBins bash: reverse-shell, upload, download; bash(1) REDIRECTION",
    ),
    row("*", Contains("/dev/udp/"), Socket, "bash(1) REDIRECTION"),
    row(
        "*",
        Contains("/inet/tcp/"),
        Socket,
        "GTFOBins gawk: reverse-shell, bind-shell; gawk(1) special files",
    ),
    row("*", Contains("/inet/udp/"), Socket, "gawk(1) special files"),
    row(
        "*",
        Contains("tcp-connect:"),
        Socket,
        "GTFOBins socat: reverse-shell, upload, download; socat(1)",
    ),
    row(
        "*",
        Contains("tcp-listen:"),
        Socket,
        "GTFOBins socat: bind-shell",
    ),
    row("*", Contains("udp-connect:"), Socket, "socat(1)"),
    row("*", Contains("openssl-connect:"), Socket, "socat(1)"),
    row(
        "*",
        Contains("zsh/net/tcp"),
        Socket,
        "GTFOBins zsh: reverse-shell, upload, download",
    ),
    row(
        "*",
        Code("socket"),
        Socket,
        "GTFOBins python, perl, ruby, lua, node, php, julia, tclsh, go: reverse-shell, bind-shell",
    ),
    row(
        "*",
        Code("fsockopen"),
        Socket,
        "GTFOBins php: reverse-shell",
    ),
    row(
        "*",
        Code("TCPSocket"),
        Socket,
        "GTFOBins ruby: reverse-shell",
    ),
    row(
        "*",
        Code("createServer"),
        Socket,
        "GTFOBins node: bind-shell",
    ),
    row(
        "*",
        Code("IO::Socket"),
        Socket,
        "GTFOBins perl: upload, download",
    ),
    row(
        "*",
        Code("http.server"),
        Socket,
        "GTFOBins python: upload (a file server)",
    ),
    row(
        "*",
        Code("SimpleHTTPServer"),
        Socket,
        "GTFOBins python: upload",
    ),
    row(
        "*",
        Code("ProcessBuilder"),
        RunsCode,
        "GTFOBins jjs, jrunscript: reverse-shell",
    ),
    row(
        "*",
        Code("Runtime"),
        RunsCode,
        "GTFOBins jjs, jshell: shell",
    ),
    row(
        "*",
        Code("callCommand"),
        RunsCode,
        "GTFOBins ghc, ghci: shell",
    ),
    row(
        "*",
        Code("run-shell-command"),
        RunsCode,
        "GTFOBins clisp: shell",
    ),
    row(
        "*",
        Contains("esyscmd"),
        RunsCode,
        "GTFOBins m4: shell, command",
    ),
    row("*", Contains("syscmd"), RunsCode, "m4(1) syscmd"),
    row("*", Contains("\\write18"), RunsCode, "GTFOBins tex: shell"),
    row(
        "*",
        Contains("\\directlua"),
        RunsCode,
        "GTFOBins luatex: inherit",
    ),
    row(
        "*",
        Contains("%("),
        RunsCode,
        "GTFOBins rpm: shell (%(…) macro)",
    ),
    row("*", Contains("%{lua:"), RunsCode, "GTFOBins rpm: inherit"),
    row(
        "*",
        Code("system("),
        RunsCode,
        "GTFOBins awk, gawk, R, gnuplot, octave, slsh, bpftrace: shell",
    ),
    row("*", Code("(system "), RunsCode, "GTFOBins guile: shell"),
    row("*", Code("run(`"), RunsCode, "GTFOBins julia: shell"),
    row("*", Code("exec \""), RunsCode, "GTFOBins perl, ruby: shell"),
    row(
        "*",
        Code("exec("),
        RunsCode,
        "GTFOBins jrunscript, php: shell",
    ),
    row("*", Code("execl"), RunsCode, "GTFOBins python: shell"),
    row("*", Code("spawn"), RunsCode, "GTFOBins node, expect: shell"),
    row("*", Code("child_process"), RunsCode, "GTFOBins node: shell"),
    row("*", Code("os.execute"), RunsCode, "GTFOBins lua: shell"),
    row(
        "*",
        Code("io.open"),
        Overwrites,
        "GTFOBins lua: file-write, upload",
    ),
    row(
        "*",
        Code("FileWriter"),
        Overwrites,
        "GTFOBins jjs, jrunscript: file-write",
    ),
    row(
        "*",
        Code("Out-File"),
        Overwrites,
        "GTFOBins pwsh: file-write",
    ),
    row(
        "*",
        Code("file {"),
        Overwrites,
        "GTFOBins puppet: file-write",
    ),
    row("*", Code("exec {"), RunsCode, "GTFOBins puppet: shell"),
    row(
        "*",
        Code("fopen("),
        Overwrites,
        "GTFOBins octave: file-write",
    ),
    row(
        "*",
        Code("open(f->"),
        Overwrites,
        "GTFOBins julia: file-write",
    ),
    row(
        "*",
        Code("File.open"),
        Overwrites,
        "GTFOBins ruby: file-write",
    ),
    row(
        "*",
        Code("createWriteStream"),
        Overwrites,
        "GTFOBins node: download, file-write",
    ),
    row(
        "*",
        Code("dump value"),
        Overwrites,
        "GTFOBins gdb: file-write",
    ),
    row(
        "*",
        Contains("$(file "),
        Overwrites,
        "GTFOBins make: file-write",
    ),
    row(
        "*",
        Contains("$(shell "),
        RunsCode,
        "GTFOBins make: shell; make(1) --eval",
    ),
    row(
        "*",
        Contains("-fprintf"),
        Overwrites,
        "GTFOBins find: file-write; find(1) -fprintf",
    ),
    row(
        "*",
        Contains("-fprint"),
        Overwrites,
        "find(1) -fprint, -fls",
    ),
    row("*", Contains("-fls"), Overwrites, "find(1) -fls"),
    row("*", Contains(".shell"), RunsCode, "GTFOBins sqlite3: shell"),
    row(
        "*",
        Contains(".output"),
        Overwrites,
        "GTFOBins sqlite3: file-write",
    ),
    row(
        "*",
        Contains("\\!"),
        RunsCode,
        "GTFOBins mysql, psql: shell",
    ),
    row(
        "*",
        Contains(":!"),
        RunsCode,
        "GTFOBins vi, ex, zathura: shell",
    ),
    row(
        "*",
        Contains("enable -f"),
        LoadsLibrary,
        "GTFOBins bash: library-load; bash(1) enable -f",
    ),
    row(
        "*",
        Contains("kernel.core_pattern"),
        RunsCode,
        "GTFOBins sysctl: command",
    ),
    row(
        "*",
        Contains("APT::Update::Pre-Invoke"),
        RunsCode,
        "GTFOBins apt-get: shell",
    ),
    row(
        "*",
        Contains("Pre-Invoke"),
        RunsCode,
        "GTFOBins apt-get: shell; apt.conf(5) DPkg::Pre-Invoke",
    ),
    row(
        "*",
        Contains("unixexec:"),
        RunsCode,
        "GTFOBins busctl: shell",
    ),
    row(
        "*",
        Contains("exec:"),
        RunsCode,
        "GTFOBins socat: shell, bind-shell, reverse-shell; socat(1) EXEC",
    ),
    row("*", Contains("system:"), RunsCode, "socat(1) SYSTEM"),
    row(
        "*",
        Contains("exec="),
        RunsCode,
        "GTFOBins tar: shell; tar(1) --checkpoint-action=exec=",
    ),
    row(
        "*",
        Contains("--xform"),
        Overwrites,
        "GTFOBins tar: file-write (extracts over any path)",
    ),
    row(
        "*",
        Contains("--unsafe-paths"),
        Overwrites,
        "GTFOBins git: file-write; git-apply(1)",
    ),
    row(
        "*",
        LongPrefix("--in-place", 4),
        Overwrites,
        "GNU sed(1), perl(1): edits files in place",
    ),
    // Programs whose every use runs code the line does not name, or opens
    // a session that reads commands: GTFOBins shell, inherit.
    row(
        "make",
        Always,
        RunsCode,
        "GTFOBins make: shell; make(1) runs the Makefile's recipes and $(shell) (also with -n)",
    ),
    row("gmake", Always, RunsCode, "make(1)"),
    row(
        "cmake",
        Always,
        RunsCode,
        "GTFOBins cmake: shell (CMakeLists.txt execute_process)",
    ),
    row("autoconf", Always, RunsCode, "GTFOBins autoconf: shell"),
    row("autoheader", Always, RunsCode, "GTFOBins autoheader: shell"),
    row("autoreconf", Always, RunsCode, "GTFOBins autoreconf: shell"),
    row(
        "ansible-playbook",
        Always,
        RunsCode,
        "GTFOBins ansible-playbook: shell",
    ),
    row(
        "puppet",
        Always,
        RunsCode,
        "GTFOBins puppet: shell, file-write",
    ),
    row(
        "vagrant",
        Always,
        RunsCode,
        "GTFOBins vagrant: inherit (the Vagrantfile is Ruby)",
    ),
    row(
        "bundle",
        Always,
        RunsCode,
        "GTFOBins bundle: shell (Gemfile is Ruby)",
    ),
    row("bundler", Always, RunsCode, "GTFOBins bundle: shell"),
    row(
        "rake",
        Always,
        RunsCode,
        "GTFOBins rake: inherit (the Rakefile is Ruby)",
    ),
    row(
        "npm",
        Word("run"),
        RunsCode,
        "GTFOBins npm: shell (scripts)",
    ),
    row("npm", Word("run-script"), RunsCode, "npm-run-script(1)"),
    row("npm", Word("exec"), RunsCode, "GTFOBins npm: shell"),
    row("npm", Word("x"), RunsCode, "npm-exec(1)"),
    row(
        "crontab",
        Opt("-e"),
        Persistence,
        "GTFOBins crontab: command; crontab(1) -e",
    ),
    row(
        "crontab",
        Operands(1, &["-u"]),
        Persistence,
        "crontab(1): a file or `-` replaces the crontab",
    ),
    row("crontab", Word("-"), Persistence, "crontab(1)"),
    row("yarn", Word("exec"), RunsCode, "GTFOBins yarn: shell"),
    row(
        "yarn",
        Word("run"),
        RunsCode,
        "GTFOBins yarn: shell (scripts)",
    ),
    row(
        "yarn",
        Word("dlx"),
        RunsCode,
        "yarn documentation: dlx fetches and runs a package",
    ),
    row("pnpm", Word("exec"), RunsCode, "pnpm documentation: exec"),
    row(
        "pnpm",
        Word("dlx"),
        RunsCode,
        "pnpm documentation: dlx fetches and runs a package",
    ),
    row(
        "pnpm",
        Word("run"),
        RunsCode,
        "pnpm documentation: run (scripts)",
    ),
    row(
        "composer",
        Word("run-script"),
        RunsCode,
        "GTFOBins composer: shell",
    ),
    row(
        "composer",
        Word("run"),
        RunsCode,
        "GTFOBins composer: shell",
    ),
    row(
        "composer",
        Word("exec"),
        RunsCode,
        "Composer documentation: exec",
    ),
    row(
        "pipx",
        Word("run"),
        RunsCode,
        "GTFOBins pipx: inherit (fetches and runs a package)",
    ),
    row(
        "gem",
        Word("open"),
        RunsCode,
        "GTFOBins gem: shell (-e editor)",
    ),
    row(
        "gem",
        Word("build"),
        RunsCode,
        "GTFOBins gem: inherit (the gemspec is Ruby)",
    ),
    row(
        "gem",
        WordPrefix("--file"),
        RunsCode,
        "GTFOBins gem: inherit",
    ),
    row(
        "npx",
        Always,
        RunsCode,
        "npm-exec(1): fetches and runs a package",
    ),
    row(
        "pip",
        Word("config"),
        RunsCode,
        "GTFOBins pip: shell (--editor)",
    ),
    row("uv", Word("run"), RunsCode, "GTFOBins uv: shell"),
    row(
        "easy_install",
        Always,
        RunsCode,
        "GTFOBins easy_install: inherit",
    ),
    row("dotnet", Always, RunsCode, "GTFOBins dotnet: shell"),
    row("cabal", Always, RunsCode, "GTFOBins cabal: shell"),
    row("forge", Always, RunsCode, "GTFOBins forge: shell"),
    row(
        "rustup",
        Always,
        RunsCode,
        "GTFOBins rustup: shell, command",
    ),
    row("cobc", Always, RunsCode, "GTFOBins cobc: shell"),
    row("latexmk", Always, RunsCode, "GTFOBins latexmk: shell"),
    row("dvips", Always, RunsCode, "GTFOBins dvips: shell"),
    row("enscript", Always, RunsCode, "GTFOBins enscript: shell"),
    row(
        "nroff",
        Always,
        RunsCode,
        "GTFOBins nroff: shell (GROFF_BIN_PATH)",
    ),
    row("pic", Always, RunsCode, "GTFOBins pic: shell"),
    row("m4", Always, RunsCode, "GTFOBins m4: shell"),
    row("expect", Always, RunsCode, "GTFOBins expect: shell"),
    row("at", Always, RunsCode, "GTFOBins at: shell, command"),
    row("batch", Always, RunsCode, "at(1)"),
    row(
        "systemd-run",
        Always,
        RunsCode,
        "GTFOBins systemd-run: shell, command",
    ),
    row("run-parts", Always, RunsCode, "GTFOBins run-parts: shell"),
    row(
        "start-stop-daemon",
        Always,
        RunsCode,
        "GTFOBins start-stop-daemon: shell",
    ),
    row("openvt", Always, RunsCode, "GTFOBins openvt: command"),
    row("xdotool", Always, RunsCode, "GTFOBins xdotool: shell"),
    row("tmux", Always, RunsCode, "GTFOBins tmux: shell"),
    row(
        "screen",
        Always,
        RunsCode,
        "GTFOBins screen: shell, file-write",
    ),
    row("tmate", Always, RunsCode, "GTFOBins tmate: shell"),
    row(
        "script",
        Always,
        RunsCode,
        "GTFOBins script: shell, file-write",
    ),
    row("gdb", Always, RunsCode, "GTFOBins gdb: shell, file-write"),
    row("lldb", Always, RunsCode, "lldb(1) runs platform shell"),
    row("pidstat", Opt("-e"), RunsCode, "GTFOBins pidstat: shell"),
    row("bpftrace", Always, RunsCode, "GTFOBins bpftrace: shell"),
    row(
        "chroot",
        Always,
        Privileges,
        "GTFOBins chroot: shell (with no command it runs an interactive shell); chroot(8)",
    ),
    row(
        "dosbox",
        Always,
        RunsCode,
        "GTFOBins dosbox: file-read, file-write (it mounts the host's directories)",
    ),
    row("capsh", Always, Privileges, "GTFOBins capsh: shell"),
    row("setpriv", Always, Privileges, "setpriv(1)"),
    row("ksu", Always, Privileges, "GTFOBins ksu: shell"),
    row("sg", Always, Privileges, "GTFOBins sg: shell"),
    row("newgrp", Always, Privileges, "newgrp(1)"),
    row("runuser", Always, Privileges, "runuser(1)"),
    row("task", Word("execute"), RunsCode, "GTFOBins task: shell"),
    row("cdist", Always, RunsCode, "GTFOBins cdist: shell"),
    row("codex", Always, RunsCode, "GTFOBins codex: shell"),
    row("opencode", Always, RunsCode, "GTFOBins opencode: command"),
    row(
        "ansible-test",
        Always,
        RunsCode,
        "GTFOBins ansible-test: shell",
    ),
    row("csvtool", Word("call"), RunsCode, "GTFOBins csvtool: shell"),
    row("dmsetup", Always, HostState, "GTFOBins dmsetup: shell"),
    row("genie", Always, RunsCode, "GTFOBins genie: shell"),
    row("msgfilter", Always, RunsCode, "GTFOBins msgfilter: shell"),
    row("plymouth", Always, RunsCode, "GTFOBins plymouth: shell"),
    row("scrot", Always, RunsCode, "GTFOBins scrot: shell"),
    row("perlbug", Always, RunsCode, "GTFOBins perlbug: shell"),
    row(
        "xdg-user-dir",
        Always,
        RunsCode,
        "GTFOBins xdg-user-dir: shell",
    ),
    row(
        "neofetch",
        Always,
        RunsCode,
        "GTFOBins neofetch: shell (its configuration is bash)",
    ),
    row(
        "fastfetch",
        Always,
        RunsCode,
        "GTFOBins fastfetch: shell, command",
    ),
    row("easyrsa", Always, RunsCode, "GTFOBins easyrsa: shell"),
    row(
        "logrotate",
        Always,
        RunsCode,
        "GTFOBins logrotate: shell, file-write",
    ),
    row(
        "gtester",
        Always,
        RunsCode,
        "GTFOBins gtester: shell, file-write",
    ),
    row("acr", Always, RunsCode, "GTFOBins acr: command"),
    row("procmail", Always, RunsCode, "GTFOBins procmail: command"),
    row("rsyslogd", Always, RunsCode, "GTFOBins rsyslogd: command"),
    row(
        "fail2ban-client",
        Always,
        RunsCode,
        "GTFOBins fail2ban-client: command",
    ),
    row(
        "tcpdump",
        Always,
        RunsCode,
        "GTFOBins tcpdump: command (-z), file-write",
    ),
    row("zic", Always, RunsCode, "GTFOBins zic: command"),
    row(
        "virsh",
        Always,
        HostState,
        "GTFOBins virsh: command, file-write",
    ),
    row(
        "crash",
        Always,
        RunsCode,
        "GTFOBins crash: command, inherit",
    ),
    row("wg-quick", Always, HostState, "GTFOBins wg-quick: shell"),
    row("mosh", Always, RunsCode, "GTFOBins mosh-server: shell"),
    row("sshuttle", Always, HostState, "GTFOBins sshuttle: shell"),
    row(
        "needrestart",
        Always,
        RunsCode,
        "GTFOBins needrestart: inherit",
    ),
    row("facter", Always, RunsCode, "GTFOBins facter: inherit"),
    row("knife", Always, RunsCode, "GTFOBins knife: inherit"),
    row("sqlmap", Always, RunsCode, "GTFOBins sqlmap: inherit"),
    row(
        "msfconsole",
        Always,
        RunsCode,
        "GTFOBins msfconsole: inherit",
    ),
    row(
        "volatility",
        Always,
        RunsCode,
        "GTFOBins volatility: inherit",
    ),
    row("byebug", Always, RunsCode, "GTFOBins byebug: inherit"),
    row("pdb", Always, RunsCode, "GTFOBins pdb: inherit"),
    row(
        "cowsay",
        Opt("-f"),
        RunsCode,
        "GTFOBins cowsay: inherit (a cow file is Perl)",
    ),
    row(
        "cowthink",
        Opt("-f"),
        RunsCode,
        "GTFOBins cowthink: inherit",
    ),
    row(
        "pandoc",
        Opt("-L"),
        RunsCode,
        "GTFOBins pandoc: inherit (Lua filters)",
    ),
    row(
        "pandoc",
        WordPrefix("--lua-filter"),
        RunsCode,
        "pandoc(1) --lua-filter",
    ),
    row(
        "exiftool",
        Opt("-if"),
        RunsCode,
        "GTFOBins exiftool: inherit (Perl expressions)",
    ),
    row("tshark", Always, RunsCode, "GTFOBins tshark: inherit"),
    row(
        "nmap",
        Always,
        RunsCode,
        "GTFOBins nmap: shell, inherit, file-write",
    ),
    row("ranger", Always, RunsCode, "GTFOBins ranger: shell"),
    row("ncdu", Always, RunsCode, "GTFOBins ncdu: shell"),
    row("fzf", Always, RunsCode, "GTFOBins fzf: shell"),
    row("top", Always, RunsCode, "GTFOBins top: shell (toprc pipe)"),
    row("iftop", Always, RunsCode, "GTFOBins iftop: shell"),
    row(
        "dstat",
        Always,
        RunsCode,
        "GTFOBins dstat: inherit (plugins are Python)",
    ),
    row("minicom", Always, RunsCode, "GTFOBins minicom: shell"),
    row("runscript", Always, RunsCode, "GTFOBins runscript: shell"),
    row("rtorrent", Always, RunsCode, "GTFOBins rtorrent: shell"),
    row("yt-dlp", Always, RunsCode, "GTFOBins yt-dlp: shell"),
    row("ld.so", Always, RunsCode, "GTFOBins ld.so: shell"),
    row(
        "ldconfig",
        Always,
        LoadsLibrary,
        "GTFOBins ldconfig: library-load",
    ),
    row(
        "ssh-keygen",
        Opt("-D"),
        LoadsLibrary,
        "GTFOBins ssh-keygen: library-load",
    ),
    row("bee", Always, RunsCode, "GTFOBins bee: inherit"),
    row("eb", Always, RunsCode, "GTFOBins eb: inherit"),
    // Pagers and editors: commands typed into them run (`!sh`, `v`, `:!`),
    // and their hooks run commands (LESSOPEN). GTFOBins: shell, inherit.
    row(
        "less",
        Always,
        RunsCode,
        "GTFOBins less: shell, command, file-write",
    ),
    row("more", Always, RunsCode, "GTFOBins more: shell"),
    row("most", Always, RunsCode, "most(1) shell escape"),
    row("pg", Always, RunsCode, "GTFOBins pg: shell"),
    row("man", Always, RunsCode, "GTFOBins man: shell, inherit"),
    row("vi", Always, RunsCode, "GTFOBins vi: shell, file-write"),
    row("vim", Always, RunsCode, "GTFOBins vim: shell, inherit"),
    row("nvim", Always, RunsCode, "GTFOBins vim: shell"),
    row("rvim", Always, RunsCode, "GTFOBins vim"),
    row("view", Always, RunsCode, "GTFOBins vi"),
    row("vimdiff", Always, RunsCode, "GTFOBins vi"),
    row("ex", Always, RunsCode, "GTFOBins ex: shell"),
    row("ed", Always, RunsCode, "GTFOBins ed: shell, file-write"),
    row("red", Always, RunsCode, "ed(1)"),
    row("nano", Always, RunsCode, "GTFOBins nano: shell, file-write"),
    row("pico", Always, RunsCode, "GTFOBins nano"),
    row(
        "emacs",
        Always,
        RunsCode,
        "GTFOBins emacs: shell, file-write",
    ),
    row("joe", Always, RunsCode, "GTFOBins joe: shell"),
    row("mg", Always, RunsCode, "mg(1)"),
    row("vipw", Always, Privileges, "GTFOBins vipw: inherit"),
    row("vigr", Always, Privileges, "GTFOBins vigr: inherit"),
    row("visudo", Always, Privileges, "visudo(8)"),
    row("zathura", Always, RunsCode, "GTFOBins zathura: shell"),
    row("ispell", Always, RunsCode, "GTFOBins ispell: shell"),
    row(
        "journalctl",
        Always,
        RunsCode,
        "GTFOBins journalctl: inherit (pager)",
    ),
    row(
        "git",
        Word("help"),
        RunsCode,
        "GTFOBins git: inherit (pager)",
    ),
    row("git", Opt("--paginate"), RunsCode, "git(1) --paginate"),
    row(
        "git",
        Opt("--help"),
        RunsCode,
        "GTFOBins git: inherit (man pager)",
    ),
    row("git", Word("apply"), Overwrites, "GTFOBins git: file-write"),
    row("aws", Word("help"), RunsCode, "GTFOBins aws: inherit"),
    row("gcloud", Word("help"), RunsCode, "GTFOBins gcloud: inherit"),
    row("cargo", Word("help"), RunsCode, "GTFOBins cargo: inherit"),
    row("bundle", Word("help"), RunsCode, "GTFOBins bundle: inherit"),
    row(
        "apt-get",
        Word("changelog"),
        RunsCode,
        "GTFOBins apt-get: inherit (pager)",
    ),
    row("apt", Word("changelog"), RunsCode, "GTFOBins apt: inherit"),
    row(
        "aptitude",
        Word("changelog"),
        RunsCode,
        "GTFOBins aptitude: inherit",
    ),
    row(
        "batcat",
        Word("always"),
        RunsCode,
        "GTFOBins batcat: inherit (--paging always)",
    ),
    row("bat", Word("always"), RunsCode, "GTFOBins batcat: inherit"),
    row(
        "dmesg",
        Opt("-H"),
        RunsCode,
        "GTFOBins dmesg: inherit (pager)",
    ),
    row(
        "systemctl",
        NoOperand,
        RunsCode,
        "GTFOBins systemctl: inherit (pager)",
    ),
    row(
        "busctl",
        Always,
        RunsCode,
        "GTFOBins busctl: shell, inherit",
    ),
    row(
        "loginctl",
        Always,
        RunsCode,
        "GTFOBins loginctl: shell (pager)",
    ),
    row(
        "systemd-resolve",
        Always,
        RunsCode,
        "GTFOBins systemd-resolve: inherit (pager)",
    ),
    row(
        "timedatectl",
        Always,
        HostState,
        "GTFOBins timedatectl: inherit; timedatectl(1) set-time",
    ),
    row(
        "rustc",
        Word("--explain"),
        RunsCode,
        "GTFOBins rustc: inherit (pager)",
    ),
    row(
        "bashbug",
        Always,
        RunsCode,
        "GTFOBins bashbug: inherit (editor)",
    ),
    row(
        "apport-cli",
        Always,
        RunsCode,
        "GTFOBins apport-cli: inherit",
    ),
    row(
        "run-mailcap",
        Always,
        RunsCode,
        "GTFOBins run-mailcap: inherit",
    ),
    row("mail", Always, RunsCode, "GTFOBins mail: shell"),
    row("mailx", Always, RunsCode, "GTFOBins mail"),
    // Interactive programs and REPLs: a session that reads commands (GTFOBins
    // shell: `!/bin/sh` typed in).
    row(
        "ftp",
        Always,
        Transfers,
        "GTFOBins ftp: shell, upload, download",
    ),
    row(
        "sftp",
        Always,
        Transfers,
        "GTFOBins sftp: shell, upload, download",
    ),
    row("tftp", Always, Transfers, "GTFOBins tftp: upload, download"),
    row("lftp", Always, Transfers, "GTFOBins lftp: shell"),
    row("ncftp", Always, Transfers, "GTFOBins ncftp: shell"),
    row("psftp", Always, Transfers, "GTFOBins psftp: shell"),
    row(
        "smbclient",
        Always,
        Transfers,
        "GTFOBins smbclient: shell, upload, download",
    ),
    row(
        "telnet",
        Always,
        Socket,
        "GTFOBins telnet: shell, reverse-shell",
    ),
    row("rlogin", Always, Socket, "GTFOBins rlogin: upload"),
    row("debugfs", Always, RunsCode, "GTFOBins debugfs: shell"),
    row("asterisk", Always, RunsCode, "GTFOBins asterisk: shell"),
    row("bconsole", Always, RunsCode, "GTFOBins bconsole: shell"),
    row("ginsh", Always, RunsCode, "GTFOBins ginsh: shell"),
    row("hping3", Always, Socket, "GTFOBins hping3: shell, upload"),
    row("jtag", Always, RunsCode, "GTFOBins jtag: shell"),
    row("scanmem", Always, RunsCode, "GTFOBins scanmem: shell"),
    row("tasksh", Always, RunsCode, "GTFOBins tasksh: shell"),
    row("tdbtool", Always, RunsCode, "GTFOBins tdbtool: shell"),
    row("cpan", Always, RunsCode, "GTFOBins cpan: inherit"),
    row(
        "jjs",
        Always,
        RunsCode,
        "GTFOBins jjs: shell, reverse-shell",
    ),
    row(
        "jshell",
        Always,
        RunsCode,
        "GTFOBins jshell: shell, command",
    ),
    row("jrunscript", Always, RunsCode, "GTFOBins jrunscript: shell"),
    row("ghci", Always, RunsCode, "GTFOBins ghci: shell"),
    row("irb", NoOperand, RunsCode, "GTFOBins irb: inherit"),
    row("pry", Always, RunsCode, "GTFOBins pry: inherit"),
    row("wish", NoOperand, RunsCode, "GTFOBins wish: inherit"),
    row(
        "tclsh",
        NoOperand,
        RunsCode,
        "GTFOBins tclsh: shell, library-load, reverse-shell",
    ),
    row(
        "dc",
        Always,
        RunsCode,
        "GTFOBins dc: shell (`!` runs a command)",
    ),
    row("R", Always, RunsCode, "GTFOBins R: shell"),
    row(
        "octave-cli",
        Always,
        RunsCode,
        "GTFOBins octave: shell, file-write",
    ),
    row("octave", Always, RunsCode, "GTFOBins octave"),
    row("gnuplot", Always, RunsCode, "GTFOBins gnuplot: shell"),
    row("slsh", Always, RunsCode, "GTFOBins slsh: shell"),
    row("clisp", Always, RunsCode, "GTFOBins clisp: shell"),
    row("guile", Always, RunsCode, "GTFOBins guile: shell"),
    row("ghc", Opt("-e"), RunsCode, "GTFOBins ghc: shell"),
    row("gimp", Always, RunsCode, "GTFOBins gimp: inherit"),
    row(
        "java",
        WordPrefix("-javaagent"),
        LoadsLibrary,
        "java(1) -javaagent",
    ),
    row(
        "wireshark",
        Always,
        RunsCode,
        "GTFOBins wireshark: inherit, file-write",
    ),
    row(
        "code",
        Word("tunnel"),
        Socket,
        "GTFOBins code: upload, download, reverse-shell",
    ),
    row("tailscale", Always, Socket, "GTFOBins tailscale: upload"),
    row("kubectl", Word("proxy"), Socket, "GTFOBins kubectl: upload"),
    row(
        "php",
        Opt("-S"),
        Socket,
        "GTFOBins php: upload (a file server)",
    ),
    row(
        "ruby",
        Opt("-run"),
        Socket,
        "GTFOBins ruby: upload (un.rb httpd)",
    ),
    row("busybox", Word("httpd"), Socket, "GTFOBins busybox: upload"),
    row(
        "busybox",
        Word("nc"),
        Socket,
        "GTFOBins busybox: reverse-shell",
    ),
    row("busybox", Word("sh"), RunsCode, "GTFOBins busybox: inherit"),
    row(
        "busybox",
        Word("ash"),
        RunsCode,
        "GTFOBins busybox: inherit",
    ),
    row(
        "socket",
        Always,
        Socket,
        "GTFOBins socket: bind-shell, reverse-shell",
    ),
    row(
        "nginx",
        Always,
        Socket,
        "GTFOBins nginx: upload, download, library-load",
    ),
    // Network transfer programs: whatever their form, the floor cannot tell
    // a fetch of a page from a fetch of a payload or an upload.
    row(
        "nc",
        Always,
        Socket,
        "GTFOBins nc: reverse-shell, bind-shell, upload, download",
    ),
    row("ncat", Always, Socket, "GTFOBins nc"),
    row("netcat", Always, Socket, "GTFOBins nc"),
    row(
        "socat",
        Always,
        Socket,
        "GTFOBins socat: reverse-shell, bind-shell, upload, download",
    ),
    row(
        "openssl",
        Word("s_client"),
        Socket,
        "GTFOBins openssl: reverse-shell, upload, download",
    ),
    row("openssl", Word("s_server"), Socket, "openssl-s_server(1)"),
    row(
        "scp",
        Always,
        Transfers,
        "GTFOBins scp: shell, upload, download",
    ),
    row(
        "rsync",
        Contains(":"),
        Transfers,
        "GTFOBins rsync: shell; rsync(1) remote paths",
    ),
    row("rsync", Opt("-e"), RunsCode, "GTFOBins rsync: shell"),
    row(
        "sshfs",
        Always,
        Transfers,
        "GTFOBins sshfs: upload, download, command",
    ),
    row(
        "ssh",
        Always,
        RunsCode,
        "GTFOBins ssh: shell, upload, download",
    ),
    row("ab", Always, Transfers, "GTFOBins ab: upload, download"),
    row(
        "finger",
        Always,
        Transfers,
        "GTFOBins finger: upload, download",
    ),
    row(
        "whois",
        Opt("-h"),
        Transfers,
        "GTFOBins whois: upload, download",
    ),
    row("lp", Opt("-h"), Transfers, "GTFOBins lp: upload"),
    row("cancel", Opt("-h"), Transfers, "GTFOBins cancel: upload"),
    row(
        "lwp-download",
        Always,
        Transfers,
        "GTFOBins lwp-download: download, file-write",
    ),
    row(
        "restic",
        Always,
        Transfers,
        "GTFOBins restic: upload, shell",
    ),
    row("borg", Always, Transfers, "GTFOBins borg: shell"),
    row(
        "aria2c",
        Always,
        Transfers,
        "GTFOBins aria2c: download, command",
    ),
    row("yum", Always, HostState, "GTFOBins yum: command, download"),
    row("dnf", Always, HostState, "GTFOBins dnf: command"),
    row("rpm", Always, HostState, "GTFOBins rpm: shell, command"),
    row("rpmdb", Always, RunsCode, "GTFOBins rpmdb: shell"),
    row(
        "rpmquery",
        WordPrefix("--eval"),
        RunsCode,
        "GTFOBins rpmquery: shell",
    ),
    row(
        "rpmverify",
        WordPrefix("--eval"),
        RunsCode,
        "GTFOBins rpmverify: shell",
    ),
    row(
        "dpkg",
        Opt("-i"),
        HostState,
        "GTFOBins dpkg: shell (maintainer scripts)",
    ),
    row("dpkg", Opt("--install"), HostState, "dpkg(1)"),
    row(
        "dpkg",
        Opt("-l"),
        RunsCode,
        "GTFOBins dpkg: inherit (pager)",
    ),
    row(
        "apt-get",
        Word("install"),
        HostState,
        "GTFOBins apt-get: shell",
    ),
    row(
        "apt-get",
        Word("update"),
        HostState,
        "GTFOBins apt-get: shell",
    ),
    row("apt", Word("install"), HostState, "apt(8)"),
    row("snap", Always, HostState, "GTFOBins snap: command"),
    row("pkg", Always, HostState, "GTFOBins pkg: command"),
    row("opkg", Always, HostState, "GTFOBins opkg: shell"),
    row("zypper", Always, HostState, "GTFOBins zypper: shell"),
    row("lxc", Always, HostState, "GTFOBins lxd: shell"),
    row("ctr", Always, HostState, "GTFOBins ctr: shell"),
    row("docker", Word("run"), HostState, "GTFOBins docker: shell"),
    row(
        "docker",
        Word("cp"),
        Overwrites,
        "GTFOBins docker: file-write",
    ),
    row("podman", Word("run"), HostState, "GTFOBins podman: shell"),
    row(
        "arch-nspawn",
        Always,
        HostState,
        "GTFOBins arch-nspawn: shell",
    ),
    row("dhclient", Always, HostState, "GTFOBins dhclient: shell"),
    row("agetty", Always, Privileges, "GTFOBins agetty: shell"),
    row("openvpn", Always, HostState, "GTFOBins openvpn: shell"),
    row(
        "service",
        Always,
        HostState,
        "GTFOBins service: shell; service(8)",
    ),
    // Host state (the machine itself): manuals.
    row("date", Opt("-s"), HostState, "date(1) --set"),
    row("date", WordPrefix("--set"), HostState, "date(1) --set"),
    row("hwclock", Always, HostState, "hwclock(8)"),
    row(
        "ip",
        Always,
        HostState,
        "GTFOBins ip: shell, file-read; ip(8) — abbreviated verbs (`a a`, `l s`) change the host",
    ),
    row("route", Always, HostState, "route(8)"),
    row("iptables", Always, HostState, "iptables(8)"),
    row("ip6tables", Always, HostState, "iptables(8)"),
    row("nft", Always, HostState, "nft(8)"),
    row("ufw", Always, HostState, "ufw(8)"),
    row("tc", Always, HostState, "tc(8)"),
    row("nmcli", Always, HostState, "nmcli(1)"),
    row(
        "mount",
        Always,
        HostState,
        "GTFOBins mount: privilege-escalation; mount(8)",
    ),
    row("umount", Always, HostState, "umount(8)"),
    row("swapon", Always, HostState, "swapon(8)"),
    row("swapoff", Always, HostState, "swapoff(8)"),
    row("losetup", Always, HostState, "losetup(8)"),
    row(
        "sysctl",
        Contains("="),
        HostState,
        "GTFOBins sysctl: command; sysctl(8) -w",
    ),
    row("sysctl", Opt("-w"), HostState, "sysctl(8)"),
    row("sysctl", Opt("-p"), HostState, "sysctl(8)"),
    row("modprobe", Always, HostState, "modprobe(8)"),
    row("insmod", Always, HostState, "insmod(8)"),
    row("rmmod", Always, HostState, "rmmod(8)"),
    row(
        "dmesg",
        Short('c'),
        HostState,
        "dmesg(1) -c clears the ring buffer",
    ),
    row("dmesg", Short('C'), HostState, "dmesg(1) -C"),
    row("dmesg", Short('D'), HostState, "dmesg(1) -D"),
    row("dmesg", Short('E'), HostState, "dmesg(1) -E"),
    row("dmesg", Short('n'), HostState, "dmesg(1) -n"),
    row("dmesg", WordPrefix("--clear"), HostState, "dmesg(1)"),
    row("dmesg", WordPrefix("--read-clear"), HostState, "dmesg(1)"),
    row("dmesg", WordPrefix("--console"), HostState, "dmesg(1)"),
    row(
        "hostnamectl",
        WordPrefix("set-"),
        HostState,
        "hostnamectl(1)",
    ),
    row("systemctl", Word("start"), HostState, "systemctl(1)"),
    row("systemctl", Word("restart"), HostState, "systemctl(1)"),
    row("systemctl", Word("reload"), HostState, "systemctl(1)"),
    row("systemctl", Word("enable"), Persistence, "systemctl(1)"),
    row(
        "systemctl",
        Word("link"),
        Persistence,
        "GTFOBins systemctl: shell",
    ),
    row(
        "systemctl",
        Word("edit"),
        RunsCode,
        "GTFOBins systemctl: shell (SYSTEMD_EDITOR)",
    ),
    row(
        "systemctl",
        Word("daemon-reload"),
        HostState,
        "systemctl(1)",
    ),
    row("systemctl", WordPrefix("set-"), HostState, "systemctl(1)"),
    row("loadkeys", Always, HostState, "loadkeys(1)"),
    row(
        "update-alternatives",
        Always,
        HostState,
        "GTFOBins update-alternatives: file-write",
    ),
    row(
        "iptables-save",
        Opt("-f"),
        Overwrites,
        "GTFOBins iptables-save: file-write",
    ),
    // Privileges and accounts.
    row(
        "chown",
        Always,
        Privileges,
        "GTFOBins chown: privilege-escalation",
    ),
    row("chgrp", Always, Privileges, "chgrp(1)"),
    row(
        "chattr",
        Always,
        Privileges,
        "GTFOBins chattr: privilege-escalation",
    ),
    row(
        "setcap",
        Always,
        Privileges,
        "GTFOBins setcap: privilege-escalation",
    ),
    row(
        "setfacl",
        Always,
        Privileges,
        "GTFOBins setfacl: privilege-escalation",
    ),
    row(
        "install",
        Opt("-m"),
        Privileges,
        "GTFOBins install: privilege-escalation",
    ),
    row(
        "passwd",
        Always,
        Privileges,
        "GTFOBins passwd: privilege-escalation",
    ),
    row("chpasswd", Always, Privileges, "chpasswd(8)"),
    row("useradd", Always, Privileges, "useradd(8)"),
    row("adduser", Always, Privileges, "adduser(8)"),
    row("usermod", Always, Privileges, "usermod(8)"),
    row("groupadd", Always, Privileges, "groupadd(8)"),
    row("gpasswd", Always, Privileges, "gpasswd(1)"),
    row("chsh", Always, Privileges, "chsh(1)"),
    row("chfn", Always, Privileges, "chfn(1)"),
    row(
        "getent",
        Word("shadow"),
        Privileges,
        "GTFOBins getent: privilege-escalation",
    ),
    row(
        "unsquashfs",
        Always,
        Privileges,
        "GTFOBins unsquashfs: privilege-escalation",
    ),
    row(
        "unzip",
        Opt("-K"),
        Privileges,
        "GTFOBins unzip: privilege-escalation (keeps set-ID bits)",
    ),
    row(
        "cp",
        Opt("--preserve=all"),
        Privileges,
        "GTFOBins cp: privilege-escalation",
    ),
    row("cp", Opt("--attributes-only"), Privileges, "GTFOBins cp"),
    // Removers and overwriters of existing files: compressors that replace
    // their input, writers given an output.
    row(
        "gzip",
        OperandUnless(&[
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
        "gzip(1): replaces each file with FILE.gz",
    ),
    row(
        "gunzip",
        OperandUnless(&[
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
        "gzip(1)",
    ),
    row(
        "pigz",
        OperandUnless(&[
            "-c", "--stdout", "-k", "--keep", "-l", "--list", "-t", "--test",
        ]),
        Overwrites,
        "pigz(1)",
    ),
    row(
        "bzip2",
        OperandUnless(&["-c", "--stdout", "-k", "--keep", "-t", "--test"]),
        Overwrites,
        "bzip2(1): replaces each file",
    ),
    row(
        "bunzip2",
        OperandUnless(&["-c", "--stdout", "-k", "--keep", "-t", "--test"]),
        Overwrites,
        "bzip2(1)",
    ),
    row(
        "xz",
        OperandUnless(&[
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
        "xz(1): replaces each file",
    ),
    row(
        "unxz",
        OperandUnless(&[
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
        "xz(1)",
    ),
    row(
        "lzma",
        OperandUnless(&["-c", "--stdout", "-k", "--keep", "-t", "--test"]),
        Overwrites,
        "xz(1)",
    ),
    row(
        "unlzma",
        OperandUnless(&["-c", "--stdout", "-k", "--keep", "-t", "--test"]),
        Overwrites,
        "xz(1)",
    ),
    row(
        "lzip",
        OperandUnless(&[
            "-c", "--stdout", "-k", "--keep", "-t", "--test", "-l", "--list",
        ]),
        Overwrites,
        "lzip(1)",
    ),
    row(
        "compress",
        OperandUnless(&["-c"]),
        Overwrites,
        "compress(1)",
    ),
    row(
        "uncompress",
        OperandUnless(&["-c"]),
        Overwrites,
        "compress(1)",
    ),
    row("zstd", Opt("--rm"), Overwrites, "zstd(1) --rm"),
    row("lz4", Opt("--rm"), Overwrites, "lz4(1) --rm"),
    row("lzop", Opt("-U"), Overwrites, "lzop(1) --delete"),
    row("lzop", Opt("--delete"), Overwrites, "lzop(1)"),
    row("zip", Opt("-m"), Overwrites, "zip(1) --move"),
    row("zip", Opt("--move"), Overwrites, "zip(1)"),
    row("zip", Opt("-TT"), RunsCode, "GTFOBins zip: shell"),
    row(
        "7z",
        Contains("-sdel"),
        Overwrites,
        "7z(1) -sdel deletes files after compression",
    ),
    row(
        "sed",
        Short('i'),
        Overwrites,
        "sed(1) -i edits files in place",
    ),
    row(
        "sed",
        LongPrefix("--in-place", 3),
        Overwrites,
        "sed(1): GNU getopt_long takes `--i` for --in-place",
    ),
    row(
        "sed",
        Word("e"),
        RunsCode,
        "GTFOBins sed: shell (the e command)",
    ),
    row("perl", Short('i'), Overwrites, "perlrun(1) -i"),
    row("ruby", Short('i'), Overwrites, "ruby(1) -i"),
    row("xxd", Short('r'), Overwrites, "GTFOBins xxd: file-write"),
    row(
        "dos2unix",
        Always,
        Overwrites,
        "GTFOBins dos2unix: file-write (converts in place)",
    ),
    row("unix2dos", Always, Overwrites, "dos2unix(1)"),
    row(
        "tsc",
        WordPrefix("--outFile"),
        Overwrites,
        "GTFOBins tsc: file-write",
    ),
    row(
        "mypy",
        WordPrefix("--junit-xml"),
        Overwrites,
        "GTFOBins mypy: file-write",
    ),
    row(
        "check_log",
        Always,
        Overwrites,
        "GTFOBins check_log: file-write",
    ),
    row(
        "dmidecode",
        WordPrefix("--dump-bin"),
        Overwrites,
        "GTFOBins dmidecode: file-write",
    ),
    row(
        "varnishncsa",
        Opt("-w"),
        Overwrites,
        "GTFOBins varnishncsa: file-write",
    ),
    row("arj", Always, Overwrites, "GTFOBins arj: file-write"),
    row(
        "cpio",
        Always,
        Overwrites,
        "GTFOBins cpio: file-write, shell",
    ),
    row(
        "tar",
        Opt("-I"),
        RunsCode,
        "GTFOBins tar: shell; tar(1) -I, --use-compress-program",
    ),
    row("tar", Opt("-F"), RunsCode, "tar(1) -F, --info-script"),
    row(
        "tar",
        Short('P'),
        Overwrites,
        "GTFOBins tar: file-write (absolute names)",
    ),
    row(
        "rustdoc",
        Always,
        Overwrites,
        "GTFOBins rustdoc: file-write",
    ),
    row(
        "exiftool",
        Contains("="),
        Overwrites,
        "GTFOBins exiftool: file-write (a tag assignment rewrites the file)",
    ),
    row(
        "exiftool",
        Opt("-W"),
        Overwrites,
        "GTFOBins exiftool: file-write",
    ),
    row(
        "redis-cli",
        NoOperand,
        RunsCode,
        "GTFOBins redis: file-write (an interactive session)",
    ),
    row(
        "redis-cli",
        Word("config"),
        Overwrites,
        "GTFOBins redis: file-write (CONFIG SET dir)",
    ),
    row(
        "redis-cli",
        Word("CONFIG"),
        Overwrites,
        "GTFOBins redis: file-write",
    ),
    row(
        "date",
        Operands(1, &["-d", "--date", "-f", "--file", "-r", "--reference"]),
        HostState,
        "date(1): an operand MMDDhhmm sets the clock",
    ),
    row(
        "ifconfig",
        Operands(2, &[]),
        HostState,
        "ifconfig(8): an interface and a setting",
    ),
    row(
        "hostname",
        Operands(1, &["-F", "--file"]),
        HostState,
        "hostname(1): an operand sets the name",
    ),
    row(
        "chmod",
        SetIdMode,
        Privileges,
        "GTFOBins chmod: privilege-escalation (set-user-ID and set-group-ID bits)",
    ),
    row(
        "python",
        NoOperand,
        RunsCode,
        "python(1): with no script it reads commands from its input",
    ),
    row(
        "python3",
        NoOperand,
        RunsCode,
        "python(1): with no script it reads commands from its input",
    ),
    row(
        "ssh-copy-id",
        Always,
        Persistence,
        "GTFOBins ssh-copy-id: file-write (authorized_keys)",
    ),
    row(
        "sqlite3",
        Contains("-cmd"),
        RunsCode,
        "GTFOBins sqlite3: file-write",
    ),
];

/// Environment variables that make a program run code, load a library or
/// read code from another place, set for one command (`X=… prog`) or with
/// `env`/`export`. Sources: GTFOBins (less, git, crash, restic, perl,
/// autoconf, nroff, facter, bundle, systemctl, zypper) and ld.so(8),
/// bash(1), git(1), python(1), node(1), perlrun(1), ruby(1), java(1).
pub const CODE_VARIABLES: &[&str] = &[
    "LESSOPEN",
    "LESSCLOSE",
    "LESSEDIT",
    "PAGER",
    "GIT_PAGER",
    "MANPAGER",
    "SYSTEMD_PAGER",
    "CRASHPAGER",
    "EDITOR",
    "VISUAL",
    "GIT_EDITOR",
    "SYSTEMD_EDITOR",
    "SUDO_EDITOR",
    "GIT_SSH",
    "GIT_SSH_COMMAND",
    "GIT_EXTERNAL_DIFF",
    "GIT_PROXY_COMMAND",
    "GIT_ASKPASS",
    "SSH_ASKPASS",
    "GIT_EXEC_PATH",
    "GIT_CONFIG_PARAMETERS",
    "GIT_CONFIG_COUNT",
    "GIT_CONFIG_GLOBAL",
    "GIT_DIR",
    "LD_PRELOAD",
    "LD_LIBRARY_PATH",
    "LD_AUDIT",
    "DYLD_INSERT_LIBRARIES",
    "BASH_ENV",
    "ENV",
    "PROMPT_COMMAND",
    "SHELLOPTS",
    "PS4",
    "PERL5OPT",
    "PERL5LIB",
    "PERL5DB",
    "PERLLIB",
    "PYTHONSTARTUP",
    "PYTHONPATH",
    "PYTHONHOME",
    "PYTHONINSPECT",
    "NODE_OPTIONS",
    "NODE_PATH",
    "RUBYOPT",
    "RUBYLIB",
    "JAVA_TOOL_OPTIONS",
    "_JAVA_OPTIONS",
    "JDK_JAVA_OPTIONS",
    "AUTOM4TE",
    "GROFF_BIN_PATH",
    "FACTERLIB",
    "RESTIC_PASSWORD_COMMAND",
    "BUNDLE_GEMFILE",
    "GCONV_PATH",
    "PATH",
    "IFS",
    "HISTFILE",
];

/// Shells (GTFOBins: ash, bash, csh, dash, elvish, fish, ksh, posh, pwsh,
/// rc, sash, tcsh, yash, zsh): run with no script they read commands; a word
/// naming one hands the program a shell (`env /bin/sh`, `-I '/bin/sh -c …'`,
/// `exec:/bin/sh`).
const SHELLS: &[&str] = &[
    "sh", "bash", "dash", "zsh", "ksh", "mksh", "pdksh", "csh", "tcsh", "fish", "ash", "yash",
    "posh", "rc", "elvish", "sash", "pwsh",
];

/// The shells whose bare name, as a whole word, is read as a shell (the
/// others are also ordinary words: `rc`, `posh`).
const COMMON_SHELLS: &[&str] = &[
    "sh", "bash", "dash", "zsh", "ksh", "mksh", "csh", "tcsh", "fish", "ash", "pwsh",
];

/// The pieces of a word the floor reads separately: what shells, option
/// parsers and interpreters would cut it into (`--opt=F`, `@F`, `x=@F`,
/// `'sh -c …'`, `exec:/bin/sh,pty`, `%(…)`, `{…}`).
pub fn tokens(word: &str) -> impl Iterator<Item = &str> {
    word.split(|c: char| {
        c.is_whitespace()
            || matches!(
                c,
                '\'' | '"'
                    | '='
                    | ','
                    | ';'
                    | '|'
                    | '&'
                    | '('
                    | ')'
                    | '{'
                    | '}'
                    | '<'
                    | '>'
                    | '`'
                    | '@'
                    | '!'
                    | '$'
                    | '['
                    | ']'
            )
    })
    .filter(|t| !t.is_empty())
}

/// Whether a token names a shell: a bare shell name, or an absolute path to
/// one (`/bin/sh`, `-H/bin/sh` with the option letter attached, `exec:/bin/sh`).
fn shell_token(token: &str, whole_word: bool) -> bool {
    let tail = token.rsplit([':', '/']).next().unwrap_or(token);
    if whole_word && COMMON_SHELLS.contains(&tail) && !token.contains('/') {
        return true;
    }
    SHELLS.contains(&tail) && (token.contains("/bin/") || token.starts_with('/'))
}

/// The most words of one command the capability rows are matched against.
const MAX_WORDS: usize = 256;

/// A capability the words of one command show, with the row's source: the
/// program's rows, the rows of any program, a shell handed to it, or a
/// code-running variable set for it. `words` is the whole simple command
/// (assignments first).
pub fn capability(words: &[String]) -> Option<String> {
    let start = words
        .iter()
        .position(|w| !is_assignment(w))
        .unwrap_or(words.len());
    for assignment in words.get(..start).unwrap_or_default() {
        if let Some(found) = variable(assignment) {
            return Some(found);
        }
    }
    let (first, args) = words.get(start..)?.split_first()?;
    let program = base_name(first);
    if args.len() > MAX_WORDS {
        // The rows are matched word by word; past this many the floor
        // assumes the worst rather than read on.
        return Some(format!(
            "`{program}` has more than {MAX_WORDS} words, more than the floor reads for capabilities"
        ));
    }
    if program == "env" || program == "export" || program == "declare" || program == "typeset" {
        if let Some(found) = args.iter().find_map(|a| variable(a)) {
            return Some(found);
        }
    }
    if let Some(found) = program_rows(program, args) {
        return Some(found);
    }
    // A shell run with no script, or reading its commands from its input.
    if SHELLS.contains(&program) {
        let operand = args
            .iter()
            .any(|a| !a.starts_with('-') && !a.starts_with('+'));
        let reads_input = args.iter().any(|a| {
            a == "-s"
                || a == "-i"
                || a == "-"
                || (a.starts_with('-')
                    && !a.starts_with("--")
                    && (a.contains('s') || a.contains('i')))
        });
        if !operand || reads_input {
            return Some(format!(
                "`{program}` opens a shell that reads commands (GTFOBins {program}: shell)"
            ));
        }
    }
    let mut previous_runs = false;
    for (i, arg) in args.iter().enumerate().take(256) {
        // A whole word naming a shell right after the program or after a
        // word that runs the rest (`env sh`, `exec sh`, `-exec sh`).
        let whole = i == 0 || previous_runs || is_wrapper(program);
        if tokens(arg).any(|t| shell_token(t, whole && t == arg.as_str()))
            || (whole && shell_token(arg, true))
        {
            return Some(format!(
                "`{program}` is handed a shell (`{}`): it runs commands the line does not name (GTFOBins: shell)",
                crate::text::preview(arg, 40)
            ));
        }
        previous_runs = matches!(
            arg.as_str(),
            "exec" | "-exec" | "-execdir" | "--" | "-c" | "run" | "execute"
        );
    }
    // Through wrappers (`sudo`, `nice`, `timeout 5`, …): the wrapped program's
    // rows, tried at every later word.
    if is_wrapper(program) || matches!(program, "sudo" | "doas" | "exec" | "command" | "builtin") {
        for (i, arg) in args.iter().enumerate().take(16) {
            if arg.starts_with('-') || is_assignment(arg) {
                continue;
            }
            if let Some(found) = program_rows(base_name(arg), args.get(i + 1..).unwrap_or_default())
            {
                return Some(found);
            }
        }
    }
    None
}

/// The rows of `program` (and of `*`) that match its arguments.
fn program_rows(program: &str, args: &[String]) -> Option<String> {
    ROWS.iter()
        .filter(|r| r.program == program || r.program == "*")
        .find(|r| matches(&r.form, program, args))
        .map(|r| {
            let shown = if r.program == "*" { program } else { r.program };
            format!("`{shown}` {} ({})", r.capability.message(), r.source)
        })
}

/// A code-running variable assignment (`LESSOPEN=…`), if `word` is one.
fn variable(word: &str) -> Option<String> {
    let (name, _) = word.split_once('=')?;
    let name = name.strip_suffix('+').unwrap_or(name);
    CODE_VARIABLES.contains(&name).then(|| {
        format!("`{name}` makes the program run code or load a library the line does not name (GTFOBins, ld.so(8), bash(1))")
    })
}

/// Programs that run code they are given (`-e`, `-c`, a script): the
/// interpreters, and the GTFOBins programs with an inline-code form.
fn runs_given_code(program: &str) -> bool {
    super::names::is_interpreter(program)
        || super::floor::inline_code(program)
        || matches!(
            program,
            "jrunscript"
                | "jjs"
                | "jshell"
                | "ghc"
                | "ghci"
                | "guile"
                | "clisp"
                | "gnuplot"
                | "octave"
                | "octave-cli"
                | "slsh"
                | "R"
                | "bpftrace"
                | "puppet"
                | "gdb"
                | "expect"
                | "wish"
                | "pwsh"
                | "powershell"
        )
}

/// Whether a `chmod` mode sets the set-user-ID or set-group-ID bit:
/// symbolic (`u+s`, `g=s`, `+s`, `a+rws`) or octal with four digits whose
/// first holds 4 or 2 (`4755`, `6777`, `2755`).
fn set_id_mode(mode: &str) -> bool {
    if mode.bytes().all(|b| b.is_ascii_digit()) {
        return mode.len() >= 4
            && mode
                .bytes()
                .rev()
                .nth(3)
                .is_some_and(|d| matches!(d, b'2'..=b'7'));
    }
    mode.split(',').any(|clause| {
        clause
            .find(['+', '='])
            .and_then(|at| clause.get(at..))
            .is_some_and(|perms| perms.contains('s'))
    })
}

/// Whether an option word is `option` (or `option=value`, or a short option
/// with its value attached).
fn is_option(word: &str, option: &str) -> bool {
    word == option
        || word.strip_prefix(option).is_some_and(|rest| {
            rest.starts_with('=')
                || (option.len() == 2
                    && !option.starts_with("--")
                    && !rest.is_empty()
                    && !word.starts_with("--"))
        })
}

fn matches(form: &Form, program: &str, args: &[String]) -> bool {
    let operands = || args.iter().filter(|a| !a.starts_with('-'));
    match *form {
        Always => true,
        NoOperand => args.is_empty(),
        Code(text) => runs_given_code(program) && args.iter().any(|a| a.contains(text)),
        Operands(min, valued) => {
            let mut count = 0;
            let mut skip = false;
            for arg in args {
                if skip {
                    skip = false;
                    continue;
                }
                if valued.contains(&arg.as_str()) {
                    skip = true;
                } else if !arg.starts_with('-') && !arg.starts_with('+') {
                    count += 1;
                }
            }
            count >= min
        }
        SetIdMode => operands().next().is_some_and(|mode| set_id_mode(mode)),
        Opt(option) => args.iter().any(|a| is_option(a, option)),
        LongPrefix(long, min) => args.iter().any(|a| {
            let name = a.split('=').next().unwrap_or(a);
            name.len() >= min && name.starts_with("--") && long.starts_with(name)
        }),
        Short(letter) => args.iter().any(|a| {
            a.starts_with('-')
                && !a.starts_with("--")
                && a.get(1..).is_some_and(|flags| {
                    // Letters before the first non-letter (a value attached to
                    // an option that takes one ends the bundle).
                    flags
                        .chars()
                        .take_while(char::is_ascii_alphabetic)
                        .any(|c| c == letter)
                })
        }),
        Word(word) => args.iter().any(|a| a == word),
        WordPrefix(prefix) => args.iter().any(|a| a.starts_with(prefix)),
        Contains(text) => args.iter().any(|a| a.contains(text)),
        OperandUnless(options) => {
            let excused = args.iter().any(|a| {
                options.contains(&a.as_str())
                    || (a.starts_with('-')
                        && !a.starts_with("--")
                        && options.iter().any(|o| {
                            o.len() == 2
                                && !o.starts_with("--")
                                && a.get(1..)
                                    .is_some_and(|f| f.contains(o.get(1..).unwrap_or("")))
                        }))
            });
            !excused && operands().next().is_some()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn found(line: &str) -> Option<String> {
        capability(&line.split(' ').map(str::to_owned).collect::<Vec<_>>())
    }

    #[test]
    fn capabilities_by_class() {
        for line in [
            "tar cf /dev/null /dev/null --checkpoint=1 --checkpoint-action=exec=/bin/sh",
            "git ls-remote --upload-pack=x origin",
            "make -n",
            "gzip notes.txt",
            "sed --i s/a/b/ notes.txt",
            "sed -ni s/a/b/ notes.txt",
            "ip a a 10.0.0.1/24 dev lo",
            "date 01010000",
            "dmesg -c",
            "mount /dev/sda1 /mnt",
            "LESSOPEN=x less README.md",
            "env /bin/sh",
            "nice -n 5 sh",
            "sudo gzip notes.txt",
            "chmod u+s x",
            "chmod 4755 x",
            "nc -l -p 12345",
            "socat - exec:/bin/sh,pty",
            "man -H/bin/sh man",
            "bash",
            "bash -i",
        ] {
            assert!(found(line).is_some(), "{line}");
        }
    }

    /// Every row cites where it comes from: a GTFOBins entry or a manual
    /// page (`name(section)`).
    #[test]
    fn every_row_cites_its_source() {
        let manual = |s: &str| {
            s.match_indices('(').any(|(at, _)| {
                s.get(at + 1..at + 3).is_some_and(|t| {
                    t.starts_with(|c: char| c.is_ascii_digit()) && t.ends_with(')')
                })
            })
        };
        for row in ROWS {
            assert!(
                row.source.contains("GTFOBins")
                    || manual(row.source)
                    || row.source.contains("perlrun")
                    || row.source.contains("documentation"),
                "{} {:?}: {}",
                row.program,
                row.form,
                row.source
            );
        }
    }

    #[test]
    fn benign_siblings_have_none() {
        for line in [
            "./custom-report.sh --dry",
            "python x.py",
            "bash build.sh",
            "date +%F",
            "date",
            "gzip -c notes.txt",
            "gzip -k notes.txt",
            "sed -n 1p notes.txt",
            "dmesg -T",
            "chmod 644 x",
            "chmod +x run.sh",
            "frobnicate --level 3 input.txt",
            "git commit -m fix-the-bash-completion",
            // Installs of the project's dependencies stand on a low (the
            // floor vectors' "an install, not a removal").
            "npm install",
            "pip install -r requirements.txt",
        ] {
            assert_eq!(found(line), None, "{line}");
        }
    }
}

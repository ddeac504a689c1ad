//! Option grammars of the file, text and system programs on the read-only
//! list, one entry per program. An option is declared only when it is
//! read-only on GNU coreutils/util-linux/procps, BSD/macOS and BusyBox alike;
//! where a letter takes a value on one platform and not on another, it is left
//! out (the cluster after it would be read differently). Options that write,
//! execute, load a configuration or program file, contact a configurable
//! server, change the system, never end, or read a list of further files
//! (`--files0-from`, `-f FILE`) are not declared, so they need confirmation.

use super::grammar::{check_path, Grammar, Kind, Parsed, BASE};
use super::refusal::Refusal;

const fn g(flags: &'static str, long_flags: &'static [&'static str]) -> Grammar {
    Grammar {
        flags,
        long_flags,
        ..BASE
    }
}

/// The grammar of a file, text or system program, if it is on the list.
pub fn grammar(program: &str) -> Option<Grammar> {
    let grammar: Grammar = match program {
        // BSD `ls -w` is a flag and GNU `-w` takes a width; `-I`, `-T` and
        // `-D` differ too: left out.
        "ls" => Grammar {
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
        },
        "cat" => Grammar {
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
        },
        "pwd" => Grammar {
            max_operands: 0,
            tolerant: true,
            ..g("LP", &[])
        },
        "head" => Grammar {
            valued: "nc",
            long_valued: &["lines", "bytes"],
            operands: Kind::Path,
            number_option: true,
            tolerant: true,
            then: Some(head),
            ..g("qvz", &["quiet", "silent", "verbose", "zero-terminated"])
        },
        // Not `-f`/`-F`/`--follow`/`--retry`/`-s`/`--pid`: following never ends.
        // Following (`-f`, `-F`, `--follow`) only reads; `unbounded` confirms
        // it unless a short `timeout` ends it.
        "tail" => Grammar {
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
            then: Some(tail),
            ..g(
                "qvzrfF",
                &[
                    "quiet",
                    "silent",
                    "verbose",
                    "zero-terminated",
                    "follow",
                    "retry",
                ],
            )
        },
        // Not `--files0-from`: it reads a list of names and echoes them.
        // Tolerant: its one list-reading option (`--files0-from=F`) can come
        // from a glob only as a file of that directory matching the glob.
        "wc" => Grammar {
            operands: Kind::Path,
            tolerant: true,
            ..g(
                "clwmL",
                &["bytes", "chars", "lines", "words", "max-line-length"],
            )
        },
        "cut" => Grammar {
            valued: "bcfd",
            long_valued: &[
                "bytes",
                "characters",
                "fields",
                "delimiter",
                "output-delimiter",
            ],
            operands: Kind::Path,
            ..g("snzw", &["only-delimited", "complement", "zero-terminated"])
        },
        "tr" => Grammar {
            max_operands: 2,
            ..g(
                "cCdst",
                &["complement", "delete", "squeeze-repeats", "truncate-set1"],
            )
        },
        "nl" => Grammar {
            valued: "bdhilnsvwf",
            operands: Kind::Path,
            ..g("p", &["no-renumber"])
        },
        "rev" => Grammar {
            operands: Kind::Path,
            ..BASE
        },
        "tac" => Grammar {
            valued: "s",
            long_valued: &["separator"],
            operands: Kind::Path,
            ..g("br", &["before", "regex"])
        },
        "column" => Grammar {
            valued: "cs",
            operands: Kind::Path,
            ..g("tx", &[])
        },
        "cmp" => Grammar {
            valued: "in",
            operands: Kind::Path,
            max_operands: 4,
            ..g("bls", &["print-bytes", "verbose", "quiet", "silent"])
        },
        "comm" => Grammar {
            long_valued: &["output-delimiter"],
            operands: Kind::Path,
            max_operands: 2,
            ..g(
                "123",
                &["check-order", "nocheck-order", "total", "zero-terminated"],
            )
        },
        // Not `-l`/`--paginate`: it runs `pr`.
        "diff" => Grammar {
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
            then: Some(diff_operands),
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
        },
        // `-c` reads a list of files, but prints only whether each matches.
        "md5sum" | "sha1sum" | "sha224sum" | "sha256sum" | "sha384sum" | "sha512sum" => Grammar {
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
        },
        "b2sum" => Grammar {
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
        },
        "cksum" => Grammar {
            operands: Kind::Path,
            ..BASE
        },
        "seq" => Grammar {
            valued: "fs",
            long_valued: &["format", "separator"],
            max_operands: 3,
            then: Some(seq),
            ..g("w", &["equal-width"])
        },
        "basename" => Grammar {
            valued: "s",
            long_valued: &["suffix"],
            tolerant: true,
            ..g("az", &["multiple", "zero"])
        },
        "dirname" => Grammar {
            tolerant: true,
            ..g("z", &["zero"])
        },
        "realpath" => Grammar {
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
        },
        "readlink" => g(
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
        ),
        // BSD `stat -f` takes a format and GNU `-f` is a flag; `-t` differs too.
        "stat" => Grammar {
            tolerant: true,
            valued: "c",
            long_valued: &["format", "printf"],
            ..g("L", &["dereference", "terse"])
        },
        // Not `--files0-from`; GNU `-X FILE` reads exclusion patterns.
        // Its operands are judged as reads so that a variable, which could
        // become `--files0-from=SECRET`, is refused with them.
        "du" => Grammar {
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
        },
        "df" => Grammar {
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
        },
        "which" => Grammar {
            tolerant: true,
            ..g("as", &["all"])
        },
        "whereis" => Grammar {
            tolerant: true,
            ..g("bmsul", &[])
        },
        "type" => Grammar {
            tolerant: true,
            ..g("afpPt", &[])
        },
        "true" | "false" => Grammar {
            tolerant: true,
            ..BASE
        },
        "cd" => Grammar {
            max_operands: 1,
            ..g("LPe", &[])
        },
        // BSD `base64 -o FILE` writes and `-i FILE` reads; GNU `-i` is a flag.
        "base64" | "base32" => Grammar {
            valued: "w",
            long_valued: &["wrap"],
            operands: Kind::Path,
            max_operands: 1,
            ..g("d", &["decode", "ignore-garbage"])
        },
        // `-w` takes its value only attached on GNU and BusyBox (`-w16`);
        // BSD/macOS od has no `-w` and stops with a usage error.
        // `--strings[=BYTES]` takes its value only after `=` (GNU od 9.1,
        // run here, reads `od --strings 1 a.txt` as the files `1` and
        // `a.txt`, as the forms oracle found), so the next word is a file.
        "od" => Grammar {
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
        },
        // `-f FILE` reads a format file: left out.
        "hexdump" => Grammar {
            valued: "ens",
            operands: Kind::Path,
            ..g("bcCdovx", &[])
        },
        // GNU `strings @FILE` reads options from a file: see `strings`.
        "strings" => Grammar {
            valued: "nte",
            long_valued: &["bytes", "radix", "encoding", "output-separator"],
            operands: Kind::Path,
            then: Some(strings),
            ..g(
                "adfw",
                &["all", "data", "print-file-name", "include-all-whitespace"],
            )
        },
        "fold" => Grammar {
            valued: "w",
            long_valued: &["width"],
            operands: Kind::Path,
            ..g("bs", &["bytes", "spaces"])
        },
        "fmt" => Grammar {
            valued: "w",
            long_valued: &["width"],
            operands: Kind::Path,
            ..g("su", &["split-only", "uniform-spacing"])
        },
        "expand" => Grammar {
            valued: "t",
            long_valued: &["tabs"],
            operands: Kind::Path,
            ..g("i", &["initial"])
        },
        "unexpand" => Grammar {
            valued: "t",
            long_valued: &["tabs"],
            operands: Kind::Path,
            ..g("a", &["all", "first-only"])
        },
        "paste" => Grammar {
            valued: "d",
            long_valued: &["delimiters"],
            operands: Kind::Path,
            ..g("sz", &["serial", "zero-terminated"])
        },
        "join" => Grammar {
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
        },
        "numfmt" => Grammar {
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
        },
        // `expr` has no options: every word is an operand of the expression.
        "expr" => Grammar {
            tolerant: false,
            then: Some(expr),
            ..BASE
        },
        // util-linux `look` reads the dictionary (or the file given).
        "look" => Grammar {
            valued: "t",
            max_operands: 2,
            then: Some(look),
            ..g("dfab", &["alphanum", "ignore-case", "alternative"])
        },
        "pathchk" => Grammar {
            tolerant: true,
            ..g("pP", &["portability"])
        },
        "nproc" => Grammar {
            long_valued: &["ignore"],
            max_operands: 0,
            tolerant: true,
            ..g("", &["all"])
        },
        "getconf" => Grammar {
            max_operands: 2,
            ..g("a", &["all"])
        },
        // Prints its input reordered: a file read like `cat`.
        "tsort" => Grammar {
            operands: Kind::Path,
            max_operands: 1,
            ..BASE
        },
        // Not `-o`, `--compress-program`, `-T` (temporary files in a chosen
        // directory), `--random-source`, `--files0-from`.
        "sort" => Grammar {
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
        },
        // Not `-o`, `--random-source`, `-r` (repeats forever).
        "shuf" => Grammar {
            valued: "ni",
            long_valued: &["head-count", "input-range"],
            then: Some(shuf),
            ..g("ez", &["echo", "zero-terminated"])
        },
        // A second operand is the file `uniq` writes.
        "uniq" => Grammar {
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
        },
        // Not `-C` (writes a compiled magic file), `-m` (loads one), `-f`
        // (reads a list of names), `-z` (runs decompressors), `-p` (sets times).
        "file" => g(
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
        ),
        // Not `-o` (writes), `-R` (with `-H` writes a file in every
        // directory), `-H`, `--fromfile`.
        "tree" => Grammar {
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
        },
        _ => return system(program).or_else(|| super::special::grammar(program)),
    };
    Some(grammar)
}

/// The system-reporting programs.
fn system(program: &str) -> Option<Grammar> {
    let grammar: Grammar = match program {
        "whoami" | "logname" | "arch" | "lsmod" => Grammar {
            max_operands: 0,
            tolerant: true,
            ..BASE
        },
        "id" => Grammar {
            max_operands: 1,
            tolerant: true,
            ..g(
                "ugGnrz",
                &["user", "group", "groups", "name", "real", "zero"],
            )
        },
        "uname" => Grammar {
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
        },
        "uptime" => Grammar {
            max_operands: 0,
            tolerant: true,
            ..g("ps", &["pretty", "since"])
        },
        // Not `-s` (repeats forever) or `-c`.
        "free" => Grammar {
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
        },
        "pgrep" => Grammar {
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
        },
        // `-e`/`-p` take their value only attached: left out.
        "lscpu" => Grammar {
            max_operands: 0,
            optional_attached: "ep",
            ..g(
                "abcxyJB",
                &[
                    "all", "bytes", "json", "online", "offline", "hex", "physical",
                ],
            )
        },
        "lsblk" => Grammar {
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
        },
        // Not `-r` (repeats forever), `+r`. `-Q` (exit 0 when a search
        // term fails), `-b` (no kernel calls that might block), `-F` (field
        // output, letters only) and `-D i` (ignore the device cache; `b`,
        // `r`, `u` read or write it) only shape the output; lsof 4.95 on
        // Linux has no device cache and refuses `-D` with a usage error.
        "lsof" => Grammar {
            valued: "pucdD",
            then: Some(lsof),
            optional_attached: "isgF",
            ..g("nPltwVUXaQb", &[])
        },
        "groups" | "users" => Grammar {
            tolerant: true,
            ..BASE
        },
        "tty" => Grammar {
            max_operands: 0,
            ..g("s", &["silent", "quiet"])
        },
        "locale" => g(
            "amck",
            &["all-locales", "charmaps", "category-name", "keyword-name"],
        ),
        // An operand is a utmp file to read.
        "who" => Grammar {
            operands: Kind::Path,
            max_operands: 2,
            ..g(
                "abdHlmpqrstTu",
                &[
                    "all", "boot", "dead", "heading", "login", "process", "count", "runlevel",
                    "short", "time", "mesg", "users",
                ],
            )
        },
        "w" => Grammar {
            max_operands: 1,
            ..g("hsiu", &["no-header", "short", "ip-addr"])
        },
        "last" => Grammar {
            valued: "nt",
            path_valued: "f",
            number_option: true,
            ..g("aFiwxR", &[])
        },
        "netstat" => Grammar {
            max_operands: 0,
            then: Some(netstat),
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
        },
        // util-linux `cal -m` is a flag, BSD `-m` takes a month: left out.
        "cal" => Grammar {
            max_operands: 2,
            ..g("13yj", &[])
        },
        "lsusb" => Grammar {
            valued: "sd",
            max_operands: 0,
            ..g("vt", &["verbose", "tree"])
        },
        // Not `-q`/`-Q` (asks DNS), `-i`, `-F`, `-A`, `-H`, `-O`, `-M`.
        "lspci" => Grammar {
            valued: "sd",
            max_operands: 0,
            ..g("vnkmtDxb", &[])
        },
        "lsb_release" => Grammar {
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
        },
        // Not `-c`/`-C` (clear), `-D`/`-E`/`-n` (console), `-w`/`-W`
        // (follow), `-F` (reads a file), `-s`.
        "dmesg" => Grammar {
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
        },
        // Not `-K` (kills), `-D` (dumps to a file), `-E` (never ends), `-F`
        // (reads a filter file), `-N` (another namespace).
        // Not `-r`/`--resolve`: iproute2 6.1's ss then asks the resolver for
        // the name of every address it lists and rpcbind for port names
        // (the command oracle's declared-forms run saw it connect to
        // /var/run/rpcbind.sock), hosts the line does not name.
        "ss" => Grammar {
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
        },
        "mount" => Grammar {
            valued: "t",
            max_operands: 0,
            ..g("l", &[])
        },
        "ulimit" => Grammar {
            max_operands: 0,
            ..g("acdefilmnqrstuvxHSPRTbkp", &[])
        },
        _ => return None,
    };
    Some(grammar)
}

/// `seq` prints at most a bounded count: `seq inf` or a huge last bound floods.
/// `diff`: a directory operand is a set of files. Two directories compared
/// print every file both hold (`diff backend ~` prints a `.env` of each);
/// a file against a directory reads the directory's file of the same name,
/// which the secret check of the file's name already covers. So at least one
/// compared operand must read as a file: `-` or a last component with an
/// extension (`a.txt`). A directory disguised under such a name is a trap of
/// the tree the executor's confinement answers (SECURITY.md, "Commands").
fn diff_operands(parsed: &Parsed) -> Result<(), Refusal> {
    let compared: Vec<&str> = parsed
        .operands
        .iter()
        .map(String::as_str)
        .chain(parsed.values("--from-file"))
        .chain(parsed.values("--to-file"))
        .collect();
    if compared.iter().any(|o| reads_as_file(o)) {
        return Ok(());
    }
    Err(Refusal::new(
        crate::codes::COMMAND_SENSITIVE_PATH,
        format!(
            "`diff {}` may compare two directories, printing every file both hold (secret files included)",
            crate::text::preview(&compared.join(" "), 60)
        ),
    ))
}

/// Whether a path reads as a file rather than a directory: `-`, or a last
/// component with an extension after a stem (`a.txt`, not `.config`, `src`,
/// `..` or `dir/`).
pub(super) fn reads_as_file(path: &str) -> bool {
    // `-` is standard input; a process substitution is a pipe.
    if path == "-" || path.ends_with("process-substitution") {
        return true;
    }
    if path.ends_with('/') {
        return false;
    }
    let name = path.rsplit('/').next().unwrap_or(path);
    name.get(1..).is_some_and(|rest| {
        rest.rsplit_once('.')
            .is_some_and(|(_, ext)| !ext.is_empty() && !ext.contains(['*', '?', '[']))
    })
}

fn seq(parsed: &Parsed) -> Result<(), Refusal> {
    let numbers: Vec<Option<f64>> = parsed
        .operands
        .iter()
        .map(|o| o.parse::<f64>().ok().filter(|n| n.is_finite()))
        .collect();
    let bounded = match numbers.as_slice() {
        [Some(last)] => *last <= 1e7,
        [Some(first), Some(last)] => (last - first).abs() <= 1e7,
        [Some(first), Some(step), Some(last)] => {
            step.abs() > 0.0 && ((last - first) / step).abs() <= 1e7
        }
        _ => false,
    };
    if bounded {
        Ok(())
    } else {
        Err(Refusal::argument(
            "seq",
            &parsed.operands.join(" "),
            "is not a bounded count of numbers",
        ))
    }
}

/// GNU `strings @FILE` reads more options from a file.
fn strings(parsed: &Parsed) -> Result<(), Refusal> {
    for operand in &parsed.operands {
        if operand.starts_with('@') {
            return Err(Refusal::argument(
                "strings",
                operand,
                "reads further options from a file",
            ));
        }
        check_path("strings", operand)?;
    }
    Ok(())
}

/// `expr` words are the expression; none may look like an option.
fn expr(parsed: &Parsed) -> Result<(), Refusal> {
    if parsed.operands.is_empty() {
        return Err(Refusal::argument("expr", "", "has no expression"));
    }
    Ok(())
}

/// `look STRING [FILE]`: the file is read.
fn look(parsed: &Parsed) -> Result<(), Refusal> {
    match parsed.operands.get(1) {
        Some(file) => check_path("look", file),
        None => Ok(()),
    }
}

/// `shuf -e` shuffles its operands; otherwise it reads a file.
fn shuf(parsed: &Parsed) -> Result<(), Refusal> {
    let counted = parsed.has("-n") || parsed.has("--head-count");
    if (parsed.has("-i") || parsed.has("--input-range")) && !counted {
        return Err(Refusal::argument(
            "shuf",
            "-i",
            "without `-n` prints a range that may be unbounded",
        ));
    }
    if parsed.has("-e") || parsed.has("--echo") || parsed.has("-i") || parsed.has("--input-range") {
        return Ok(());
    }
    if parsed.operands.len() > 1 {
        return Err(Refusal::argument(
            "shuf",
            &parsed.operands.join(" "),
            "names more than one input",
        ));
    }
    parsed
        .operands
        .iter()
        .try_for_each(|o| check_path("shuf", o))
}

/// `tail`: an obsolete `+NUMf` operand may be read as "follow"; `+` is
/// accepted only before digits.
fn tail(parsed: &Parsed) -> Result<(), Refusal> {
    for operand in &parsed.operands {
        if let Some(rest) = operand.strip_prefix('+') {
            if !rest.chars().all(|c| c.is_ascii_digit()) {
                return Err(Refusal::option("tail", operand));
            }
        }
        check_path("tail", operand)?;
    }
    Ok(())
}

/// `lsof +r` repeats forever and `+D`/`+d` take values: `+` options are
/// not declared. `-D` only as `i` (ignore the device cache file), `-F` only
/// with field letters and digits.
/// net-tools 2.10's netstat names every address it lists by asking the
/// resolver unless `-n` is given (`netstat -g` asked for
/// `1.0.0.224.in-addr.arpa` and the IPv6 group addresses when the command
/// oracle ran every declared form): a lookup of a name the line does not
/// hold, sent to whatever resolver the machine has. Only the interface and
/// statistics tables list no address; everything else needs `-n`.
fn netstat(parsed: &Parsed) -> Result<(), Refusal> {
    if parsed.has("-n") || parsed.has("--numeric") {
        return Ok(());
    }
    let tables = ["-i", "--interfaces", "-s", "--statistics"];
    let shaping = ["-e", "--extend", "-v", "-W", "--wide"];
    let no_addresses = tables.iter().any(|t| parsed.has(t))
        && parsed
            .options
            .iter()
            .all(|(name, _)| tables.contains(&name.as_str()) || shaping.contains(&name.as_str()));
    if no_addresses {
        Ok(())
    } else {
        Err(Refusal::argument(
            "netstat",
            &parsed
                .options
                .iter()
                .map(|(name, _)| name.as_str())
                .collect::<Vec<_>>()
                .join(" "),
            "looks up the name of every address it lists (a host the line does not name) without `-n`",
        ))
    }
}

///
/// Without `-n` lsof converts the address of every network file it lists to
/// a host name (lsof(8): "-n inhibits the conversion of network numbers to
/// host names for network files"), a lookup of names the line does not hold,
/// sent to the machine's resolver, as netstat's is. Without `-n` a line is
/// proven only when it selects nothing but the files it names (no `-p`,
/// `-u`, `-c`, `-d`, `-g`, `-i`, `-U` selection, which lsof joins with "or"):
/// a named file is never a network file (lsof 4.95 run here lists nothing
/// for a socket's `/proc/PID/fd/N`, and with no operand it lists every open
/// file, sockets included). A host `-i@NAME` names is looked up even with
/// `-n`, so it goes to the egress rule as `host` does.
fn lsof(parsed: &Parsed) -> Result<(), Refusal> {
    if let Some(option) = parsed.operands.iter().find(|o| o.starts_with('+')) {
        return Err(Refusal::option(&parsed.program, option));
    }
    let numeric = parsed.has("-n");
    let selectors = ["-p", "-u", "-c", "-d", "-g", "-i", "-U"];
    let selects = parsed
        .options
        .iter()
        .any(|(n, _)| selectors.contains(&n.as_str()));
    if !numeric && (selects || parsed.operands.is_empty()) {
        return Err(Refusal::argument(
            "lsof",
            &parsed
                .options
                .iter()
                .map(|(name, _)| name.as_str())
                .collect::<Vec<_>>()
                .join(" "),
            "looks up the host name of every network address it lists (a host the line does not name) without `-n`",
        ));
    }
    // `-i ADDR` may also be written apart (`lsof -i @mace`): every operand
    // with an `@` is read as an address too.
    let hosts: Vec<&str> = parsed
        .values("-i")
        .chain(parsed.operands.iter().map(String::as_str))
        .filter_map(lsof_host)
        .collect();
    if !hosts.is_empty() {
        super::net::names("lsof", &hosts)?;
    }
    if let Some(value) = parsed.values("-D").find(|v| *v != "i") {
        return Err(Refusal::argument(
            "lsof",
            "-D",
            &format!("`{value}` reads or writes the device cache"),
        ));
    }
    if let Some(value) = parsed
        .values("-F")
        .find(|v| !v.chars().all(|c| c.is_ascii_alphanumeric()))
    {
        return Err(Refusal::argument(
            "lsof",
            "-F",
            &format!("`{value}` is not a list of field letters"),
        ));
    }
    Ok(())
}

/// The host of an lsof `-i` address (`4TCP@host:80`, `@[::1]`), when it
/// names one.
fn lsof_host(address: &str) -> Option<&str> {
    let (_, rest) = address.split_once('@')?;
    let host = match rest.strip_prefix('[') {
        Some(v6) => v6.split(']').next().unwrap_or(v6),
        None => rest.split(':').next().unwrap_or(rest),
    };
    // An address literal is compared, not looked up.
    (!host.is_empty() && host.parse::<std::net::IpAddr>().is_err()).then_some(host)
}

/// Every file `head` reads passes the path checks (endless devices are
/// `unbounded`'s, which knows what bounds them).
fn head(parsed: &Parsed) -> Result<(), Refusal> {
    for operand in &parsed.operands {
        check_path("head", operand)?;
    }
    Ok(())
}

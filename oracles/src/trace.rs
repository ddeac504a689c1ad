//! Reads what `strace -f -ff -y` wrote about one command line and turns it into
//! events the command oracle judges: files opened, paths changed, programs run,
//! sockets connected, DNS names asked for.
//!
//! The tracer writes one file per process (`-ff`), so no line is split between
//! processes; `-y` decorates every file descriptor with the path it stands for,
//! which is how relative and descriptor-relative paths are resolved without
//! replaying `cd`.

/// One traced system call, as the judge needs it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Event {
    /// `open`/`openat`/`openat2`/`creat`.
    Open {
        /// The absolute path when the tracer could resolve it, else as given.
        path: String,
        /// The path as the program gave it.
        given: String,
        /// Whether the flags ask for writing, creating, truncating or appending.
        write: bool,
        /// Whether the call succeeded.
        ok: bool,
    },
    /// A call that changes the file system or the system by its nature
    /// (unlink, rename, mkdir, chmod, chown, link, symlink, truncate, mknod,
    /// utime, xattr, fallocate, mount; hostname, clock, modules, swap, reboot);
    /// attempted is already too much.
    Change {
        /// The system call's name.
        call: String,
        /// The first path argument, resolved where the tracer could.
        path: String,
        /// Whether the call succeeded.
        ok: bool,
    },
    /// A successful `execve`/`execveat`.
    Exec {
        /// The program's path.
        path: String,
        /// `argv[0]`.
        argv0: String,
    },
    /// `connect`.
    Connect {
        /// The socket's address, rendered (`unix:/path`, `inet:1.2.3.4:80`, `inet6:[::1]:80`, `netlink`, …).
        addr: Addr,
        /// The socket, as `socket:[inode]`, to tie later sends to it.
        socket: String,
    },
    /// `listen`: the program opened a server socket.
    Listen {
        /// The socket, as the tracer decorated it.
        socket: String,
    },
    /// A new process or thread (`clone`, `clone3`, `fork`, `vfork`), seen from
    /// the parent.
    Spawn {
        /// The child's process id.
        child: u32,
    },
    /// Bytes sent on a socket (`sendto`/`sendmsg`/`sendmmsg`), decoded.
    Send {
        /// The socket, as `socket:[inode]`.
        socket: String,
        /// The payloads.
        payloads: Vec<Vec<u8>>,
    },
}

/// A socket address from a `connect`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Addr {
    /// A Unix socket path (abstract ones start with `@`).
    Unix(String),
    /// IPv4 or IPv6, with the port.
    Inet {
        /// The address as the tracer printed it.
        ip: String,
        /// The port.
        port: u16,
    },
    /// Anything else (netlink, packet, …), by family name.
    Other(String),
}

/// One event with the raw trace line it came from (for failure messages) and the
/// process it happened in.
#[derive(Clone, Debug)]
pub struct Traced {
    /// The process id (from the per-process file name).
    pub pid: u32,
    /// The raw line.
    pub raw: String,
    /// What it means.
    pub event: Event,
}

/// The system calls the oracle asks the tracer for (`-e trace=`).
pub const TRACED_CALLS: &str =
    "open,openat,openat2,creat,unlink,unlinkat,rename,renameat,renameat2,\
mkdir,mkdirat,rmdir,chmod,fchmod,fchmodat,chown,fchown,lchown,fchownat,link,linkat,symlink,\
symlinkat,truncate,ftruncate,mknod,mknodat,utime,utimes,utimensat,futimesat,setxattr,lsetxattr,\
fsetxattr,removexattr,lremovexattr,fremovexattr,fallocate,mount,umount2,execve,execveat,connect,\
listen,sendto,sendmsg,sendmmsg,clone,clone3,fork,vfork,sethostname,setdomainname,reboot,\
init_module,finit_module,delete_module,swapon,swapoff,settimeofday,clock_settime,adjtimex,\
clock_adjtime,chroot,pivot_root,acct,kexec_load,kexec_file_load,process_vm_writev";

/// Calls that change the file system by their nature.
const CHANGE_CALLS: &[&str] = &[
    "unlink",
    "unlinkat",
    "rename",
    "renameat",
    "renameat2",
    "mkdir",
    "mkdirat",
    "rmdir",
    "chmod",
    "fchmod",
    "fchmodat",
    "chown",
    "fchown",
    "lchown",
    "fchownat",
    "link",
    "linkat",
    "symlink",
    "symlinkat",
    "truncate",
    "ftruncate",
    "mknod",
    "mknodat",
    "utime",
    "utimes",
    "utimensat",
    "futimesat",
    "setxattr",
    "lsetxattr",
    "fsetxattr",
    "removexattr",
    "lremovexattr",
    "fremovexattr",
    "fallocate",
    "mount",
    "umount2",
    // Changes to the system rather than a file: the attempt alone is the
    // evidence (the sandbox refuses them).
    "sethostname",
    "setdomainname",
    "reboot",
    "init_module",
    "finit_module",
    "delete_module",
    "swapon",
    "swapoff",
    "settimeofday",
    "clock_settime",
    "adjtimex",
    "clock_adjtime",
    "chroot",
    "pivot_root",
    "acct",
    "kexec_load",
    "kexec_file_load",
    "process_vm_writev",
];

/// Open flags that mean the file will be changed.
const WRITE_FLAGS: &[&str] = &["O_WRONLY", "O_RDWR", "O_CREAT", "O_TRUNC", "O_APPEND"];

/// Parses every line of one process's trace file.
pub fn parse(pid: u32, text: &str) -> Vec<Traced> {
    text.lines()
        .filter_map(|raw| {
            parse_line(raw).map(|event| Traced {
                pid,
                raw: raw.to_owned(),
                event,
            })
        })
        .collect()
}

/// One trace line into an event; `None` for calls the oracle does not judge and
/// lines that are not calls (`+++ exited`, `--- SIG…`).
pub fn parse_line(raw: &str) -> Option<Event> {
    let open = raw.find('(')?;
    let call = raw.get(..open)?.trim();
    let rest = raw.get(open + 1..)?;
    let (args, result) = split_result(rest);
    let ok = result
        .trim_start()
        .starts_with(|c: char| c.is_ascii_digit());
    match call {
        "open" | "openat" | "openat2" | "creat" => {
            let given = first_string(args).unwrap_or_default();
            let write = call == "creat" || WRITE_FLAGS.iter().any(|f| has_flag(args, f));
            let path = decorated(result)
                .filter(|_| ok)
                .unwrap_or_else(|| resolve(args, &given));
            Some(Event::Open {
                path,
                given,
                write,
                ok,
            })
        }
        c if CHANGE_CALLS.contains(&c) => {
            let path = match first_string(args) {
                Some(given) => resolve(args, &given),
                None => first_decoration(args).unwrap_or_default(),
            };
            Some(Event::Change {
                call: c.to_owned(),
                path,
                ok,
            })
        }
        "execve" | "execveat" if ok => {
            let mut strings = strings(args).into_iter().map(|s| s.text());
            let path = strings.next().unwrap_or_default();
            let argv0 = strings.next().unwrap_or_default();
            Some(Event::Exec { path, argv0 })
        }
        "connect" => Some(Event::Connect {
            addr: sockaddr(args),
            socket: first_decoration(args).unwrap_or_default(),
        }),
        "listen" => Some(Event::Listen {
            socket: first_decoration(args).unwrap_or_default(),
        }),
        "clone" | "clone3" | "fork" | "vfork" => {
            let child = result.split_whitespace().next()?.parse().ok()?;
            Some(Event::Spawn { child })
        }
        "sendto" | "sendmsg" | "sendmmsg" => Some(Event::Send {
            socket: first_decoration(args).unwrap_or_default(),
            payloads: strings(args)
                .into_iter()
                .map(|s| s.into_bytes_lossless())
                .collect(),
        }),
        _ => None,
    }
}

/// Splits `args) = result` at the last ` = ` (the arguments may contain it
/// inside strings; the result never does). The tracer pads the result to a
/// column, so spaces before ` = ` vary.
fn split_result(rest: &str) -> (&str, &str) {
    match rest.rfind(" = ") {
        Some(at) => {
            let args = rest.get(..at).unwrap_or(rest).trim_end();
            (
                args.strip_suffix(')').unwrap_or(args),
                rest.get(at + 3..).unwrap_or(""),
            )
        }
        None => (rest, ""),
    }
}

/// Whether `flag` appears as a whole flag name in `args`.
fn has_flag(args: &str, flag: &str) -> bool {
    args.match_indices(flag).any(|(at, _)| {
        let before = args.get(..at).and_then(|s| s.chars().next_back());
        let after = args.get(at + flag.len()..).and_then(|s| s.chars().next());
        !before.is_some_and(|c| c.is_ascii_alphanumeric() || c == '_')
            && !after.is_some_and(|c| c.is_ascii_alphanumeric() || c == '_')
    })
}

/// The path `-y` printed after a result descriptor: `3</a/b>` gives `/a/b`.
fn decorated(result: &str) -> Option<String> {
    let start = result.find('<')?;
    let tail = result.get(start + 1..)?;
    let end = tail.find('>')?;
    tail.get(..end).map(str::to_owned)
}

/// The first `<…>` decoration in the arguments (the directory or socket of the
/// first descriptor argument).
fn first_decoration(args: &str) -> Option<String> {
    let quote = args.find('"').unwrap_or(args.len());
    let head = args.get(..quote)?;
    decorated(head)
}

/// A given path made absolute with the directory descriptor's decoration
/// (`AT_FDCWD</cwd>` or `3</dir>`).
fn resolve(args: &str, given: &str) -> String {
    if given.starts_with('/') {
        return given.to_owned();
    }
    match first_decoration(args) {
        Some(dir) if dir.starts_with('/') => {
            if given.is_empty() {
                dir
            } else {
                format!("{}/{given}", dir.trim_end_matches('/'))
            }
        }
        _ => given.to_owned(),
    }
}

/// The first double-quoted string argument, unescaped.
fn first_string(args: &str) -> Option<String> {
    strings(args).into_iter().next().map(|s| s.text())
}

/// A C string as the tracer escapes it, decoded to bytes.
#[derive(Default)]
pub struct CString(Vec<u8>);

impl CString {
    fn text(&self) -> String {
        String::from_utf8_lossy(&self.0).into_owned()
    }
    fn into_bytes_lossless(self) -> Vec<u8> {
        self.0
    }
}

/// Every double-quoted string in `args`, decoded (`\n`, `\t`, `\"`, `\\`,
/// octal `\NNN`, `\xHH`).
fn strings(args: &str) -> Vec<CString> {
    let bytes = args.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while let Some(&b) = bytes.get(i) {
        i += 1;
        if b != b'"' {
            continue;
        }
        let mut s = Vec::new();
        while let Some(&c) = bytes.get(i) {
            i += 1;
            match c {
                b'"' => break,
                b'\\' => {
                    let Some(&e) = bytes.get(i) else { break };
                    i += 1;
                    match e {
                        b'n' => s.push(b'\n'),
                        b't' => s.push(b'\t'),
                        b'r' => s.push(b'\r'),
                        b'v' => s.push(0x0b),
                        b'f' => s.push(0x0c),
                        b'x' => {
                            let hex = args.get(i..i + 2).unwrap_or("");
                            if let Ok(v) = u8::from_str_radix(hex, 16) {
                                s.push(v);
                                i += 2;
                            }
                        }
                        b'0'..=b'7' => {
                            let mut v: u32 = u32::from(e - b'0');
                            for _ in 0..2 {
                                match bytes.get(i) {
                                    Some(&d @ b'0'..=b'7') => {
                                        v = v * 8 + u32::from(d - b'0');
                                        i += 1;
                                    }
                                    _ => break,
                                }
                            }
                            s.push(u8::try_from(v & 0xff).unwrap_or(0));
                        }
                        other => s.push(other),
                    }
                }
                other => s.push(other),
            }
        }
        out.push(CString(s));
    }
    out
}

/// A `{sa_family=…}` structure in `connect`/`bind` arguments.
fn sockaddr(args: &str) -> Addr {
    let family = field(args, "sa_family=").unwrap_or_default();
    match family.as_str() {
        "AF_UNIX" | "AF_LOCAL" => {
            let path = strings(args).into_iter().next().map(|s| s.text());
            let abstract_ = args.contains("sun_path=@");
            Addr::Unix(match path {
                Some(p) if abstract_ => format!("@{p}"),
                Some(p) => p,
                None => String::new(),
            })
        }
        "AF_INET" | "AF_INET6" => {
            let port = field(args, "sin6_port=htons(")
                .or_else(|| field(args, "sin_port=htons("))
                .and_then(|p| p.parse().ok())
                .unwrap_or(0);
            let ip = strings(args)
                .into_iter()
                .next()
                .map(|s| s.text())
                .unwrap_or_default();
            Addr::Inet { ip, port }
        }
        other => Addr::Other(other.to_owned()),
    }
}

/// The value after `key` up to the next `,`, `)` or `}`.
fn field(args: &str, key: &str) -> Option<String> {
    let at = args.find(key)?;
    let tail = args.get(at + key.len()..)?;
    let end = tail.find([',', ')', '}']).unwrap_or(tail.len());
    tail.get(..end).map(|s| s.trim().to_owned())
}

/// The name a DNS query asks for, if `payload` is one (header, then labels).
pub fn dns_query_name(payload: &[u8]) -> Option<String> {
    let flags = payload.get(2)?;
    // QR bit clear: a query; QDCOUNT at least one.
    if flags & 0x80 != 0 || payload.get(4..6)? == [0, 0] {
        return None;
    }
    let mut labels = Vec::new();
    let mut i = 12;
    loop {
        let len = usize::from(*payload.get(i)?);
        if len == 0 {
            break;
        }
        if len > 63 {
            return None;
        }
        let label = payload.get(i + 1..i + 1 + len)?;
        labels.push(String::from_utf8_lossy(label).into_owned());
        i += 1 + len;
    }
    Some(labels.join("."))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn open_for_writing_is_resolved_from_the_decoration() {
        let e =
            parse_line(r#"openat(AT_FDCWD</w>, "g", O_WRONLY|O_CREAT|O_TRUNC, 0666) = 3</w/g>"#);
        assert_eq!(
            e,
            Some(Event::Open {
                path: "/w/g".into(),
                given: "g".into(),
                write: true,
                ok: true
            })
        );
        let e = parse_line(
            r#"openat(AT_FDCWD</w>, "x/y", O_RDONLY) = -1 ENOENT (No such file or directory)"#,
        );
        assert_eq!(
            e,
            Some(Event::Open {
                path: "/w/x/y".into(),
                given: "x/y".into(),
                write: false,
                ok: false
            })
        );
    }

    #[test]
    fn a_dns_query_is_read_from_sendto() {
        let e = parse_line(
            r#"sendto(3<socket:[17944]>, "\34\207\1\0\0\1\0\0\0\0\0\0\7example\3com\0\0\34\0\1", 29, MSG_NOSIGNAL, NULL, 0) = 29"#,
        );
        let Some(Event::Send { socket, payloads }) = e else {
            panic!("{e:?}")
        };
        assert_eq!(socket, "socket:[17944]");
        assert_eq!(dns_query_name(&payloads[0]).as_deref(), Some("example.com"));
    }

    #[test]
    fn connect_addresses() {
        let e = parse_line(
            r#"connect(3<socket:[1]>, {sa_family=AF_INET, sin_port=htons(53), sin_addr=inet_addr("10.0.0.1")}, 16) = 0"#,
        );
        assert_eq!(
            e,
            Some(Event::Connect {
                addr: Addr::Inet {
                    ip: "10.0.0.1".into(),
                    port: 53
                },
                socket: "socket:[1]".into()
            })
        );
        let e = parse_line(
            r#"connect(4<socket:[2]>, {sa_family=AF_UNIX, sun_path="/var/run/nscd/socket"}, 110) = -1 ENOENT (No such file or directory)"#,
        );
        assert_eq!(
            e,
            Some(Event::Connect {
                addr: Addr::Unix("/var/run/nscd/socket".into()),
                socket: "socket:[2]".into()
            })
        );
    }

    #[test]
    fn changes_and_execs() {
        let e = parse_line(r#"unlink("/w/.git/index.lock")  = 0"#);
        assert_eq!(
            e,
            Some(Event::Change {
                call: "unlink".into(),
                path: "/w/.git/index.lock".into(),
                ok: true
            })
        );
        let e = parse_line(r#"execve("/usr/bin/ls", ["ls", "-l"], 0x5 /* 35 vars */) = 0"#);
        assert_eq!(
            e,
            Some(Event::Exec {
                path: "/usr/bin/ls".into(),
                argv0: "ls".into()
            })
        );
        assert_eq!(parse_line("+++ exited with 0 +++"), None);
    }
}

//! A path's text resolved the way each platform a tool might run on would
//! read it, before `roots` and the secret table are consulted.
//!
//! The policy has no filesystem, so it cannot know which platform the tool
//! runs on. It reads the text every way a real program could and judges each
//! reading: a path is safe only when every reading is.
//!
//! - **POSIX**: `/` separates; `\` and `:` are ordinary characters; `~` is the
//!   user's home and `~name` another user's (`~root` is `/root`).
//! - **Windows**: `/` and `\` separate; `C:\…` and `C:/…` are drive paths,
//!   `\\server\share\…` and `\\?\UNC\…` network paths, `\\?\C:\…` a verbatim
//!   drive path, `\\.\…` a device; `name:stream` and `name::$DATA` name an
//!   NTFS stream of `name`; trailing dots and spaces of a name are dropped
//!   (`.env.` and `.env ` open `.env`).
//! - **file URL**: `file:///etc/shadow` and `file://localhost/C:/…`,
//!   percent-decoded, for tools that take URLs as paths.
//!
//! A relative path that climbs (`../../proc/self/environ`) is also judged as
//! the absolute path it reaches once the climb passes `/`, and one that does
//! not climb as the absolute path it names from a working directory of `/`
//! (`proc/self/environ`, `etc/shadow`), except under the names that are also
//! common project directories (`dev`, `sys`, `boot`, `root`). Forms whose target
//! cannot be known from the text are unresolvable, which the callers confirm:
//! drive-relative paths (`C:foo`), unexpanded variables (`$HOME`, `%APPDATA%`),
//! 8.3 short names (`CREDEN~1`), and reserved device names (`NUL`, `COM1`).

use super::secrets::{self, Why};
use super::urls::host::percent_decode;

/// How a reading's path is anchored.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Anchor {
    /// An absolute path from the root (`/…`, or `\…` on the current drive).
    Root,
    /// A Windows drive path (`C:\…`): never inside a POSIX root.
    Drive,
    /// A network path (`\\server\share\…`): never inside a root.
    Network,
    /// Under the user's home (`~/…`), which the text does not name.
    Home,
    /// Relative to the tool's working directory.
    Relative,
}

/// One reading of a path's text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Reading {
    /// The platform or form the reading belongs to, for messages.
    pub platform: &'static str,
    /// How the path is anchored.
    pub anchor: Anchor,
    /// The resolved components (no `.`, `..` only at the front of a relative path).
    pub components: Vec<String>,
}

impl Reading {
    /// The path as text: `/a/b` for anchored readings, `a/b` for relative
    /// ones, `~/a` for the home.
    pub fn text(&self) -> String {
        let joined = self.components.join("/");
        match self.anchor {
            Anchor::Root | Anchor::Drive | Anchor::Network => format!("/{joined}"),
            Anchor::Home => format!("~/{joined}"),
            Anchor::Relative => joined,
        }
    }

    /// Whether a relative reading climbs above its start.
    pub fn climbs(&self) -> bool {
        self.anchor == Anchor::Relative && self.components.first().is_some_and(|c| c == "..")
    }
}

/// Why a path's target cannot be known from its text.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Unresolvable {
    /// Control characters (a NUL ends the path early in C APIs).
    Control,
    /// `C:foo`: relative to the drive's current directory, which the text does not say.
    DriveRelative,
    /// `$HOME`, `${X}`, `%APPDATA%`: a tool that expands them reads elsewhere.
    Variable,
    /// An 8.3 short name (`CREDEN~1`) that stands for a longer name.
    ShortName,
    /// A reserved Windows device name (`NUL`, `CON`, `COM1`, `LPT1`).
    DeviceName,
    /// A Windows device namespace path (`\\.\PhysicalDrive0`).
    DeviceNamespace,
}

impl Unresolvable {
    /// The message fragment.
    pub fn message(self) -> &'static str {
        match self {
            Unresolvable::Control => "holds control characters",
            Unresolvable::DriveRelative => {
                "is relative to a Windows drive's current directory, which the text does not name"
            }
            Unresolvable::Variable => "holds a variable that a tool could expand to any place",
            Unresolvable::ShortName => {
                "holds a Windows short (8.3) name that stands for another name"
            }
            Unresolvable::DeviceName => "is a reserved Windows device name",
            Unresolvable::DeviceNamespace => "is a Windows device path, not a file",
        }
    }
}

fn is_separator(c: char) -> bool {
    c == '/' || c == '\\'
}

/// Resolves `.` and `..` over `parts`; `..` above an anchored start stays at
/// the anchor, above a relative start is kept at the front.
fn resolve<'a>(parts: impl Iterator<Item = &'a str>, anchored: bool) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for part in parts {
        match part {
            "" | "." => {}
            ".." => match out.last() {
                Some(last) if last != ".." => {
                    out.pop();
                }
                _ if anchored => {}
                _ => out.push(String::from("..")),
            },
            other => out.push(other.to_owned()),
        }
    }
    out
}

fn is_variable(component: &str) -> bool {
    let mut chars = component.chars();
    let dollar = component.starts_with('$')
        && chars
            .nth(1)
            .is_some_and(|c| c.is_ascii_alphabetic() || c == '_' || c == '{' || c == '(');
    let percent = component.len() > 2
        && component.starts_with('%')
        && component
            .get(1..)
            .is_some_and(|rest| rest.contains('%') && !rest.starts_with('%'));
    dollar || percent
}

fn posix(text: &str) -> Result<Reading, Unresolvable> {
    let mut parts: Vec<&str> = text.split('/').collect();
    let mut anchor = if text.starts_with('/') {
        Anchor::Root
    } else {
        Anchor::Relative
    };
    let mut prefix: Vec<&str> = Vec::new();
    if let Some(first) = parts.first().copied() {
        if let Some(user) = first.strip_prefix('~') {
            parts.remove(0);
            if user.is_empty() {
                anchor = Anchor::Home;
            } else if user == "root" {
                anchor = Anchor::Root;
                prefix.push("root");
            } else {
                anchor = Anchor::Root;
                prefix.extend(["home", user]);
            }
        }
    }
    if parts.iter().any(|p| is_variable(p)) {
        return Err(Unresolvable::Variable);
    }
    let anchored = anchor != Anchor::Relative;
    Ok(Reading {
        platform: "POSIX",
        anchor,
        components: resolve(prefix.into_iter().chain(parts), anchored),
    })
}

const DEVICE_NAMES: &[&str] = &[
    "con", "prn", "aux", "nul", "conin$", "conout$", "com0", "com1", "com2", "com3", "com4",
    "com5", "com6", "com7", "com8", "com9", "lpt0", "lpt1", "lpt2", "lpt3", "lpt4", "lpt5", "lpt6",
    "lpt7", "lpt8", "lpt9",
];

/// A Windows name as the filesystem opens it: the stream part dropped,
/// trailing dots and spaces removed.
fn windows_name(component: &str) -> Result<&str, Unresolvable> {
    if component == "." || component == ".." {
        return Ok(component);
    }
    let name = component.split(':').next().unwrap_or("");
    let name = name.trim_end_matches(['.', ' ']);
    let lower = name.to_ascii_lowercase();
    let stem = lower.split('.').next().unwrap_or("");
    if DEVICE_NAMES.contains(&stem.trim_end()) {
        return Err(Unresolvable::DeviceName);
    }
    let bytes = name.as_bytes();
    if bytes
        .windows(2)
        .any(|w| matches!(w, [b'~', d] if d.is_ascii_digit()))
    {
        return Err(Unresolvable::ShortName);
    }
    if is_variable(name) {
        return Err(Unresolvable::Variable);
    }
    Ok(name)
}

fn windows(text: &str) -> Result<Reading, Unresolvable> {
    let chars: Vec<char> = text.chars().take(4).collect();
    let sep = |i: usize| chars.get(i).copied().is_some_and(is_separator);
    let mut rest = text;
    let mut anchor = Anchor::Relative;
    if sep(0) && sep(1) {
        match chars.get(2) {
            Some('.') if sep(3) => return Err(Unresolvable::DeviceNamespace),
            Some('?') if sep(3) => {
                rest = text.get(4..).unwrap_or("");
                let upper = rest.get(..4).map(str::to_ascii_uppercase);
                let first = rest.split(is_separator).next().unwrap_or("");
                let drive = first.len() == 2
                    && first.ends_with(':')
                    && first.starts_with(|c: char| c.is_ascii_alphabetic());
                if upper.as_deref() == Some("UNC\\") || upper.as_deref() == Some("UNC/") {
                    rest = rest.get(4..).unwrap_or("");
                    anchor = Anchor::Network;
                } else if first.eq_ignore_ascii_case("globalroot") {
                    // The NT object namespace: devices, shadow copies.
                    return Err(Unresolvable::DeviceNamespace);
                } else if !drive {
                    // `\\?\Volume{…}\…`: an absolute path on a volume the
                    // text names only by its identifier.
                    let parts = rest
                        .split(is_separator)
                        .skip(1)
                        .map(windows_name)
                        .collect::<Result<Vec<_>, _>>()?;
                    return Ok(Reading {
                        platform: "Windows",
                        anchor: Anchor::Network,
                        components: resolve(parts.into_iter(), true),
                    });
                }
            }
            _ => {
                rest = text.get(2..).unwrap_or("");
                anchor = Anchor::Network;
            }
        }
    }
    if anchor == Anchor::Network {
        // `\\server\share\rest`: the share is a drive's root (`c$`), so the
        // rest is judged as an absolute path.
        let mut split = rest.splitn(3, is_separator);
        let _server = split.next();
        let _share = split.next();
        let tail = split.next().unwrap_or("");
        let parts = tail
            .split(is_separator)
            .map(windows_name)
            .collect::<Result<Vec<_>, _>>()?;
        return Ok(Reading {
            platform: "Windows",
            anchor,
            components: resolve(parts.into_iter(), true),
        });
    }
    let drive: Vec<char> = rest.chars().take(3).collect();
    if let [letter, ':', ..] = drive.as_slice() {
        if letter.is_ascii_alphabetic() {
            if !drive.get(2).copied().is_some_and(is_separator) {
                return Err(Unresolvable::DriveRelative);
            }
            rest = rest.get(3..).unwrap_or("");
            anchor = Anchor::Drive;
        }
    } else if rest.starts_with(is_separator) {
        anchor = Anchor::Root;
    }
    let parts = rest
        .split(is_separator)
        .map(windows_name)
        .collect::<Result<Vec<_>, _>>()?;
    Ok(Reading {
        platform: "Windows",
        anchor,
        components: resolve(parts.into_iter(), anchor != Anchor::Relative),
    })
}

/// The path of a `file:` URL, if the text is one.
fn file_url(text: &str) -> Option<String> {
    let rest = text
        .get(..5)?
        .eq_ignore_ascii_case("file:")
        .then(|| text.get(5..))??;
    let rest = match rest.strip_prefix("//") {
        Some(authority_and_path) => {
            let at = authority_and_path
                .find('/')
                .unwrap_or(authority_and_path.len());
            authority_and_path.get(at..).unwrap_or("")
        }
        None => rest,
    };
    let path = percent_decode(rest);
    // `file:///C:/x` names the drive path `C:/x`.
    let bytes = path.as_bytes();
    if let [b'/', letter, b':', ..] = bytes {
        if letter.is_ascii_alphabetic() {
            return path.get(1..).map(str::to_owned);
        }
    }
    Some(path)
}

/// Every reading of a path's text, or why it cannot be resolved.
pub fn readings(text: &str) -> Result<Vec<Reading>, Unresolvable> {
    if text.chars().any(char::is_control) {
        return Err(Unresolvable::Control);
    }
    let mut out = vec![posix(text)?, windows(text)?];
    // A tool that takes paths from URLs or forms decodes `%XX` escapes:
    // `..%2f..%2fetc` climbs, `.env%00` ends at the NUL.
    let decoded = percent_decode(text);
    if decoded != text {
        if decoded.chars().any(char::is_control) {
            return Err(Unresolvable::Control);
        }
        for mut reading in [posix(&decoded)?, windows(&decoded)?] {
            reading.platform = "percent-decoded";
            out.push(reading);
        }
    }
    if let Some(path) = file_url(text) {
        if path.chars().any(char::is_control) {
            return Err(Unresolvable::Control);
        }
        let mut from_url = posix(&path)?;
        from_url.platform = "file URL";
        out.push(from_url);
        let mut from_url = windows(&path)?;
        from_url.platform = "file URL";
        out.push(from_url);
    }
    Ok(out)
}

/// Why a reading holds secrets, if it does: its own text, and for a relative
/// reading that climbs, the absolute path the climb reaches.
pub fn reading_secret(reading: &Reading) -> Option<Why> {
    let text = reading.text().to_lowercase();
    if let Some(why) = secrets::secret(&text) {
        return Some(why);
    }
    // macOS keeps `/etc` and `/var` under `/private`.
    if let Some(rest) = text.strip_prefix("/private/") {
        if let Some(why) = secrets::secret(&format!("/{rest}")) {
            return Some(why);
        }
    }
    if reading.climbs() {
        let tail: Vec<&str> = reading
            .components
            .iter()
            .map(String::as_str)
            .skip_while(|c| *c == "..")
            .collect();
        return secrets::secret(&format!("/{}", tail.join("/")).to_lowercase());
    }
    // A tool whose working directory is `/` (a container's default) reads
    // `proc/self/environ` as `/proc/self/environ`. The system locations
    // whose names are also common project directories (`dev/`, `sys/`,
    // `boot/`, `root/`) are left to the roots.
    if reading.anchor == Anchor::Relative {
        let first = reading.components.first().map(|c| c.to_lowercase());
        let common = matches!(first.as_deref(), Some("dev" | "sys" | "boot" | "root"));
        if !common {
            return secrets::secret(&format!("/{text}"));
        }
    }
    None
}

/// Whether a reading lies inside one of `roots` (absolute POSIX paths).
/// Windows readings compare without regard to case, as Windows does.
pub fn within_roots(reading: &Reading, roots: &[String]) -> bool {
    match reading.anchor {
        Anchor::Drive | Anchor::Network | Anchor::Home => false,
        // Relative to the tool's own working directory, which it resolves
        // inside its root; climbing out of it is not allowed.
        Anchor::Relative => !reading.climbs(),
        Anchor::Root => {
            let fold = reading.platform == "Windows";
            let path = reading.text();
            let path = if fold { path.to_lowercase() } else { path };
            roots.iter().any(|root| {
                let Ok(root) = posix(root) else { return false };
                let root = root.text();
                let root = if fold { root.to_lowercase() } else { root };
                let root = root.trim_end_matches('/');
                root.is_empty() || path == root || path.starts_with(&format!("{root}/"))
            })
        }
    }
}

/// Why a path's text (any spelling) holds secrets, if any reading does; the
/// check shared with the command assessor. Unresolvable forms count only when
/// they are themselves a hazard (control characters, device paths).
pub fn secret_path(path: &str) -> Option<&'static str> {
    match readings(path) {
        // The readings of most paths agree (POSIX and Windows read `a/b`
        // alike); a reading the same as an earlier one has the same answer.
        Ok(readings) => readings
            .iter()
            .enumerate()
            .filter(|(at, r)| {
                !readings
                    .iter()
                    .take(*at)
                    .any(|e| e.anchor == r.anchor && e.components == r.components)
            })
            .find_map(|(_, r)| reading_secret(r))
            .map(Why::message),
        Err(why @ (Unresolvable::Control | Unresolvable::DeviceNamespace)) => Some(why.message()),
        Err(_) => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn texts(path: &str) -> Vec<String> {
        readings(path).unwrap().iter().map(Reading::text).collect()
    }

    #[test]
    fn readings_of_each_form() {
        assert_eq!(
            texts("/srv/app/../../etc/./shadow"),
            ["/etc/shadow", "/etc/shadow"]
        );
        assert_eq!(texts("a//b/../c"), ["a/c", "a/c"]);
        assert_eq!(texts("../../x"), ["../../x", "../../x"]);
        assert_eq!(texts("~root/.bashrc")[0], "/root/.bashrc");
        assert_eq!(
            texts("C:\\Users\\me\\.aws\\credentials")[1],
            "/Users/me/.aws/credentials"
        );
        assert_eq!(texts("C:/x/../y")[1], "/y");
        assert_eq!(
            texts("\\\\srv\\c$\\Windows\\System32\\config\\SAM")[1],
            "/Windows/System32/config/SAM"
        );
        assert_eq!(texts("\\\\?\\C:\\a\\b")[1], "/a/b");
        assert_eq!(texts("app\\.env::$DATA")[1], "app/.env");
        assert_eq!(texts("app\\.env. ")[1], "app/.env");
        assert_eq!(texts("file:///etc/shadow")[2], "/etc/shadow");
        assert_eq!(readings("C:foo"), Err(Unresolvable::DriveRelative));
        assert_eq!(readings("$HOME/x"), Err(Unresolvable::Variable));
        assert_eq!(readings("%APPDATA%\\x"), Err(Unresolvable::Variable));
        assert_eq!(
            readings("C:\\Users\\me\\.aws\\CREDEN~1"),
            Err(Unresolvable::ShortName)
        );
        assert_eq!(readings("NUL"), Err(Unresolvable::DeviceName));
        assert_eq!(
            readings("\\\\?\\GLOBALROOT\\Device\\HarddiskVolumeShadowCopy1\\x"),
            Err(Unresolvable::DeviceNamespace)
        );
        assert_eq!(
            readings("\\\\?\\Volume{0a}\\docs\\a.txt").unwrap()[1].anchor,
            Anchor::Network
        );
        assert_eq!(
            readings("\\\\.\\PhysicalDrive0"),
            Err(Unresolvable::DeviceNamespace)
        );
    }

    #[test]
    fn secrets_in_every_reading() {
        for path in [
            "../../../../proc/self/environ",
            "../etc/shadow",
            "C:\\Windows\\System32\\config\\SAM",
            "c:/windows/system32/config/system",
            "app/.env::$DATA",
            ".env.",
            "~root/notes.txt",
            "file:///root/.ssh/id_rsa",
            "file://localhost/etc/shadow%2D",
        ] {
            assert!(secret_path(path).is_some(), "{path}");
        }
        for path in [
            ".env%00",
            "/srv/..%2f..%2fetc/shadow",
            "/private/etc/master.passwd",
        ] {
            assert!(secret_path(path).is_some(), "{path}");
        }
        for path in ["README.md", "src/main.rs", "../README.md", "notes:2024.txt"] {
            assert_eq!(secret_path(path), None, "{path}");
        }
    }
}

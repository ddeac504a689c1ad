//! Where a file operand really points: relative paths resolved against every
//! directory a `cd` earlier in the line may have entered, `..` that climbs out
//! of the working directory tried from the root and from home, and globs that
//! are allowed only when no secret file could match them.

use crate::assess::file::secret_path;

/// Marks a word part whose value the shell computes (a substitution, a
/// variable): no file name holds it, and [`secret_path`] refuses it.
pub const COMPUTED: char = '\u{1}';

/// Marks a loop variable one of whose values may name a secret file or
/// cannot be resolved.
pub const LOOP_VALUE: char = '\u{2}';

/// At most this many working directories are followed before giving up.
const MAX_PLACES: usize = 8;

/// The directories a command may run in: the tool's own (`""`) and every one a
/// `cd` earlier in the line may have entered (kept, not replaced, because a
/// `cd` inside a subshell, a condition or a failed `cd` leaves the old one).
#[derive(Clone, Debug)]
pub struct Places {
    dirs: Vec<String>,
    /// A `cd` to a place that cannot be resolved (a variable, `-`, a glob).
    unknown: bool,
}

impl Default for Places {
    fn default() -> Self {
        Places {
            dirs: vec![String::new()],
            unknown: false,
        }
    }
}

impl Places {
    /// Records `cd TARGET` (`None`: a target that cannot be resolved).
    pub fn cd(&mut self, target: Option<&str>) {
        let Some(target) = target else {
            self.unknown = true;
            return;
        };
        if self.unknown {
            return;
        }
        if target == "-"
            || target.starts_with("~-")
            || target.starts_with("~+")
            || target.contains(['*', '?', '[', '{', COMPUTED, LOOP_VALUE])
        {
            self.unknown = true;
            return;
        }
        let mut added = Vec::new();
        for dir in &self.dirs {
            added.push(join(dir, target));
        }
        for dir in added {
            if self.dirs.len() >= MAX_PLACES {
                self.unknown = true;
                return;
            }
            if !self.dirs.contains(&dir) {
                self.dirs.push(dir);
            }
        }
    }

    /// Whether a `cd` may have left the tool's own working directory (to a
    /// known place or an unknowable one).
    pub fn moved(&self) -> bool {
        self.unknown || self.dirs.len() > 1
    }

    /// Why reading the file operand `path` could print a secret, if it could.
    /// `globbed`: the shell expands unquoted globs in the command's words.
    pub fn secret(&self, path: &str, globbed: bool) -> Option<String> {
        super::budget::count(path.len().saturating_mul(self.dirs.len()));
        if path.contains(COMPUTED) {
            return Some(String::from(
                "is computed by the shell (a substitution or variable), so it may name any file",
            ));
        }
        if path.contains(LOOP_VALUE) {
            return Some(String::from(
                "comes from a loop variable that takes a secret or unresolvable value",
            ));
        }
        if path.starts_with("~-") || path.starts_with("~+") {
            return Some(String::from(
                "is relative to a directory the shell tracks (`~-`, `~+`)",
            ));
        }
        let relative = !path.starts_with('/') && !path.starts_with('~');
        if relative && self.unknown {
            return Some(String::from(
                "is relative to a directory an earlier `cd` made unknowable",
            ));
        }
        let candidates: Vec<String> = if relative {
            self.dirs.iter().map(|d| join(d, path)).collect()
        } else {
            vec![path.to_owned()]
        };
        for candidate in candidates {
            if let Some(why) = one(&candidate, globbed) {
                return Some(why);
            }
        }
        None
    }
}

fn join(dir: &str, path: &str) -> String {
    if dir.is_empty() || path.starts_with('/') || path.starts_with('~') {
        path.to_owned()
    } else {
        format!("{}/{path}", dir.trim_end_matches('/'))
    }
}

/// One resolved candidate: the path itself, and where its `..` may climb.
fn one(path: &str, globbed: bool) -> Option<String> {
    if brace_list(path) {
        return match brace_names(path) {
            Some(names) => names
                .iter()
                .filter(|name| !name.is_empty())
                .find_map(|name| one_name(name, globbed)),
            None => glob(path),
        };
    }
    one_name(path, globbed)
}

/// [`one`] for a path with no brace list left in it.
fn one_name(path: &str, globbed: bool) -> Option<String> {
    if globbed && path.contains(['*', '?', '[', '{']) {
        return glob(path);
    }
    if let Some(why) = secret_path(path) {
        return Some(why.to_owned());
    }
    if !path.starts_with('/') {
        // `..` beyond the start leaves the working directory, which may be
        // anywhere: try what remains from the root and from home.
        if let Some(rest) = climbed(path) {
            for base in ["/", "~/"] {
                if let Some(why) = secret_path(&format!("{base}{rest}")) {
                    return Some(format!("climbs out of the working directory and {why}"));
                }
            }
        }
    }
    None
}

/// Whether `path` may hold a brace list (`{a,b}`: a `{`, then a `,`, then a
/// `}`), which bash expands wherever it reads a word: a loop's words and a
/// redirection's target too, where the caller may not have expanded it
/// (bash 5.2 run here: `cat < {.env,}` prints `.env`, the empty alternative
/// dropped; `for f in {.e,x}nv` sets `f` to `.env`). Such a path is judged by
/// each name the list makes ([`brace_names`]), never only as the one literal
/// name it reads as; a list that cannot be read is a pattern.
fn brace_list(path: &str) -> bool {
    path.split_once('{')
        .and_then(|(_, after)| after.split_once(','))
        .is_some_and(|(_, rest)| rest.contains('}'))
}

/// Most names a path's brace lists may make before it is judged as a
/// pattern that could match anything.
const MAX_BRACE_NAMES: usize = 64;

/// The names bash's brace expansion makes of `path` when every `{…}` holding
/// a comma is a plain list (`{.e,x}nv` is `.env` and `xnv`; a `{…}` without
/// a comma stays as written). `None` for a nested list, a `{` left open, or
/// more than [`MAX_BRACE_NAMES`] names.
fn brace_names(path: &str) -> Option<Vec<String>> {
    let mut names = vec![String::new()];
    let mut rest = path;
    while let Some((before, after)) = rest.split_once('{') {
        for name in &mut names {
            name.push_str(before);
        }
        let (inside, tail) = after.split_once('}')?;
        if inside.contains('{') {
            return None;
        }
        if inside.contains(',') {
            let alternatives: Vec<&str> = inside.split(',').collect();
            if names.len().saturating_mul(alternatives.len()) > MAX_BRACE_NAMES {
                return None;
            }
            names = names
                .iter()
                .flat_map(|name| alternatives.iter().map(move |alt| format!("{name}{alt}")))
                .collect();
        } else {
            for name in &mut names {
                name.push('{');
                name.push_str(inside);
                name.push('}');
            }
        }
        rest = tail;
    }
    for name in &mut names {
        name.push_str(rest);
    }
    Some(names)
}

/// The components left after `..` climbed above the start, if it did.
fn climbed(path: &str) -> Option<String> {
    let mut depth = 0usize;
    let mut above = false;
    let mut rest: Vec<&str> = Vec::new();
    for part in path.split('/') {
        match part {
            "" | "." => {}
            ".." if depth == 0 => {
                above = true;
                rest.clear();
            }
            ".." => {
                depth -= 1;
                rest.pop();
            }
            other => {
                depth += 1;
                rest.push(other);
            }
        }
    }
    above.then(|| rest.join("/"))
}

/// Extensions of files a glob may read everyday (`grep x *.rs`): source and
/// text, none a usual home of keys or credentials.
const PLAIN_EXTENSIONS: &[&str] = &[
    "rs", "py", "js", "mjs", "cjs", "ts", "tsx", "jsx", "go", "c", "h", "cc", "cpp", "hpp", "java",
    "kt", "rb", "php", "swift", "md", "txt", "log", "csv", "tsv", "html", "css", "scss", "xml",
    "lock", "sql", "sh", "rst", "adoc", "vue", "svelte", "lua", "pl", "scala", "cs", "ex", "exs",
    "erl", "hs", "ml", "dart", "zig", "proto", "graphql", "tf", "mk", "cmake", "gradle",
    // Data files: the stems below are probed, so `*.json` is refused where
    // `credentials.json` would be a secret.
    "json", "yaml", "yml", "toml",
];

/// Stems a secret file may have; probed with a glob's extension so the
/// secret table decides (`secrets.yml`…). Key files named by prefix
/// (`id_rsa*`) are left out: they never carry a source extension.
const SECRET_STEMS: &[&str] = &[
    "secrets",
    "secret",
    "credentials",
    "token",
    "private",
    "key",
    "service-account",
    "service-account-key",
    "client_secret",
    "client_secrets",
    "serviceAccountKey",
    "kubeconfig",
    "config",
    "auth",
    "hosts",
];

/// A glob operand: allowed only when its directories are literal and not
/// secret, and its last component ends in a plain extension no secret file has.
fn glob(path: &str) -> Option<String> {
    let unsure = || Some(String::from("is a glob that could match a secret file"));
    let (dir, last) = match path.rsplit_once('/') {
        Some((dir, last)) => (dir, last),
        None => ("", path),
    };
    if dir.contains(['*', '?', '[', '{']) {
        return unsure();
    }
    if !dir.is_empty() {
        let probe = format!("{dir}/x");
        if let Some(why) = secret_path(&probe) {
            return Some(format!("is a glob inside a directory that {why}"));
        }
    }
    if last.contains('{') {
        return unsure();
    }
    if !last.contains(['*', '?']) {
        // Only bracket classes: few names can match; try each one.
        return match bracket_instances(last) {
            Some(names) => names.iter().find_map(|name| {
                let path = if dir.is_empty() {
                    name.clone()
                } else {
                    format!("{dir}/{name}")
                };
                secret_path(&path).map(|why| format!("is a glob that matches a file that {why}"))
            }),
            None => unsure(),
        };
    }
    let Some((_, extension)) = last.rsplit_once('.') else {
        return unsure();
    };
    let plain = PLAIN_EXTENSIONS.contains(&extension.to_ascii_lowercase().as_str());
    if !plain || extension.contains(['*', '?', '[', ']', '{', '}']) {
        return unsure();
    }
    let prefix = if dir.is_empty() {
        String::new()
    } else {
        format!("{dir}/")
    };
    for stem in SECRET_STEMS {
        if secret_path(&format!("{prefix}{stem}.{extension}")).is_some() {
            return unsure();
        }
    }
    let instance: String = last
        .chars()
        .map(|c| {
            if matches!(c, '*' | '?' | '[' | ']') {
                'x'
            } else {
                c
            }
        })
        .collect();
    secret_path(&format!("{prefix}{instance}")).map(|why| why.to_owned())
}

/// Every name a component of plain characters and `[abc]` classes matches,
/// or `None` when there are too many or a class uses ranges or negation.
fn bracket_instances(component: &str) -> Option<Vec<String>> {
    const MAX_NAMES: usize = 64;
    let mut names = vec![String::new()];
    let mut chars = component.chars();
    while let Some(c) = chars.next() {
        let choices: Vec<char> = if c == '[' {
            let mut class = Vec::new();
            loop {
                match chars.next()? {
                    ']' if !class.is_empty() => break,
                    '!' | '^' | '-' | '[' | '\\' => return None,
                    other => class.push(other),
                }
            }
            class
        } else {
            vec![c]
        };
        if names.len() * choices.len() > MAX_NAMES {
            return None;
        }
        names = names
            .iter()
            .flat_map(|n| choices.iter().map(move |c| format!("{n}{c}")))
            .collect();
    }
    Some(names)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn globs_and_climbs() {
        let places = Places::default();
        for p in [
            "/etc/sh*w",
            "~/.ss?/*",
            "*",
            ".e*",
            "*.pem",
            "../../../../proc/self/environ",
            "../.ssh/id_rsa",
            "\u{1}",
        ] {
            assert!(places.secret(p, true).is_some(), "{p}");
        }
        assert!(places.secret("[i]d_rsa", true).is_some());
        assert!(places.secret("/etc/shado[w]", true).is_some());
        for p in ["*.rs", "src/*.py", "README.md", "../x/main.rs", "[n]ginx"] {
            assert!(places.secret(p, true).is_none(), "{p}");
        }
    }

    /// A brace list is a pattern whatever the caller says of globs: bash
    /// expands it in a loop's words and a redirection's target as well.
    #[test]
    fn brace_lists_are_patterns() {
        let places = Places::default();
        for p in ["{.env,}", "{.e,x}nv", ".{env,x}", "~/.ss{h,x}/id_rsa"] {
            assert!(places.secret(p, false).is_some(), "{p}");
        }
        for p in [
            "{}",
            "a,{b}",
            "{x}",
            "notes,v1.txt",
            "{README,LICENSE}.md",
            "a{1,3}",
        ] {
            assert!(places.secret(p, false).is_none(), "{p}");
        }
    }

    #[test]
    fn cd_is_followed() {
        let mut places = Places::default();
        places.cd(Some("~/.ssh"));
        assert!(places.secret("id_ed25519_work", false).is_some());
        assert!(places.secret("config", false).is_some());
        let mut unknown = Places::default();
        unknown.cd(None);
        assert!(unknown.secret("notes.txt", false).is_some());
        assert!(unknown.secret("/etc/hostname", false).is_none());
    }
}

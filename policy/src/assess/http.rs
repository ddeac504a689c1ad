//! `http_request`: only GET, HEAD and OPTIONS are safe methods (RFC 9110
//! §9.2.1), and only towards a public http(s) host: a request to loopback, a
//! private or link-local address or a cloud metadata service can read what the
//! agent's network position exposes (server-side request forgery), and
//! credentials in a URL leak.
//!
//! The URL is read as every common client reads it (see [`super::urls`]):
//! WHATWG, curl, Python's `urllib` and `requests`; it is proven only when all
//! name the same public host. `http://2130706433/`, `http://0x7f.1/` and
//! `http://[::ffff:127.0.0.1]/` are all loopback; single-label, cluster and
//! reserved names are internal. Host names are judged by their text only; a
//! public name that resolves to a private address is not detected here.
//!
//! The method is the declared one and every method an override header or
//! `_method` parameter names (see [`super::overrides`]).

use super::{Assessment, Assessor, Verdict};
use crate::args::string_field;
use crate::codes;
use crate::context::Context;
use crate::decision::Finding;
use crate::text::preview;
use serde_json::{Map, Value};

/// The HTTP assessor.
#[derive(Clone, Debug)]
pub struct HttpAssessor {
    /// The argument that holds the URL.
    pub url_field: String,
    /// The argument that holds the method.
    pub method_field: String,
    /// The method when the call names none.
    pub default_method: String,
    /// Hosts that may be read even if local (exact names, IPs, or `*.suffix`).
    pub allow_hosts: Vec<String>,
    /// Hosts that are configured off (denied).
    pub deny_hosts: Vec<String>,
    /// What a read may reach (see [`super::egress`]).
    pub egress: crate::config::Egress,
}

impl Default for HttpAssessor {
    fn default() -> Self {
        HttpAssessor {
            url_field: String::from("url"),
            method_field: String::from("method"),
            default_method: String::from("GET"),
            allow_hosts: Vec::new(),
            deny_hosts: Vec::new(),
            egress: crate::config::Egress::default(),
        }
    }
}

const SAFE: &[&str] = &["GET", "HEAD", "OPTIONS"];

/// Why a URL is not proven safe to read from, if it is not: every client's
/// reading (see [`super::urls`]) must name the same public host. Kept here
/// for the command assessor, which checks the URLs `curl` and `wget` fetch.
pub(crate) fn url_problem(raw: &str, allow: &[String], deny: &[String]) -> Option<Finding> {
    super::urls::url_problem(raw, allow, deny)
}

/// The deny-list finding when any reading of the URL's host is on `deny`.
fn denied_host(raw: &str, deny: &[String]) -> Option<Finding> {
    if deny.is_empty() {
        return None;
    }
    url_problem(raw, &[], deny).filter(|f| f.code == codes::HTTP_DENIED_HOST)
}

/// Whether `method` is an HTTP token (RFC 9110 `tchar`s, at least one).
fn is_token(method: &str) -> bool {
    !method.is_empty()
        && method
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b))
}

/// The methods a call would run: the declared one and every override.
fn methods(declared: &str, args: &Map<String, Value>) -> (Vec<String>, Option<Finding>) {
    let mut methods = vec![declared.to_ascii_uppercase()];
    let named = super::overrides::overrides(&Value::Object(args.clone()));
    if named.is_empty() {
        return (methods, None);
    }
    let shown: Vec<String> = named
        .iter()
        .map(|m| {
            m.as_deref()
                .map_or(String::from("an unreadable method"), |m| preview(m, 20))
        })
        .collect();
    for method in named {
        // An override whose method cannot be read could be anything.
        methods.push(method.map_or_else(|| String::from("?"), |m| m.to_ascii_uppercase()));
    }
    let finding = Finding::new(
        codes::HTTP_METHOD_OVERRIDE,
        format!("the call asks the server to run it as {}", shown.join(", ")),
    );
    (methods, Some(finding))
}

/// The host every client reads (with an explicit port), and the path when
/// every client reads it as written: no dot segments, escapes, backslashes
/// or credentials, plain http(s).
fn agreed(url: &str) -> (Option<String>, Option<String>, Vec<String>) {
    let text = url.trim_matches(|c: char| c.is_ascii_whitespace() || c.is_ascii_control());
    let readings = super::urls::readings(text);
    let hosts: Vec<String> = readings
        .iter()
        .filter_map(|r| r.host.as_ref().map(super::urls::host::Host::text))
        .collect();
    let first = readings.first().and_then(|r| r.host.clone());
    let plain = !text.chars().any(|c| c.is_control() || c.is_whitespace())
        && !text.contains(['\\', '@'])
        && readings
            .iter()
            .all(|r| r.host.is_some() && r.host == first && !r.userinfo);
    let parsed = url::Url::parse(text)
        .ok()
        .filter(|u| plain && matches!(u.scheme(), "http" | "https") && u.username().is_empty());
    let Some(parsed) = parsed else {
        return (None, None, hosts);
    };
    let host = first.map(|h| match parsed.port() {
        Some(port) => format!("{}:{port}", h.text()),
        None => h.text(),
    });
    // The path as written, from the first `/` after the authority.
    let raw = text
        .split_once("://")
        .map(|(_, rest)| {
            let rest = rest.split(['?', '#']).next().unwrap_or("");
            rest.find('/').and_then(|at| rest.get(at..)).unwrap_or("/")
        })
        .unwrap_or("");
    let path = (raw == parsed.path() && !raw.contains('%')).then(|| raw.to_owned());
    (host, path, hosts)
}

impl Assessor for HttpAssessor {
    /// The URL and method; headers, body and query, which the method
    /// overrides are looked for in. Not `proxy`, a socket path or anything
    /// else that changes where the request goes.
    fn fields(&self) -> Option<Vec<&str>> {
        Some(vec![
            self.url_field.as_str(),
            self.method_field.as_str(),
            "headers",
            "body",
            "json",
            "data",
            "params",
            "query",
        ])
    }

    fn facts(&self, args: &Map<String, Value>) -> super::facts::Facts {
        let method = match args.get(&self.method_field) {
            None | Some(Value::Null) => self.default_method.as_str(),
            Some(_) => match string_field(args, &self.method_field) {
                Ok(method) => method,
                Err(_) => return super::facts::Facts::None,
            },
        };
        let Ok(url) = string_field(args, &self.url_field) else {
            return super::facts::Facts::None;
        };
        let (methods, _) = methods(method, args);
        let (host, path, hosts) = agreed(url);
        super::facts::Facts::Http(super::facts::HttpFacts {
            methods,
            host,
            path,
            hosts,
        })
    }

    fn assess(&self, args: &Map<String, Value>, _context: &Context) -> Assessment {
        let method = match args.get(&self.method_field) {
            None | Some(Value::Null) => self.default_method.as_str(),
            Some(_) => match string_field(args, &self.method_field) {
                Ok(method) => method,
                Err(finding) => return Assessment::single(Verdict::Unproven, "", finding),
            },
        };
        let upper = method.to_ascii_uppercase();
        let url = string_field(args, &self.url_field);
        let described = format!("{upper} {}", url.as_ref().map_or("", |u| u))
            .trim_end()
            .to_owned();

        // A host on the deny list is configured off, whatever the method.
        if let Some(finding) = url
            .as_ref()
            .ok()
            .and_then(|u| denied_host(u, &self.deny_hosts))
        {
            let mut assessment = Assessment::new(Verdict::Unproven, described);
            assessment.deny = Some(finding);
            return assessment;
        }
        let (methods, override_finding) = methods(method, args);
        let with_override = |mut assessment: Assessment| {
            assessment.findings.extend(override_finding.clone());
            assessment
        };
        // Clients differ on a method with spaces or other bytes a method
        // cannot hold: some trim it to `DELETE`, some send it as written. A
        // method that is not a plain token is read as the worst it can be.
        if methods.iter().any(|m| m.trim() == "DELETE") {
            return with_override(Assessment::single(
                Verdict::Destructive,
                described,
                Finding::new(codes::HTTP_DELETE, "DELETE removes the resource"),
            ));
        }
        if let Some(odd) = methods.iter().find(|m| !is_token(m)) {
            return with_override(Assessment::single(
                Verdict::Destructive,
                described,
                Finding::new(
                    codes::HTTP_DELETE,
                    format!(
                        "`{}` is not a method as written (spaces or other characters a method cannot hold), so a client may send a DELETE",
                        preview(odd, 20)
                    ),
                ),
            ));
        }
        if let Some(unsafe_method) = methods.iter().find(|m| !SAFE.contains(&m.as_str())) {
            let mut assessment = Assessment::single(
                Verdict::Unproven,
                described,
                Finding::new(
                    codes::HTTP_UNSAFE_METHOD,
                    format!(
                        "`{}` may change state on the server",
                        preview(unsafe_method, 20)
                    ),
                ),
            );
            // Where it goes still counts: a PUT to the metadata address hands
            // out its token, a POST to loopback drives a local daemon. The
            // floor reads these findings whatever the model's rating.
            if let Ok(url) = &url {
                if let Some(findings) =
                    super::urls::url_problems(url, &self.allow_hosts, &self.deny_hosts)
                {
                    assessment.findings.extend(findings);
                }
            }
            return with_override(assessment);
        }
        let url = match url {
            Ok(url) => url,
            Err(finding) => return Assessment::single(Verdict::Unproven, described, finding),
        };
        match super::urls::url_problems(url, &self.allow_hosts, &self.deny_hosts) {
            // A host on the deny list is configured off: denied, not confirmed.
            Some(findings)
                if findings
                    .first()
                    .is_some_and(|f| f.code == codes::HTTP_DENIED_HOST) =>
            {
                let mut assessment = Assessment::new(Verdict::Unproven, described);
                assessment.deny = findings.into_iter().next();
                assessment
            }
            Some(findings) => {
                let mut assessment = Assessment::new(Verdict::Unproven, described);
                assessment.findings = findings;
                with_override(assessment)
            }
            None => match (super::egress::EgressRule {
                egress: self.egress,
                allow_hosts: self.allow_hosts.clone(),
                deny_hosts: self.deny_hosts.clone(),
            })
            .url_problem(url)
            {
                Some(finding) => {
                    with_override(Assessment::single(Verdict::Unproven, described, finding))
                }
                None => with_override(Assessment::single(
                    Verdict::ReadOnly,
                    described,
                    Finding::new(codes::HTTP_SAFE_METHOD, format!("{upper} is a safe method")),
                )),
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn problem(url: &str) -> Option<String> {
        url_problem(url, &[], &[]).map(|f| f.code)
    }

    #[test]
    fn local_targets_in_every_spelling() {
        for url in [
            "http://localhost/",
            "http://LOCALHOST:8080/x",
            "http://127.0.0.1/",
            "http://127.1/",
            "http://2130706433/",
            "http://0x7f.0.0.1/",
            "http://0177.0.0.1/",
            "http://[::1]/",
            "http://[::ffff:127.0.0.1]/",
            "http://[::ffff:7f00:1]/",
            "http://169.254.169.254/latest/meta-data/",
            "http://metadata.google.internal/computeMetadata/v1/",
            "http://10.0.0.5/",
            "http://172.16.3.4/",
            "http://192.168.1.1/",
            "http://100.100.100.200/",
            "http://0.0.0.0/",
            "http://[fd00:ec2::254]/",
            "http://[fe80::1]/",
            "http://app.localhost/",
            "http://[64:ff9b::a9fe:a9fe]/",
            "http://redis:6379/",
            "http://kubernetes.default.svc.cluster.local/",
        ] {
            assert_eq!(
                problem(url).as_deref(),
                Some(codes::HTTP_LOCAL_TARGET),
                "{url}"
            );
        }
    }

    #[test]
    fn other_problems() {
        assert_eq!(
            problem("file:///etc/passwd").as_deref(),
            Some(codes::HTTP_SCHEME)
        );
        assert_eq!(
            problem("gopher://x.test/").as_deref(),
            Some(codes::HTTP_SCHEME)
        );
        assert_eq!(
            problem("https://user:pw@example.com/").as_deref(),
            Some(codes::HTTP_USERINFO)
        );
        assert_eq!(problem("not a url").as_deref(), Some(codes::HTTP_BAD_URL));
        assert_eq!(problem("https://api.example.com/v1/items?q=1"), None);
        assert_eq!(problem("https://8.8.8.8/"), None);
    }

    #[test]
    fn allow_and_deny_lists() {
        let allow = vec![String::from("localhost"), String::from("*.corp.test")];
        let deny = vec![String::from("evil.example")];
        assert_eq!(
            url_problem("http://localhost:3000/health", &allow, &deny),
            None
        );
        assert_eq!(url_problem("http://wiki.corp.test/", &allow, &deny), None);
        assert_eq!(
            url_problem("https://evil.example/", &allow, &deny)
                .map(|f| f.code)
                .as_deref(),
            Some(codes::HTTP_DENIED_HOST)
        );
    }
}

//! `http_request`: only GET, HEAD and OPTIONS are safe methods (RFC 9110
//! §9.2.1), and only towards a public http(s) host: a request to loopback, a
//! private or link-local address or a cloud metadata service can read what the
//! agent's network position exposes (server-side request forgery), and
//! credentials in a URL leak.
//!
//! The URL is parsed the way browsers and most HTTP clients do (WHATWG), so
//! `http://2130706433/`, `http://0x7f.1/` and `http://[::ffff:127.0.0.1]/` are
//! all recognised as loopback. Host names are judged by their text only; a
//! public name that resolves to a private address is not detected here.

use super::{Assessment, Assessor, Verdict};
use crate::args::string_field;
use crate::codes;
use crate::context::Context;
use crate::decision::Finding;
use crate::text::preview;
use serde_json::{Map, Value};
use std::net::{Ipv4Addr, Ipv6Addr};
use url::{Host, Url};

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
    /// Hosts that always need confirmation.
    pub deny_hosts: Vec<String>,
}

impl Default for HttpAssessor {
    fn default() -> Self {
        HttpAssessor {
            url_field: String::from("url"),
            method_field: String::from("method"),
            default_method: String::from("GET"),
            allow_hosts: Vec::new(),
            deny_hosts: Vec::new(),
        }
    }
}

const SAFE: &[&str] = &["GET", "HEAD", "OPTIONS"];

/// Host names that always mean this machine or a metadata service.
const LOCAL_NAMES: &[&str] = &[
    "localhost",
    "metadata",
    "metadata.google.internal",
    "metadata.goog",
    "instance-data",
    "instance-data.ec2.internal",
    "metadata.azure.com",
    "kubernetes.default",
    "kubernetes.default.svc",
];

fn host_matches(pattern: &str, host: &str) -> bool {
    let pattern = pattern.trim_end_matches('.').to_ascii_lowercase();
    match pattern.strip_prefix("*.") {
        Some(suffix) => host.ends_with(&format!(".{suffix}")),
        None => host == pattern || host.trim_matches(|c| c == '[' || c == ']') == pattern,
    }
}

fn local_v4(ip: Ipv4Addr) -> bool {
    let [a, b, ..] = ip.octets();
    ip.is_loopback()
        || ip.is_private()
        || ip.is_link_local()
        || ip.is_unspecified()
        || ip.is_broadcast()
        || ip.is_multicast()
        || a == 0
        || (a == 100 && (64..128).contains(&b)) // shared address space (also a metadata range)
        || (a == 192 && b == 0 && ip.octets()[2] == 0) // IETF protocol assignments
        || a >= 240
}

fn local_v6(ip: Ipv6Addr) -> bool {
    if let Some(v4) = ip.to_ipv4_mapped() {
        return local_v4(v4);
    }
    let segments = ip.segments();
    let first = segments[0];
    // NAT64 (64:ff9b::/96) embeds an IPv4 address in the last 32 bits.
    if first == 0x64 && segments[1] == 0xff9b && segments[2..6] == [0, 0, 0, 0] {
        let [.., hi, lo] = segments;
        let v4 = Ipv4Addr::from((u32::from(hi) << 16) | u32::from(lo));
        return local_v4(v4);
    }
    ip.is_loopback()
        || ip.is_unspecified()
        || ip.is_multicast()
        || (first & 0xfe00) == 0xfc00 // unique local
        || (first & 0xffc0) == 0xfe80 // link-local
        || (first & 0xffc0) == 0xfec0 // site-local (deprecated)
        || segments[..6] == [0, 0, 0, 0, 0, 0] // IPv4-compatible
}

/// The deny-list finding when the URL's host is on `deny`.
fn denied_host(raw: &str, deny: &[String]) -> Option<Finding> {
    if deny.is_empty() {
        return None;
    }
    let url = Url::parse(raw.trim()).ok()?;
    let host_text = url.host_str().unwrap_or("").to_ascii_lowercase();
    deny.iter().any(|p| host_matches(p, &host_text)).then(|| {
        Finding::new(
            codes::HTTP_DENIED_HOST,
            format!("`{host_text}` is on the configured deny list"),
        )
    })
}

/// Why a URL is not proven safe to read from, if it is not.
pub(crate) fn url_problem(raw: &str, allow: &[String], deny: &[String]) -> Option<Finding> {
    let shown = preview(raw, 80);
    let url = match Url::parse(raw.trim()) {
        Ok(url) => url,
        Err(e) => {
            return Some(Finding::new(
                codes::HTTP_BAD_URL,
                format!("`{shown}` is not a URL that could be checked: {e}"),
            ))
        }
    };
    if url.scheme() != "http" && url.scheme() != "https" {
        return Some(Finding::new(
            codes::HTTP_SCHEME,
            format!("the `{}` scheme is not plain HTTP", url.scheme()),
        ));
    }
    if !url.username().is_empty() || url.password().is_some() {
        return Some(Finding::new(
            codes::HTTP_USERINFO,
            "the URL carries credentials (`user:password@`)",
        ));
    }
    let host_text = url.host_str().unwrap_or("").to_ascii_lowercase();
    if deny.iter().any(|p| host_matches(p, &host_text)) {
        return Some(Finding::new(
            codes::HTTP_DENIED_HOST,
            format!("`{host_text}` is on the configured deny list"),
        ));
    }
    if allow.iter().any(|p| host_matches(p, &host_text)) {
        return None;
    }
    let local = match url.host() {
        Some(Host::Ipv4(ip)) => local_v4(ip),
        Some(Host::Ipv6(ip)) => local_v6(ip),
        Some(Host::Domain(name)) => {
            let name = name.trim_end_matches('.').to_ascii_lowercase();
            LOCAL_NAMES.contains(&name.as_str()) || name.ends_with(".localhost")
        }
        None => true,
    };
    if local {
        return Some(Finding::new(
            codes::HTTP_LOCAL_TARGET,
            format!("`{host_text}` is this machine, a private network or a metadata service"),
        ));
    }
    None
}

impl Assessor for HttpAssessor {
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
        if upper == "DELETE" {
            return Assessment::single(
                Verdict::Destructive,
                described,
                Finding::new(codes::HTTP_DELETE, "DELETE removes the resource"),
            );
        }
        if !SAFE.contains(&upper.as_str()) {
            return Assessment::single(
                Verdict::Unproven,
                described,
                Finding::new(
                    codes::HTTP_UNSAFE_METHOD,
                    format!("`{}` may change state on the server", preview(method, 20)),
                ),
            );
        }
        let url = match url {
            Ok(url) => url,
            Err(finding) => return Assessment::single(Verdict::Unproven, described, finding),
        };
        match url_problem(url, &self.allow_hosts, &self.deny_hosts) {
            // A host on the deny list is configured off: denied, not confirmed.
            Some(finding) if finding.code == codes::HTTP_DENIED_HOST => {
                let mut assessment = Assessment::new(Verdict::Unproven, described);
                assessment.deny = Some(finding);
                assessment
            }
            Some(finding) => Assessment::single(Verdict::Unproven, described, finding),
            None => Assessment::single(
                Verdict::ReadOnly,
                described,
                Finding::new(codes::HTTP_SAFE_METHOD, format!("{upper} is a safe method")),
            ),
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
            problem("https://user:pw@x.test/").as_deref(),
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

//! One URL, every client's reading of it.
//!
//! An `http_request` executor may be built on a browser-grade parser, on
//! libcurl, on Python's standard library or on `requests`; they disagree on
//! where the host ends. `http://example.com\@169.254.169.254/` is
//! `example.com` to WHATWG and the metadata address to curl. The policy reads
//! the URL as each of them would and proves it only when every reading names
//! the same public host and none carries credentials.
//!
//! The readings modelled:
//!
//! | client | after `scheme:` | host ends at | userinfo ends at |
//! |---|---|---|---|
//! | WHATWG (browsers, `fetch`, the `url` crate) | any run of `/` and `\` | `/` `\` `?` `#` | the last `@` |
//! | curl / libcurl | exactly `//` | `/` `?` `#` (`\` is part of the authority) | the first `@` |
//! | Python `urllib.parse` | exactly `//` | `/` `?` `#` | the last `@` (`rpartition`) |
//! | `requests` / urllib3 | exactly `//` | `/` `\` `?` `#` | the last `@` |
//!
//! Each host is then normalised by [`host::normalise`] (percent-decoding,
//! full-width forms, case, trailing dots, every IPv4 spelling a resolver
//! accepts). The text is trimmed of surrounding whitespace as every one of
//! these clients does; whitespace or control characters inside it are read
//! differently by each (removed, kept, refused), so they are never proven.

pub mod host;
pub mod secrets;
mod tlds;

use crate::codes;
use crate::decision::Finding;
use crate::text::preview;
use host::Host;
use url::Url;

/// What one client takes the URL's host to be.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HostReading {
    /// The client, for messages.
    pub client: &'static str,
    /// The normalised host, or `None` when the client finds none (or refuses the URL).
    pub host: Option<Host>,
    /// Whether the client sends `user:password@` credentials.
    pub userinfo: bool,
    /// Whether the host is an IPv4 address written other than as four
    /// decimal parts (`169.254`, `0x7f.1`, `2130706433`, `010.0.0.1`).
    pub short_v4: bool,
}

/// How a client splits the text after `scheme:`.
struct Grammar {
    client: &'static str,
    /// Any run of `/` and `\` starts the authority (WHATWG special schemes),
    /// rather than exactly `//`.
    lenient_slashes: bool,
    /// `\` ends the authority.
    backslash_ends: bool,
    /// Userinfo ends at the last `@` (else the first).
    last_at: bool,
}

const GRAMMARS: [Grammar; 4] = [
    Grammar {
        client: "WHATWG",
        lenient_slashes: true,
        backslash_ends: true,
        last_at: true,
    },
    Grammar {
        client: "curl",
        lenient_slashes: false,
        backslash_ends: false,
        last_at: false,
    },
    Grammar {
        client: "Python urllib",
        lenient_slashes: false,
        backslash_ends: false,
        last_at: true,
    },
    Grammar {
        client: "requests/urllib3",
        lenient_slashes: false,
        backslash_ends: true,
        last_at: true,
    },
];

/// The scheme and the rest, if the text starts with one.
fn split_scheme(text: &str) -> Option<(String, &str)> {
    let (scheme, rest) = text.split_once(':')?;
    let mut chars = scheme.chars();
    let valid = chars.next().is_some_and(|c| c.is_ascii_alphabetic())
        && chars.all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'));
    valid.then(|| (scheme.to_ascii_lowercase(), rest))
}

/// A host reading by one grammar.
fn read(text: &str, grammar: &Grammar) -> HostReading {
    let none = HostReading {
        client: grammar.client,
        host: None,
        userinfo: false,
        short_v4: false,
    };
    let Some((scheme, rest)) = split_scheme(text) else {
        return none;
    };
    let rest = if grammar.lenient_slashes {
        let trimmed = rest.trim_start_matches(['/', '\\']);
        // WHATWG's special schemes need no slash at all (`http:host`).
        let special = matches!(scheme.as_str(), "http" | "https" | "ws" | "wss" | "ftp");
        if trimmed.len() == rest.len() && !special {
            return none;
        }
        trimmed
    } else {
        match rest.strip_prefix("//") {
            Some(r) => r,
            None => return none,
        }
    };
    let end = rest
        .find(|c: char| c == '/' || c == '?' || c == '#' || (grammar.backslash_ends && c == '\\'))
        .unwrap_or(rest.len());
    let authority = rest.get(..end).unwrap_or("");
    let split = if grammar.last_at {
        authority.rsplit_once('@')
    } else {
        authority.split_once('@')
    };
    let (userinfo, host_port) = match split {
        Some((_, host_port)) => (true, host_port),
        None => (false, authority),
    };
    let (host_text, port) = if host_port.starts_with('[') {
        match host_port.find(']') {
            Some(close) => (
                host_port.get(..=close).unwrap_or(""),
                host_port.get(close + 1..).unwrap_or(""),
            ),
            None => (host_port, ""),
        }
    } else {
        match host_port.split_once(':') {
            Some((host, port)) => (host, host_port.get(host.len()..).unwrap_or(port)),
            None => (host_port, ""),
        }
    };
    let port_ok = port.is_empty()
        || port
            .strip_prefix(':')
            .is_some_and(|p| p.chars().all(|c| c.is_ascii_digit()));
    let host = if port_ok {
        host::normalise(host_text)
    } else {
        Host::Unparseable(format!("{host_text}{port}"))
    };
    let short_v4 = match &host {
        Host::V4(ip) => host::fold(&host::percent_decode(host_text)) != ip.to_string(),
        _ => false,
    };
    HostReading {
        client: grammar.client,
        host: Some(host),
        userinfo,
        short_v4,
    }
}

/// Whether the URL parser may be handed this text: a host with non-ASCII
/// characters (or percent-escapes of them) goes through IDNA, which this
/// build cannot do (and whose ASCII-only adapter asserts on mixed case). The
/// host region is found as WHATWG finds it: tabs and newlines removed, any
/// run of `/` and `\` after the scheme skipped (none is needed for `http:`),
/// ended by `/`, `\`, `?` or `#`.
fn ascii_host_region(text: &str) -> bool {
    let cleaned: String = text
        .chars()
        .filter(|c| !matches!(c, '\t' | '\n' | '\r'))
        .collect();
    let Some((_, rest)) = split_scheme(&cleaned) else {
        return true;
    };
    let rest = rest.trim_start_matches(['/', '\\']);
    let end = rest.find(['/', '\\', '?', '#']).unwrap_or(rest.len());
    host::percent_decode(rest.get(..end).unwrap_or("")).is_ascii()
}

/// Every client's reading of `text` (already trimmed).
pub fn readings(text: &str) -> Vec<HostReading> {
    let mut out: Vec<HostReading> = GRAMMARS.iter().map(|g| read(text, g)).collect();
    // The WHATWG reading comes from the `url` crate itself where it can.
    if let Some(first) = out.first_mut() {
        if ascii_host_region(text) {
            first.host = match Url::parse(text) {
                Ok(url) => match url.host() {
                    Some(url::Host::Domain(name)) => Some(host::normalise(name)),
                    Some(url::Host::Ipv4(ip)) => Some(Host::V4(ip)),
                    Some(url::Host::Ipv6(ip)) => Some(Host::V6(ip)),
                    None => None,
                },
                Err(_) => None,
            };
        }
    }
    out
}

/// The first reading whose host is internal (any host folded as IDNA maps
/// it), as a finding.
fn internal_reading(readings: &[HostReading]) -> Option<Finding> {
    readings.iter().find_map(|r| {
        let host = r.host.as_ref()?;
        let host = match host {
            Host::NonAscii(name) => host::normalise(name),
            other => other.clone(),
        };
        if matches!(host, Host::NonAscii(_) | Host::Unparseable(_)) {
            return None;
        }
        host::internal(&host).map(|why| {
            Finding::new(
                codes::HTTP_LOCAL_TARGET,
                format!(
                    "as {} reads the URL, `{}` {why}",
                    r.client,
                    preview(&host.text(), 60)
                ),
            )
        })
    })
}

fn finding(code: &'static str, message: String) -> Option<Vec<Finding>> {
    Some(vec![Finding::new(code, message)])
}

/// Why a URL is not proven safe to read from, if it is not. A host on
/// `deny` in any reading gives [`codes::HTTP_DENIED_HOST`]; a host on
/// `allow` in every reading lifts only the internal-host rule.
pub fn url_problem(raw: &str, allow: &[String], deny: &[String]) -> Option<Finding> {
    url_problems(raw, allow, deny).and_then(|all| all.into_iter().next())
}

/// Every reason a URL is not proven, most important first (a disagreement
/// between clients, then credentials in any reading); `None` when proven.
pub fn url_problems(raw: &str, allow: &[String], deny: &[String]) -> Option<Vec<Finding>> {
    let shown = preview(raw, 80);
    let text = raw.trim_matches(|c: char| c.is_ascii_whitespace() || c.is_ascii_control());
    let readings = readings(text);
    // A deny list must catch every spelling of every reading, first.
    for reading in &readings {
        if let Some(host) = &reading.host {
            if deny.iter().any(|p| host::matches(p, host)) {
                return finding(
                    codes::HTTP_DENIED_HOST,
                    format!("`{}` is on the configured deny list", host.text()),
                );
            }
        }
    }
    if text.chars().any(|c| c.is_control() || c.is_whitespace()) {
        return finding(
            codes::HTTP_BAD_URL,
            format!(
                "`{shown}` holds whitespace or control characters that clients read differently"
            ),
        );
    }
    let Some((scheme, _)) = split_scheme(text) else {
        // A client that adds a scheme (curl, httpie, a browser's address
        // bar) reads the text as `http://` + text: an internal host there
        // is named as such, whatever else is wrong with the URL.
        let relative = text.starts_with(['/', '.', '?', '#', '\\']);
        let with_scheme = format!("http://{text}");
        if let Some(local) = internal_reading(&self::readings(&with_scheme)).filter(|_| !relative) {
            return Some(vec![local]);
        }
        return finding(
            codes::HTTP_BAD_URL,
            format!("`{shown}` is not a URL that could be checked: it has no scheme"),
        );
    };
    if scheme != "http" && scheme != "https" {
        return finding(
            codes::HTTP_SCHEME,
            format!("the `{}` scheme is not plain HTTP", preview(&scheme, 20)),
        );
    }
    let userinfo = readings.iter().find(|r| r.userinfo).map(|reading| {
        Finding::new(
            codes::HTTP_USERINFO,
            format!(
                "the URL carries credentials (`user:password@`) as {} reads it",
                reading.client
            ),
        )
    });
    let Some(whatwg) = readings.first().and_then(|r| r.host.clone()) else {
        return finding(
            codes::HTTP_BAD_URL,
            format!("`{shown}` is not a URL that could be checked"),
        );
    };
    if readings.iter().any(|r| r.host.as_ref() != Some(&whatwg)) {
        let each: Vec<String> = readings
            .iter()
            .map(|r| {
                let host = r.host.as_ref().map_or(String::from("no host"), Host::text);
                format!("{} `{}`", r.client, preview(&host, 40))
            })
            .collect();
        let mut found = Finding::new(
            codes::HTTP_AMBIGUOUS_URL,
            format!("clients read different hosts: {}", each.join(", ")),
        );
        // One client's internal host is an internal target (`http:/\\169.254…`
        // is the metadata address to WHATWG): named after the disagreement,
        // so a floor that looks for it finds it.
        let local = internal_reading(&readings);
        if let Some((reading, why)) = readings.iter().find_map(|r| {
            let host = r.host.as_ref()?;
            host::internal(host).map(|why| (r, why))
        }) {
            found.message = format!(
                "{}; as {} reads it, the host {why}",
                found.message, reading.client
            );
        }
        return Some([found].into_iter().chain(local).chain(userinfo).collect());
    }
    if let Some(userinfo) = userinfo {
        return Some(vec![userinfo]);
    }
    // A credential in the URL goes out with it to whatever host, allowed or
    // not: a person confirms it in every `egress` setting.
    if let Some(what) = secrets::secret_in_url(text) {
        return finding(
            codes::HTTP_SECRET_URL,
            format!("the URL carries a credential ({what}), which a read sends to its host"),
        );
    }
    if let Host::NonAscii(name) = &whatwg {
        // Folded as IDNA mapping would (full-width and circled digits,
        // ideographic dots, zero-width characters removed), the host may be
        // an internal one: say so, rather than only that it is unreadable.
        let mapped = host::normalise(name);
        let ascii = !matches!(mapped, Host::NonAscii(_) | Host::Unparseable(_));
        if let Some(why) = host::internal(&mapped).filter(|_| ascii) {
            return finding(
                codes::HTTP_LOCAL_TARGET,
                format!(
                    "`{}` is `{}` once mapped as IDNA maps it, which {why}",
                    preview(name, 60),
                    host::normalise(name).text()
                ),
            );
        }
        return finding(
            codes::HTTP_BAD_URL,
            format!(
                "`{}` is a non-ASCII host name, which this build cannot convert to its IDNA form",
                preview(name, 60)
            ),
        );
    }
    if let Host::Unparseable(name) = &whatwg {
        return finding(
            codes::HTTP_BAD_URL,
            format!(
                "`{}` is not a host name that could be checked",
                preview(name, 60)
            ),
        );
    }
    if allow.iter().any(|p| host::matches(p, &whatwg)) {
        return None;
    }
    host::internal(&whatwg)
        .and_then(|why| {
            finding(
                codes::HTTP_LOCAL_TARGET,
                format!("`{}` {why}", preview(&whatwg.text(), 60)),
            )
        })
        .or_else(|| {
            // `inet_aton` and WHATWG read `169.254` as 169.0.0.254; resolvers
            // and clients that take only four decimal parts look it up as a
            // name or refuse it. Not one host in every reading.
            readings.iter().any(|r| r.short_v4).then(|| {
                vec![Finding::new(
                    codes::HTTP_AMBIGUOUS_URL,
                    format!(
                        "`{shown}` writes an IPv4 address in a short or numeric form (`{}`), which some clients read as an address and others as a name",
                        whatwg.text()
                    ),
                )]
            })
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn code(url: &str) -> Option<String> {
        url_problem(url, &[], &[]).map(|f| f.code)
    }

    #[test]
    fn readings_disagree() {
        for url in [
            "http://example.com\\@169.254.169.254/",
            "http:\\\\example.com/",
            "http:///example.com/",
            "http://example.com\\.evil.test/",
        ] {
            assert!(code(url).is_some(), "{url}");
        }
        let r = readings("http://example.com\\@169.254.169.254/");
        assert_eq!(
            r.iter()
                .map(|r| r.host.as_ref().map(Host::text))
                .collect::<Vec<_>>(),
            [
                Some("example.com".into()),
                Some("169.254.169.254".into()),
                Some("169.254.169.254".into()),
                Some("example.com".into())
            ]
        );
    }

    #[test]
    fn non_ascii_hosts_are_never_proven_and_never_reach_idna() {
        // Mixed-case non-ASCII hosts trip a debug assertion in the ASCII-only
        // IDNA adapter; they must be answered before the URL parser sees them.
        for url in [
            "http://\u{FF25}XAMPLE.com/",
            "http://A\u{fc}.com/",
            "http://A%C3%BC.com/",
            "http://\u{FF45}xample.com/",
            "http:A\u{fc}/",
            "http:/\t/A\u{fc}/",
            "http://x@A\u{fc}/",
        ] {
            assert!(code(url).is_some(), "{url}");
        }
    }

    #[test]
    fn agreement_on_public_hosts() {
        for url in [
            "https://api.example.com/v1/items?q=1",
            "https://8.8.8.8/",
            "https://example.com/a\\b",
            "https://example.com:8443/x#y?z",
            "HTTPS://EXAMPLE.COM/",
        ] {
            assert_eq!(code(url), None, "{url}");
        }
    }

    #[test]
    fn deny_every_spelling() {
        let deny = vec![String::from("evil.example")];
        for url in [
            "http://evil.example./x",
            "http://evil.example%2e/x",
            "http://EVIL.EXAMPLE/",
            "http://evil\u{3002}example/",
            "http://ok.example\\@evil.example/",
        ] {
            assert_eq!(
                url_problem(url, &[], &deny).map(|f| f.code).as_deref(),
                Some(codes::HTTP_DENIED_HOST),
                "{url}"
            );
        }
    }
}

//! The `egress` setting: one rule for every outbound network read, whether
//! `http_request` sends it or a command-line program (`curl`, `ping`, `dig`,
//! `host`, `nslookup`) does.
//!
//! A read-only request still carries data out: the path, the query and the
//! host name itself (a DNS lookup of `secret.attacker.example` reaches the
//! attacker's name server). For an agent that holds private data and reads
//! untrusted content, `confirm` or `allow_hosts` closes that channel at the
//! cost of more confirmations. `deny_hosts` denies in every setting.

use super::urls::host::{self, Host};
use crate::codes;
use crate::config::Egress;
use crate::decision::Finding;
use crate::text::preview;

/// The egress rule of one tool: the setting and the tool's host lists.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct EgressRule {
    /// The deployment's `egress` setting.
    pub egress: Egress,
    /// The tool's `allow_hosts`.
    pub allow_hosts: Vec<String>,
    /// The tool's `deny_hosts`.
    pub deny_hosts: Vec<String>,
}

impl EgressRule {
    /// Why a read from `host` (already proven a well-formed, agreed-on host)
    /// is not allowed without a person, if it is not: the deny list first
    /// ([`codes::HTTP_DENIED_HOST`]), then the setting
    /// ([`codes::NETWORK_EGRESS`]).
    pub fn host_problem(&self, host: &Host) -> Option<Finding> {
        let shown = preview(&host.text(), 60);
        if self.deny_hosts.iter().any(|p| host::matches(p, host)) {
            return Some(Finding::new(
                codes::HTTP_DENIED_HOST,
                format!("`{shown}` is on the configured deny list"),
            ));
        }
        match self.egress {
            Egress::Public => None,
            Egress::AllowHosts if self.allow_hosts.iter().any(|p| host::matches(p, host)) => None,
            Egress::AllowHosts => Some(Finding::new(
                codes::NETWORK_EGRESS,
                format!(
                    "`{shown}` is not on `allow_hosts`, and `egress` is `allow_hosts`: an outbound read can carry data out"
                ),
            )),
            Egress::Confirm => Some(Finding::new(
                codes::NETWORK_EGRESS,
                format!(
                    "`egress` is `confirm`: a read from `{shown}` can carry data out, so a person confirms it"
                ),
            )),
        }
    }

    /// [`EgressRule::host_problem`] for a host name or address as a program
    /// takes it (`ping NAME`, `dig NAME`), normalised as URL hosts are.
    ///
    /// In every setting a name outside ASCII is refused (resolvers and
    /// programs turn it into different names; the command oracle saw `ping`
    /// look up a Punycode name the line does not hold), and so is an internal
    /// name or address unless `allow_hosts` lists it, as for URLs.
    pub fn name_problem(&self, name: &str) -> Option<Finding> {
        let shown = preview(name, 60);
        if !name.is_ascii() {
            return Some(Finding::new(
                codes::HTTP_BAD_URL,
                format!("`{shown}` is not ASCII: each resolver spells it its own way"),
            ));
        }
        let bracketed = if name.contains(':') && !name.starts_with('[') {
            format!("[{name}]")
        } else {
            name.to_owned()
        };
        let parsed = host::normalise(&bracketed);
        if let Some(problem) = self.host_problem(&parsed) {
            return Some(problem);
        }
        let listed = self.allow_hosts.iter().any(|p| host::matches(p, &parsed));
        match host::internal(&parsed) {
            Some(why) if !listed => Some(Finding::new(
                codes::HTTP_LOCAL_TARGET,
                format!("`{shown}` {why}"),
            )),
            _ => None,
        }
    }

    /// [`EgressRule::host_problem`] for a URL whose readings all agree (the
    /// URL checks passed). A URL without a readable host is a problem in any
    /// setting but `public`.
    pub fn url_problem(&self, raw: &str) -> Option<Finding> {
        let text = raw.trim_matches(|c: char| c.is_ascii_whitespace() || c.is_ascii_control());
        let host = super::urls::readings(text)
            .into_iter()
            .next()
            .and_then(|r| r.host);
        match host {
            Some(host) => self.host_problem(&host),
            None if self.egress == Egress::Public && self.deny_hosts.is_empty() => None,
            None => Some(Finding::new(
                codes::NETWORK_EGRESS,
                format!("`{}` names no host that could be checked", preview(raw, 80)),
            )),
        }
    }

    /// The rule for a program that contacts hosts it is given by name, or
    /// none at all (`dig` with no name asks the root servers): with no name
    /// to check, only `public` lets it through.
    pub fn names_problem(&self, program: &str, names: &[&str]) -> Option<Finding> {
        if names.is_empty() && self.egress != Egress::Public {
            return Some(Finding::new(
                codes::NETWORK_EGRESS,
                format!(
                    "`{program}` contacts the network and names no host to check against `egress`"
                ),
            ));
        }
        names.iter().find_map(|name| self.name_problem(name))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rule(egress: Egress) -> EgressRule {
        EgressRule {
            egress,
            allow_hosts: vec![String::from("*.corp.test"), String::from("example.com")],
            deny_hosts: vec![String::from("evil.test")],
        }
    }

    fn code(f: Option<Finding>) -> Option<String> {
        f.map(|f| f.code)
    }

    #[test]
    fn three_settings() {
        let url = "https://example.org/x";
        assert_eq!(code(rule(Egress::Public).url_problem(url)), None);
        assert_eq!(
            code(rule(Egress::AllowHosts).url_problem(url)).as_deref(),
            Some(codes::NETWORK_EGRESS)
        );
        assert_eq!(
            code(rule(Egress::AllowHosts).url_problem("https://EXAMPLE.com./x")),
            None
        );
        assert_eq!(
            code(rule(Egress::AllowHosts).name_problem("wiki.corp.test")),
            None
        );
        assert_eq!(
            code(rule(Egress::Confirm).url_problem("https://example.com/")).as_deref(),
            Some(codes::NETWORK_EGRESS)
        );
        for egress in [Egress::Public, Egress::AllowHosts, Egress::Confirm] {
            assert_eq!(
                code(rule(egress).name_problem("EVIL.test.")).as_deref(),
                Some(codes::HTTP_DENIED_HOST)
            );
        }
        assert!(rule(Egress::AllowHosts).names_problem("dig", &[]).is_some());
        assert!(rule(Egress::Public).names_problem("dig", &[]).is_none());
    }
}

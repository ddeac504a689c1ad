//! The programs that reach the network follow the deployment's `egress`
//! setting and the tool's host lists, through the same rule `http_request`
//! uses ([`crate::assess::egress`]). The program checks are plain functions
//! of their arguments; the rule of the assessment under way is held here for
//! its duration.

use super::refusal::Refusal;
use crate::assess::egress::EgressRule;
use crate::codes;
use crate::decision::Finding;
use std::cell::RefCell;

thread_local! {
    static RULE: RefCell<EgressRule> = RefCell::new(EgressRule::default());
}

/// Runs `judge` with `rule` in force, then restores the one before.
pub fn with_rule<T>(rule: &EgressRule, judge: impl FnOnce() -> T) -> T {
    let before = RULE.with(|r| r.replace(rule.clone()));
    let out = judge();
    RULE.with(|r| r.replace(before));
    out
}

/// The rule in force.
pub fn rule() -> EgressRule {
    RULE.with(|r| r.borrow().clone())
}

fn refusal(finding: Finding) -> Refusal {
    let code = [
        codes::HTTP_DENIED_HOST,
        codes::HTTP_BAD_URL,
        codes::HTTP_LOCAL_TARGET,
    ]
    .into_iter()
    .find(|c| *c == finding.code)
    .unwrap_or(codes::NETWORK_EGRESS);
    Refusal::new(code, finding.message)
}

/// A URL a program fetches, already proven to name one public (or allowed) host.
pub fn url(url: &str) -> Result<(), Refusal> {
    rule().url_problem(url).map_or(Ok(()), |f| Err(refusal(f)))
}

/// The host names a program contacts (`ping`, `dig`, `host`, `nslookup`).
pub fn names(program: &str, names: &[&str]) -> Result<(), Refusal> {
    rule()
        .names_problem(program, names)
        .map_or(Ok(()), |f| Err(refusal(f)))
}

//! `http_request`: the method decides; only GET, HEAD and OPTIONS are safe
//! methods in the HTTP sense (RFC 9110 §9.2.1).

use super::{Assessment, Assessor, Verdict};
use crate::args::string_field;
use crate::codes;
use crate::decision::Finding;
use serde_json::{Map, Value};

/// The HTTP assessor: reads the method and, for summaries, the URL.
#[derive(Clone, Debug)]
pub struct HttpAssessor {
    /// The argument that holds the method.
    pub method_field: String,
    /// The argument that holds the URL.
    pub url_field: String,
}

impl Default for HttpAssessor {
    fn default() -> Self {
        HttpAssessor {
            method_field: String::from("method"),
            url_field: String::from("url"),
        }
    }
}

const SAFE: &[&str] = &["GET", "HEAD", "OPTIONS"];

impl Assessor for HttpAssessor {
    fn assess(&self, args: &Map<String, Value>) -> Assessment {
        let method = match string_field(args, &self.method_field) {
            Ok(method) => method,
            Err(finding) => return Assessment::single(Verdict::Unproven, "", finding),
        };
        let url = string_field(args, &self.url_field).unwrap_or("");
        let upper = method.to_ascii_uppercase();
        let described = format!("{upper} {url}").trim_end().to_owned();
        let (verdict, finding) = if SAFE.contains(&upper.as_str()) {
            (
                Verdict::ReadOnly,
                Finding::new(codes::HTTP_SAFE_METHOD, format!("{upper} is a safe method")),
            )
        } else if upper == "DELETE" {
            (
                Verdict::Destructive,
                Finding::new(codes::HTTP_DELETE, "DELETE removes the resource"),
            )
        } else {
            (
                Verdict::Unproven,
                Finding::new(
                    codes::HTTP_UNSAFE_METHOD,
                    format!("`{method}` may change state on the server"),
                ),
            )
        };
        Assessment::single(verdict, described, finding)
    }
}

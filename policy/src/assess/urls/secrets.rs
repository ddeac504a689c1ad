//! Credentials carried in a URL. A read-only GET still sends its whole URL to
//! the host (and to every proxy and log on the way): a URL that holds an API
//! token sends the token out, whatever the method. Under any `egress`
//! setting such a URL is confirmed (`http.secret-url`), in `http_request`,
//! the agents' fetch tools and the programs that fetch (`curl`, `wget`).
//!
//! Two signs are read, in the URL as written and percent-decoded once:
//! - a query parameter whose name says it holds a credential (`token`,
//!   `access_token`, `api_key`, `key`, …, [`SECRET_PARAMETERS`]) with a
//!   non-empty value;
//! - a value shaped as a known provider's token (`TOKEN_FORMATS`),
//!   anywhere in the URL (a path segment, a parameter of any name).
//!
//! The token formats are those of gitleaks' rules
//! (<https://github.com/gitleaks/gitleaks/tree/master/cmd/generate/config/rules>:
//! `github.go`, `gitlab.go`, `aws.go`, `slack.go`, `stripe.go`, `openai.go`,
//! `anthropic.go`, `gcp.go`, `npm.go`, `pypi.go`, `huggingface.go`,
//! `shopify.go`, `digitalocean.go`, `sendgrid.go`, `telegram.go`, `jwt.go`),
//! read as a prefix, an alphabet and a length rather than a regular
//! expression. Userinfo passwords (`user:pass@`) are `http.userinfo`'s.

/// Query parameter names (compared in ASCII lower case) whose value is a
/// credential: the common API-key and OAuth names, AWS's and Azure's signed
/// URL parameters, GitLab's `private_token`.
pub const SECRET_PARAMETERS: &[&str] = &[
    "token",
    "access_token",
    "refresh_token",
    "id_token",
    "auth_token",
    "session_token",
    "private_token",
    "api_key",
    "apikey",
    "api-key",
    "key",
    "secret",
    "client_secret",
    "password",
    "passwd",
    "x-amz-credential",
    "x-amz-signature",
    "x-amz-security-token",
    "sig",
    "signature",
];

/// The characters a token's body may hold.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Alphabet {
    /// `A-Z a-z 0-9`.
    Alnum,
    /// `A-Z a-z 0-9 _`.
    Word,
    /// `A-Z a-z 0-9 _ -`.
    UrlSafe,
    /// `A-Z 0-9`.
    Upper,
    /// `0-9 a-f A-F`.
    Hex,
    /// `A-Z a-z 0-9 _ - . =`.
    Dotted,
}

impl Alphabet {
    fn holds(self, b: u8) -> bool {
        match self {
            Alphabet::Alnum => b.is_ascii_alphanumeric(),
            Alphabet::Word => b.is_ascii_alphanumeric() || b == b'_',
            Alphabet::UrlSafe => b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-'),
            Alphabet::Upper => b.is_ascii_uppercase() || b.is_ascii_digit(),
            Alphabet::Hex => b.is_ascii_hexdigit(),
            Alphabet::Dotted => b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.' | b'='),
        }
    }
}

/// A provider's token: `(provider, prefix, alphabet of the body, shortest
/// body, longest body)`. The prefix must start a word (no letter or digit
/// before it).
const TOKEN_FORMATS: &[(&str, &str, Alphabet, usize, usize)] = &[
    (
        "GitHub personal access token",
        "ghp_",
        Alphabet::Alnum,
        36,
        36,
    ),
    ("GitHub OAuth token", "gho_", Alphabet::Alnum, 36, 36),
    ("GitHub app token", "ghu_", Alphabet::Alnum, 36, 36),
    ("GitHub app token", "ghs_", Alphabet::Alnum, 36, 36),
    ("GitHub refresh token", "ghr_", Alphabet::Alnum, 36, 36),
    (
        "GitHub fine-grained token",
        "github_pat_",
        Alphabet::Word,
        82,
        82,
    ),
    (
        "GitLab personal access token",
        "glpat-",
        Alphabet::UrlSafe,
        20,
        64,
    ),
    (
        "GitLab pipeline trigger token",
        "glptt-",
        Alphabet::UrlSafe,
        20,
        64,
    ),
    ("GitLab deploy token", "gldt-", Alphabet::UrlSafe, 20, 64),
    ("GitLab runner token", "glrt-", Alphabet::UrlSafe, 20, 64),
    ("AWS access key", "AKIA", Alphabet::Upper, 16, 16),
    ("AWS access key", "ASIA", Alphabet::Upper, 16, 16),
    ("AWS access key", "ABIA", Alphabet::Upper, 16, 16),
    ("AWS access key", "ACCA", Alphabet::Upper, 16, 16),
    ("Slack token", "xoxb-", Alphabet::UrlSafe, 10, 255),
    ("Slack token", "xoxp-", Alphabet::UrlSafe, 10, 255),
    ("Slack token", "xoxa-", Alphabet::UrlSafe, 10, 255),
    ("Slack token", "xoxr-", Alphabet::UrlSafe, 10, 255),
    ("Slack token", "xoxs-", Alphabet::UrlSafe, 10, 255),
    ("Slack token", "xoxe-", Alphabet::UrlSafe, 10, 255),
    ("Stripe key", "sk_live_", Alphabet::Alnum, 10, 99),
    ("Stripe key", "sk_test_", Alphabet::Alnum, 10, 99),
    ("Stripe key", "rk_live_", Alphabet::Alnum, 10, 99),
    ("Stripe key", "rk_test_", Alphabet::Alnum, 10, 99),
    ("OpenAI key", "sk-proj-", Alphabet::UrlSafe, 20, 255),
    ("OpenAI key", "sk-svcacct-", Alphabet::UrlSafe, 20, 255),
    ("OpenAI key", "sk-admin-", Alphabet::UrlSafe, 20, 255),
    ("Anthropic key", "sk-ant-", Alphabet::UrlSafe, 20, 255),
    ("Google API key", "AIza", Alphabet::UrlSafe, 35, 35),
    ("npm token", "npm_", Alphabet::Alnum, 36, 36),
    (
        "PyPI token",
        "pypi-AgEIcHlwaS5vcmc",
        Alphabet::UrlSafe,
        50,
        255,
    ),
    ("Hugging Face token", "hf_", Alphabet::Alnum, 34, 34),
    ("Shopify token", "shpat_", Alphabet::Hex, 32, 32),
    ("Shopify token", "shpss_", Alphabet::Hex, 32, 32),
    ("Shopify token", "shpca_", Alphabet::Hex, 32, 32),
    ("Shopify token", "shppa_", Alphabet::Hex, 32, 32),
    ("DigitalOcean token", "dop_v1_", Alphabet::Hex, 64, 64),
    ("DigitalOcean token", "doo_v1_", Alphabet::Hex, 64, 64),
    ("DigitalOcean token", "dor_v1_", Alphabet::Hex, 64, 64),
    ("SendGrid key", "SG.", Alphabet::Dotted, 66, 66),
];

/// What credential the URL carries, for the finding's message; `None` when
/// neither sign is found.
pub fn secret_in_url(url: &str) -> Option<String> {
    let decoded = percent_decoded(url);
    let found = [url, decoded.as_str()]
        .into_iter()
        .find_map(|text| parameter(text).or_else(|| token(text)));
    found
}

/// A credential-named query parameter with a value.
fn parameter(url: &str) -> Option<String> {
    let query = url.split_once('?')?.1;
    let query = query.split('#').next().unwrap_or(query);
    query.split(['&', ';']).find_map(|pair| {
        let (name, value) = pair.split_once('=')?;
        let name = name.trim().to_ascii_lowercase();
        (SECRET_PARAMETERS.contains(&name.as_str()) && !value.trim().is_empty())
            .then(|| format!("the query parameter `{}` holds a credential", name))
    })
}

/// A provider-shaped token anywhere in the text. The work is linear in the
/// text: each format's run is read no further than its longest token, and
/// a JSON Web Token's parts end where the URL-safe run that holds them ends,
/// which one pass from the right finds for every position at once (a part
/// scanned afresh from each word start made a long URL quadratic).
fn token(text: &str) -> Option<String> {
    let bytes = text.as_bytes();
    // `ends[i]`: where the URL-safe run starting at `i` ends.
    let mut ends = vec![bytes.len(); bytes.len() + 1];
    for (i, b) in bytes.iter().enumerate().rev() {
        let next = ends.get(i + 1).copied().unwrap_or(bytes.len());
        if let Some(end) = ends.get_mut(i) {
            *end = if Alphabet::UrlSafe.holds(*b) { next } else { i };
        }
    }
    (0..bytes.len()).find_map(|at| {
        let starts_word = at == 0
            || bytes
                .get(at - 1)
                .is_some_and(|b| !b.is_ascii_alphanumeric());
        if !starts_word {
            return None;
        }
        let rest = bytes.get(at..)?;
        format_at(rest)
            .or_else(|| jwt_at(bytes, &ends, at))
            .or_else(|| telegram_at(rest))
    })
}

/// The length of the run of `alphabet` at the start of `bytes`, counted no
/// further than `limit`.
fn run(bytes: &[u8], alphabet: Alphabet, limit: usize) -> usize {
    bytes
        .iter()
        .take(limit)
        .take_while(|b| alphabet.holds(**b))
        .count()
}

fn format_at(rest: &[u8]) -> Option<String> {
    TOKEN_FORMATS
        .iter()
        .find(|(_, prefix, alphabet, min, max)| {
            rest.starts_with(prefix.as_bytes())
                && rest.get(prefix.len()..).is_some_and(|body| {
                    (*min..=*max).contains(&run(body, *alphabet, max.saturating_add(1)))
                })
        })
        .map(|(provider, ..)| format!("it holds a {provider}"))
}

/// A JSON Web Token at `at`: `eyJ…` header, `.`, `eyJ…` payload, `.`,
/// signature (gitleaks' `jwt` rule), each part a whole URL-safe run
/// (`ends` from [`token`]).
fn jwt_at(bytes: &[u8], ends: &[usize], at: usize) -> Option<String> {
    let part = |start: usize| -> Option<(usize, usize)> {
        let end = *ends.get(start)?;
        Some((start, end))
    };
    let dot_after = |end: usize| bytes.get(end) == Some(&b'.');
    let (h, h_end) = part(at)?;
    let header = bytes.get(h..h_end)?;
    if !(header.starts_with(b"eyJ") && header.len() >= 10 && dot_after(h_end)) {
        return None;
    }
    let (p, p_end) = part(h_end + 1)?;
    let payload = bytes.get(p..p_end)?;
    if !(payload.starts_with(b"eyJ") && payload.len() >= 10 && dot_after(p_end)) {
        return None;
    }
    let (s, s_end) = part(p_end + 1)?;
    (s_end - s >= 10).then(|| String::from("it holds a JSON Web Token"))
}

/// A Telegram bot token, `bot` + 5 to 16 digits + `:` + `A` + 34 URL-safe
/// characters, as the Bot API puts it in the path (gitleaks' `telegram`
/// rule).
fn telegram_at(rest: &[u8]) -> Option<String> {
    let body = rest.strip_prefix(b"bot").unwrap_or(rest);
    let digits = body
        .iter()
        .take(17)
        .take_while(|b| b.is_ascii_digit())
        .count();
    if !(5..=16).contains(&digits) {
        return None;
    }
    let tail = body.get(digits..)?.strip_prefix(b":A")?;
    (run(tail, Alphabet::UrlSafe, 35) == 34).then(|| String::from("it holds a Telegram bot token"))
}

/// The text with `%XX` escapes decoded once (invalid ones kept as written,
/// bytes that are not UTF-8 replaced).
fn percent_decoded(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut at = 0;
    while let Some(&b) = bytes.get(at) {
        let hex = |i: usize| bytes.get(i).and_then(|c| (*c as char).to_digit(16));
        match (b, hex(at + 1), hex(at + 2)) {
            (b'%', Some(hi), Some(lo)) => {
                out.push(u8::try_from(hi * 16 + lo).unwrap_or(b'?'));
                at += 3;
            }
            _ => {
                out.push(b);
                at += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn signs_both_ways() {
        for url in [
            "https://api.example.com/v1?token=abc123",
            "https://api.example.com/v1?page=2&API_KEY=abc",
            "https://maps.googleapis.com/maps/api/geocode/json?key=AIzaSyA1234567890abcdefghijklmnopqrstu",
            "https://example.com/x?access%5Ftoken=abc",
            "https://example.com/x?q=ghp_0123456789abcdefghijABCDEFGHIJklmnop",
            "https://example.com/ghp_0123456789abcdefghijABCDEFGHIJklmnop/x",
            "https://api.telegram.org/bot123456789:AAbcdefghijklmnopqrstuvwxyz01234567/getMe",
            "https://s3.amazonaws.com/b/o?X-Amz-Credential=AKIAIOSFODNN7EXAMPLE%2F20250101",
            "https://example.com/cb?code=x&id_token=eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
            "https://example.com/?x=eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
        ] {
            assert!(secret_in_url(url).is_some(), "{url}");
        }
        for url in [
            "https://example.com/",
            "https://example.com/search?q=token&page=2",
            "https://example.com/x?key=",
            "https://example.com/x?page_token=abc&monkey=1",
            "https://example.com/docs/ghp_short",
            "https://example.com/xghp_0123456789abcdefghijABCDEFGHIJklmnop",
            "https://example.com/?q=sk_live_",
            "https://docs.github.com/en/authentication/keeping-your-account-and-data-secure",
            "https://example.com/%ZZtoken",
        ] {
            assert_eq!(secret_in_url(url), None, "{url}");
        }
    }
}

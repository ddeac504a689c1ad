//! Host names and addresses: one normalised spelling for matching, the
//! numeric forms resolvers accept, and the rules that make a host internal.
//!
//! Normalisation (applied to every client's reading and to every pattern on
//! `allow_hosts` and `deny_hosts`, so both lists see the same name):
//! 1. percent-decoding (`evil.example%2e`);
//! 2. the full-width forms of ASCII (U+FF01–U+FF5E) folded to ASCII, and the
//!    ideographic, full-width and half-width full stops (U+3002, U+FF0E,
//!    U+FF61) read as `.`, as IDNA mapping does;
//! 3. lower case;
//! 4. trailing dots removed (`evil.example.` is the same name);
//! 5. IPv6 brackets removed, and any IPv4 spelling (`0x7f.1`, `2130706433`,
//!    `0177.0.0.1`, as `inet_aton` and WHATWG read them) reduced to dotted
//!    decimal.
//!
//! A name still holding non-ASCII characters after that cannot be converted
//! to its IDNA form in this build (the IDNA adapter is ASCII-only): it is
//! never allowed, though the deny list still sees its folded spelling.

use std::net::{Ipv4Addr, Ipv6Addr};

/// A normalised host.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Host {
    /// An IPv4 address in any spelling.
    V4(Ipv4Addr),
    /// An IPv6 address (a zone identifier is refused as unparseable).
    V6(Ipv6Addr),
    /// An ASCII domain name, normalised.
    Name(String),
    /// A name with characters IDNA would have to map; folded as far as possible.
    NonAscii(String),
    /// Text that no resolver would read as one host (`1.2.3.4.5` ending in a
    /// number, a bad IPv6 literal, an empty name).
    Unparseable(String),
}

impl Host {
    /// The normalised spelling, for comparisons and messages.
    pub fn text(&self) -> String {
        match self {
            Host::V4(ip) => ip.to_string(),
            Host::V6(ip) => ip.to_string(),
            Host::Name(name) | Host::NonAscii(name) | Host::Unparseable(name) => name.clone(),
        }
    }
}

/// Percent-decodes `text` (invalid escapes kept as written).
pub fn percent_decode(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while let Some(&b) = bytes.get(i) {
        let hex = bytes
            .get(i + 1..i + 3)
            .and_then(|h| std::str::from_utf8(h).ok())
            .and_then(|h| u8::from_str_radix(h, 16).ok());
        match (b, hex) {
            (b'%', Some(v)) => {
                out.push(v);
                i += 3;
            }
            _ => {
                out.push(b);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// Characters IDNA mapping removes from a host (UTS #46 IdnaMappingTable
/// `ignored`, and the joiners its transitional processing deletes): a host
/// written with them is the host without them to a client that maps.
const IGNORED: &[(char, char)] = &[
    ('\u{00AD}', '\u{00AD}'), // soft hyphen
    ('\u{034F}', '\u{034F}'), // combining grapheme joiner
    ('\u{180B}', '\u{180F}'), // Mongolian variation selectors
    ('\u{200B}', '\u{200D}'), // zero-width space, non-joiner, joiner
    ('\u{2060}', '\u{2060}'), // word joiner
    ('\u{FE00}', '\u{FE0F}'), // variation selectors
    ('\u{FEFF}', '\u{FEFF}'), // zero-width no-break space
];

/// Digits and dots written other than in ASCII that IDNA mapping (NFKC
/// compatibility decompositions, UTS #46) reads as ASCII: the first code
/// point of a run, how many follow in order, and the value of the first.
/// Full-width forms (U+FF01–U+FF5E) and the ideographic full stops are
/// folded in [`fold`] itself.
const DIGIT_RUNS: &[(u32, u32, u32)] = &[
    (0x2460, 20, 1),  // ① … ⑳ CIRCLED DIGIT/NUMBER ONE … TWENTY
    (0x24EA, 1, 0),   // ⓪ CIRCLED DIGIT ZERO
    (0x24F5, 10, 1),  // ⓵ … ⓾ DOUBLE CIRCLED DIGIT ONE … NUMBER TEN
    (0x2070, 1, 0),   // ⁰ SUPERSCRIPT ZERO
    (0x2074, 6, 4),   // ⁴ … ⁹
    (0x2080, 10, 0),  // ₀ … ₉ SUBSCRIPT
    (0x00B9, 1, 1),   // ¹
    (0x00B2, 2, 2),   // ² ³
    (0x1D7CE, 50, 0), // MATHEMATICAL BOLD … MONOSPACE DIGIT ZERO … NINE (five sets)
];

/// A digit or dot as IDNA mapping reads it: `⑯` is `16`, `⒈` is `1.`, `․` is `.`.
fn mapped(c: char, out: &mut String) -> bool {
    let code = u32::from(c);
    if let Some((first, _, value)) = DIGIT_RUNS
        .iter()
        .find(|(first, count, _)| code >= *first && code < first + count)
    {
        let n = code - first + value;
        // The mathematical digits repeat 0–9 in each of their five sets.
        let n = if *first == 0x1D7CE { n % 10 } else { n };
        out.push_str(&n.to_string());
        return true;
    }
    // ⒈ … ⒛ DIGIT ONE FULL STOP … NUMBER TWENTY FULL STOP.
    if (0x2488..0x249C).contains(&code) {
        out.push_str(&(code - 0x2487).to_string());
        out.push('.');
        return true;
    }
    // ․ ONE DOT LEADER and ﹒ SMALL FULL STOP decompose to `.`.
    if c == '\u{2024}' || c == '\u{FE52}' {
        out.push('.');
        return true;
    }
    false
}

/// Steps 1–4 of the normalisation.
pub fn fold(text: &str) -> String {
    let decoded = percent_decode(text);
    let mut folded = String::with_capacity(decoded.len());
    for c in decoded.chars() {
        if IGNORED.iter().any(|(lo, hi)| (*lo..=*hi).contains(&c)) || mapped(c, &mut folded) {
            continue;
        }
        let c = match c {
            '\u{3002}' | '\u{FF0E}' | '\u{FF61}' => '.',
            '\u{FF01}'..='\u{FF5E}' => char::from_u32(u32::from(c) - 0xFEE0).unwrap_or(c),
            other => other,
        };
        folded.extend(c.to_lowercase());
    }
    folded.trim_end_matches('.').to_owned()
}

/// One part of an `inet_aton` address: decimal, `0x` hex or `0` octal.
fn numeric_part(part: &str) -> Option<u64> {
    if part.is_empty() {
        return None;
    }
    let (digits, radix) =
        if let Some(hex) = part.strip_prefix("0x").or_else(|| part.strip_prefix("0X")) {
            (hex, 16)
        } else if part.len() > 1 && part.starts_with('0') {
            (part.get(1..).unwrap_or(""), 8)
        } else {
            (part, 10)
        };
    if digits.is_empty() {
        // `0x` alone is zero to WHATWG.
        return (radix == 16).then_some(0);
    }
    if digits.len() > 12 {
        return None;
    }
    u64::from_str_radix(digits, radix).ok()
}

/// An IPv4 address in any form `inet_aton` and WHATWG accept (1 to 4 parts,
/// the last filling the remaining bytes).
pub fn parse_v4(text: &str) -> Option<Ipv4Addr> {
    let parts: Vec<&str> = text.split('.').collect();
    if parts.is_empty() || parts.len() > 4 {
        return None;
    }
    let values = parts
        .iter()
        .map(|p| numeric_part(p))
        .collect::<Option<Vec<u64>>>()?;
    let (last, leading) = values.split_last()?;
    let mut address: u64 = 0;
    for (i, value) in leading.iter().enumerate() {
        if *value > 255 {
            return None;
        }
        address |= value << (8 * (3 - i));
    }
    let room = 8 * (4 - leading.len());
    if room < 64 && *last >= (1u64 << room) {
        return None;
    }
    address |= last;
    u32::try_from(address).ok().map(Ipv4Addr::from)
}

/// Whether a name's last label is numeric, so WHATWG reads it as an IPv4
/// address (and refuses it when it is not one).
fn ends_in_number(name: &str) -> bool {
    let last = name.rsplit('.').next().unwrap_or("");
    !last.is_empty()
        && (last.chars().all(|c| c.is_ascii_digit())
            || ((last.starts_with("0x") || last.starts_with("0X"))
                && last
                    .get(2..)
                    .is_some_and(|h| h.chars().all(|c| c.is_ascii_hexdigit()))))
}

/// A host's text as a client extracted it (brackets included), normalised.
pub fn normalise(text: &str) -> Host {
    let folded = fold(text);
    // Non-ASCII as written (full-width forms included): folded for the deny
    // list, never proven.
    if !percent_decode(text).is_ascii() {
        return Host::NonAscii(folded);
    }
    if let Some(inner) = folded.strip_prefix('[') {
        return match inner
            .strip_suffix(']')
            .and_then(|i| i.parse::<Ipv6Addr>().ok())
        {
            Some(ip) => Host::V6(ip),
            None => Host::Unparseable(folded),
        };
    }
    if folded.is_empty() {
        return Host::Unparseable(folded);
    }
    if let Some(ip) = parse_v4(&folded) {
        return Host::V4(ip);
    }
    if ends_in_number(&folded) {
        return Host::Unparseable(folded);
    }
    let valid = folded.split('.').all(|label| {
        !label.is_empty()
            && label
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
    });
    if valid {
        Host::Name(folded)
    } else {
        Host::Unparseable(folded)
    }
}

/// Whether `host` matches a pattern of `allow_hosts` / `deny_hosts`: an
/// exact name or address, or `*.suffix` for the names under it. Both sides
/// are normalised the same way.
pub fn matches(pattern: &str, host: &Host) -> bool {
    let pattern = pattern.trim();
    let names = spellings(&host.text());
    if let Some(suffix) = pattern.strip_prefix("*.") {
        if matches!(host, Host::V4(_) | Host::V6(_)) {
            return false;
        }
        let suffixes = spellings(&fold(suffix));
        return names.iter().any(|name| {
            suffixes
                .iter()
                .any(|suffix| name.ends_with(&format!(".{suffix}")))
        });
    }
    let bracketed = if pattern.contains(':') && !pattern.starts_with('[') {
        format!("[{pattern}]")
    } else {
        pattern.to_owned()
    };
    // Compared by normalised text, so a full-width or otherwise non-ASCII
    // spelling still meets its ASCII pattern on the deny list, and by both
    // the Unicode and the `xn--` form of each label.
    let wanted = spellings(&normalise(&bracketed).text());
    wanted.iter().any(|w| !w.is_empty() && names.contains(w))
}

/// The longest name DNS carries; longer text is compared only as written,
/// which keeps the Punycode conversions bounded.
const MAX_NAME: usize = 253;

/// A name's spellings: as given, with every non-ASCII label in its `xn--`
/// form, and with every `xn--` label decoded.
fn spellings(name: &str) -> Vec<String> {
    if name.len() > MAX_NAME {
        return vec![name.to_owned()];
    }
    let encoded: Option<Vec<String>> = name
        .split('.')
        .map(|label| {
            if label.is_ascii() {
                Some(label.to_owned())
            } else {
                idna::punycode::encode_str(label).map(|p| format!("xn--{p}"))
            }
        })
        .collect();
    let decoded: Option<Vec<String>> = name
        .split('.')
        .map(|label| match label.strip_prefix("xn--") {
            Some(code) => idna::punycode::decode_to_string(code).map(|l| l.to_lowercase()),
            None => Some(label.to_owned()),
        })
        .collect();
    let mut out = vec![name.to_owned()];
    out.extend(encoded.map(|l| l.join(".")));
    out.extend(decoded.map(|l| l.join(".")));
    out.dedup();
    out
}

/// Addresses that are not public although outside the private ranges.
const SPECIAL_V4: &[Ipv4Addr] = &[
    // Azure's platform endpoint (wireserver, instance metadata proxy).
    Ipv4Addr::new(168, 63, 129, 16),
];

/// Whether an IPv4 address is this machine, a private, shared, link-local,
/// reserved or documentation network, or a cloud platform endpoint.
pub fn internal_v4(ip: Ipv4Addr) -> bool {
    let [a, b, c, _] = ip.octets();
    ip.is_loopback()
        || ip.is_private()
        || ip.is_link_local()
        || ip.is_unspecified()
        || ip.is_broadcast()
        || ip.is_multicast()
        || ip.is_documentation()
        || a == 0
        || (a == 100 && (64..128).contains(&b)) // shared (CGNAT) space, Alibaba metadata
        || (a == 192 && b == 0 && c == 0) // IETF protocol assignments (Oracle metadata)
        || (a == 192 && b == 88 && c == 99) // 6to4 relay anycast
        || (a == 198 && (18..20).contains(&b)) // benchmarking
        || a >= 240
        || SPECIAL_V4.contains(&ip)
}

fn embedded_v4(hi: u16, lo: u16) -> Ipv4Addr {
    Ipv4Addr::from((u32::from(hi) << 16) | u32::from(lo))
}

/// Whether an IPv6 address is internal, including IPv4 addresses embedded by
/// mapping, translation, NAT64 and 6to4, and Teredo (never a public server).
pub fn internal_v6(ip: Ipv6Addr) -> bool {
    if let Some(v4) = ip.to_ipv4_mapped() {
        return internal_v4(v4);
    }
    let s = ip.segments();
    let [s0, s1, s2, s3, s4, s5, s6, s7] = s;
    // IPv4-translated ::ffff:0:a.b.c.d.
    if [s0, s1, s2, s3, s4, s5] == [0, 0, 0, 0, 0xffff, 0] {
        return internal_v4(embedded_v4(s6, s7));
    }
    // NAT64, well-known (64:ff9b::/96) and local-use (64:ff9b:1::/48) prefixes.
    if s0 == 0x64 && s1 == 0xff9b {
        return s2 == 1 || internal_v4(embedded_v4(s6, s7));
    }
    // 6to4: 2002:AABB:CCDD::/48 embeds AA.BB.CC.DD.
    if s0 == 0x2002 {
        return internal_v4(embedded_v4(s1, s2));
    }
    ip.is_loopback()
        || ip.is_unspecified()
        || ip.is_multicast()
        || (s0 == 0x2001 && s1 == 0) // Teredo
        || (s0 == 0x2001 && s1 == 0x0db8) // documentation
        || (s0 == 0x0100 && [s1, s2, s3] == [0, 0, 0]) // discard
        || (s0 & 0xfe00) == 0xfc00 // unique local (fd00:ec2::254 among them)
        || (s0 & 0xffc0) == 0xfe80 // link-local
        || (s0 & 0xffc0) == 0xfec0 // site-local (deprecated)
        || [s0, s1, s2, s3, s4, s5] == [0, 0, 0, 0, 0, 0] // IPv4-compatible
}

/// Suffixes under which names are private by standard or convention: mDNS,
/// cluster DNS, reserved and special-use top-level names, home and corporate
/// networks.
const INTERNAL_SUFFIXES: &[&str] = &[
    "local",
    "localhost",
    "localdomain",
    "internal",
    "intranet",
    "intra",
    "corp",
    "lan",
    "home",
    "home.arpa",
    "arpa",
    "private",
    "priv",
    "test",
    "invalid",
    "onion",
    "alt",
    "svc",
    "cluster",
    "cluster.local",
    "svc.cluster.local",
    "default",
    "kube-system",
    "consul",
    "docker",
    // Public names that always resolve to this machine.
    "localtest.me",
    "lvh.me",
    "vcap.me",
    "lacolhost.com",
    "localho.st",
    "localhost.direct",
    "fuf.me",
    "burpcollaborator.net",
    // DNS-rebinding services: a name answers with the addresses written in
    // it, one after the other.
    "rbndr.us",
    "1u.ms",
    // Wildcard DNS that resolves a name to the address written in it
    // (`10.0.0.1.nip.io`): the address is the target, whatever it is.
    "nip.io",
    "sslip.io",
    "xip.io",
    "nip.direct",
];

/// Multi-label names of metadata services and container or cluster hosts.
const INTERNAL_NAMES: &[&str] = &[
    "localtest.me",
    "lvh.me",
    "vcap.me",
    "metadata.google.internal",
    "metadata.goog",
    "metadata.azure.com",
    "metadata.tencentyun.com",
    "metadata.platformequinix.com",
    "metadata.packet.net",
    "api.metadata.cloud.ibm.com",
    "instance-data.ec2.internal",
    "host.docker.internal",
    "gateway.docker.internal",
    "host.containers.internal",
    "kubernetes.default",
    "kubernetes.default.svc",
];

/// Why a host is internal, if it is.
pub fn internal(host: &Host) -> Option<&'static str> {
    match host {
        Host::V4(ip) if internal_v4(*ip) => {
            Some("is this machine, a private or reserved network or a metadata address")
        }
        Host::V6(ip) if internal_v6(*ip) => Some(
            "is this machine, a private network, a metadata address or embeds a private IPv4 address",
        ),
        Host::V4(_) | Host::V6(_) => None,
        Host::Name(name) => {
            if !name.contains('.') {
                return Some("is a single-label name, resolved on the local network or cluster");
            }
            if INTERNAL_NAMES.contains(&name.as_str()) {
                return Some("is a metadata, container or cluster host name");
            }
            if INTERNAL_SUFFIXES
                .iter()
                .any(|s| name == s || name.ends_with(&format!(".{s}")))
            {
                return Some("is under a suffix reserved for local, cluster or private names");
            }
            // A name that starts with a private IPv4 address (`10.0.0.1.example`)
            // is how wildcard DNS services point at one.
            let labels: Vec<&str> = name.split('.').collect();
            if let Some(ip) = labels.get(..4).and_then(|l| l.join(".").parse::<Ipv4Addr>().ok()) {
                if internal_v4(ip) {
                    return Some("names a private IPv4 address in its labels");
                }
            }
            if let Some(ip) = labels
                .first()
                .and_then(|l| l.replace('-', ".").parse::<Ipv4Addr>().ok())
            {
                if internal_v4(ip) {
                    return Some("names a private IPv4 address in its labels");
                }
            }
            if embeds_internal_v4(name) {
                return Some("names a private IPv4 address in its labels");
            }
            // `vault.vault`, `grafana.monitoring`: a last label the public DNS
            // does not delegate resolves only through search domains or
            // private DNS (a trailing dot is the root, not a label).
            let last = name.trim_end_matches('.').rsplit('.').next().unwrap_or("");
            if !super::tlds::delegated(last) {
                return Some(
                    "ends in a top-level name the public DNS does not delegate: it resolves only on a private network or cluster",
                );
            }
            None
        }
        Host::NonAscii(_) | Host::Unparseable(_) => Some("is not a host name that could be checked"),
    }
}

/// Whether a name writes an internal IPv4 address anywhere in it, the way
/// wildcard and rebinding DNS services read one: four numbers in a row
/// joined by `.` or `-` (`make-127-0-0-1-rr`, `a.10.0.0.1.example`), or a
/// label of eight hex digits (`7f000001`).
fn embeds_internal_v4(name: &str) -> bool {
    let parts: Vec<&str> = name.split(['.', '-']).collect();
    let dotted = parts.windows(4).any(|w| {
        let octets: Option<Vec<u8>> = w.iter().map(|p| p.parse::<u8>().ok()).collect();
        octets
            .and_then(|o| <[u8; 4]>::try_from(o).ok())
            .is_some_and(|o| internal_v4(Ipv4Addr::from(o)))
    });
    let hex = name.split('.').any(|label| {
        label.len() == 8
            && label.bytes().all(|b| b.is_ascii_hexdigit())
            && u32::from_str_radix(label, 16).is_ok_and(|n| internal_v4(Ipv4Addr::from(n)))
    });
    dotted || hex
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spellings() {
        assert_eq!(
            normalise("EVIL.example."),
            Host::Name("evil.example".into())
        );
        assert_eq!(
            normalise("evil.example%2e"),
            Host::Name("evil.example".into())
        );
        assert_eq!(
            normalise("evil\u{3002}example"),
            Host::NonAscii("evil.example".into())
        );
        assert_eq!(
            normalise("ｅｖｉｌ.example"),
            Host::NonAscii("evil.example".into())
        );
        assert!(matches("evil.example", &normalise("ｅｖｉｌ.example")));
        assert!(matches("127.0.0.1", &normalise("１２７.０.０.１")));
        assert!(matches(
            "bücher.example",
            &normalise("xn--bcher-kva.example")
        ));
        assert!(matches(
            "xn--bcher-kva.example",
            &normalise("BÜCHER.example")
        ));
        assert!(matches(
            "*.bücher.example",
            &normalise("api.xn--bcher-kva.example")
        ));
        assert_eq!(normalise("0x7f.1"), Host::V4(Ipv4Addr::new(127, 0, 0, 1)));
        assert_eq!(
            normalise("2130706433"),
            Host::V4(Ipv4Addr::new(127, 0, 0, 1))
        );
        assert_eq!(
            normalise("0177.0.0.1"),
            Host::V4(Ipv4Addr::new(127, 0, 0, 1))
        );
        assert!(matches!(normalise("1.2.3.4.5"), Host::Unparseable(_)));
        assert!(matches!(normalise("bücher.example"), Host::NonAscii(_)));
    }

    #[test]
    fn internal_hosts() {
        for host in [
            "redis",
            "localhost.localdomain",
            "ip6-localhost",
            "api.svc.cluster.local",
            "kubernetes.default",
            "host.docker.internal",
            "printer.home.arpa",
            "x.onion",
            "10.0.0.1.nip.io",
            "127-0-0-1.sslip.io",
            "100.64.0.1",
            "168.63.129.16",
            "[2002:a9fe:a9fe::1]",
            "[::ffff:0:7f00:1]",
            "[64:ff9b:1::1]",
        ] {
            assert!(internal(&normalise(host)).is_some(), "{host}");
        }
        for host in [
            "example.com",
            "8.8.8.8",
            "[2606:4700:4700::1111]",
            "api.example.co.uk",
        ] {
            assert_eq!(internal(&normalise(host)), None, "{host}");
        }
    }

    #[test]
    fn lists() {
        assert!(matches("evil.example", &normalise("evil.example.")));
        assert!(matches("*.evil.example", &normalise("api.evil.example..")));
        assert!(matches("EVIL.example.", &normalise("evil.example%2e")));
        assert!(!matches("evil.example", &normalise("notevil.example")));
        assert!(matches("10.0.0.5", &normalise("0x0a.0.0.5")));
        assert!(matches("::1", &normalise("[0::1]")));
        assert!(matches("*.corp.test", &normalise("wiki.corp.test.")));
    }
}

//! The toolgate policy as a WebAssembly component.
//!
//! `build.rs` compiles `toolgate-policy` for `wasm32-unknown-unknown` and wraps it
//! with `wit-component`; this crate only carries the bytes, so hosts can embed
//! them and the JavaScript build can write them out (`toolgate-component OUT`).
//! The component imports nothing; the tests prove it.

/// The component's bytes.
pub const COMPONENT: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/toolgate.wasm"));

/// The SHA-256 of [`COMPONENT`] in lower-case hex, computed at build time.
pub const COMPONENT_SHA256: &str = include_str!(concat!(env!("OUT_DIR"), "/toolgate.wasm.sha256"));

/// The WIT interface the component implements.
pub const WIT: &str = include_str!("../../../wit/toolgate.wit");

#[cfg(test)]
mod tests {
    use super::COMPONENT;

    /// The top-level sections of a component binary as (id, payload) pairs.
    /// Hand-parsed on purpose: a parser crate here would add features to
    /// dependencies the host shares and rebuild the wasmtime stack for tests.
    fn sections(bytes: &[u8]) -> Vec<(u8, &[u8])> {
        assert_eq!(bytes.get(..4), Some(&b"\0asm"[..]), "not wasm");
        assert_eq!(
            bytes.get(4..8),
            Some(&[0x0d, 0x00, 0x01, 0x00][..]),
            "not a component"
        );
        let mut out = Vec::new();
        let mut i = 8;
        while i < bytes.len() {
            let id = bytes[i];
            i += 1;
            let (mut size, mut shift) = (0usize, 0);
            loop {
                let b = bytes[i];
                i += 1;
                size |= usize::from(b & 0x7f) << shift;
                shift += 7;
                if b < 0x80 {
                    break;
                }
            }
            out.push((id, &bytes[i..i + size]));
            i += size;
        }
        assert_eq!(i, bytes.len(), "trailing bytes");
        out
    }

    /// The component has no import section at its top level: it asks its host
    /// for nothing. (Nested components that wit-component emits to type the
    /// exported interfaces import from their parent, which is internal; the
    /// host crate checks the component's type through wasmtime as well.)
    #[test]
    fn no_top_level_imports() {
        const CORE_MODULE: u8 = 1;
        const COMPONENT_IMPORT: u8 = 10;
        let sections = sections(COMPONENT);
        assert!(
            sections.iter().any(|(id, _)| *id == CORE_MODULE),
            "no core module"
        );
        assert!(
            sections.iter().all(|(id, _)| *id != COMPONENT_IMPORT),
            "the component imports something"
        );
    }

    /// The component stays within the raw byte budget of
    /// `tests/size-budget.json` (the JavaScript package test checks the gzip
    /// and tarball budgets of the same file). A size is a byte count, so it is
    /// a test; raise the budget in a commit of its own that says why.
    #[test]
    fn the_component_is_within_its_byte_budget() {
        let budgets = include_str!("../../../tests/size-budget.json");
        let key = "\"component_raw\":";
        let at = budgets
            .find(key)
            .expect("tests/size-budget.json names component_raw")
            + key.len();
        let digits: String = budgets[at..]
            .trim_start()
            .chars()
            .take_while(char::is_ascii_digit)
            .collect();
        let budget: usize = digits.parse().expect("component_raw is a byte count");
        assert!(
            COMPONENT.len() <= budget,
            "the component is {} bytes, over its budget of {budget}",
            COMPONENT.len()
        );
    }

    #[test]
    fn the_recorded_hash_is_the_components() {
        use sha2::Digest;
        let digest = sha2::Sha256::digest(COMPONENT);
        let hex: String = digest.iter().map(|b| format!("{b:02x}")).collect();
        assert_eq!(super::COMPONENT_SHA256, hex);
    }

    #[test]
    fn the_wit_is_the_contract_the_component_was_built_from() {
        // The component embeds its WIT package name and version.
        let needle = b"toolgate:policy/policy@0.1.0";
        assert!(COMPONENT.windows(needle.len()).any(|w| w == needle));
        assert!(super::WIT.contains("package toolgate:policy@0.1.0;"));
    }
}

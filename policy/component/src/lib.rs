//! The toolgate policy as a WebAssembly component.
//!
//! `build.rs` compiles `toolgate-policy` for `wasm32-unknown-unknown` and wraps it
//! with `wit-component`; this crate only carries the bytes, so hosts can embed
//! them and the JavaScript build can write them out (`toolgate-component OUT`).
//! The component imports nothing; the tests prove it.

/// The component's bytes.
pub const COMPONENT: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/toolgate.wasm"));

/// The WIT interface the component implements.
pub const WIT: &str = include_str!("../../../wit/toolgate.wit");

#[cfg(test)]
mod tests {
    use super::COMPONENT;
    use wasmparser::{Parser, Payload};

    /// The component's world, as the component itself declares it, imports
    /// nothing: no host capability can reach the policy.
    #[test]
    fn world_imports_nothing() {
        let decoded = wit_component::decode(COMPONENT).expect("the component decodes");
        let wit_component::DecodedWasm::Component(resolve, world) = decoded else {
            panic!("decoded a WIT package, not a component");
        };
        let world = &resolve.worlds[world];
        let imports: Vec<_> = world
            .imports
            .keys()
            .map(|k| resolve.name_world_key(k))
            .collect();
        assert!(imports.is_empty(), "the component imports {imports:?}");
        let exports: Vec<_> = world
            .exports
            .keys()
            .map(|k| resolve.name_world_key(k))
            .collect();
        assert!(
            exports.contains(&"toolgate:policy/policy@0.1.0".to_owned()),
            "{exports:?}"
        );
    }

    /// The same, read from the binary directly: the top-level component has no
    /// import section (nested components that type the exported interfaces
    /// import from their parent, which is internal).
    #[test]
    fn no_top_level_import_section() {
        let mut depth = 0usize;
        let mut modules = 0;
        for payload in Parser::new(0).parse_all(COMPONENT) {
            match payload.expect("the component is valid wasm") {
                Payload::ComponentSection { .. } => depth += 1,
                Payload::ModuleSection { .. } => {
                    modules += 1;
                    depth += 1;
                }
                Payload::End(_) => depth = depth.saturating_sub(1),
                Payload::ComponentImportSection(imports) if depth == 0 => {
                    panic!("the component has {} imports", imports.count());
                }
                _ => {}
            }
        }
        assert!(modules >= 1, "no core module found");
    }

    #[test]
    fn exports_the_policy_interface() {
        let mut exports = Vec::new();
        for payload in Parser::new(0).parse_all(COMPONENT) {
            if let Ok(Payload::ComponentExportSection(section)) = payload {
                for export in section {
                    exports.push(export.expect("valid export").name.name.to_owned());
                }
            }
        }
        assert!(
            exports.iter().any(|e| e == "toolgate:policy/policy@0.1.0"),
            "exports: {exports:?}"
        );
    }
}

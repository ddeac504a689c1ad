//! The JavaScript package declares the configuration in TypeScript
//! (`host-js/src/shapes.d.ts`, generated from the configuration's Rust types
//! by `host-js/scripts/gen-types.js`); a hand-kept copy once lacked ten
//! fields the policy accepts, so a TypeScript user could not write a registry
//! tool's `description` without a cast. The generator reads field names and
//! serde attributes, not the `Deserialize` the policy runs (custom readers,
//! aliases). This test holds the two together: every
//! field and every enum value the policy's configuration accepts must be
//! declared, and nothing the policy would refuse may be. A renamed field, a new
//! setting or a new enum case fails `cargo test` until the declarations follow.
//!
//! What the policy accepts is read from its own `Deserialize` implementations
//! (the names serde asks a deserializer for), not from a second list.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing,
    reason = "a test fails loudly"
)]

use serde::de::{self, Deserialize, Deserializer, Visitor};
use std::collections::BTreeSet;
use toolgate_policy::config::Annotations;
use toolgate_policy::config::{
    Commands, Egress, Exec, Level2, Locks, McpServer, Mode, ToolConfig, ToolKind, Unconfined,
};
use toolgate_policy::{Config, MediumRisk, ModelTrust};

/// A deserializer that holds no data and records the field (or variant) names
/// a derived `Deserialize` asks it for: exactly the names that type accepts,
/// aliases included.
#[derive(Default)]
struct Probe {
    names: Vec<&'static str>,
}

impl<'de> Deserializer<'de> for &mut Probe {
    type Error = de::value::Error;

    fn deserialize_any<V: Visitor<'de>>(self, _visitor: V) -> Result<V::Value, Self::Error> {
        Err(de::Error::custom("the probe holds no data"))
    }

    fn deserialize_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        fields: &'static [&'static str],
        _visitor: V,
    ) -> Result<V::Value, Self::Error> {
        self.names = fields.to_vec();
        Err(de::Error::custom("probed"))
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        _name: &'static str,
        variants: &'static [&'static str],
        _visitor: V,
    ) -> Result<V::Value, Self::Error> {
        self.names = variants.to_vec();
        Err(de::Error::custom("probed"))
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string
        bytes byte_buf option unit unit_struct newtype_struct seq tuple
        tuple_struct map identifier ignored_any
    }
}

/// The names `T` accepts.
fn accepted<T: for<'de> Deserialize<'de>>() -> BTreeSet<String> {
    let mut probe = Probe::default();
    assert!(T::deserialize(&mut probe).is_err());
    assert!(
        !probe.names.is_empty(),
        "`{}` asked for no names: not a derived struct or enum",
        std::any::type_name::<T>()
    );
    probe.names.iter().map(|name| (*name).to_owned()).collect()
}

/// One member of a declared interface: its name and, for a union of string
/// literals, the literals.
struct Member {
    name: String,
    literals: BTreeSet<String>,
}

/// The string literals of a type written as `'a' | 'b'`.
fn string_literals(ty: &str) -> BTreeSet<String> {
    ty.split('\'')
        .skip(1)
        .step_by(2)
        .map(str::to_owned)
        .collect()
}

/// A member's type with a named union (`export type NAME = 'a' | 'b';`) read
/// where it is declared: `?: Mode;` is the union `Mode` names.
fn resolve(declarations: &str, ty: &str) -> String {
    let name = ty
        .trim_start_matches(['?', ':', ' '])
        .trim_end_matches(';')
        .trim_end_matches(" | null");
    if !name.chars().all(|c| c.is_ascii_alphanumeric()) || name.is_empty() {
        return ty.to_owned();
    }
    let opening = format!("export type {name} = ");
    declarations
        .lines()
        .find_map(|line| line.strip_prefix(opening.as_str()))
        .map_or_else(|| ty.to_owned(), str::to_owned)
}

/// The members of `export interface NAME { … }` in the declarations: lines
/// indented by exactly two spaces up to the closing `}` at the start of a line
/// (comments skipped).
fn interface(declarations: &str, name: &str) -> Vec<Member> {
    let opening = format!("export interface {name} {{");
    let mut lines = declarations.lines().skip_while(|line| *line != opening);
    assert!(
        lines.next().is_some(),
        "the declarations have no `{opening}`"
    );
    let mut members = Vec::new();
    for line in lines.take_while(|line| !line.starts_with('}')) {
        let Some(rest) = line.strip_prefix("  ") else {
            continue;
        };
        if rest.starts_with([' ', '/', '*']) || rest.is_empty() {
            continue;
        }
        let end = rest
            .find(['?', ':'])
            .unwrap_or_else(|| panic!("`{name}`: cannot read the member `{line}`"));
        let (member, ty) = rest.split_at(end);
        let literals = string_literals(&resolve(declarations, ty));
        members.push(Member {
            name: member.to_owned(),
            literals,
        });
    }
    assert!(!members.is_empty(), "`{name}` declares no members");
    members
}

fn names(members: &[Member]) -> BTreeSet<String> {
    members.iter().map(|m| m.name.clone()).collect()
}

fn literals(members: &[Member], interface: &str, name: &str) -> BTreeSet<String> {
    members
        .iter()
        .find(|m| m.name == name)
        .unwrap_or_else(|| panic!("`{interface}.{name}` is not declared"))
        .literals
        .clone()
}

/// The package's declarations: the shapes generated from the Rust types
/// (`shapes.d.ts`, by `host-js/scripts/gen-types.js`) and the hand-written
/// API (`index.d.ts`).
fn declarations() -> String {
    ["shapes.d.ts", "index.d.ts"]
        .iter()
        .map(|file| {
            let path = format!("{}/../host-js/src/{file}", env!("CARGO_MANIFEST_DIR"));
            std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// Equal sets, or a message naming what each side lacks.
fn agree(what: &str, policy: &BTreeSet<String>, declared: &BTreeSet<String>) -> Option<String> {
    let undeclared: Vec<_> = policy.difference(declared).collect();
    let refused: Vec<_> = declared.difference(policy).collect();
    if undeclared.is_empty() && refused.is_empty() {
        return None;
    }
    Some(format!(
        "{what}: accepted by the policy but not declared {undeclared:?}; declared but refused by the policy {refused:?}"
    ))
}

#[test]
fn the_declared_configuration_is_the_accepted_one() {
    let text = declarations();
    let config = interface(&text, "Config");
    let tool = interface(&text, "ToolConfig");
    let server = interface(&text, "McpServer");
    let annotations = interface(&text, "McpAnnotations");
    let exec = interface(&text, "ExecSettings");
    let problems: Vec<String> = [
        agree("Config.exec", &accepted::<Exec>(), &names(&exec)),
        agree(
            "Config.exec.unconfined",
            &accepted::<Unconfined>(),
            &literals(&exec, "Config.exec", "unconfined"),
        ),
        agree(
            "Config.commands",
            &accepted::<Commands>(),
            &names(&interface(&text, "CommandSettings")),
        ),
        agree(
            "Config.locks",
            &accepted::<Locks>(),
            &names(&interface(&text, "Locks")),
        ),
        agree("Config", &accepted::<Config>(), &names(&config)),
        agree("ToolConfig", &accepted::<ToolConfig>(), &names(&tool)),
        agree("McpServer", &accepted::<McpServer>(), &names(&server)),
        agree(
            "McpAnnotations",
            &accepted::<Annotations>(),
            &names(&annotations),
        ),
        agree(
            "Config.model_trust",
            &accepted::<ModelTrust>(),
            &literals(&config, "Config", "model_trust"),
        ),
        agree(
            "Config.medium_risk",
            &accepted::<MediumRisk>(),
            &literals(&config, "Config", "medium_risk"),
        ),
        agree(
            "Config.registry_level2",
            &accepted::<Level2>(),
            &literals(&config, "Config", "registry_level2"),
        ),
        agree(
            "Config.egress",
            &accepted::<Egress>(),
            &literals(&config, "Config", "egress"),
        ),
        agree(
            "Config.mode",
            &accepted::<Mode>(),
            &literals(&config, "Config", "mode"),
        ),
        agree(
            "ToolConfig.kind",
            &accepted::<ToolKind>(),
            &literals(&tool, "ToolConfig", "kind"),
        ),
    ]
    .into_iter()
    .flatten()
    .collect();
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// The reader of the declarations and the probe can fail: a missing field and
/// a made-up one are both reported.
#[test]
fn a_disagreement_is_reported() {
    let text = declarations()
        .replacen("  description?: string;\n", "", 1)
        .replacen("  dialect?:", "  dialekt?:", 1);
    let tool = interface(&text, "ToolConfig");
    let problem =
        agree("ToolConfig", &accepted::<ToolConfig>(), &names(&tool)).expect("a disagreement");
    assert!(problem.contains("\"description\""), "{problem}");
    assert!(problem.contains("\"dialect\""), "{problem}");
    assert!(problem.contains("\"dialekt\""), "{problem}");
}

/// A nested settings object is read too: a setting the executors take but
/// the declarations lack is reported, and a named union is read where it is
/// declared.
#[test]
fn a_nested_object_is_held_to_its_type() {
    let text = declarations().replacen("  timeout_ms?: number;\n", "", 1);
    let exec = interface(&text, "ExecSettings");
    assert_eq!(
        literals(&exec, "ExecSettings", "unconfined"),
        BTreeSet::from(["refuse".to_owned(), "allow".to_owned()])
    );
    let problem = agree("Config.exec", &accepted::<Exec>(), &names(&exec)).expect("a disagreement");
    assert!(problem.contains("\"timeout_ms\""), "{problem}");
}

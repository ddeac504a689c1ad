//! The Rust host: loading, the compiled-component cache, configuration errors,
//! fault recovery and the helper calls.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing,
    reason = "a test fails loudly"
)]

use std::path::PathBuf;
use toolgate::{Action, Error, LoadError, LoadSource, Policy, Source, POLICY_FAULT};

/// A fresh, empty directory under the target directory for one test.
fn scratch(name: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn shared_cache() -> PathBuf {
    PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("shared-cache")
}

fn policy() -> Policy {
    Policy::builder().cache_dir(shared_cache()).build().unwrap()
}

/// The component's type, as wasmtime reads it, imports nothing and exports the
/// policy interface: no host capability can reach the policy.
#[test]
fn the_component_imports_nothing() {
    let mut config = wasmtime::Config::new();
    config.wasm_component_model(true);
    let engine = wasmtime::Engine::new(&config).unwrap();
    let component = wasmtime::component::Component::new(&engine, toolgate::COMPONENT).unwrap();
    let ty = component.component_type();
    let imports: Vec<_> = ty
        .imports(&engine)
        .map(|(name, _)| name.to_owned())
        .collect();
    assert_eq!(imports, Vec::<String>::new());
    let exports: Vec<_> = ty
        .exports(&engine)
        .map(|(name, _)| name.to_owned())
        .collect();
    assert!(
        exports.contains(&"toolgate:policy/policy@0.1.0".to_owned()),
        "{exports:?}"
    );
}

#[test]
fn the_done_when_examples() {
    let policy = policy();
    let d = policy.assess("execute_sql", r#"{"sql":"SELECT 1; DROP TABLE t"}"#);
    assert_eq!(d.action, Action::Confirm);
    assert!(d.has_finding("sql.destructive"), "{d:?}");
    assert!(d.summary.contains("DROP TABLE"), "{}", d.summary);

    let d = policy.assess(
        "execute_command",
        r#"{"command":"ls -la","risk_level":"high"}"#,
    );
    assert_eq!((d.action, d.source), (Action::Confirm, Source::Llm));

    let d = policy.assess("execute_sql", r#"{"sql": "#);
    assert_eq!(d.action, Action::Confirm);
    assert_eq!(d.findings[0].code, "args.invalid");
    assert!(d.findings[0].message.contains("not valid JSON"), "{d:?}");
}

#[test]
fn cache_is_filled_then_used_and_survives_corruption() {
    let dir = scratch("cache-cycle");
    let load = || Policy::builder().cache_dir(&dir).build().unwrap();

    let first = load();
    let LoadSource::CompiledAndCached(path) = first.load_source().clone() else {
        panic!("first load: {:?}", first.load_source());
    };
    assert!(path.starts_with(&dir));
    assert_eq!(load().load_source(), &LoadSource::Cache(path.clone()));

    // A truncated artifact is refused by the loader, compiled and replaced.
    let bytes = std::fs::read(&path).unwrap();
    std::fs::write(&path, &bytes[..bytes.len() / 2]).unwrap();
    let repaired = load();
    assert_eq!(
        repaired.load_source(),
        &LoadSource::CompiledAndCached(path.clone())
    );
    assert_eq!(
        repaired
            .assess("execute_sql", r#"{"sql":"SELECT 1"}"#)
            .action,
        Action::Allow
    );

    // So is a file with a damaged header, and an empty one.
    let mut bytes = std::fs::read(&path).unwrap();
    bytes[1] ^= 0xff;
    std::fs::write(&path, &bytes).unwrap();
    assert_eq!(
        load().load_source(),
        &LoadSource::CompiledAndCached(path.clone())
    );
    std::fs::write(&path, b"").unwrap();
    assert_eq!(load().load_source(), &LoadSource::CompiledAndCached(path));
}

#[test]
fn the_cache_keeps_a_bounded_number_of_artifacts() {
    let dir = scratch("cache-prune");
    std::fs::create_dir_all(&dir).unwrap();
    // Stale artifacts of other components, and one of the earlier format.
    for i in 0..12 {
        std::fs::write(
            dir.join(format!("toolgate-{i:024}-0000000000000000.cwasm")),
            b"x",
        )
        .unwrap();
    }
    std::fs::write(dir.join("component-old-format.cwasm"), b"x").unwrap();
    std::fs::write(dir.join("unrelated.txt"), b"x").unwrap();
    let policy = Policy::builder().cache_dir(&dir).build().unwrap();
    let LoadSource::CompiledAndCached(path) = policy.load_source().clone() else {
        panic!("{:?}", policy.load_source());
    };
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    names.sort();
    let artifacts = names.iter().filter(|n| n.ends_with(".cwasm")).count();
    assert_eq!(artifacts, toolgate::cache::MAX_ARTIFACTS, "{names:?}");
    assert!(path.exists());
    assert!(names.contains(&String::from("unrelated.txt")));
    assert!(!names.contains(&String::from("component-old-format.cwasm")));
}

#[test]
fn no_cache_compiles_and_writes_nothing() {
    let dir = scratch("no-cache");
    let policy = Policy::builder()
        .cache_dir(&dir)
        .no_cache()
        .build()
        .unwrap();
    assert_eq!(policy.load_source(), &LoadSource::Compiled);
    assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 0);
}

#[test]
fn custom_component_from_file_and_bad_components() {
    let dir = scratch("custom");
    let file = dir.join("toolgate.wasm");
    std::fs::write(&file, toolgate::COMPONENT).unwrap();
    let policy = Policy::builder()
        .component_file(&file)
        .cache_dir(shared_cache())
        .build()
        .unwrap();
    // The component and this host are versioned together.
    assert_eq!(policy.version().unwrap(), env!("CARGO_PKG_VERSION"));

    let missing = Policy::builder()
        .component_file(dir.join("nope.wasm"))
        .build();
    assert!(
        matches!(missing, Err(LoadError::Read { .. })),
        "{missing:?}"
    );

    let garbage = Policy::builder()
        .component_bytes(b"\0asm not really".to_vec())
        .no_cache()
        .build();
    assert!(matches!(garbage, Err(LoadError::Invalid(_))), "{garbage:?}");
}

#[test]
fn configuration_errors_name_the_field() {
    let policy = policy();
    let err = policy.engine(r#"{"denied_tool": ["x"]}"#).unwrap_err();
    let Error::Rejected(message) = err else {
        panic!("{err:?}");
    };
    assert!(message.contains("denied_tool"), "{message}");

    let err = policy.engine(r#"{"model_trust": "blind"}"#).unwrap_err();
    assert!(err.to_string().contains("model_trust"), "{err}");
}

#[test]
fn a_trap_is_answered_confirm_and_the_host_recovers() {
    // Enough memory to instantiate (the component starts with about 1.2 MiB) but
    // not to take in an 8 MB argument string: copying it in traps.
    let policy = Policy::builder()
        .cache_dir(shared_cache())
        .max_memory(4 * 1024 * 1024)
        .build()
        .unwrap();
    let engine = policy
        .engine(r#"{"denied_tools": ["execute_command"]}"#)
        .unwrap();
    assert_eq!(
        engine
            .assess("execute_command", r#"{"command":"ls"}"#)
            .action,
        Action::Deny
    );

    let huge = format!(r#"{{"sql":"SELECT '{}'"}}"#, "x".repeat(8_000_000));
    let d = policy.assess("execute_sql", &huge);
    assert_eq!(d.action, Action::Confirm);
    assert_eq!(d.findings[0].code, POLICY_FAULT, "{d:?}");

    // A fresh instance answers the next call, and the engine was re-created in it
    // with its configuration.
    assert_eq!(
        policy.assess("execute_sql", r#"{"sql":"SELECT 1"}"#).action,
        Action::Allow
    );
    assert_eq!(
        engine
            .assess("execute_command", r#"{"command":"ls"}"#)
            .action,
        Action::Deny
    );

    // The same through an engine.
    let d = engine.assess("execute_sql", &huge);
    assert_eq!(d.findings[0].code, POLICY_FAULT);
    assert_eq!(
        engine
            .assess("execute_command", r#"{"command":"ls"}"#)
            .action,
        Action::Deny
    );
}

#[test]
fn oversized_arguments_are_refused_before_parsing() {
    let policy = policy();
    let big = format!(r#"{{"sql":"SELECT '{}'"}}"#, "x".repeat(2 * 1024 * 1024));
    let d = policy.assess("execute_sql", &big);
    assert_eq!(d.action, Action::Confirm);
    assert_eq!(d.findings[0].code, "args.invalid");
    assert!(d.findings[0].message.contains("over the limit"), "{d:?}");
}

#[test]
fn helpers() {
    let policy = policy();
    assert_eq!(
        policy
            .strip_risk_level(r#"{"sql":"SELECT 1","risk_level":"low","n":1.50}"#)
            .unwrap(),
        r#"{"sql":"SELECT 1","n":1.50}"#
    );
    assert!(matches!(
        policy.strip_risk_level("[]"),
        Err(Error::Rejected(_))
    ));

    let en = policy.guidance("en").unwrap();
    let zh = policy.guidance("zh-CN").unwrap();
    assert!(en.contains("risk_level") && zh.contains("risk_level"));
    assert_ne!(en, zh);

    let engine = policy.engine("{}").unwrap();
    let tools = r#"[{"type":"function","function":{"name":"execute_sql","parameters":{"type":"object","properties":{"sql":{"type":"string"}}}}}]"#;
    let augmented = engine.augment_tools(tools, None).unwrap();
    assert!(augmented.tools.contains(r#""risk_level""#), "{augmented:?}");
    assert_eq!(
        engine.augment_tools(&augmented.tools, None).unwrap(),
        augmented
    );
    assert!(matches!(
        engine.augment_tools("3", None),
        Err(Error::Rejected(_))
    ));
    assert!(matches!(
        engine.augment_tools("[]", Some("cobol")),
        Err(Error::Rejected(_))
    ));

    let call = policy
        .parse_call(
            r#"{"type":"tool_use","id":"toolu_1","name":"execute_sql","input":{"sql":"SELECT 1"}}"#,
        )
        .unwrap();
    assert_eq!(call.tool, "execute_sql");
    assert_eq!(call.format, toolgate::CallFormat::Anthropic);
    assert_eq!(
        call.to_json(),
        r#"{"tool":"execute_sql","args":"{\"sql\":\"SELECT 1\"}","id":"toolu_1","format":"anthropic"}"#
    );
    assert!(matches!(policy.parse_call("{}"), Err(Error::Rejected(_))));
    let d = engine.assess_call(r#"{"id":"c","type":"function","function":{"name":"execute_sql","arguments":"{\"sql\": "}}"#);
    assert_eq!(d.findings[0].code, "args.invalid");
    assert_eq!(engine.assess_call("[]").findings[0].code, "call.invalid");
}

#[test]
fn shared_across_threads() {
    fn assert_send_sync<T: Send + Sync>() {}
    assert_send_sync::<Policy>();
    assert_send_sync::<toolgate::Engine>();

    let policy = policy();
    let engine = policy.engine(r#"{"strict": true}"#).unwrap();
    std::thread::scope(|scope| {
        for _ in 0..4 {
            scope.spawn(|| {
                for _ in 0..50 {
                    assert_eq!(
                        policy.assess("execute_sql", r#"{"sql":"SELECT 1"}"#).action,
                        Action::Allow
                    );
                    assert_eq!(
                        engine.assess("execute_sql", r#"{"sql":"SELECT 1"}"#).action,
                        Action::Confirm
                    );
                }
            });
        }
    });
}

#[test]
fn dropped_engines_are_released() {
    let policy = policy();
    for i in 0..200 {
        let engine = policy
            .engine(&format!(r#"{{"denied_tools": ["t{i}"]}}"#))
            .unwrap();
        assert_eq!(engine.assess(&format!("t{i}"), "{}").action, Action::Deny);
    }
}

#[test]
fn the_pool_keeps_engines_apart_and_frees_dropped_ones() {
    let policy = Policy::builder()
        .cache_dir(shared_cache())
        .max_idle_instances(2)
        .build()
        .unwrap();
    let strict = policy.engine(r#"{"strict": true}"#).unwrap();
    let denying = policy
        .engine(r#"{"denied_tools": ["execute_sql"]}"#)
        .unwrap();
    let select = r#"{"sql":"SELECT 1"}"#;
    std::thread::scope(|scope| {
        for _ in 0..3 {
            scope.spawn(|| {
                for _ in 0..100 {
                    assert_eq!(policy.assess("execute_sql", select).action, Action::Allow);
                    assert_eq!(strict.assess("execute_sql", select).action, Action::Confirm);
                    assert_eq!(denying.assess("execute_sql", select).action, Action::Deny);
                }
            });
        }
    });
    let stats = policy.stats();
    assert!(
        (1..=2).contains(&stats.idle_instances),
        "at most max_idle instances are kept: {stats:?}"
    );
    assert_eq!(stats.engines, 2);
    assert!(stats.idle_memory > 0);
    drop(strict);
    drop(denying);
    assert_eq!(policy.stats().engines, 0);
    // The pool still serves a new engine, created in whichever instance it gets.
    let again = policy.engine(r#"{"strict": true}"#).unwrap();
    assert_eq!(again.assess("execute_sql", select).action, Action::Confirm);
}

#[test]
fn assess_many_equals_assess_call_by_call() {
    let policy = policy();
    let engine = policy
        .engine(r#"{"denied_tools": ["drop_everything"]}"#)
        .unwrap();
    let calls: Vec<(&str, &str)> = vec![
        ("execute_sql", r#"{"sql":"SELECT 1"}"#),
        (
            "execute_sql",
            r#"{"sql":"DROP TABLE users", "risk_level": "low"}"#,
        ),
        ("execute_command", r#"{"command":"ls -la | grep x"}"#),
        ("execute_command", r#"{"command":"rm -rf /"}"#),
        ("drop_everything", "{}"),
        (
            "file_operations",
            r#"{"operation":"read","path":"/etc/shadow"}"#,
        ),
        (
            "http_request",
            r#"{"url":"http://169.254.169.254/latest/meta-data"}"#,
        ),
        ("unknown", "not json"),
    ];
    let batch = engine.assess_many(&calls);
    assert_eq!(batch.len(), calls.len());
    for ((tool, args), decision) in calls.iter().zip(&batch) {
        assert_eq!(decision.to_json(), engine.assess(tool, args).to_json());
    }
    assert!(engine.assess_many(&[]).is_empty());
}

#[test]
fn a_trap_loses_and_duplicates_no_decision() {
    // A small memory cap makes an 8 MB argument trap while copying it in; the
    // trapping calls are interleaved with ordinary ones across two threads.
    let policy = Policy::builder()
        .cache_dir(shared_cache())
        .max_memory(4 * 1024 * 1024)
        .build()
        .unwrap();
    let reference = self::policy();
    let engine = policy.engine(r#"{"strict": true}"#).unwrap();
    let reference_engine = reference.engine(r#"{"strict": true}"#).unwrap();
    let huge = format!(r#"{{"sql":"SELECT '{}'"}}"#, "x".repeat(8_000_000));
    let ordinary = [
        ("execute_sql", r#"{"sql":"SELECT 1"}"#),
        ("execute_command", r#"{"command":"rm -rf /"}"#),
        ("execute_command", r#"{"command":"git status"}"#),
    ];
    let decided = std::sync::atomic::AtomicUsize::new(0);
    std::thread::scope(|scope| {
        for thread in 0..2 {
            let (policy, engine, reference, reference_engine, huge, decided) = (
                &policy,
                &engine,
                &reference,
                &reference_engine,
                &huge,
                &decided,
            );
            scope.spawn(move || {
                for round in 0..20 {
                    if (round + thread) % 4 == 0 {
                        let d = engine.assess("execute_sql", huge);
                        assert_eq!(d.action, Action::Confirm);
                        assert_eq!(d.findings.len(), 1);
                        assert_eq!(d.findings[0].code, POLICY_FAULT);
                    } else {
                        for (tool, args) in ordinary {
                            assert_eq!(
                                policy.assess(tool, args).to_json(),
                                reference.assess(tool, args).to_json()
                            );
                            assert_eq!(
                                engine.assess(tool, args).to_json(),
                                reference_engine.assess(tool, args).to_json()
                            );
                        }
                    }
                    decided.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                }
            });
        }
    });
    assert_eq!(decided.into_inner(), 40);
}

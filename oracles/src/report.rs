//! What an engine oracle tells: how many statements ran, how many the engine
//! refused to prepare, and every effect, printed and written to
//! `target/oracle-<engine>-report.txt` so a run leaves its figures behind.

use crate::root;
use std::fmt::Write as _;
use std::path::PathBuf;

/// One effect a statement the policy proved read-only had on the engine.
#[derive(Clone, Debug)]
pub struct Violation {
    /// The vector's name or the generator's label.
    pub name: String,
    /// The statement.
    pub sql: String,
    /// What the engine saw it do.
    pub effect: String,
}

/// An oracle's tally.
#[derive(Debug, Default)]
pub struct Report {
    /// Statements (calls) run to completion, or to an ordinary runtime error.
    pub executed: usize,
    /// Calls the engine refused at prepare/parse time (missing table, syntax of
    /// another dialect); they had no effect the observers saw.
    pub failed_to_prepare: usize,
    /// Every effect found.
    pub violations: Vec<Violation>,
    /// Free lines: the inputs counted, the engine's version, the notes.
    pub notes: Vec<String>,
    /// A sample of prepare failures, to judge the fixture by.
    pub prepare_errors: Vec<String>,
}

impl Report {
    /// Records an effect.
    pub fn violation(&mut self, name: &str, sql: &str, effect: impl Into<String>) {
        self.violations.push(Violation {
            name: name.to_owned(),
            sql: sql.to_owned(),
            effect: effect.into(),
        });
    }

    /// Records a prepare failure (the first fifty are kept verbatim).
    pub fn prepare_failed(&mut self, name: &str, sql: &str, error: &str) {
        self.failed_to_prepare += 1;
        if self.prepare_errors.len() < 50 {
            self.prepare_errors
                .push(format!("{name}: {}: {error}", one_line(sql)));
        }
    }

    /// The report's text.
    pub fn render(&self, engine: &str) -> String {
        let mut out = String::new();
        let _ = writeln!(out, "oracle {engine}");
        for note in &self.notes {
            let _ = writeln!(out, "note: {note}");
        }
        let _ = writeln!(out, "executed: {}", self.executed);
        let _ = writeln!(out, "failed to prepare: {}", self.failed_to_prepare);
        let _ = writeln!(out, "violations: {}", self.violations.len());
        for v in &self.violations {
            let _ = writeln!(
                out,
                "VIOLATION [{}] {} => {}",
                v.name,
                one_line(&v.sql),
                v.effect
            );
        }
        for e in &self.prepare_errors {
            let _ = writeln!(out, "prepare failed: {e}");
        }
        out
    }

    /// Prints the report, writes it to `target/oracle-<engine>-report.txt`,
    /// and answers the failure message when there was any effect.
    ///
    /// # Errors
    /// The report's summary when a statement had an effect (or the file could
    /// not be written).
    pub fn finish(&self, engine: &str) -> Result<(), String> {
        let text = self.render(engine);
        eprintln!("{text}");
        let path = report_path(engine);
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        }
        std::fs::write(&path, &text).map_err(|e| format!("{}: {e}", path.display()))?;
        if self.violations.is_empty() {
            Ok(())
        } else {
            // The effects themselves go into the failure message: a CI log
            // keeps the panic and cuts the middle of a long report.
            let shown: Vec<String> = self
                .violations
                .iter()
                .take(20)
                .map(|v| {
                    let effect: String = v.effect.chars().take(600).collect();
                    let cut = if effect.len() < v.effect.len() {
                        " […]"
                    } else {
                        ""
                    };
                    format!(
                        "VIOLATION [{}] {} => {effect}{cut}",
                        v.name,
                        one_line(&v.sql)
                    )
                })
                .collect();
            Err(format!(
                "{engine}: {} statement(s) the policy proved read-only had an effect \
                 (executed {}, failed to prepare {}); see {}\n{}",
                self.violations.len(),
                self.executed,
                self.failed_to_prepare,
                path.display(),
                shown.join("\n")
            ))
        }
    }
}

/// Where an engine's report goes: the target directory cargo builds into.
pub fn report_path(engine: &str) -> PathBuf {
    let target =
        std::env::var_os("CARGO_TARGET_DIR").map_or_else(|| root().join("target"), PathBuf::from);
    target.join(format!("oracle-{engine}-report.txt"))
}

/// `text` on one line, shortened for a report.
pub fn one_line(text: &str) -> String {
    let flat: String = text
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect();
    let flat = flat.trim();
    if flat.chars().count() > 300 {
        let cut: String = flat.chars().take(300).collect();
        format!("{cut}…")
    } else {
        flat.to_owned()
    }
}

//! What judging a command line yields, and how a judgement nests.
//!
//! A line is judged command by command ([`super::walk`]), and a command may
//! hold a line of its own (`sh -c SCRIPT`, `eval …`, `env -S …`), judged one
//! level deeper ([`super::words`], [`super::destroys`]). Rather than have those
//! modules import the line judge back from above, it is handed down to them as
//! a [`JudgeLine`]: the recursion is the shell's, and the modules still form a
//! tree.

use super::budget;
use super::paths::Places;
use crate::assess::{Assessment, Verdict};
use crate::codes;
use crate::decision::Finding;

/// How many findings one command line reports at most.
const MAX_FINDINGS: usize = 16;

/// How deep wrappers and `bash -c '…'` are followed.
pub(super) const MAX_DEPTH: usize = 6;

/// Judges a command line at a `bash -c` nesting depth, from the given places.
pub(super) type JudgeLine = fn(&str, usize, &Places) -> Outcome;

/// Collects the reasons a command is not proven read-only.
#[derive(Default)]
pub(super) struct Report {
    pub(super) unproven: bool,
    pub(super) findings: Vec<Finding>,
}

impl Report {
    pub(super) fn unproven(&mut self, code: &str, message: String) {
        self.unproven = true;
        // A bounded list: enough to explain, and no quadratic duplicate search
        // on a line of thousands of commands.
        if self.findings.len() >= MAX_FINDINGS {
            return;
        }
        budget::count(self.findings.len());
        let finding = Finding::new(code, message);
        if !self.findings.contains(&finding) {
            self.findings.push(finding);
        }
    }

    pub(super) fn finish(
        mut self,
        operation: String,
        destroys: Option<String>,
        commands: usize,
    ) -> Assessment {
        let mut verdict = if self.unproven {
            Verdict::Unproven
        } else {
            Verdict::ReadOnly
        };
        if let Some(what) = destroys {
            verdict = Verdict::Destructive;
            self.findings
                .insert(0, Finding::new(codes::COMMAND_DESTRUCTIVE, what));
        }
        if verdict == Verdict::ReadOnly {
            self.findings.push(Finding::new(
                codes::COMMAND_READ_ONLY,
                if commands > 1 {
                    format!("all {commands} commands only read")
                } else {
                    String::from("the command only reads")
                },
            ));
        }
        let mut assessment = Assessment::new(verdict, operation);
        assessment.findings = self.findings;
        assessment
    }
}

/// What judging one command line found.
pub(super) struct Outcome {
    /// The reasons it is not proven.
    pub(super) report: Report,
    /// What it destroys, for the floor.
    pub(super) destroys: Option<String>,
    /// How many simple commands it holds.
    pub(super) commands: usize,
}

// Running seed 002 §4.2's multi-step plan through a gate, step by step: the
// twin of host-rs/src/plan.rs (the fixture tests/seeds/seed-002-plan.jsonl
// holds both to the same runs).
//
// The component decides the plan (`Engine.assessPlan`); this runner only
// sequences it over the gate's public API. Before each step the plan is
// decided again with every result known so far substituted, and the step,
// now holding no reference, goes through `Gate.run` as any call: decided
// afresh, asked about when the policy says so, run, audited. So a person
// always approves the resolved call, never `$step1.result.ident`. A step
// whose dependency did not succeed is skipped; a step whose reference names
// what the result lacks is not run.

/**
 * One step's run as both hosts write it.
 *
 * @typedef {{step: number, tool: string, status: string, args: string,
 *   output: string | null, reason: string | null}} StepSummary
 */

/**
 * Runs `plan` through `gate`. `execute(step, args)` runs one step's tool with
 * the arguments the gate clears (as `Gate.run`'s executor). A step's result,
 * for later references, is its output read as JSON, or as text.
 *
 * @param {import('./gate.js').Gate} gate
 * @param {string | object} plan
 * @param {(step: object, args: string) => unknown} execute
 * @param {{context?: string | object}} [options]
 * @returns {Promise<{step: number, tool: string, args: string, result: import('./gate.js').ToolResult | null, summary: StepSummary}[]>}
 */
export async function runPlan(gate, plan, execute, options = {}) {
  const context = options.context ?? '';
  const results = {};
  const runs = [];
  const count = gate.engine.assessPlan(plan, {}, context).steps.length;
  for (let index = 0; index < count; index++) {
    const step = gate.engine.assessPlan(plan, results, context).steps[index];
    if (step === undefined) break;
    const missing = step.depends_on.filter((d) => !(String(d) in results));
    // A summary's keys in the Rust host's order, so both write the same JSON.
    const summary = (status, reason) => ({ step: step.step, tool: step.tool, status, args: step.args, output: null, reason });
    if (missing.length > 0) {
      const reason = `needs the result of step ${missing.join(', ')}, which did not succeed`;
      runs.push({ step: step.step, tool: step.tool, args: step.args, result: null, summary: summary('skipped', reason) });
      continue;
    }
    const held = step.decision.findings.find((f) => f.code === 'plan.reference-missing' || f.code === 'plan.unresolved');
    if (held !== undefined) {
      runs.push({ step: step.step, tool: step.tool, args: step.args, result: null, summary: summary('unresolved', held.message) });
      continue;
    }
    const call = { tool: step.tool, args: step.args };
    if (step.call_id !== null && step.call_id !== undefined) call.callId = step.call_id;
    if (context !== '') call.context = context;
    const result = await gate.run(call, (args) => execute(step, args));
    if (result.status === 'executed') {
      const output = result.output ?? '';
      let value;
      try {
        value = JSON.parse(output);
      } catch {
        value = output;
      }
      results[String(step.step)] = value;
    }
    runs.push({
      step: step.step,
      tool: step.tool,
      args: step.args,
      result,
      summary: {
        step: step.step,
        tool: step.tool,
        status: result.status,
        args: result.executedArgs ?? step.args,
        output: result.output ?? null,
        reason: result.reason ?? result.error ?? null,
      },
    });
  }
  return runs;
}

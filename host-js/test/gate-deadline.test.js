// An answer meets the deadline by the time it is given, not by when the
// waiting call wakes. A listener that holds the event loop past the deadline
// stands for anything that delays the waiting call (a busy page, a slow
// synchronous listener): an answer given before the deadline still counts,
// and one given at or after it (or a cancel) is refused to whoever gave it
// (`already-answered`), even though the deadline's timer has not run yet.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadPolicy, Gate, GateError, MemoryStore } from '../src/index.js';

const policy = await loadPolicy();
const KEY = 'gate-deadline-test-key-0123456789';
const NPM_TEST = { tool: 'execute_command', args: { command: 'npm test' } };
const TIMEOUT_MS = 500;

/** Holds the event loop until `deadline` has passed (the timer cannot run meanwhile). */
function holdPast(deadline) {
  while (Date.now() <= deadline + 20) {
    // busy: nothing else runs
  }
}

/** A gate whose `approval-requested` listener calls `answer(gate, request)` once. */
function gateAnswering(answer, options = {}) {
  const gate = new Gate(policy, { timeoutMs: TIMEOUT_MS, ...options });
  const seen = { error: null, ran: 0 };
  gate.addEventListener('approval-requested', ({ detail }) => {
    try {
      answer(gate, detail);
    } catch (e) {
      seen.error = e;
    }
  });
  const execute = async () => {
    seen.ran += 1;
    return 'ok';
  };
  return { gate, seen, execute };
}

test('an answer given before the deadline counts though the waiting call wakes after it', async () => {
  const { gate, seen, execute } = gateAnswering((g, request) => {
    g.respond(request.id, { answer: 'approve' });
    holdPast(request.deadline);
  });
  const result = await gate.run(NPM_TEST, execute);
  assert.equal(seen.error, null);
  assert.equal(result.status, 'executed');
  assert.equal(seen.ran, 1);
});

test('a rejection given before the deadline is a rejection, not an expiry', async () => {
  const { gate, seen, execute } = gateAnswering((g, request) => {
    g.respond(request.id, { answer: 'reject', message: 'not now' });
    holdPast(request.deadline);
  });
  const result = await gate.run(NPM_TEST, execute);
  assert.equal(seen.error, null);
  assert.equal(result.status, 'rejected');
  assert.equal(seen.ran, 0);
});

test('an answer given after the deadline is refused before the timer runs, and the call expires', async () => {
  const { gate, seen, execute } = gateAnswering((g, request) => {
    holdPast(request.deadline);
    g.respond(request.id, { answer: 'approve' });
  });
  const result = await gate.run(NPM_TEST, execute);
  assert.ok(seen.error instanceof GateError, `refused: ${seen.error}`);
  assert.equal(seen.error.code, 'already-answered');
  assert.match(seen.error.message, /expired at its deadline/);
  assert.equal(result.status, 'expired');
  assert.equal(seen.ran, 0);
});

test('a cancel after the deadline is refused before the timer runs, and the call expires', async () => {
  const { gate, seen, execute } = gateAnswering((g, request) => {
    holdPast(request.deadline);
    g.cancel(request.id);
  });
  const result = await gate.run(NPM_TEST, execute);
  assert.ok(seen.error instanceof GateError, `refused: ${seen.error}`);
  assert.equal(seen.error.code, 'already-answered');
  assert.equal(result.status, 'expired');
});

test('a cancel before the deadline is a cancel though the waiting call wakes after it', async () => {
  const { gate, seen, execute } = gateAnswering((g, request) => {
    g.cancel(request.id);
    holdPast(request.deadline);
  });
  const result = await gate.run(NPM_TEST, execute);
  assert.equal(seen.error, null);
  assert.equal(result.status, 'cancelled');
  assert.equal(seen.ran, 0);
});

test('a resumed approval meets its deadline by the time of the answer too', async () => {
  for (const late of [false, true]) {
    const store = new MemoryStore();
    const first = new Gate(policy, { key: KEY, store, timeoutMs: 1000 });
    const { pending } = await first.check(NPM_TEST);
    assert.notEqual(pending, null);
    const { gate, seen, execute } = gateAnswering(
      (g, request) => {
        if (late) holdPast(request.deadline);
        g.respond(request.id, { answer: 'approve' });
        holdPast(request.deadline);
      },
      { key: KEY, store },
    );
    const result = await gate.resume(pending.id, execute);
    if (late) {
      assert.equal(seen.error?.code, 'already-answered', `late: ${seen.error}`);
      assert.equal(result.status, 'expired');
      assert.equal(seen.ran, 0);
    } else {
      assert.equal(seen.error, null);
      assert.equal(result.status, 'executed');
      assert.equal(seen.ran, 1);
    }
  }
});

test('an answer after the deadline, once the wait has ended, is still refused', async () => {
  const gate = new Gate(policy, { timeoutMs: 50 });
  let id = null;
  gate.addEventListener('approval-requested', ({ detail }) => {
    id = detail.id;
  });
  const result = await gate.run(NPM_TEST, async () => 'ok');
  assert.equal(result.status, 'expired');
  assert.throws(() => gate.respond(id, { answer: 'approve' }), (e) => e instanceof GateError && e.code === 'already-answered');
});

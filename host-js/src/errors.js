// The errors this package throws; a module of their own so that every module
// can import them without an import cycle.

/** The base class of every error this package throws. */
export class ToolgateError extends Error {
  constructor(message, options) {
    super(message, options);
    this.name = new.target.name;
  }
}

/** The component could not be loaded (unreadable, not a component, wrong shape). */
export class LoadError extends ToolgateError {}

/** The policy refused an input: a configuration, arguments, tool definitions. */
export class RejectedError extends ToolgateError {}

/** The component trapped or failed; the next call gets a fresh instance. */
export class PolicyFaultError extends ToolgateError {}

/**
 * A checkpoint was refused. `kind` is `invalid` (not the expected shape; the
 * message names the field), `format` (a format this version does not read),
 * `unsigned` (the gate has a key, the checkpoint no signature) or `forged`
 * (the signature does not match: forged or changed).
 */
export class CheckpointError extends ToolgateError {
  constructor(kind, message) {
    super(message);
    this.kind = kind;
  }
}

const CHECKPOINT_MESSAGES = new Map([
  ['unsigned', 'the checkpoint is not signed, and this gate requires signed checkpoints'],
  ['forged', "the checkpoint's signature does not match: it was forged or changed"],
]);

/** @internal the component's `checkpoint-error` payload as a `CheckpointError` */
export function checkpointErrorOf(payload) {
  const tag = payload?.tag;
  if (tag === 'invalid') return new CheckpointError('invalid', `invalid checkpoint: ${payload.val}`);
  if (tag === 'format') return new CheckpointError('format', `unsupported checkpoint format \`${payload.val}\``);
  if (tag === 'weak-key') {
    return new CheckpointError(
      'weak-key',
      `the checkpoint key is ${payload.val} bytes long; a key has at least 16 (make one with \`head -c 32 /dev/urandom > key\`)`,
    );
  }
  if (CHECKPOINT_MESSAGES.has(tag)) return new CheckpointError(tag, CHECKPOINT_MESSAGES.get(tag));
  return new CheckpointError('invalid', String(payload));
}

/** An audit log failed verification at `line` (1-based). */
export class AuditBrokenError extends ToolgateError {
  constructor(line, reason) {
    super(`line ${line}: ${reason}`);
    this.line = line;
    this.reason = reason;
  }
}


/** A gate operation was refused; `code` says why. */
export class GateError extends ToolgateError {
  /**
   * @param {'unknown' | 'already-answered' | 'invalid-edit' | 'checkpoint' | 'key' | 'audit'} code
   * @param {string} message
   * @param {object} [options]
   */
  constructor(code, message, options) {
    super(message, options);
    this.code = code;
  }
}

/** A call cannot become an HTTP request; `findings` lists every reason. */
export class RequestError extends ToolgateError {
  constructor(findings) {
    super(findings.map((f) => f.message).join('; '));
    this.findings = findings;
  }
}

/**
 * The kind of a fault, in the words the Rust host uses for the same trap
 * (`fault_kind` in `host-rs/src/lines.rs`): a `policy.fault` finding names
 * what went wrong, never a runtime's own message or stack, so the two
 * runtimes print the same bytes.
 *
 * @param {unknown} e what the component's call threw
 * @returns {string}
 */
export function faultKind(e) {
  if (e instanceof RangeError && /call stack/i.test(e.message)) return 'stack overflow';
  if (!(e instanceof WebAssembly.RuntimeError)) return 'host error';
  const message = e.message;
  if (message === 'unreachable' || message.startsWith('unreachable')) return 'the component aborted';
  if (/memory access out of bounds|unaligned/.test(message)) return 'out-of-bounds memory access';
  if (/table index is out of bounds/.test(message)) return 'out-of-bounds table access';
  if (/null function|signature mismatch/.test(message)) return 'invalid indirect call';
  if (/divide by zero|remainder by zero/.test(message)) return 'integer division by zero';
  if (/divide result unrepresentable|integer overflow/.test(message)) return 'integer overflow';
  if (/float unrepresentable/.test(message)) return 'invalid conversion to integer';
  return 'trap';
}

// Where the approval gate keeps pending approvals and writes audit lines, in
// any JavaScript runtime: in memory, in Web Storage (shared by a browser's
// tabs, claimed with a compare-and-set), in an array or through a function.
// Node's file store and JSON Lines sink are in node.js.

import { GateError } from './errors.js';

const ID = /^[A-Za-z0-9_-]{1,128}$/;

export function checkId(id) {
  if (!ID.test(id)) throw new GateError('checkpoint', `checkpoint store: \`${id}\` is not a valid approval id`);
}

export function idPrefix() {
  const random = globalThis.crypto?.getRandomValues?.(new Uint32Array(2)) ?? [Date.now(), Math.random() * 2 ** 32];
  return [...random].map((n) => (n >>> 0).toString(16)).join('');
}

/** Checkpoints in memory: nothing survives the page or process. The default. */
export class MemoryStore {
  #items = new Map();
  #claims = new Map();
  async put(id, checkpoint) {
    checkId(id);
    this.#items.set(id, checkpoint);
  }
  async remove(id) {
    this.#items.delete(id);
  }
  /** Claims `id` once (compare-and-set); the claim stays as a tombstone. */
  async claim(id, deadline) {
    checkId(id);
    if (this.#claims.has(id)) return false;
    this.#claims.set(id, deadline);
    return true;
  }
  /** Whether `id` was claimed (its tombstone is here). */
  async claimed(id) {
    return this.#claims.has(id);
  }
  /** Takes back the claim on `id`, whose record was never written. */
  async release(id) {
    this.#claims.delete(id);
    return true;
  }
  /** Removes tombstones past their deadline; returns how many. */
  async sweep(now) {
    let removed = 0;
    for (const [id, deadline] of this.#claims) {
      if (deadline < now) {
        this.#claims.delete(id);
        removed += 1;
      }
    }
    return removed;
  }
  async get(id) {
    return this.#items.get(id) ?? null;
  }
  async list() {
    return [...this.#items.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  }
}

/** How long a Web Storage claim waits for a rival tab's write to arrive. */
const CLAIM_SETTLE_MS = 50;

/**
 * Checkpoints in a Web Storage object (`localStorage`, `sessionStorage`, or
 * anything with getItem/setItem/removeItem/key/length), under a key prefix, so a
 * reloaded page can list and resume what was pending.
 */
export class WebStorageStore {
  #storage;
  #prefix;
  /**
   * @param {Storage} storage
   * @param {string} [prefix]
   */
  constructor(storage, prefix = 'toolgate.checkpoint.') {
    this.#storage = storage;
    this.#prefix = prefix;
  }
  async put(id, checkpoint) {
    checkId(id);
    this.#storage.setItem(this.#prefix + id, checkpoint);
  }
  async remove(id) {
    this.#storage.removeItem(this.#prefix + id);
  }
  /**
   * Claims `id` once, under the key `<prefix>claim.<id>`: a compare-and-set
   * (set only when absent, then read back). Tabs share the storage but see
   * each other's writes a moment late, through the `storage` event: so in a
   * page the claim waits that moment (and another when a rival tab wrote
   * meanwhile) and then reads back: the last write is the same in every tab,
   * so of two tabs racing exactly one finds its own token. The claim stays as
   * a tombstone until its deadline.
   */
  async claim(id, deadline) {
    checkId(id);
    const key = `${this.#prefix}claim.${id}`;
    if (this.#storage.getItem(key) !== null) return false;
    const token = `${deadline}.${idPrefix()}`;
    const events = typeof globalThis.addEventListener === 'function' ? globalThis : null;
    let rival = false;
    const seen = (e) => {
      if (e.key === key) rival = true;
    };
    events?.addEventListener('storage', seen);
    try {
      this.#storage.setItem(key, token);
      for (let round = 0; events !== null && round < 4; round++) {
        rival = false;
        await new Promise((resolve) => setTimeout(resolve, CLAIM_SETTLE_MS));
        if (!rival) break;
      }
    } finally {
      events?.removeEventListener('storage', seen);
    }
    return this.#storage.getItem(key) === token;
  }
  /** Whether `id` was claimed (its tombstone is here). */
  async claimed(id) {
    return this.#storage.getItem(`${this.#prefix}claim.${id}`) !== null;
  }
  /** Takes back the claim on `id`, whose record was never written. */
  async release(id) {
    this.#storage.removeItem(`${this.#prefix}claim.${id}`);
    return true;
  }
  /** Removes tombstones past their deadline; returns how many. */
  async sweep(now) {
    const stale = [];
    const claims = `${this.#prefix}claim.`;
    for (let i = 0; i < this.#storage.length; i++) {
      const key = this.#storage.key(i);
      if (key === null || !key.startsWith(claims)) continue;
      const deadline = Number.parseInt(String(this.#storage.getItem(key)), 10);
      if (Number.isFinite(deadline) && deadline < now) stale.push(key);
    }
    for (const key of stale) this.#storage.removeItem(key);
    return stale.length;
  }
  async get(id) {
    return this.#storage.getItem(this.#prefix + id);
  }
  async list() {
    const out = [];
    for (let i = 0; i < this.#storage.length; i++) {
      const key = this.#storage.key(i);
      if (key !== null && key.startsWith(this.#prefix) && !key.startsWith(`${this.#prefix}claim.`)) {
        const id = key.slice(this.#prefix.length);
        const value = this.#storage.getItem(key);
        if (value !== null) out.push([id, value]);
      }
    }
    return out.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  }
}

/** Audit lines kept in an array (`lines`), e.g. for a page that shows them. */
export class MemorySink {
  lines = [];
  async append(line) {
    this.lines.push(line);
  }
  async last() {
    return this.lines.at(-1) ?? null;
  }
}

/** Audit lines handed to a function (a log shipper, a test). */
export class CallbackSink {
  #f;
  constructor(f) {
    this.#f = f;
  }
  async append(line) {
    await this.#f(line);
  }
  async last() {
    return null;
  }
}

// One connection, one user at a time: the SQLite and PostgreSQL stores and
// sinks hand each operation to a `Serial`, which runs them in turn, and runs
// a transaction's own operations (the gate claims and looks up records from
// inside an audit append's seal) inside that transaction rather than queued
// behind it, which would wait forever.

import { AsyncLocalStorage } from 'node:async_hooks';

export class Serial {
  #queue = Promise.resolve();
  #inside = new AsyncLocalStorage();

  /** Whether the caller runs inside one of this connection's open transactions. */
  inTransaction() {
    return this.#inside.getStore()?.open === true;
  }

  /** Runs `f` when every earlier operation has finished (at once inside a transaction). */
  run(f) {
    if (this.inTransaction()) return f();
    const turn = this.#queue.then(f);
    this.#queue = turn.catch(() => {});
    return turn;
  }

  /**
   * Runs `f` as one turn in which operations asked for from inside it (in
   * its async context) run at once on the same connection.
   */
  transaction(f) {
    if (this.inTransaction()) return f();
    return this.run(async () => {
      const token = { open: true };
      try {
        return await this.#inside.run(token, f);
      } finally {
        // An operation left running past the turn queues like any other.
        token.open = false;
      }
    });
  }
}

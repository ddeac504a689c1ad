// Node-only stores and sinks for the approval gate: a directory of checkpoint
// files (the same `<id>.json` files the Rust host's DirStore writes, so either
// host resumes the other's pending approvals) and a JSON Lines audit file.
// Import from 'toolgate/node'; the main module stays free of Node built-ins.

import { mkdir, readdir, readFile, rename, rm, open } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { GateError } from './gate.js';

const ID = /^[A-Za-z0-9_-]{1,128}$/;

function checkId(id) {
  if (!ID.test(id)) throw new GateError('checkpoint', `checkpoint store: \`${id}\` is not a valid approval id`);
}

/** Checkpoints as `<id>.json` files in a directory, written atomically. */
export class FileStore {
  #dir;
  /** @param {string} dir created on first write */
  constructor(dir) {
    this.#dir = dir;
  }

  get dir() {
    return this.#dir;
  }

  async put(id, checkpoint) {
    checkId(id);
    await mkdir(this.#dir, { recursive: true });
    const tmp = join(this.#dir, `.${id}.${process.pid}.tmp`);
    const handle = await open(tmp, 'w');
    try {
      await handle.writeFile(checkpoint);
      await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(tmp, join(this.#dir, `${id}.json`));
  }

  async remove(id) {
    checkId(id);
    await rm(join(this.#dir, `${id}.json`), { force: true });
  }

  async get(id) {
    checkId(id);
    try {
      return await readFile(join(this.#dir, `${id}.json`), 'utf8');
    } catch (e) {
      if (e.code === 'ENOENT') return null;
      throw e;
    }
  }

  async list() {
    let names;
    try {
      names = await readdir(this.#dir);
    } catch (e) {
      if (e.code === 'ENOENT') return [];
      throw e;
    }
    const out = [];
    for (const name of names.sort()) {
      const id = name.endsWith('.json') ? name.slice(0, -'.json'.length) : null;
      if (id === null || !ID.test(id)) continue;
      out.push([id, await readFile(join(this.#dir, name), 'utf8')]);
    }
    return out;
  }
}

/** A JSON Lines audit file, appended to and synced line by line. */
export class JsonlSink {
  #path;
  /** @param {string} path created if missing */
  constructor(path) {
    this.#path = path;
  }

  async append(line) {
    await mkdir(dirname(this.#path), { recursive: true });
    const handle = await open(this.#path, 'a');
    try {
      await handle.writeFile(`${line}\n`);
      await handle.datasync();
    } finally {
      await handle.close();
    }
  }

  async last() {
    let text;
    try {
      text = await readFile(this.#path, 'utf8');
    } catch (e) {
      if (e.code === 'ENOENT') return null;
      throw e;
    }
    const lines = text.split('\n').filter((l) => l.trim() !== '');
    return lines.at(-1) ?? null;
  }
}

// The MCP gateway's benchmark (not a test): in one run, its peak memory
// under three floods and its throughput and latency with concurrent clients,
// beside a direct connection to the same upstream server
// (tests/mcp/echo-server.mjs). Figures go to docs/mcp-gateway.md.
//
//   node tests/bench/mcp-gateway.mjs [TOOLGATE] [--json]
//
// TOOLGATE is the binary (target/release/toolgate by default). Each flood
// runs against a fresh gateway, whose peak resident memory is read from
// /proc/PID/status (VmHWM) once it has answered a ping sent after the
// flood, so the figure covers the whole flood (the peak is reset once the
// gateway has started and listed the tools; a cold component cache compiles
// at start):
//   junk    a million lines that are not JSON (2 MB), each answered with a
//           parse error;
//   pings   a million pings, passed through to the server and answered;
//   call    one 50 MB tools/call line, refused.
// The load: CLIENTS (8) clients of CALLS (500) `tools/call`s each, every
// client waiting for each answer before its next call, all multiplexed on
// one connection (an MCP client's concurrent calls), through the gateway and
// directly; then one client alone, for the latency the gateway adds when
// nothing else runs. Environment: CLIENTS, CALLS, FLOOD (lines, 1000000),
// BIG (bytes, 50000000).
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const positional = process.argv.slice(2).filter((a) => !a.startsWith('--'));
const asJson = process.argv.includes('--json');
const toolgate = resolve(positional[0] ?? join(root, 'target', 'release', 'toolgate'));
const server = [process.execPath, join(root, 'tests', 'mcp', 'echo-server.mjs')];
const CLIENTS = Number(process.env.CLIENTS ?? 8);
const CALLS = Number(process.env.CALLS ?? 500);
const FLOOD = Number(process.env.FLOOD ?? 1_000_000);
const BIG = Number(process.env.BIG ?? 50_000_000);
const work = mkdtempSync(join(tmpdir(), 'toolgate-mcp-bench-'));
const config = join(work, 'config.json');
writeFileSync(config, JSON.stringify({ mcp_servers: { echo: { trusted: true } } }));

/** One stdio connection, to the gateway (in front of the server) or to the server itself. */
class Connection {
  constructor(gated, tag) {
    const [command, ...args] = gated
      ? [
          toolgate,
          'mcp-proxy',
          '--name',
          'echo',
          '--config',
          config,
          '--audit',
          join(work, `audit-${tag}.jsonl`),
          '--pins',
          join(work, `pins-${tag}.json`),
          '--',
          ...server,
        ]
      : server;
    this.child = spawn(command, args, { stdio: ['pipe', 'pipe', 'pipe'] });
    this.child.stderr.on('data', (d) => {
      this.stderr = ((this.stderr ?? '') + d).slice(-4000);
    });
    this.child.stdin.on('error', () => {});
    this.waiting = new Map();
    this.answers = 0;
    this.next = 0;
    createInterface({ input: this.child.stdout, crlfDelay: Infinity }).on('line', (line) => {
      this.answers++;
      // Flood answers are counted, not parsed: only ids the bench waits for are.
      if (this.waiting.size === 0) return;
      let message;
      try {
        message = JSON.parse(line);
      } catch {
        return;
      }
      const done = this.waiting.get(message.id);
      if (done) {
        this.waiting.delete(message.id);
        done(message);
      } else this.unclaimed = message;
    });
    this.exited = new Promise((r) => this.child.on('exit', r));
  }

  /** Writes text, waiting while the pipe is full (backpressure). */
  async write(text) {
    if (!this.child.stdin.write(text)) {
      const drained = new Promise((r) => this.child.stdin.once('drain', r));
      const gone = this.exited.then(() => {
        throw new Error(`the process exited: ${this.stderr ?? ''}`);
      });
      await Promise.race([drained, gone]);
    }
  }

  request(method, params) {
    const id = `b${this.next++}`;
    const answered = new Promise((r) => this.waiting.set(id, r));
    this.write(`${JSON.stringify({ jsonrpc: '2.0', id, method, ...(params ? { params } : {}) })}\n`);
    return answered;
  }

  async start() {
    await this.request('initialize', {
      protocolVersion: '2025-06-18',
      capabilities: {},
      clientInfo: { name: 'bench', version: '1' },
    });
    await this.write('{"jsonrpc":"2.0","method":"notifications/initialized"}\n');
    await this.request('tools/list', {});
  }

  /** Sets the peak resident memory back to the current (Linux clear_refs 5): the
   * flood's peak, not the start's (a cold component cache compiles at start). */
  resetPeak() {
    writeFileSync(`/proc/${this.child.pid}/clear_refs`, '5');
    this.base = this.status('VmRSS') / 1024;
  }

  status(field) {
    const status = readFileSync(`/proc/${this.child.pid}/status`, 'utf8');
    return Number(new RegExp(`${field}:\\s+(\\d+)`).exec(status)?.[1] ?? NaN);
  }

  /** Peak resident memory so far, in MiB. */
  peak() {
    return this.status('VmHWM') / 1024;
  }

  async close() {
    this.child.stdin.end();
    const timer = setTimeout(() => this.child.kill('SIGKILL'), 10000);
    await this.exited;
    clearTimeout(timer);
  }
}

/** Writes COUNT lines (LINE(i)) in chunks of about 64 KiB, then pings, and reads the peak memory. */
async function flood(name, line, count) {
  const c = new Connection(true, name);
  await c.start();
  c.resetPeak();
  const before = c.answers;
  const start = performance.now();
  let chunk = '';
  for (let i = 0; i < count; i++) {
    chunk += line(i);
    if (chunk.length >= 65536) {
      await c.write(chunk);
      chunk = '';
    }
  }
  if (chunk) await c.write(chunk);
  const pong = await c.request('ping');
  const seconds = (performance.now() - start) / 1000;
  const peak = c.peak();
  const answers = c.answers - before - 1;
  await c.close();
  return { peak_mib: round(peak), start_mib: round(c.base), seconds: round(seconds), answers, pong: pong.result !== undefined };
}

async function big(bytes) {
  const c = new Connection(true, 'big');
  await c.start();
  c.resetPeak();
  const start = performance.now();
  // The call is answered either under its id (refused by the policy or the
  // gateway) or, when the line is too long to read, with a parse error
  // under no id: whichever came before the ping's answer.
  const call = c.request('tools/call', { name: 'echo', arguments: { message: 'x'.repeat(bytes) } });
  const pong = await c.request('ping');
  const answer = await Promise.race([call, Promise.resolve(c.unclaimed ?? {})]);
  const seconds = (performance.now() - start) / 1000;
  const peak = c.peak();
  await c.close();
  const refused = answer.error?.message ?? answer.result?.content?.[0]?.text ?? '';
  return { peak_mib: round(peak), start_mib: round(c.base), seconds: round(seconds), refused: refused.slice(0, 100), pong: pong.result !== undefined };
}

const percentile = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))];
const round = (x) => Math.round(x * 100) / 100;

/** CLIENTS clients of CALLS calls each on one connection; per-call latencies and throughput. */
async function load(gated, clients, calls) {
  const c = new Connection(gated, `load-${clients}`);
  await c.start();
  for (let i = 0; i < 50; i++) await c.request('tools/call', { name: 'echo', arguments: { message: 'warm' } });
  const times = [];
  let failed = 0;
  const start = performance.now();
  await Promise.all(
    Array.from({ length: clients }, async (_, k) => {
      for (let i = 0; i < calls; i++) {
        const t = performance.now();
        const answer = await c.request('tools/call', { name: 'echo', arguments: { message: `c${k}-${i}` } });
        times.push(performance.now() - t);
        if (answer.result?.content?.[0]?.text !== `c${k}-${i}`) failed++;
      }
    }),
  );
  const seconds = (performance.now() - start) / 1000;
  await c.close();
  times.sort((a, b) => a - b);
  return {
    calls_per_s: Math.round(times.length / seconds),
    p50_ms: round(percentile(times, 50)),
    p99_ms: round(percentile(times, 99)),
    failed,
  };
}

try {
  const result = { toolgate, clients: CLIENTS, calls: CALLS };
  result.flood = {
    junk: await flood('junk', () => 'x\n', FLOOD),
    pings: await flood('pings', (i) => `{"jsonrpc":"2.0","id":${i},"method":"ping"}\n`, FLOOD),
    call: await big(BIG),
  };
  for (const [name, clients] of [['concurrent', CLIENTS], ['alone', 1]]) {
    const direct = await load(false, clients, CALLS);
    const gated = await load(true, clients, CALLS);
    result[name] = {
      direct,
      gateway: gated,
      added_p50_ms: round(gated.p50_ms - direct.p50_ms),
      added_p99_ms: round(gated.p99_ms - direct.p99_ms),
    };
  }
  if (asJson) console.log(JSON.stringify(result, null, 2));
  else {
    const f = result.flood;
    console.log(`toolgate: ${toolgate}`);
    console.log('flood                      peak RSS (RSS at its start)    time   answers');
    console.log(`  ${FLOOD} junk lines       ${f.junk.peak_mib} MiB (${f.junk.start_mib})  ${f.junk.seconds} s  ${f.junk.answers}`);
    console.log(`  ${FLOOD} pings            ${f.pings.peak_mib} MiB (${f.pings.start_mib})  ${f.pings.seconds} s  ${f.pings.answers}`);
    console.log(`  one ${BIG}-byte call  ${f.call.peak_mib} MiB (${f.call.start_mib})  ${f.call.seconds} s  ${f.call.refused}`);
    for (const name of ['concurrent', 'alone']) {
      const r = result[name];
      const n = name === 'concurrent' ? CLIENTS : 1;
      console.log(`${n} client(s) x ${CALLS} calls   calls/s   p50 ms   p99 ms   failed`);
      for (const side of ['direct', 'gateway']) {
        const s = r[side];
        console.log(`  ${side.padEnd(8)}               ${s.calls_per_s}   ${s.p50_ms}   ${s.p99_ms}   ${s.failed}`);
      }
      console.log(`  added                  p50 +${r.added_p50_ms} ms, p99 +${r.added_p99_ms} ms`);
    }
  }
} finally {
  rmSync(work, { recursive: true, force: true });
}
process.exit(0);

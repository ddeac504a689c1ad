// The registry tools (seed 002's API registry: tools that are HTTP endpoints
// described in the configuration), executed: ApiClient sends the request the
// component builds (so every runtime sends the same request for the same
// call) with the caller's base URL and credentials, and turns the response
// into a result for the model. Works with any `fetch` (Node and browsers).
//
// Wired through the approval gate, a registry tool call is: discover → the
// model picks → assess → (approve) → build → execute → result → audit:
//
//   const client = new ApiClient(policy, 'https://monitoring.example', { headers: { authorization: `Bearer ${token}` } });
//   const result = await gate.run(call, client.executor(gate.engine, call.tool));

/** The default bound on a response body: 1 MiB. */
export const DEFAULT_MAX_RESPONSE_BYTES = 1024 * 1024;

/** Sends registry API requests: base URL, headers from the caller, timeout, size bound. */
export class ApiClient {
  #policy;
  #base;
  #headers;
  #timeoutMs;
  #maxBytes;
  #fetch;

  /**
   * @param {import('./index.js').Policy} policy reads the responses
   * @param {string} baseUrl the system's address, e.g. `https://monitoring.example`
   * @param {object} [options]
   * @param {Record<string, string>} [options.headers] sent with every request (the user's
   *   credentials; never taken from the model's arguments)
   * @param {number} [options.timeoutMs] the whole request's time limit (30 s)
   * @param {number} [options.maxResponseBytes] a larger response is an error (1 MiB)
   * @param {typeof fetch} [options.fetch] the fetch to use (the global one by default)
   */
  constructor(policy, baseUrl, options = {}) {
    this.#policy = policy;
    this.#base = String(baseUrl).replace(/\/+$/, '');
    this.#headers = { ...(options.headers ?? {}) };
    this.#timeoutMs = options.timeoutMs ?? 30_000;
    this.#maxBytes = options.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES;
    this.#fetch = options.fetch ?? globalThis.fetch.bind(globalThis);
  }

  /**
   * Sends `request` (from `engine.buildRequest`) and resolves with the result
   * for the model; rejects with an Error whose message is the error for the
   * model (unreachable, timeout, oversized response, non-2xx, an envelope error).
   *
   * @param {{method: string, url: string, body: string | null}} request
   * @param {{engine: import('./index.js').Engine, tool: string}} [reader] read the
   *   response as this registry tool's (its `response_template`, if any)
   * @returns {Promise<string>}
   */
  async execute(request, reader) {
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), this.#timeoutMs);
    let response;
    let bytes;
    try {
      const headers = { ...this.#headers };
      if (request.body !== null && request.body !== undefined) headers['content-type'] = 'application/json';
      try {
        response = await this.#fetch(`${this.#base}${request.url}`, {
          method: request.method,
          headers,
          body: request.body ?? undefined,
          redirect: 'manual',
          signal: controller.signal,
        });
      } catch (e) {
        if (controller.signal.aborted) throw new Error(`no answer within ${this.#timeoutMs / 1000} s`);
        throw new Error(`the request failed: ${e.cause?.message ?? e.message}`);
      }
      bytes = await this.#readLimited(response, controller);
    } finally {
      clearTimeout(timer);
    }
    const body = new TextDecoder().decode(bytes);
    const read =
      reader === undefined
        ? this.#policy.readResponse(response.status, body)
        : reader.engine.readToolResponse(reader.tool, response.status, body);
    if (read.ok) return read.result;
    throw new Error(read.error);
  }

  async #readLimited(response, controller) {
    const declared = Number(response.headers.get('content-length') ?? NaN);
    if (Number.isFinite(declared) && declared > this.#maxBytes) {
      controller.abort();
      throw new Error(`the response is larger than ${this.#maxBytes} bytes`);
    }
    if (response.body === null) return new Uint8Array();
    const reader = response.body.getReader();
    const chunks = [];
    let size = 0;
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        size += value.byteLength;
        if (size > this.#maxBytes) {
          controller.abort();
          throw new Error(`the response is larger than ${this.#maxBytes} bytes`);
        }
        chunks.push(value);
      }
    } catch (e) {
      if (e instanceof Error && e.message.startsWith('the response is larger')) throw e;
      if (controller.signal.aborted) throw new Error(`no answer within ${this.#timeoutMs / 1000} s`);
      throw new Error(`the response could not be read: ${e.message}`);
    }
    const out = new Uint8Array(size);
    let offset = 0;
    for (const chunk of chunks) {
      out.set(chunk, offset);
      offset += chunk.byteLength;
    }
    return out;
  }

  /**
   * An executor for `gate.run`: builds the request for `tool` from the
   * arguments the gate passes (after approval and edits) and sends it. A call
   * that cannot become a request fails with the reasons; nothing is sent.
   *
   * @param {import('./index.js').Engine} engine
   * @param {string} tool
   * @returns {(args: string) => Promise<string>}
   */
  executor(engine, tool) {
    return async (args) => this.execute(engine.buildRequest(tool, args), { engine, tool });
  }
}

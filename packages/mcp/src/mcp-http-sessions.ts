import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';

/** One client's MCP session over HTTP: its transport, its SDK server, and when it last asked for something. */
export interface McpHttpSession {
  readonly transport: StreamableHTTPServerTransport;
  readonly server: Server;
  /** Requests (POST, DELETE) being answered now; the session is idle at 0. */
  busy: number;
  /** When the last request ended (`performance.now()`), for "oldest idle". */
  lastActiveAt: number;
  idleTimer: ReturnType<typeof setTimeout> | undefined;
}

/**
 * The sessions of `serveMcpHttp`, bounded two ways, because clients rarely end them: the SDK client's `close()`, the
 * MCP Inspector and the conformance suite never send DELETE (the spec makes it a SHOULD and lets the server end
 * sessions). A session idle for `idleTimeoutMs` is closed; at the cap, a new session replaces the session idle the
 * longest, and only when every session is busy answering a request is a new one refused.
 *
 * Idle means no POST or DELETE is being answered. A standalone GET stream does not keep a session alive: this server
 * sends nothing on it (it announces no list changes and reports progress on the call's own response), and every
 * client keeps one open, so counting it would make the sessions of departed clients look busy until their sockets
 * close.
 */
export class McpHttpSessions {
  readonly #sessions = new Map<string, McpHttpSession>();
  /** Sessions being opened (an `initialize` in flight): counted against the cap, so concurrent opens cannot pass it. */
  #opening = 0;
  readonly #maxSessions: number;
  readonly #idleTimeoutMs: number;

  constructor(options: { readonly maxSessions: number; readonly idleTimeoutMs: number }) {
    this.#maxSessions = options.maxSessions;
    this.#idleTimeoutMs = options.idleTimeoutMs;
  }

  /** Sessions open now (initialised, not yet closed). */
  get size(): number {
    return this.#sessions.size;
  }

  get(sessionId: string): McpHttpSession | undefined {
    return this.#sessions.get(sessionId);
  }

  /**
   * Reserves room for a new session, closing the session idle the longest when the cap is reached. False when every
   * session is busy: the caller answers 503. A reservation is ended by `opened` or `openFailed`.
   */
  async reserve(): Promise<boolean> {
    if (this.#sessions.size + this.#opening >= this.#maxSessions) {
      let oldest: McpHttpSession | undefined;
      for (const session of this.#sessions.values()) {
        if (session.busy === 0 && (oldest === undefined || session.lastActiveAt < oldest.lastActiveAt))
          oldest = session;
      }
      if (oldest === undefined) return false;
      this.#remove(oldest);
      await oldest.server.close().catch(() => undefined);
    }
    this.#opening++;
    return true;
  }

  /** The reserved session initialised under this id (its `initialize` may still be answering). */
  opened(sessionId: string, session: McpHttpSession): void {
    this.#opening--;
    this.#sessions.set(sessionId, session);
    if (session.busy === 0) this.#armIdleTimer(session);
  }

  /** The reserved session did not open (the first request was not an `initialize`, or it failed). */
  openFailed(): void {
    this.#opening--;
  }

  /** A request of this session starts: it is not idle until `requestEnded`. */
  requestStarted(session: McpHttpSession): void {
    session.busy++;
    clearTimeout(session.idleTimer);
    session.idleTimer = undefined;
  }

  requestEnded(session: McpHttpSession): void {
    session.busy--;
    session.lastActiveAt = performance.now();
    if (session.busy === 0 && this.#sessions.get(session.transport.sessionId ?? '') === session)
      this.#armIdleTimer(session);
  }

  /** Forgets a session its transport closed (DELETE, or closed here). */
  closed(session: McpHttpSession): void {
    this.#remove(session);
  }

  /** Removes and returns every session, for the server's close. */
  drain(): McpHttpSession[] {
    const open = [...this.#sessions.values()];
    for (const session of open) this.#remove(session);
    return open;
  }

  #remove(session: McpHttpSession): void {
    clearTimeout(session.idleTimer);
    session.idleTimer = undefined;
    const sessionId = session.transport.sessionId;
    if (sessionId !== undefined && this.#sessions.get(sessionId) === session)
      this.#sessions.delete(sessionId);
  }

  #armIdleTimer(session: McpHttpSession): void {
    if (this.#idleTimeoutMs === Number.POSITIVE_INFINITY) return;
    clearTimeout(session.idleTimer);
    session.idleTimer = setTimeout(() => {
      session.idleTimer = undefined;
      if (session.busy > 0) return;
      this.#remove(session);
      void session.server.close().catch(() => undefined);
    }, this.#idleTimeoutMs);
    // An idle session's timer must not keep the process alive on its own.
    session.idleTimer.unref?.();
  }
}

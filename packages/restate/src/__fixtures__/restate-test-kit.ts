import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { inject } from 'vitest';
import { freePort } from '../../scripts/local-restate-server.mjs';

/** The restate-server the global setup started. */
export function restateServer(): { readonly adminUrl: string; readonly ingressUrl: string } {
  return inject('restate');
}

/** An HTTP answer, its body parsed when it is JSON. */
export interface HttpAnswer {
  readonly status: number;
  readonly text: string;
  readonly json: unknown;
}

/**
 * One HTTP request without keep-alive (no socket outlives the call, for the open-handle guard), JSON in and out.
 * `timeoutMs` bounds the whole exchange.
 */
export function http(method: string, url: string, body?: unknown, timeoutMs = 60_000): Promise<HttpAnswer> {
  return new Promise((resolve, reject) => {
    const payload = body === undefined ? undefined : JSON.stringify(body);
    const outgoing = request(
      url,
      {
        method,
        agent: false,
        headers: {
          connection: 'close',
          accept: 'application/json',
          ...(payload === undefined ? {} : { 'content-type': 'application/json' }),
        },
        timeout: timeoutMs,
      },
      (response) => {
        let text = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => {
          text += chunk;
        });
        response.on('end', () => {
          let json: unknown;
          try {
            json = JSON.parse(text);
          } catch {
            json = undefined;
          }
          resolve({ status: response.statusCode ?? 0, text, json });
        });
        response.on('error', reject);
      },
    );
    outgoing.on('timeout', () =>
      outgoing.destroy(new Error(`${method} ${url} timed out after ${timeoutMs} ms`)),
    );
    outgoing.on('error', reject);
    outgoing.end(payload);
  });
}

/** Polls `probe` until it returns something other than `undefined`. */
export async function waitFor<T>(
  what: string,
  probe: () => Promise<T | undefined>,
  timeoutMs = 30_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`Timed out after ${timeoutMs} ms waiting for ${what}.`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** A scratch directory for a test's ledger files, removed by `remove()`. */
export function scratchDirectory(): { readonly path: string; remove(): void } {
  const directory = mkdtempSync(path.join(tmpdir(), 'restate-test-'));
  return { path: directory, remove: () => rmSync(directory, { recursive: true, force: true }) };
}

/** The lines of a ledger written by the endpoints' `record`, as `{ pid, entry }`. */
export function readLedger(file: string): { readonly pid: number; readonly entry: string }[] {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return [];
  }
  return text
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => {
      const space = line.indexOf(' ');
      return { pid: Number(line.slice(0, space)), entry: line.slice(space + 1) };
    });
}

const fixtures = fileURLToPath(new URL('.', import.meta.url));

/**
 * An endpoint process: one of this folder's `*.endpoint.mjs` scripts, serving its Restate services on a port of
 * 127.0.0.1 (the same port when restarted, so the registered deployment reaches the new process).
 */
export class EndpointProcess {
  readonly script: string;
  readonly port: number;
  readonly #child: ChildProcess;
  readonly #exited: Promise<void>;
  #output = '';

  private constructor(script: string, port: number, child: ChildProcess) {
    this.script = script;
    this.port = port;
    this.#child = child;
    this.#exited = new Promise((resolve) => child.once('exit', () => resolve()));
    const keep = (chunk: Buffer): void => {
      this.#output = (this.#output + chunk.toString('utf8')).slice(-20_000);
    };
    child.stdout?.on('data', keep);
    child.stderr?.on('data', keep);
  }

  /** Starts `script` with `env` and resolves once it listens (it prints `listening <port>`). */
  static async start(script: string, env: Record<string, string>, port?: number): Promise<EndpointProcess> {
    const chosen = port ?? (await freePort());
    const child = spawn(process.execPath, [path.join(fixtures, script)], {
      env: { ...process.env, ...env, PORT: String(chosen), RESTATE_LOGGING: 'WARN' },
      // The endpoint exits when its stdin closes: a test runner that dies takes its endpoints with it.
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    const endpoint = new EndpointProcess(script, chosen, child);
    try {
      await waitFor(`${script} to listen`, async () => {
        if (child.exitCode !== null)
          throw new Error(`${script} exited (${child.exitCode}):\n${endpoint.output()}`);
        return endpoint.output().includes(`listening ${chosen}`) ? true : undefined;
      });
    } catch (error) {
      await endpoint.kill();
      throw error;
    }
    return endpoint;
  }

  get pid(): number {
    return this.#child.pid as number;
  }

  get uri(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  output(): string {
    return this.#output;
  }

  /** Kills the process at once (SIGKILL: no cleanup runs, as in a crash) and waits until it is gone. */
  async kill(): Promise<void> {
    if (this.#child.exitCode === null && this.#child.signalCode === null) this.#child.kill('SIGKILL');
    await this.#exited;
    this.#child.stdin?.destroy();
    this.#child.stdout?.destroy();
    this.#child.stderr?.destroy();
  }
}

/** Registers an endpoint with the server's admin API. */
export async function registerDeployment(endpoint: EndpointProcess): Promise<void> {
  const answer = await http('POST', `${restateServer().adminUrl}/deployments`, {
    uri: endpoint.uri,
    force: true,
  });
  if (answer.status >= 300)
    throw new Error(`Registering ${endpoint.uri} failed (${answer.status}): ${answer.text}`);
}

/** The types of an invocation's journal entries, in order (`Command: Run`, `Notification: Run`, ...), with names. */
export async function journalEntries(
  invocationId: string,
): Promise<{ readonly index: number; readonly type: string; readonly name: string | null }[]> {
  if (!/^inv_[0-9A-Za-z]+$/.test(invocationId)) throw new Error(`Not an invocation id: ${invocationId}`);
  const answer = await http('POST', `${restateServer().adminUrl}/query`, {
    query: `SELECT index, entry_type, name FROM sys_journal WHERE id = '${invocationId}' ORDER BY index`,
  });
  if (answer.status !== 200) throw new Error(`The journal query failed (${answer.status}): ${answer.text}`);
  const rows = (answer.json as { rows: { index: number; entry_type: string; name?: string }[] }).rows;
  return rows.map((row) => ({ index: row.index, type: row.entry_type, name: row.name ?? null }));
}

/** A unique suffix for this test's service names and run ids (test files share one server). */
export function uniqueSuffix(): string {
  return `${process.pid}-${Math.random().toString(36).slice(2, 8)}`;
}

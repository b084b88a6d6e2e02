import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { resolve } from 'node:path';
import { errorMessageOf } from '@org/core';
import { DEFAULT_DEVTOOLS_DIR, DEFAULT_MAX_RECORD_BYTES } from './devtools-record.js';
import { DevtoolsOptionError } from './errors.js';
import { PAGE_HTML, PAGE_SCRIPT, PAGE_STYLE } from './page/page-assets.js';
import type { DevtoolsRow } from './record-rows.js';
import { RecordTail } from './record-tail.js';

/** The port the viewer listens on when none is given. */
export const DEFAULT_DEVTOOLS_PORT = 4319;

/** Options of {@link startDevtoolsServer}. */
export interface DevtoolsServerOptions {
  /** The recording directory to show. Default `.org-devtools` in the working directory. */
  readonly dir?: string;
  /** The address to listen on. Default `127.0.0.1`: the recorded runs stay on this machine. */
  readonly host?: string;
  /** The port; `0` picks a free one (see `port` of the result). Default 4319. */
  readonly port?: number;
  /** How often the files are read for new lines, in milliseconds. Default 200. */
  readonly pollIntervalMs?: number;
  /** The longest line accepted; longer ones are error rows. Default 65536 (the listener's default record size). */
  readonly maxLineBytes?: number;
  /** Rows kept in memory; beyond it the oldest are let go, and the page says how many. Default 200000. */
  readonly maxRows?: number;
}

/** A running viewer. */
export interface DevtoolsServer {
  /** The page's address, e.g. `http://127.0.0.1:4319/`. */
  readonly url: string;
  readonly host: string;
  readonly port: number;
  /** Stops reading the files, ends every open page's stream and closes the server. */
  close(): Promise<void>;
}

const SECURITY_HEADERS = {
  // Nothing may load from elsewhere, and no inline script runs: recorded text cannot become code.
  'content-security-policy':
    "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'cache-control': 'no-store',
};

/** The page's files, by path. */
const ASSETS = new Map([
  ['/', { type: 'text/html', body: PAGE_HTML }],
  ['/app.js', { type: 'text/javascript', body: PAGE_SCRIPT }],
  ['/app.css', { type: 'text/css', body: PAGE_STYLE }],
]);

/** Rows sent in one server-sent event: a big recording reaches a new page in pieces. */
const ROWS_PER_MESSAGE = 500;

function checkPort(port: number): number {
  if (!Number.isInteger(port) || port < 0 || port > 65_535) {
    throw new DevtoolsOptionError({
      option: 'port',
      message: `port must be an integer from 0 to 65535; got ${String(port)}.`,
    });
  }
  return port;
}

function checkPositive(option: string, value: number | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  if (!Number.isSafeInteger(value) || value < 1) {
    throw new DevtoolsOptionError({
      option,
      message: `${option} must be a positive integer; got ${String(value)}.`,
    });
  }
  return value;
}

/** Host names a page from this machine sends; anything else is a DNS-rebinding attempt. */
function hostAllowed(header: string | undefined, host: string, port: number): boolean {
  if (header === undefined) return false;
  const allowed = ['127.0.0.1', 'localhost', '[::1]', host.includes(':') ? `[${host}]` : host];
  return allowed.some((name) => header === `${name}:${port}` || (port === 80 && header === name));
}

/**
 * Serves the run viewer: a page on `host:port` that shows the runs recorded in `dir` (by `devtoolsListener`), the
 * ones already there and, live, the ones being recorded. The files are read as they grow (a poll every
 * `pollIntervalMs`), every line with the strict JSON reader; a line that is not a record is shown as an error row.
 * Resolves once the files present at start are read and the server listens.
 *
 * @example
 * import { startDevtoolsServer } from '@org/devtools';
 *
 * const viewer = await startDevtoolsServer({ dir: '.org-devtools', port: 0 });
 * console.log(`runs: ${viewer.url}`);
 * // ...
 * await viewer.close();
 */
export async function startDevtoolsServer(options: DevtoolsServerOptions = {}): Promise<DevtoolsServer> {
  const host = options.host ?? '127.0.0.1';
  const requestedPort = checkPort(options.port ?? DEFAULT_DEVTOOLS_PORT);
  const pollIntervalMs = checkPositive('pollIntervalMs', options.pollIntervalMs, 200);
  const maxLineBytes = checkPositive('maxLineBytes', options.maxLineBytes, DEFAULT_MAX_RECORD_BYTES);
  const maxRows = checkPositive('maxRows', options.maxRows, 200_000);
  const dir = resolve(options.dir ?? DEFAULT_DEVTOOLS_DIR);
  const tail = new RecordTail(dir, maxLineBytes);

  const rows: DevtoolsRow[] = [];
  let dropped = 0;
  const streams = new Set<ServerResponse>();
  let port = requestedPort;

  const send = (response: ServerResponse, batch: readonly DevtoolsRow[]): void => {
    for (let start = 0; start < batch.length; start += ROWS_PER_MESSAGE) {
      response.write(
        `event: rows\ndata: ${JSON.stringify(batch.slice(start, start + ROWS_PER_MESSAGE))}\n\n`,
      );
    }
  };
  const keep = (batch: DevtoolsRow[]): void => {
    if (batch.length === 0) return;
    rows.push(...batch);
    if (rows.length > maxRows) {
      const excess = rows.length - maxRows;
      rows.splice(0, excess);
      dropped += excess;
    }
    for (const response of streams) send(response, batch);
  };
  const poll = async (): Promise<void> => {
    try {
      keep(await tail.poll());
    } catch (error) {
      keep([
        {
          kind: 'error',
          source: dir,
          line: 0,
          message: `could not read the directory: ${errorMessageOf(error)}`,
        },
      ]);
    }
  };

  await poll();
  let polling: Promise<void> | undefined;
  const timer = setInterval(() => {
    polling ??= poll().finally(() => {
      polling = undefined;
    });
  }, pollIntervalMs);
  timer.unref();

  const handle = (request: IncomingMessage, response: ServerResponse): void => {
    if (!hostAllowed(request.headers.host, host, port)) {
      response.writeHead(403, { 'content-type': 'text/plain; charset=utf-8' }).end('Forbidden host.\n');
      return;
    }
    if (request.method !== 'GET' && request.method !== 'HEAD') {
      response.writeHead(405, { allow: 'GET, HEAD', 'content-type': 'text/plain; charset=utf-8' }).end();
      return;
    }
    const pathname = new URL(request.url ?? '/', 'http://localhost').pathname;
    const asset = (type: string, body: string): void => {
      response.writeHead(200, { ...SECURITY_HEADERS, 'content-type': `${type}; charset=utf-8` }).end(body);
    };
    const page = ASSETS.get(pathname);
    if (page !== undefined) {
      asset(page.type, page.body);
      return;
    }
    switch (pathname) {
      case '/rows':
        asset('application/json', JSON.stringify({ rows, dropped }));
        return;
      case '/events': {
        response.writeHead(200, {
          ...SECURITY_HEADERS,
          'content-type': 'text/event-stream; charset=utf-8',
          connection: 'keep-alive',
        });
        // Sends the headers now: the page learns it is connected even before there is a row to send.
        response.write(': connected\n\n');
        if (dropped > 0) {
          send(response, [
            {
              kind: 'error',
              source: dir,
              line: 0,
              message: `${dropped} older rows were let go (maxRows ${maxRows})`,
            },
          ]);
        }
        send(response, rows);
        streams.add(response);
        request.on('close', () => streams.delete(response));
        return;
      }
      default:
        response.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' }).end('Not found.\n');
    }
  };

  const server = createServer(handle);
  await new Promise<void>((resolve, reject) => {
    server.once('error', (error) => {
      clearInterval(timer);
      reject(error);
    });
    server.listen(requestedPort, host, () => resolve());
  });
  const address = server.address();
  port = typeof address === 'object' && address !== null ? address.port : requestedPort;
  const urlHost = host.includes(':') ? `[${host}]` : host;

  return {
    url: `http://${urlHost}:${port}/`,
    host,
    port,
    close: async (): Promise<void> => {
      clearInterval(timer);
      await polling;
      for (const response of streams) response.end();
      streams.clear();
      await new Promise<void>((resolve, reject) => {
        server.close((error) => (error === undefined ? resolve() : reject(error)));
        server.closeAllConnections();
      });
    },
  };
}

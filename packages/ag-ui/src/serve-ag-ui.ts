import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type AgUiHandler, type AgUiHandlerOptions, createAgUiHandler } from './ag-ui-handler.js';

/** Where `serveAgUi` listens. */
export interface ServeAgUiOptions {
  /** Default `127.0.0.1`: only this machine can connect. */
  readonly host?: string;
  /** Default 0: a free port (read it from `url`). */
  readonly port?: number;
}

/** An AG-UI endpoint served by `serveAgUi`. */
export interface AgUiServer {
  /** The endpoint, e.g. `http://127.0.0.1:53123/`: give it to `HttpAgent` of `@ag-ui/client`. */
  readonly url: URL;
  /** Aborts the runs in progress and closes the server. */
  close(): Promise<void>;
}

/**
 * Serves an agent over AG-UI with Node's `http` module: every POST is a run (see `createAgUiHandler`), on
 * `host:port` (default `127.0.0.1`, a free port). A client that disconnects aborts its run; `close()` aborts every run
 * in progress and stops listening.
 *
 * @example
 * import { HttpAgent } from '@ag-ui/client';
 * import { serveAgUi } from '@org/ag-ui';
 *
 * const server = await serveAgUi({ model, tools, stateSecret }, { port: 8787 });
 * const agent = new HttpAgent({ url: server.url.href });
 * agent.addMessage({ id: 'm1', role: 'user', content: 'Weather in Paris?' });
 * await agent.runAgent();
 * await server.close();
 */
export async function serveAgUi(
  agent: AgUiHandlerOptions,
  options: ServeAgUiOptions = {},
): Promise<AgUiServer> {
  const handler = createAgUiHandler(agent);
  // Loaded here rather than at the top: the package's entry point stays free of Node built-ins, so a page can import
  // `approvalResume` from it without a bundler shimming `node:http`.
  const [{ createServer }, { Readable }] = await Promise.all([import('node:http'), import('node:stream')]);
  const toWebStream = (request: IncomingMessage): ReadableStream<Uint8Array> =>
    Readable.toWeb(request) as ReadableStream<Uint8Array>;
  const host = options.host ?? '127.0.0.1';
  const runs = new Set<AbortController>();
  const httpServer = createServer((request, response) => {
    const controller = new AbortController();
    runs.add(controller);
    serve(handler, request, response, controller, toWebStream)
      .catch(() => {
        if (!response.headersSent) {
          response.writeHead(500, { 'content-type': 'application/json' });
          response.end(
            JSON.stringify({ error: { code: 'internal_error', message: 'The run could not be served.' } }),
          );
        } else response.destroy();
      })
      .finally(() => runs.delete(controller));
  });
  await new Promise<void>((resolve, reject) => {
    httpServer.once('error', reject);
    httpServer.listen(options.port ?? 0, host, () => {
      httpServer.off('error', reject);
      resolve();
    });
  });
  const address = httpServer.address() as AddressInfo;
  const urlHost = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return {
    url: new URL(`http://${urlHost}:${address.port}/`),
    close: async (): Promise<void> => {
      for (const controller of runs) controller.abort();
      await new Promise<void>((resolve) => {
        httpServer.close(() => resolve());
        httpServer.closeAllConnections();
      });
    },
  };
}

/** One request through the web-standard handler: the body streamed in, the answer streamed out. */
async function serve(
  handler: AgUiHandler,
  request: IncomingMessage,
  response: ServerResponse,
  controller: AbortController,
  toWebStream: (request: IncomingMessage) => ReadableStream<Uint8Array>,
): Promise<void> {
  // The response closing before the answer ended is a client gone away (or `close()`): abort the run.
  response.once('close', () => {
    if (!response.writableFinished) controller.abort();
  });
  const headers = new Headers();
  for (const [name, value] of Object.entries(request.headers)) {
    if (typeof value === 'string') headers.set(name, value);
    else if (Array.isArray(value)) for (const item of value) headers.append(name, item);
  }
  const method = request.method ?? 'GET';
  const hasBody = method !== 'GET' && method !== 'HEAD';
  const webRequest = new Request(new URL(request.url ?? '/', 'http://localhost'), {
    method,
    headers,
    signal: controller.signal,
    ...(hasBody ? { body: toWebStream(request), duplex: 'half' } : {}),
  } as RequestInit);
  const webResponse = await handler(webRequest);
  response.writeHead(webResponse.status, Object.fromEntries(webResponse.headers));
  response.flushHeaders();
  if (webResponse.body === null) {
    response.end();
    return;
  }
  const reader = webResponse.body.getReader();
  controller.signal.addEventListener('abort', () => void reader.cancel().catch(() => undefined), {
    once: true,
  });
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    if (!response.write(value) && !(await drained(response))) {
      // The client went away while its buffers were full: 'drain' never comes. The run is aborted (by the
      // 'close' listener above, again here in case it ran first) and the stream let go.
      controller.abort();
      await reader.cancel().catch(() => undefined);
      return;
    }
  }
  response.end();
}

/** Waits until the response can take more: true when it drained, false when it closed first. */
function drained(response: ServerResponse): Promise<boolean> {
  if (response.destroyed) return Promise.resolve(false);
  return new Promise<boolean>((resolve) => {
    const settle = (open: boolean): void => {
      response.off('drain', onDrain);
      response.off('close', onClose);
      resolve(open);
    };
    const onDrain = (): void => settle(true);
    const onClose = (): void => settle(false);
    response.once('drain', onDrain);
    response.once('close', onClose);
  });
}

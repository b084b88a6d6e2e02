// The plumbing every demo test against a fake provider API shares: the local server that reads each request whole,
// and an in-process run of the demo that keeps what it printed. What each fake answers stays in its own test file.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type DemoIo, type DemoOutcome, runDemo } from '../src/index.js';

/** A running fake provider API on 127.0.0.1. */
export interface FakeServer {
  /** `http://127.0.0.1:PORT`, without a path. */
  readonly origin: string;
  /** Ends the connections the SDK keeps alive, then the server. */
  close(): Promise<void>;
}

/** Starts a fake provider API on 127.0.0.1; `handle` gets each request once its body has been read whole. */
export async function startFakeServer(
  handle: (request: IncomingMessage, body: string, response: ServerResponse) => void,
): Promise<FakeServer> {
  const server = createServer((request: IncomingMessage, response: ServerResponse) => {
    let text = '';
    request.on('data', (chunk: Buffer) => {
      text += chunk.toString('utf8');
    });
    request.on('end', () => {
      handle(request, text, response);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** What the demo returned, with everything it printed on stdout and stderr. */
export type CapturedDemo = DemoOutcome & { stdout: string; stderr: string };

/** Runs the demo in process with `environment` (the provider's key and base URL), keeping what it prints. */
export async function runDemoCaptured(
  argv: readonly string[],
  environment: DemoIo['environment'],
): Promise<CapturedDemo> {
  let stdout = '';
  let stderr = '';
  const outcome = await runDemo(argv, {
    stdout: (text) => {
      stdout += text;
    },
    stderr: (text) => {
      stderr += text;
    },
    environment,
    cwd: process.cwd(),
  });
  return { ...outcome, stdout, stderr };
}

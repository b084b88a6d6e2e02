import { readFileSync } from 'node:fs';
import * as http2 from 'node:http2';
import type { AddressInfo } from 'node:net';
import { resolve } from 'node:path';
import { EventStreamCodec } from '@smithy/eventstream-codec';
import { fromUtf8, toUtf8 } from '@smithy/util-utf8';
import { converseValidationError } from './fake-converse-validation.js';

/**
 * A local Bedrock runtime over cleartext HTTP/2 (h2c), the protocol the SDK's default `NodeHttp2Handler` speaks.
 * Converse answers are JSON; ConverseStream answers are binary `application/vnd.amazon.eventstream` frames
 * encoded with `@smithy/eventstream-codec`. Responses are served from a queue, in order. A request the real API
 * would reject before running a model (a reasoning block without its signature, a tool turn sent back without its
 * reasoning while thinking is enabled, a bad document name: `converseValidationError`) is answered with Bedrock's
 * ValidationException instead, and leaves the queue as it is.
 */

/** One item of a ConverseStream answer. */
export type StreamItem =
  /** An event frame (`:message-type event`, `:event-type <event>`). */
  | { readonly event: string; readonly payload: unknown }
  /** A modeled exception frame (`:message-type exception`, `:exception-type <exception>`). */
  | { readonly exception: string; readonly payload: unknown }
  /** Bytes written as they are (broken frames). */
  | { readonly raw: Uint8Array }
  /** Destroy the connection here (a reset in the middle of the stream). */
  | { readonly reset: true }
  /** Reset only this HTTP/2 stream (RST_STREAM, INTERNAL_ERROR). */
  | { readonly rstStream: true }
  /** Wait until the client goes away (to test aborts). */
  | { readonly hang: true };

/** One queued answer. */
export type FakeResponse =
  | { readonly json: unknown; readonly status?: number; readonly headers?: Readonly<Record<string, string>> }
  | {
      /** An AWS JSON error: `x-amzn-errortype` header and `{ message }` body. */
      readonly errorType: string;
      readonly status: number;
      readonly message: string;
      readonly headers?: Readonly<Record<string, string>>;
    }
  | { readonly stream: readonly StreamItem[]; readonly headers?: Readonly<Record<string, string>> }
  /** Destroy the connection before any header. */
  | { readonly resetBeforeHeaders: true }
  /** Reset the HTTP/2 stream (RST_STREAM) before any header. */
  | { readonly rstStreamBeforeHeaders: true }
  /** Never answer, until the client goes away. */
  | { readonly hangBeforeHeaders: true }
  /** A raw body with any status and content type. */
  | { readonly status: number; readonly body: string; readonly headers?: Readonly<Record<string, string>> };

/** A request as the fake server received it. */
export interface RecordedRequest {
  readonly method: string;
  readonly path: string;
  /** The model id decoded from the path (`/model/{modelId}/converse`). */
  readonly modelId: string;
  readonly operation: 'converse' | 'converse-stream' | 'other';
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
  readonly rawBody: string;
  readonly body: Record<string, unknown>;
}

export interface FakeBedrockServer {
  readonly url: string;
  readonly requests: RecordedRequest[];
  /** How many held-open answers (`hang`) ended because the client went away. */
  readonly released: () => number;
  /** Queues answers; a function is called with the request to choose its answer (e.g. by operation). */
  enqueue(...responses: Array<FakeResponse | ((request: RecordedRequest) => FakeResponse)>): void;
  close(): Promise<void>;
}

const codec = new EventStreamCodec(toUtf8, fromUtf8);

/** Encodes one ConverseStream event as a binary event-stream frame. */
export function encodeEvent(event: string, payload: unknown): Uint8Array {
  return codec.encode({
    headers: {
      ':event-type': { type: 'string', value: event },
      ':content-type': { type: 'string', value: 'application/json' },
      ':message-type': { type: 'string', value: 'event' },
    },
    body: fromUtf8(JSON.stringify(payload)),
  });
}

/** Encodes a modeled in-stream exception frame. */
export function encodeException(exception: string, payload: unknown): Uint8Array {
  return codec.encode({
    headers: {
      ':exception-type': { type: 'string', value: exception },
      ':content-type': { type: 'string', value: 'application/json' },
      ':message-type': { type: 'string', value: 'exception' },
    },
    body: fromUtf8(JSON.stringify(payload)),
  });
}

/** Starts a fake Bedrock runtime on 127.0.0.1, on a free port. */
export async function startFakeBedrock(): Promise<FakeBedrockServer> {
  const queue: Array<FakeResponse | ((request: RecordedRequest) => FakeResponse)> = [];
  const requests: RecordedRequest[] = [];
  const counters = { released: 0 };
  const sessions = new Set<http2.ServerHttp2Session>();
  const server = http2.createServer();
  server.on('session', (session) => {
    sessions.add(session);
    session.on('close', () => sessions.delete(session));
    session.on('error', () => {});
  });
  server.on('stream', (stream, headers) => {
    stream.on('error', () => {});
    const chunks: Buffer[] = [];
    stream.on('data', (chunk: Buffer) => chunks.push(chunk));
    stream.on('end', () => {
      const path = String(headers[':path'] ?? '');
      const match = /^\/model\/([^/]+)\/(converse-stream|converse)$/.exec(path);
      const rawBody = Buffer.concat(chunks).toString('utf8');
      const recorded: RecordedRequest = {
        method: String(headers[':method']),
        path,
        modelId: match?.[1] === undefined ? '' : decodeURIComponent(match[1]),
        operation: (match?.[2] as 'converse' | 'converse-stream' | undefined) ?? 'other',
        headers: { ...headers },
        rawBody,
        body: rawBody === '' ? {} : (JSON.parse(rawBody) as Record<string, unknown>),
      };
      requests.push(recorded);
      const invalid = recorded.operation === 'other' ? undefined : converseValidationError(recorded.body);
      if (invalid !== undefined) {
        void respond(stream, { errorType: 'ValidationException', status: 400, message: invalid }, counters);
        return;
      }
      const queued = queue.shift();
      const next = (typeof queued === 'function' ? queued(recorded) : queued) ?? {
        errorType: 'InternalServerException',
        status: 500,
        message: 'fake server: no response queued',
      };
      void respond(stream, next, counters);
    });
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    released: () => counters.released,
    enqueue: (...responses) => queue.push(...responses),
    close: async () => {
      for (const session of sessions) session.destroy();
      await new Promise<void>((done) => server.close(() => done()));
    },
  };
}

async function respond(
  stream: http2.ServerHttp2Stream,
  response: FakeResponse,
  counters: { released: number },
): Promise<void> {
  if ('resetBeforeHeaders' in response) {
    // Destroying the session destroys its socket: the client sees the connection die with no answer.
    stream.session?.destroy();
    return;
  }
  if ('rstStreamBeforeHeaders' in response) {
    stream.close(http2.constants.NGHTTP2_INTERNAL_ERROR);
    return;
  }
  if ('hangBeforeHeaders' in response) {
    return;
  }
  if ('json' in response) {
    stream.respond({
      ':status': response.status ?? 200,
      'content-type': 'application/json',
      ...response.headers,
    });
    stream.end(JSON.stringify(response.json));
    return;
  }
  if ('errorType' in response) {
    stream.respond({
      ':status': response.status,
      'content-type': 'application/json',
      'x-amzn-errortype': `${response.errorType}:http://internal.amazon.com/coral/com.amazon.bedrock/`,
      'x-amzn-requestid': 'fake-request-id',
      ...response.headers,
    });
    stream.end(JSON.stringify({ message: response.message }));
    return;
  }
  if ('body' in response) {
    stream.respond({ ':status': response.status, ...response.headers });
    stream.end(response.body);
    return;
  }
  stream.respond({
    ':status': 200,
    'content-type': 'application/vnd.amazon.eventstream',
    ...response.headers,
  });
  for (const item of response.stream) {
    if ('reset' in item) {
      // Let the frames written so far reach the client before the connection dies.
      await new Promise((done) => setTimeout(done, 20));
      stream.session?.destroy();
      return;
    }
    if ('rstStream' in item) {
      await new Promise((done) => setTimeout(done, 20));
      stream.close(http2.constants.NGHTTP2_INTERNAL_ERROR);
      return;
    }
    if ('hang' in item) {
      await new Promise<void>((done) => {
        if (stream.closed) done();
        else stream.on('close', () => done());
      });
      counters.released++;
      return;
    }
    const bytes =
      'raw' in item
        ? item.raw
        : 'event' in item
          ? encodeEvent(item.event, item.payload)
          : encodeException(item.exception, item.payload);
    stream.write(bytes);
  }
  stream.end();
}

/** The directory of the shared Bedrock recordings (`../shared/corpora` from the project root). */
export const BEDROCK_FIXTURES_DIR = resolve(
  import.meta.dirname,
  '../../../../shared/corpora/provider-fixtures/bedrock',
);

/** A `.chunks.txt` recording as stream items: one `{"<eventType>": payload}` per line. */
export function readChunksFixture(fileName: string): StreamItem[] {
  return readFileSync(resolve(BEDROCK_FIXTURES_DIR, fileName), 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => {
      const parsed = JSON.parse(line) as Record<string, unknown>;
      const [event, payload] = Object.entries(parsed)[0] ?? ['', {}];
      return { event, payload };
    });
}

/** A `.json` recording: a Converse response body. */
export function readJsonFixture(fileName: string): unknown {
  return JSON.parse(readFileSync(resolve(BEDROCK_FIXTURES_DIR, fileName), 'utf8'));
}

/**
 * Fake static credentials: a planted secret that must appear in no error, event or message. Not frozen: the SDK
 * writes a `$source` marker onto the credentials object it is given.
 */
export const FAKE_CREDENTIALS = {
  accessKeyId: 'AKIAFAKEFAKEFAKEFAKE',
  secretAccessKey: 'fake-secret-Zq8xW3vN5mK2pL9rT4yB7cD1',
  sessionToken: 'fake-session-token-Hh4Jj6Kk8Ll0Mm2Nn4',
};

export const FAKE_REGION = 'us-east-1';

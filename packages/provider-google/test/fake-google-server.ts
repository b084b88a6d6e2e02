import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import type { FinishReason, ModelCapabilitiesOverride } from '@org/core';
import type {
  ConformanceFixture,
  ConformanceHarness,
  ResponseReply,
  ScriptedReply,
  WireContentPart,
  WireMessage,
  WireReasoning,
  WireRequest,
  WireToolChoice,
} from '@org/provider-conformance';
import { createGoogle, GOOGLE_CONTENT_LIMITS, type GoogleModelSettings } from '../src/index.js';

// A fake Gemini server on 127.0.0.1, port 0, speaking the REST wire the SDK speaks: the Gemini API
// (`/v1beta/models/{model}:generateContent`, `:streamGenerateContent?alt=sse`, key in `x-goog-api-key`) and Vertex AI
// (`/v1beta1/projects/{project}/locations/{location}/publishers/google/models/{model}:...`, a bearer token). It
// refuses what the real API refuses, with its 400 INVALID_ARGUMENT: empty contents or parts, a function response
// without a name, a function-calling turn whose responses do not match its calls in number, a function name outside
// the API's pattern, OpenAPI `parameters` or `responseSchema` outside the subset, and, for `gemini-3*` models, a
// function-calling turn of the current exchange without the thought signature the server issued, byte for byte (or
// Google's documented skip value).

/** The JSON of one part, candidate or request, as the wire carries it. */
type Json = Record<string, unknown>;

/** A reply outside the neutral ones: any status, headers and body text. */
export interface RawReply {
  readonly type: 'raw';
  readonly status: number;
  readonly headers?: Readonly<Record<string, string>>;
  readonly body: string;
}

/**
 * A reply written in Gemini's own terms: the response chunks (`GenerateContentResponse` objects) sent as one JSON body
 * for `generateContent` (merged: parts concatenated, the last finish reason and usage) or one SSE event each for a
 * stream; `cut` destroys the socket after the chunks instead of ending the stream.
 */
export interface GeminiReply {
  readonly type: 'gemini';
  readonly chunks: readonly Json[];
  readonly cut?: boolean;
}

/** One request the server received. */
export interface ReceivedRequest {
  readonly path: string;
  readonly model: string;
  readonly stream: boolean;
  readonly body: Json;
  readonly raw: string;
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
}

export interface FakeGoogleServer {
  /** The base URL for the SDK's `httpOptions.baseUrl`. */
  readonly baseURL: string;
  readonly requests: readonly ReceivedRequest[];
  /** How many answers the client closed before they ended (a consumer that stopped reading). */
  closedEarly(): number;
  enqueue(reply: ScriptedReply | RawReply | GeminiReply): void;
  /** Signs `part` with a fresh signature the server will accept back (Gemini 3's thought signatures). */
  sign(part: Json): Json;
  close(): Promise<void>;
}

const FINISH: Readonly<Record<FinishReason, string>> = {
  stop: 'STOP',
  length: 'MAX_TOKENS',
  'tool-calls': 'STOP',
  'content-filter': 'SAFETY',
  error: 'OTHER',
  other: 'OTHER',
};

/** The value Google documents for a function call Gemini 3 did not sign; the API takes it in place of a signature. */
const SKIP_THOUGHT_SIGNATURE = 'skip_thought_signature_validator';

/** `FunctionDeclaration.name` as the API checks it. */
const FUNCTION_NAME = /^[a-zA-Z_][a-zA-Z0-9_.:-]{0,63}$/;

const STATUS_NAMES: Readonly<Record<number, string>> = {
  400: 'INVALID_ARGUMENT',
  401: 'UNAUTHENTICATED',
  403: 'PERMISSION_DENIED',
  404: 'NOT_FOUND',
  429: 'RESOURCE_EXHAUSTED',
  500: 'INTERNAL',
  503: 'UNAVAILABLE',
};

/** Splits text into small pieces: assembling several chunks is what the suite tests. */
function pieces(text: string, size = 4): string[] {
  return text.match(new RegExp(`[\\s\\S]{1,${size}}`, 'g')) ?? [];
}

function errorBody(status: number, message: string, details?: readonly Json[]): string {
  return JSON.stringify({
    error: {
      code: status,
      message,
      status: STATUS_NAMES[status] ?? 'UNKNOWN',
      ...(details === undefined ? {} : { details }),
    },
  });
}

function usageOf(reply: ResponseReply): Json {
  const input = reply.usage?.inputTokens ?? 0;
  const output = reply.usage?.outputTokens ?? 0;
  return { promptTokenCount: input, candidatesTokenCount: output, totalTokenCount: input + output };
}

/** A neutral reply as Gemini chunks: thoughts, text pieces, each call whole, then the finish. */
function chunksOf(reply: ResponseReply, stream: boolean): Json[] {
  const chunk = (parts: Json[], extra: Json = {}): Json => ({
    candidates: [{ content: { role: 'model', parts }, index: 0, ...extra }],
    responseId: 'resp_fake_1',
    modelVersion: 'fake',
  });
  const chunks: Json[] = [];
  for (const block of reply.reasoning ?? []) {
    if (block.redactedData !== undefined) {
      chunks.push(chunk([{ thought: true, thoughtSignature: block.redactedData }]));
      continue;
    }
    const texts = stream ? pieces(block.text, 7) : [block.text];
    texts.forEach((text, index) => {
      const last = index === texts.length - 1;
      chunks.push(
        chunk([
          {
            text,
            thought: true,
            ...(last && block.signature !== undefined ? { thoughtSignature: block.signature } : {}),
          },
        ]),
      );
    });
  }
  for (const text of stream ? pieces(reply.text ?? '') : reply.text ? [reply.text] : [])
    chunks.push(chunk([{ text }]));
  for (const call of reply.toolCalls ?? []) {
    chunks.push(
      chunk([{ functionCall: { id: call.id, name: call.toolName, args: JSON.parse(call.arguments) } }]),
    );
  }
  const finishReason =
    FINISH[reply.finishReason ?? ((reply.toolCalls?.length ?? 0) > 0 ? 'tool-calls' : 'stop')];
  chunks.push({ ...chunk([], { finishReason }), usageMetadata: usageOf(reply) });
  return chunks;
}

/** Chunks merged into one `generateContent` body. */
function merged(chunks: readonly Json[]): Json {
  const parts: Json[] = [];
  let last: Json = {};
  let candidate: Json = {};
  for (const chunk of chunks) {
    last = { ...last, ...chunk };
    const first = (chunk.candidates as Json[] | undefined)?.[0];
    if (first === undefined) continue;
    candidate = { ...candidate, ...first };
    parts.push(...(((first.content as Json | undefined)?.parts as Json[] | undefined) ?? []));
  }
  if (Object.keys(candidate).length === 0) return last;
  return { ...last, candidates: [{ ...candidate, content: { role: 'model', parts } }] };
}

function isRecord(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The 400 the real API answers for a request it refuses, or `undefined` for a request it takes. */
function refusal(body: Json, model: string, issued: ReadonlySet<string>): string | undefined {
  const contents = body.contents;
  if (!Array.isArray(contents) || contents.length === 0)
    return '* GenerateContentRequest.contents: contents is not specified';
  for (const [index, content] of contents.entries()) {
    if (!isRecord(content) || !Array.isArray(content.parts) || content.parts.length === 0) {
      return `* GenerateContentRequest.contents[${index}].parts: contents.parts must not be empty.`;
    }
    if (content.role !== 'user' && content.role !== 'model') {
      return `Please use a valid role: user, model.`;
    }
    for (const [partIndex, part] of (content.parts as Json[]).entries()) {
      const response = part.functionResponse;
      if (isRecord(response) && (typeof response.name !== 'string' || response.name === '')) {
        return `* GenerateContentRequest.contents[${index}].parts[${partIndex}].function_response.name: Name cannot be empty.`;
      }
      if (
        typeof part.thoughtSignature === 'string' &&
        part.thoughtSignature !== SKIP_THOUGHT_SIGNATURE &&
        issued.size > 0 &&
        !issued.has(part.thoughtSignature)
      ) {
        return `Corrupted thought signature.`;
      }
    }
  }
  // Every function-calling turn is answered by as many function responses, in the turn after it.
  for (const [index, content] of (contents as Json[]).entries()) {
    const calls = (content.parts as Json[]).filter((part) => isRecord(part.functionCall)).length;
    if (content.role !== 'model' || calls === 0) continue;
    const next = contents[index + 1] as Json | undefined;
    if (next === undefined) continue;
    const responses = ((next.parts as Json[] | undefined) ?? []).filter((part) =>
      isRecord(part.functionResponse),
    ).length;
    if (responses !== calls) {
      return 'Please ensure that the number of function response parts is equal to the number of function call parts of the function call turn.';
    }
  }
  // Gemini 3: each function-calling turn of the current exchange (since the last user text) carries its signature.
  if (model.startsWith('gemini-3')) {
    let start = 0;
    for (const [index, content] of (contents as Json[]).entries()) {
      if (content.role === 'user' && (content.parts as Json[]).some((part) => typeof part.text === 'string'))
        start = index;
    }
    for (const [index, content] of (contents as Json[]).slice(start).entries()) {
      const first = (content.parts as Json[]).find((part) => isRecord(part.functionCall));
      if (content.role === 'model' && first !== undefined && typeof first.thoughtSignature !== 'string') {
        return `Function call is missing a thought_signature in functionCall parts. This is required for tools to work correctly, and missing thought_signature may lead to degraded model performance. Additional data, function call \`default_api:${String((first.functionCall as Json).name)}\` , position ${start + index + 1}. Please refer to https://ai.google.dev/gemini-api/docs/thought-signatures for more details.`;
      }
    }
  }
  for (const tool of (body.tools as Json[] | undefined) ?? []) {
    for (const declaration of (tool.functionDeclarations as Json[] | undefined) ?? []) {
      if (typeof declaration.name !== 'string' || !FUNCTION_NAME.test(declaration.name)) {
        return `* GenerateContentRequest.tools[0].function_declarations[0].name: Invalid function name. Must start with a letter or an underscore. Must be alphameric (a-z, A-Z, 0-9), underscores (_), dots (.), colons (:), or dashes (-), with a maximum length of 64.`;
      }
      if (declaration.parameters !== undefined && declaration.parametersJsonSchema !== undefined) {
        return `* GenerateContentRequest.tools[0].function_declarations: parameters and parameters_json_schema are mutually exclusive.`;
      }
      const problem = openApiProblem(declaration.parameters, 'parameters');
      if (problem !== undefined)
        return `* GenerateContentRequest.tools[0].function_declarations[0].${problem}`;
    }
  }
  const generation = (body.generationConfig ?? {}) as Json;
  if (generation.responseSchema !== undefined && generation.responseJsonSchema !== undefined) {
    return '* GenerateContentRequest.generation_config: response_schema and response_json_schema are mutually exclusive.';
  }
  const responseProblem = openApiProblem(generation.responseSchema, 'response_schema');
  if (responseProblem !== undefined) return `* GenerateContentRequest.generation_config.${responseProblem}`;
  const config = body.toolConfig as Json | undefined;
  const calling = config?.functionCallingConfig as Json | undefined;
  if (calling?.allowedFunctionNames !== undefined && calling.mode !== 'ANY' && calling.mode !== 'VALIDATED') {
    return '* GenerateContentRequest.tool_config.function_calling_config.allowed_function_names: only allowed when mode is ANY or VALIDATED.';
  }
  return undefined;
}

/** What the API says of `parameters` outside its OpenAPI subset. */
function openApiProblem(schema: unknown, path: string): string | undefined {
  if (schema === undefined) return undefined;
  if (!isRecord(schema)) return `${path}: must be a Schema object`;
  if (schema.additionalProperties !== undefined) return `${path}: Unknown name "additionalProperties"`;
  if (schema.$ref !== undefined || schema.$defs !== undefined) return `${path}: Unknown name "$ref"`;
  if (Array.isArray(schema.type)) return `${path}.type: Invalid value (array)`;
  if (Array.isArray(schema.enum) && schema.enum.some((value) => typeof value !== 'string')) {
    return `${path}.enum: Invalid value (only strings)`;
  }
  if (
    String(schema.type).toLowerCase() === 'object' &&
    Object.keys((schema.properties as Json | undefined) ?? {}).length === 0
  ) {
    return `${path}.properties: should be non-empty for OBJECT type`;
  }
  for (const [name, child] of Object.entries((schema.properties as Json | undefined) ?? {})) {
    const problem = openApiProblem(child, `${path}.properties[${name}]`);
    if (problem !== undefined) return problem;
  }
  if (schema.items !== undefined) return openApiProblem(schema.items, `${path}.items`);
  return undefined;
}

const ROUTE =
  /^\/(?<version>v1(?:beta1?)?)\/(?:projects\/(?<project>[^/]+)\/locations\/(?<location>[^/]+)\/publishers\/google\/)?models\/(?<model>[^/:]+):(?<method>generateContent|streamGenerateContent)(?:\?alt=sse)?$/;

/**
 * Starts a fake server; each request gets the next enqueued reply (a 500 when none is left).
 *
 * @example
 * const server = await startFakeGoogleServer();
 * server.enqueue({ type: 'response', text: 'Hi' });
 */
export async function startFakeGoogleServer(): Promise<FakeGoogleServer> {
  const queue: (ScriptedReply | RawReply | GeminiReply)[] = [];
  const requests: ReceivedRequest[] = [];
  const sockets = new Set<Socket>();
  const issued = new Set<string>();
  let signatures = 0;
  let closedEarly = 0;

  const handle = (request: IncomingMessage, response: ServerResponse, raw: string): void => {
    const route = ROUTE.exec(request.url ?? '');
    const send = (status: number, message: string): void => {
      response.writeHead(status, { 'content-type': 'application/json; charset=UTF-8' });
      response.end(errorBody(status, message));
    };
    if (route?.groups === undefined) {
      send(404, `The requested URL ${request.url} was not found.`);
      return;
    }
    const vertex = route.groups.project !== undefined;
    if (
      vertex
        ? !String(request.headers.authorization ?? '').startsWith('Bearer ')
        : !request.headers['x-goog-api-key']
    ) {
      send(
        vertex ? 401 : 403,
        vertex
          ? 'Request is missing required authentication credential.'
          : "Method doesn't allow unregistered callers.",
      );
      return;
    }
    let body: Json;
    try {
      body = JSON.parse(raw) as Json;
    } catch {
      send(400, 'Invalid JSON payload received.');
      return;
    }
    const model = route.groups.model ?? '';
    const stream = route.groups.method === 'streamGenerateContent';
    requests.push({ path: request.url ?? '', model, stream, body, raw, headers: request.headers });
    const refused = refusal(body, model, issued);
    if (refused !== undefined) {
      send(400, refused);
      return;
    }
    render(
      queue.shift() ?? { type: 'error', status: 500, message: 'No reply scripted.' },
      stream,
      response,
      request.socket,
    );
  };

  const server = createServer((request, response) => {
    let raw = '';
    request.on('data', (chunk: Buffer) => {
      raw += chunk.toString('utf8');
    });
    request.on('end', () => handle(request, response, raw));
    response.on('close', () => {
      if (!response.writableEnded) closedEarly += 1;
    });
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseURL: `http://127.0.0.1:${port}`,
    requests,
    closedEarly: () => closedEarly,
    enqueue: (reply) => {
      queue.push(reply);
    },
    sign: (part) => {
      signatures += 1;
      // Opaque bytes, as Gemini's are: base64 of something the client cannot forge.
      const signature = Buffer.from(
        `fake-signature-${signatures}-${'\u00e9\u0000\u00ff'}`,
        'latin1',
      ).toString('base64');
      issued.add(signature);
      return { ...part, thoughtSignature: signature };
    },
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** What the server says: the reply in Gemini's wire form. */
function render(
  reply: ScriptedReply | RawReply | GeminiReply,
  stream: boolean,
  response: ServerResponse,
  socket: Socket,
): void {
  if (reply.type === 'raw') {
    response.writeHead(reply.status, { 'content-type': 'application/json', ...reply.headers });
    response.end(reply.body);
    return;
  }
  if (reply.type === 'error') {
    // Gemini says how long to wait in a RetryInfo detail, not in a header.
    const seconds = reply.headers?.['retry-after'];
    const details =
      reply.status === 429 && seconds !== undefined
        ? [{ '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: `${seconds}s` }]
        : undefined;
    const message =
      reply.reason === 'context-length-exceeded'
        ? `${reply.message} The input token count (1048600) exceeds the maximum number of tokens allowed (1048576).`
        : reply.message;
    response.writeHead(reply.status, { 'content-type': 'application/json; charset=UTF-8' });
    response.end(errorBody(reply.status, message, details));
    return;
  }
  if (!stream) {
    if (reply.type === 'disconnect') {
      socket.destroy();
      return;
    }
    if (reply.type === 'stall') return; // never answer: the client aborts
    if (reply.type === 'gemini' && reply.cut === true) {
      socket.destroy();
      return;
    }
    const chunks = reply.type === 'gemini' ? reply.chunks : chunksOf(reply, false);
    response.writeHead(200, { 'content-type': 'application/json; charset=UTF-8' });
    response.end(JSON.stringify(merged(chunks)));
    return;
  }
  response.writeHead(200, { 'content-type': 'text/event-stream' });
  const send = (chunk: Json): void => {
    response.write(`data: ${JSON.stringify(chunk)}\r\n\r\n`);
  };
  const textChunk = (text: string): Json => ({
    candidates: [{ content: { role: 'model', parts: [{ text }] }, index: 0 }],
  });
  if (reply.type === 'stall') {
    if (reply.text !== undefined) send(textChunk(reply.text));
    return;
  }
  if (reply.type === 'disconnect') {
    // Gemini streams each function call whole, so a call cut off never shows on the wire: only the text does.
    for (const text of pieces(reply.text)) send(textChunk(text));
    response.write('', () => socket.destroy());
    return;
  }
  const chunks = reply.type === 'gemini' ? reply.chunks : chunksOf(reply, true);
  for (const chunk of chunks) send(chunk);
  if (reply.type === 'gemini' && reply.cut === true) {
    response.write('', () => socket.destroy());
    return;
  }
  response.end();
}

function projectToolChoice(config: unknown): WireToolChoice {
  const calling = isRecord(config) ? config.functionCallingConfig : undefined;
  if (!isRecord(calling)) return undefined;
  const names = calling.allowedFunctionNames;
  switch (calling.mode) {
    case 'AUTO':
    case 'VALIDATED':
      return { type: 'auto' };
    case 'NONE':
      return { type: 'none' };
    case 'ANY':
      return Array.isArray(names) && names.length === 1
        ? { type: 'tool', toolName: String(names[0]) }
        : { type: 'required' };
    default:
      return undefined;
  }
}

function projectMedia(part: Json): WireContentPart | undefined {
  const inline = part.inlineData;
  const file = part.fileData;
  if (isRecord(inline)) {
    const mediaType = String(inline.mimeType);
    return { type: mediaType.startsWith('image/') ? 'image' : 'file', mediaType, data: String(inline.data) };
  }
  if (isRecord(file)) {
    const mediaType = typeof file.mimeType === 'string' ? file.mimeType : undefined;
    return {
      type: mediaType?.startsWith('image/') === true ? 'image' : 'file',
      url: String(file.fileUri),
      ...(mediaType === undefined ? {} : { mediaType }),
    };
  }
  return undefined;
}

function projectContent(parts: readonly Json[]): WireContentPart[] {
  return parts.flatMap((part): WireContentPart[] => {
    if (typeof part.text === 'string') return [{ type: 'text', text: part.text }];
    const media = projectMedia(part);
    return media === undefined ? [] : [media];
  });
}

function projectReasoning(part: Json): WireReasoning {
  const signature = typeof part.thoughtSignature === 'string' ? part.thoughtSignature : undefined;
  if (typeof part.text !== 'string' && signature !== undefined) return { text: '', redactedData: signature };
  return { text: String(part.text ?? ''), ...(signature === undefined ? {} : { signature }) };
}

/** One content of the request as neutral messages: a user turn of function responses is one `tool` message each. */
function projectContents(content: Json): WireMessage[] {
  const parts = (content.parts as Json[] | undefined) ?? [];
  if (content.role === 'model') {
    const ids = parts
      .filter((part) => isRecord(part.functionCall))
      .map((part) => String((part.functionCall as Json).id ?? (part.functionCall as Json).name));
    const reasoning = parts.filter((part) => part.thought === true).map(projectReasoning);
    return [{ role: 'assistant', ...(ids.length === 0 ? {} : { toolCallIds: ids }), reasoning }];
  }
  const messages: WireMessage[] = [];
  const rest: Json[] = [];
  for (const part of parts) {
    const response = part.functionResponse;
    if (!isRecord(response)) {
      rest.push(part);
      continue;
    }
    const result = (response.response ?? {}) as Json;
    const text =
      typeof result.output === 'string'
        ? result.output
        : typeof result.error === 'string'
          ? result.error
          : JSON.stringify(result);
    messages.push({
      role: 'tool',
      toolCallId: String(response.id ?? response.name),
      content: [{ type: 'text', text }, ...projectContent((response.parts as Json[] | undefined) ?? [])],
    });
  }
  if (rest.length > 0) messages.push({ role: 'user', content: projectContent(rest) });
  return messages;
}

/** What the request said, read from the body the SDK sent. */
export function project(request: ReceivedRequest): WireRequest {
  const { body } = request;
  const generation = (body.generationConfig ?? {}) as Json;
  const schema = generation.responseJsonSchema ?? generation.responseSchema;
  const declarations = ((body.tools as Json[] | undefined) ?? []).flatMap(
    (tool) => (tool.functionDeclarations as Json[] | undefined) ?? [],
  );
  return {
    toolChoice: projectToolChoice(body.toolConfig),
    parallelToolCalls: undefined,
    tools: declarations.map((declaration) => ({
      name: String(declaration.name),
      inputSchema: (declaration.parametersJsonSchema ?? declaration.parameters ?? {}) as Json,
    })),
    messages: [
      ...(body.systemInstruction === undefined ? [] : [{ role: 'system' as const }]),
      ...((body.contents as Json[] | undefined) ?? []).flatMap(projectContents),
    ],
    stream: request.stream,
    ...(schema === undefined ? {} : { responseFormat: { schema: schema as Json } }),
    rawBody: request.raw,
  };
}

/**
 * The conformance harness: a fresh fake server per test, the model with the adapter's retries off.
 *
 * @example
 * runConformanceSuite(createGoogleHarness());
 */
export function createGoogleHarness(
  options: {
    readonly name?: string;
    readonly modelId?: string;
    readonly settings?: GoogleModelSettings;
    readonly capabilities?: ModelCapabilitiesOverride;
    readonly vertex?: boolean;
  } = {},
): ConformanceHarness {
  return {
    name: options.name ?? 'google',
    capabilities: {
      errorReplies: true,
      disconnects: true,
      stalls: true,
      reasoning: 'round-trip',
      contentParts: { limits: GOOGLE_CONTENT_LIMITS },
      structuredOutput: true,
      sequentialToolCalls: true,
    },
    createFixture: async (): Promise<ConformanceFixture> => {
      const server = await startFakeGoogleServer();
      const provider =
        options.vertex === true ? vertexProvider(server.baseURL) : geminiProvider(server.baseURL);
      return {
        model: provider(options.modelId ?? 'gemini-2.5-flash', {
          ...options.settings,
          ...(options.capabilities === undefined ? {} : { capabilities: options.capabilities }),
        }),
        enqueue: (reply) => server.enqueue(reply),
        requests: () => server.requests.map(project),
        close: () => server.close(),
      };
    },
  };
}

/** A Gemini API provider on the fake server, retries off. */
export function geminiProvider(baseURL: string, maxRetries = 0): ReturnType<typeof createGoogle> {
  return createGoogle({ apiKey: 'test-key-of-the-fake-server', baseURL, maxRetries });
}

/** A Vertex AI provider on the fake server, with a bearer token from a fixed auth client. */
export function vertexProvider(baseURL: string, maxRetries = 0): ReturnType<typeof createGoogle> {
  return createGoogle({
    vertexai: true,
    project: 'fake-project',
    location: 'us-central1',
    baseURL,
    maxRetries,
    // google-auth-library takes a ready auth client; this one hands out a fixed token for the fake server.
    googleAuthOptions: {
      authClient: {
        getRequestHeaders: async () => new Headers({ authorization: 'Bearer fake-vertex-token' }),
      } as never,
    },
  });
}

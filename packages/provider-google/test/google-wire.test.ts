import {
  collectStream,
  type Message,
  type ModelRequest,
  type ModelResponse,
  type StreamPart,
  type ToolSpec,
} from '@org/core';
import { defineTool, ToolRegistry } from '@org/tools';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { GoogleModelSettings } from '../src/index.js';
import {
  type FakeGoogleServer,
  geminiProvider,
  project,
  startFakeGoogleServer,
  vertexProvider,
} from './fake-google-server.js';

// What the adapter puts on the Gemini wire and reads back, through the real SDK against the fake server.

const WEATHER: ToolSpec = {
  name: 'get_weather',
  description: 'The weather in a city.',
  inputSchema: {
    type: 'object',
    properties: { city: { type: 'string' }, unit: { type: ['string', 'null'], enum: ['c', 'f', null] } },
    required: ['city'],
    additionalProperties: false,
  },
};
const SEARCH: ToolSpec = {
  name: 'search',
  description: 'Searches the web.',
  inputSchema: { type: 'object', properties: { query: { type: 'string' } }, required: ['query'] },
};
const TOOLS = [WEATHER, SEARCH];
/** Gemini 2.5's traits: the family is declared, never read from the model id. */
const GEMINI_2_5: GoogleModelSettings = { family: 'gemini-2.5' };
const QUESTION: Message = { role: 'user', content: 'Weather in Paris and Rome?' };

let server: FakeGoogleServer;
beforeEach(async () => {
  server = await startFakeGoogleServer();
});
afterEach(async () => {
  await server.close();
});

type Json = Record<string, unknown>;

function chunk(parts: Json[], extra: Json = {}): Json {
  return { candidates: [{ content: { role: 'model', parts }, index: 0, ...extra }], responseId: 'resp_wire' };
}
function finish(
  reason = 'STOP',
  usage: Json = { promptTokenCount: 10, candidatesTokenCount: 5, totalTokenCount: 15 },
): Json {
  return {
    candidates: [{ content: { role: 'model', parts: [] }, finishReason: reason, index: 0 }],
    usageMetadata: usage,
  };
}
/** The function declarations of a request. */
function declarations(index = 0): Json[] {
  const tools = body(index).tools as { functionDeclarations: Json[] }[];
  return tools[0]?.functionDeclarations ?? [];
}
function body(index = 0): Json {
  const request = server.requests[index];
  if (request === undefined) throw new Error(`no request ${index}`);
  return request.body;
}

async function call(
  request: ModelRequest,
  mode: 'generate' | 'stream',
  modelId = 'gemini-3-flash',
  settings: GoogleModelSettings = {},
): Promise<ModelResponse> {
  const model = geminiProvider(server.baseURL)(modelId, settings);
  return mode === 'generate' ? model.generate(request) : collectStream(model.stream(request));
}

describe('tool choice on the wire', () => {
  const cases = [
    ['auto', { mode: 'AUTO' }],
    ['required', { mode: 'ANY' }],
    ['none', { mode: 'NONE' }],
    [
      { type: 'tool', toolName: 'search' },
      { mode: 'ANY', allowedFunctionNames: ['search'] },
    ],
  ] as const;
  for (const [choice, expected] of cases) {
    it(`${JSON.stringify(choice)} → functionCallingConfig ${JSON.stringify(expected)}`, async () => {
      server.enqueue({ type: 'response', text: 'ok' });
      await call(
        {
          messages: [QUESTION],
          tools: TOOLS,
          toolChoice: typeof choice === 'string' ? { type: choice } : choice,
        },
        'generate',
      );
      expect(body().toolConfig).toEqual({ functionCallingConfig: expected });
      // The tools are kept for every mode, `none` included, in parametersJsonSchema as given.
      expect((body().tools as Json[])[0]).toEqual({
        functionDeclarations: TOOLS.map((spec) => ({
          name: spec.name,
          description: spec.description,
          parametersJsonSchema: spec.inputSchema,
        })),
      });
    });
  }

  it("auto with functionCallingMode 'VALIDATED' → mode VALIDATED", async () => {
    server.enqueue({ type: 'response', text: 'ok' });
    await call(
      {
        messages: [QUESTION],
        tools: TOOLS,
        providerOptions: { google: { functionCallingMode: 'VALIDATED' } },
      },
      'generate',
    );
    expect(body().toolConfig).toEqual({ functionCallingConfig: { mode: 'VALIDATED' } });
  });

  it('reports parallelToolCalls: false as ignored (Gemini has no switch)', async () => {
    server.enqueue({ type: 'response', text: 'ok' });
    const response = await call({ messages: [QUESTION], tools: TOOLS, parallelToolCalls: false }, 'generate');
    expect(response.adjustments.map((adjustment) => adjustment.kind)).toContain('setting-ignored');
  });
});

describe('schemas', () => {
  it('sends the OpenAPI subset in parameters for a family declared with it, and the API accepts it', async () => {
    server.enqueue({ type: 'response', text: 'ok' });
    const model = geminiProvider(server.baseURL)('gemini-2.0-flash', { family: 'gemini-2.0' });
    await model.generate({ messages: [QUESTION], tools: [WEATHER] });
    const declaration = declarations()[0];
    expect(declaration?.parametersJsonSchema).toBeUndefined();
    // The SDK writes the OpenAPI type names in upper case, as the API's `Type` enum spells them.
    expect(declaration?.parameters).toEqual({
      type: 'OBJECT',
      properties: { city: { type: 'STRING' }, unit: { type: 'STRING', enum: ['c', 'f'], nullable: true } },
      required: ['city'],
    });
  });

  it('refuses, before sending, a schema the OpenAPI subset cannot express, naming the tool and the node', async () => {
    const model = geminiProvider(server.baseURL)('gemini-2.0-flash', { family: 'gemini-2.0' });
    const free: ToolSpec = {
      name: 'tag',
      description: 'Tags.',
      inputSchema: {
        type: 'object',
        properties: { labels: { type: 'object', additionalProperties: { type: 'string' } } },
      },
    };
    const error = await model
      .generate({ messages: [QUESTION], tools: [free] })
      .catch((thrown: unknown) => thrown);
    expect(String(error)).toContain("Tool 'tag'");
    expect(String(error)).toContain("'properties/labels/additionalProperties'");
    expect((error as { providerCode?: string }).providerCode).toBe('schema_not_expressible');
    expect(server.requests).toHaveLength(0);
  });

  it('sends a response format as responseSchema in the OpenAPI subset for a family declared with it', async () => {
    server.enqueue({ type: 'response', text: '{"city":"Paris","unit":null}' });
    const model = geminiProvider(server.baseURL)('gemini-2.0-flash', { family: 'gemini-2.0' });
    const response = await model.generate({
      messages: [QUESTION],
      responseFormat: { type: 'json', name: 'answer', schema: WEATHER.inputSchema },
    });
    expect(response.text).toBe('{"city":"Paris","unit":null}');
    const generation = body().generationConfig as Json;
    expect(generation.responseJsonSchema).toBeUndefined();
    expect(generation).toMatchObject({
      responseMimeType: 'application/json',
      responseSchema: {
        type: 'OBJECT',
        properties: { city: { type: 'STRING' }, unit: { type: 'STRING', enum: ['c', 'f'], nullable: true } },
        required: ['city'],
      },
    });
  });

  it('refuses, before sending, a response format the OpenAPI subset cannot express, naming the node', async () => {
    const model = geminiProvider(server.baseURL)('gemini-2.0-flash', { family: 'gemini-2.0' });
    const error = await model
      .generate({
        messages: [QUESTION],
        responseFormat: {
          type: 'json',
          name: 'tags',
          schema: { type: 'object', properties: { tags: { type: 'object', additionalProperties: true } } },
        },
      })
      .catch((thrown: unknown) => thrown);
    expect((error as { code?: string }).code).toBe('invalid_request');
    expect((error as { providerCode?: string }).providerCode).toBe('schema_not_expressible');
    expect(String(error)).toContain("responseFormat 'tags'");
    expect(String(error)).toContain("'properties/tags/additionalProperties'");
    expect(server.requests).toHaveLength(0);
  });

  it('refuses, before sending, a function name Gemini refuses, naming the tool and the fix', async () => {
    for (const name of ['1st_lookup', 'get weather', 'x'.repeat(65)]) {
      const error = await call(
        { messages: [QUESTION], tools: [{ ...SEARCH, name }], toolChoice: { type: 'auto' } },
        'generate',
      ).catch((thrown: unknown) => thrown);
      expect((error as { code?: string }).code, name).toBe('invalid_request');
      expect((error as { providerCode?: string }).providerCode).toBe('invalid_function_name');
      expect(String(error)).toContain(JSON.stringify(name));
      expect(String(error)).toContain('a letter or an underscore first');
    }
    expect(server.requests).toHaveLength(0);
    // Dots, colons and dashes are Gemini's to take: sent as they are.
    server.enqueue({ type: 'response', text: 'ok' });
    await call({ messages: [QUESTION], tools: [{ ...SEARCH, name: '_web.search:v2-beta' }] }, 'generate');
    expect(declarations()[0]?.name).toBe('_web.search:v2-beta');
  });

  it("sends a registry's tool whose name starts with a digit (an MCP tool) under its mapped name, and maps the call back", async () => {
    const builder = defineTool({
      name: '21st_magic_component_builder',
      description: 'Builds a component.',
      input: { type: 'object', properties: { prompt: { type: 'string' } }, required: ['prompt'] },
      execute: (args) => args,
    });
    const registry = new ToolRegistry([builder]);
    const [spec] = registry.specs({ target: 'gemini' });
    expect(spec?.name).toBe('_21st_magic_component_builder');
    server.enqueue({
      type: 'gemini',
      chunks: [
        chunk([
          { functionCall: { id: 'c1', name: '_21st_magic_component_builder', args: { prompt: 'a card' } } },
        ]),
        finish(),
      ],
    });
    const response = await call(
      { messages: [QUESTION], tools: registry.specs({ target: 'gemini' }) },
      'generate',
    );
    // The fake server refuses what Gemini refuses: the request went through, under the mapped name.
    expect(declarations()[0]?.name).toBe('_21st_magic_component_builder');
    const toolCall = response.toolCalls[0];
    expect(registry.resolve(toolCall?.toolName ?? '')?.name).toBe('21st_magic_component_builder');
  });

  for (const mode of ['generate', 'stream'] as const) {
    it(`maps property names Gemini refuses and maps the arguments back · ${mode}`, async () => {
      const spec: ToolSpec = {
        name: 'registrar_vehiculo',
        description: 'Registra un vehículo.',
        inputSchema: {
          type: 'object',
          properties: { año_vehiculo: { type: 'integer' }, 'user.name': { type: 'string' } },
          required: ['año_vehiculo'],
        },
      };
      server.enqueue({
        type: 'gemini',
        chunks: [
          chunk([
            {
              functionCall: {
                id: 'c1',
                name: 'registrar_vehiculo',
                args: { ano_vehiculo: 2020, user_name: 'Ana' },
              },
            },
          ]),
          finish(),
        ],
      });
      const response = await call({ messages: [QUESTION], tools: [spec] }, mode);
      const sent = declarations()[0]?.parametersJsonSchema as Json;
      expect(Object.keys(sent.properties as Json)).toEqual(['ano_vehiculo', 'user_name']);
      expect(response.toolCalls[0]?.arguments).toBe('{"año_vehiculo":2020,"user.name":"Ana"}');
      expect(response.adjustments.some((adjustment) => adjustment.kind === 'schema-adapted')).toBe(true);
    });
  }
});

describe('thought signatures', () => {
  for (const mode of ['generate', 'stream'] as const) {
    it(`come back on the same parts, in the same order, byte for byte, across a tool turn · ${mode}`, async () => {
      const thought = server.sign({ text: 'Two cities: call twice.', thought: true });
      const first = server.sign({
        functionCall: { id: 'fc_1', name: 'get_weather', args: { city: 'Paris' } },
      });
      const second = { functionCall: { id: 'fc_2', name: 'get_weather', args: { city: 'Rome' } } };
      server.enqueue({
        type: 'gemini',
        chunks: [
          chunk([thought]),
          chunk([{ text: 'Checking both.' }]),
          chunk([first]),
          chunk([second]),
          finish(),
        ],
      });
      const model = geminiProvider(server.baseURL)('gemini-3-flash');
      const request: ModelRequest = {
        messages: [QUESTION],
        tools: TOOLS,
        providerOptions: { google: { thinkingConfig: { thinkingLevel: 'low', includeThoughts: true } } },
      };
      const answer =
        mode === 'generate' ? await model.generate(request) : await collectStream(model.stream(request));
      expect(body().generationConfig).toMatchObject({
        thinkingConfig: { thinkingLevel: 'LOW', includeThoughts: true },
      });
      expect(answer.toolCalls.map((toolCall) => toolCall.id)).toEqual(['fc_1', 'fc_2']);
      expect(answer.reasoning?.[0]).toMatchObject({ provider: 'google', text: 'Two cities: call twice.' });

      // The tool turn, and the model's next answer, signed on its text.
      const closing = server.sign({ text: 'Paris 18°C, Rome 24°C.' });
      server.enqueue({ type: 'gemini', chunks: [chunk([closing]), finish()] });
      const next: ModelRequest = {
        ...request,
        messages: [
          QUESTION,
          {
            role: 'assistant',
            content: answer.text,
            toolCalls: answer.toolCalls,
            ...(answer.reasoning ? { reasoning: answer.reasoning } : {}),
          },
          // Results in another order than the calls: sent back in the calls' order.
          { role: 'tool', toolCallId: 'fc_2', toolName: 'get_weather', content: '24°C' },
          { role: 'tool', toolCallId: 'fc_1', toolName: 'get_weather', content: '18°C' },
        ],
      };
      const final =
        mode === 'generate' ? await model.generate(next) : await collectStream(model.stream(next));
      expect(final.text).toBe('Paris 18°C, Rome 24°C.');
      const contents = body(1).contents as Json[];
      expect(contents[1]).toEqual({
        role: 'model',
        parts: [
          { text: 'Two cities: call twice.', thought: true, thoughtSignature: thought.thoughtSignature },
          { text: 'Checking both.' },
          {
            functionCall: { id: 'fc_1', name: 'get_weather', args: { city: 'Paris' } },
            thoughtSignature: first.thoughtSignature,
          },
          { functionCall: { id: 'fc_2', name: 'get_weather', args: { city: 'Rome' } } },
        ],
      });
      expect(contents[2]).toEqual({
        role: 'user',
        parts: [
          { functionResponse: { id: 'fc_1', name: 'get_weather', response: { output: '18°C' } } },
          { functionResponse: { id: 'fc_2', name: 'get_weather', response: { output: '24°C' } } },
        ],
      });

      // A third turn keeps the text signature on its text part.
      server.enqueue({ type: 'response', text: 'You are welcome.' });
      await model.generate({
        messages: [
          ...next.messages,
          {
            role: 'assistant',
            content: final.text,
            ...(final.reasoning ? { reasoning: final.reasoning } : {}),
          },
          { role: 'user', content: 'Thanks!' },
        ],
      });
      expect((body(2).contents as Json[])[3]).toEqual({
        role: 'model',
        parts: [{ text: 'Paris 18°C, Rome 24°C.', thoughtSignature: closing.thoughtSignature }],
      });
    });
  }

  for (const mode of ['generate', 'stream'] as const) {
    it(`a signature on a text part in the middle, and on an empty closing part, stays on that part · ${mode}`, async () => {
      const middle = server.sign({ text: 'world' });
      const closing = server.sign({ text: '' });
      server.enqueue({
        type: 'gemini',
        chunks: [
          chunk([{ text: 'Hello ' }]),
          chunk([middle]),
          chunk([{ text: '!' }]),
          chunk([closing]),
          finish(),
        ],
      });
      const answer = await call({ messages: [QUESTION] }, mode);
      expect(answer.text).toBe('Hello world!');
      server.enqueue({ type: 'response', text: 'ok' });
      await call(
        {
          messages: [
            QUESTION,
            {
              role: 'assistant',
              content: answer.text,
              ...(answer.reasoning ? { reasoning: answer.reasoning } : {}),
            },
            { role: 'user', content: 'Again?' },
          ],
        },
        'generate',
      );
      expect((body(1).contents as Json[])[1]?.parts).toEqual([
        { text: 'Hello ' },
        { text: 'world', thoughtSignature: middle.thoughtSignature },
        { text: '!' },
        { text: '', thoughtSignature: closing.thoughtSignature },
      ]);
    });
  }

  it('sends a thinking budget as thinkingConfig.thinkingBudget (Gemini 2.5), includeThoughts beside it', async () => {
    server.enqueue({ type: 'response', text: 'ok' });
    const model = geminiProvider(server.baseURL)('gemini-2.5-flash', { family: 'gemini-2.5' });
    await model.generate({
      messages: [QUESTION],
      providerOptions: { google: { thinkingConfig: { thinkingBudget: 1024, includeThoughts: true } } },
    });
    expect((body().generationConfig as Json).thinkingConfig).toEqual({
      thinkingBudget: 1024,
      includeThoughts: true,
    });
  });

  for (const mode of ['generate', 'stream'] as const) {
    it(`a function-calling turn Gemini 3 did not sign (another provider's) goes with the documented skip value, reported · ${mode}`, async () => {
      server.enqueue({ type: 'response', text: 'Paris: 18°C.' });
      const response = await call(
        {
          messages: [
            QUESTION,
            {
              role: 'assistant',
              content: 'Checking.',
              toolCalls: [
                { id: 'call_a', toolName: 'get_weather', arguments: '{"city":"Paris"}' },
                { id: 'call_b', toolName: 'get_weather', arguments: '{"city":"Rome"}' },
              ],
              reasoning: [{ type: 'reasoning', provider: 'anthropic', text: 'FOREIGN', signature: 'c2ln' }],
            },
            { role: 'tool', toolCallId: 'call_a', toolName: 'get_weather', content: '18°C' },
            { role: 'tool', toolCallId: 'call_b', toolName: 'get_weather', content: '24°C' },
          ],
          tools: TOOLS,
        },
        mode,
      );
      expect(response.text).toBe('Paris: 18°C.');
      expect((body().contents as Json[])[1]?.parts).toEqual([
        { text: 'Checking.' },
        {
          functionCall: { id: 'call_a', name: 'get_weather', args: { city: 'Paris' } },
          thoughtSignature: 'skip_thought_signature_validator',
        },
        { functionCall: { id: 'call_b', name: 'get_weather', args: { city: 'Rome' } } },
      ]);
      expect(server.requests[0]?.raw).not.toContain('FOREIGN');
      const reasons = response.adjustments.map((adjustment) => adjustment.details?.reason);
      expect(reasons).toEqual(
        expect.arrayContaining(['foreign-reasoning-dropped', 'thought-signature-skipped']),
      );
      const skipped = response.adjustments.find(
        (adjustment) => adjustment.details?.reason === 'thought-signature-skipped',
      );
      expect(skipped?.details?.messageIndexes).toEqual([1]);
    });
  }

  it('a family that does not require signatures (Gemini 2.5) gets an unsigned turn as it is, nothing reported', async () => {
    server.enqueue({ type: 'response', text: 'ok' });
    const response = await call(
      {
        messages: [
          QUESTION,
          {
            role: 'assistant',
            content: '',
            toolCalls: [{ id: 'fc_1', toolName: 'get_weather', arguments: '{"city":"Paris"}' }],
          },
          { role: 'tool', toolCallId: 'fc_1', toolName: 'get_weather', content: '18°C' },
        ],
        tools: TOOLS,
      },
      'generate',
      'gemini-2.5-flash',
      GEMINI_2_5,
    );
    expect(server.requests[0]?.raw).not.toContain('thoughtSignature');
    expect(response.adjustments).toEqual([]);
  });

  it('a signature Gemini did not issue is refused by the API: a typed InvalidRequestError with its message', async () => {
    server.sign({ text: 'issued' }); // the fake checks signatures against those it issued
    const error = await call(
      {
        messages: [
          QUESTION,
          {
            role: 'assistant',
            content: '',
            toolCalls: [{ id: 'fc_1', toolName: 'get_weather', arguments: '{"city":"Paris"}' }],
            reasoning: [
              {
                type: 'reasoning',
                provider: 'google',
                text: '',
                signature: 'bm90LWlzc3VlZA==',
                id: 'gemini-part:function-call:fc_1',
              },
            ],
          },
          { role: 'tool', toolCallId: 'fc_1', toolName: 'get_weather', content: '18°C' },
        ],
        tools: TOOLS,
      },
      'generate',
    ).catch((thrown: unknown) => thrown);
    expect((error as { code?: string }).code).toBe('invalid_request');
    expect((error as { statusCode?: number }).statusCode).toBe(400);
    expect(String(error)).toContain('Corrupted thought signature');
    expect(JSON.stringify((body().contents as Json[])[1])).toContain('"thoughtSignature":"bm90LWlzc3VlZA=="');
  });

  it('drops and reports reasoning of another provider', async () => {
    server.enqueue({ type: 'response', text: 'ok' });
    const response = await call(
      {
        messages: [
          QUESTION,
          {
            role: 'assistant',
            content: 'Earlier answer.',
            reasoning: [{ type: 'reasoning', provider: 'anthropic', text: 'FOREIGN', signature: 'c2ln' }],
          },
          { role: 'user', content: 'And now?' },
        ],
      },
      'generate',
    );
    expect(server.requests[0]?.raw).not.toContain('FOREIGN');
    expect(response.adjustments.some((adjustment) => adjustment.kind === 'history-rewritten')).toBe(true);
  });
});

describe('call ids', () => {
  for (const mode of ['generate', 'stream'] as const) {
    it(`gives calls without an id stable ids, and answers parallel calls of one function by name and order · ${mode}`, async () => {
      server.enqueue({
        type: 'gemini',
        chunks: [
          chunk([
            { functionCall: { name: 'get_weather', args: { city: 'Paris' } } },
            { functionCall: { name: 'get_weather', args: { city: 'Rome' } } },
          ]),
          finish(),
        ],
      });
      const first = await call({ messages: [QUESTION], tools: TOOLS }, mode, 'gemini-2.5-flash', GEMINI_2_5);
      const [paris, rome] = first.toolCalls;
      expect(paris?.id).toMatch(/^gemini-call-/);
      expect(rome?.id).not.toBe(paris?.id);
      server.enqueue({ type: 'response', text: 'done' });
      await call(
        {
          messages: [
            QUESTION,
            { role: 'assistant', content: '', toolCalls: first.toolCalls },
            { role: 'tool', toolCallId: rome?.id ?? '', toolName: 'get_weather', content: 'Rome: 24°C' },
            { role: 'tool', toolCallId: paris?.id ?? '', toolName: 'get_weather', content: 'Paris: 18°C' },
          ],
          tools: TOOLS,
        },
        mode,
        'gemini-2.5-flash',
        GEMINI_2_5,
      );
      const contents = body(1).contents as Json[];
      // No generated id goes on the wire; the responses follow the calls' order.
      expect(contents[1]?.parts).toEqual([
        { functionCall: { name: 'get_weather', args: { city: 'Paris' } } },
        { functionCall: { name: 'get_weather', args: { city: 'Rome' } } },
      ]);
      expect(contents[2]?.parts).toEqual([
        { functionResponse: { name: 'get_weather', response: { output: 'Paris: 18°C' } } },
        { functionResponse: { name: 'get_weather', response: { output: 'Rome: 24°C' } } },
      ]);
    });
  }
});

describe('streaming', () => {
  it('emits each tool-call as soon as its chunk arrives, before the rest of the answer', async () => {
    server.enqueue({
      type: 'gemini',
      chunks: [
        chunk([{ functionCall: { id: 'a', name: 'get_weather', args: { city: 'Paris' } } }]),
        chunk([{ text: 'and ' }]),
        chunk([{ functionCall: { id: 'b', name: 'search', args: { query: 'Rome' } } }]),
        finish('STOP', {
          promptTokenCount: 7,
          candidatesTokenCount: 3,
          thoughtsTokenCount: 4,
          totalTokenCount: 14,
        }),
      ],
    });
    const parts: StreamPart[] = [];
    for await (const part of geminiProvider(server.baseURL)('gemini-3-flash').stream({
      messages: [QUESTION],
      tools: TOOLS,
    })) {
      parts.push(part);
    }
    const order = parts.map((part) => (part.type === 'tool-call' ? `call:${part.toolCall.id}` : part.type));
    expect(order).toEqual([
      'tool-call-start',
      'tool-call-delta',
      'call:a',
      'text-delta',
      'tool-call-start',
      'tool-call-delta',
      'call:b',
      'finish',
    ]);
    const last = parts.at(-1);
    expect(last?.type === 'finish' ? last.usage : undefined).toEqual({
      inputTokens: 7,
      outputTokens: 7,
      totalTokens: 14,
      reasoningTokens: 4,
    });
    expect(last?.type === 'finish' ? last.finishReason : undefined).toBe('tool-calls');
    expect(server.requests[0]?.path).toContain(':streamGenerateContent?alt=sse');
  });

  it('assembles argument fragments (Vertex AI streamFunctionCallArguments): start at once, the call when complete', async () => {
    const fragment = (partialArgs: Json[], extra: Json = {}): Json =>
      chunk([{ functionCall: { partialArgs, ...extra } }]);
    server.enqueue({
      type: 'gemini',
      chunks: [
        chunk([{ functionCall: { id: 'w1', name: 'get_weather', willContinue: true } }]),
        fragment([{ jsonPath: '$.city', stringValue: 'Par', willContinue: true }], { willContinue: true }),
        fragment([{ jsonPath: '$.city', stringValue: 'is' }], { willContinue: true }),
        fragment([
          { jsonPath: "$['unit']", nullValue: 'NULL_VALUE' },
          { jsonPath: '$.days[0]', numberValue: 2 },
        ]),
        finish(),
      ],
    });
    const model = vertexProvider(server.baseURL)('gemini-2.5-pro', { family: 'gemini-2.5' });
    const parts: StreamPart[] = [];
    for await (const part of model.stream({
      messages: [QUESTION],
      tools: TOOLS,
      providerOptions: { google: { streamFunctionCallArguments: true } },
    })) {
      parts.push(part);
    }
    expect(body().toolConfig).toEqual({
      functionCallingConfig: { mode: 'AUTO', streamFunctionCallArguments: true },
    });
    expect(parts.map((part) => part.type)).toEqual([
      'tool-call-start',
      'tool-call-delta',
      'tool-call',
      'finish',
    ]);
    const call = parts.find((part) => part.type === 'tool-call');
    expect(call?.type === 'tool-call' ? call.toolCall : undefined).toEqual({
      id: 'w1',
      toolName: 'get_weather',
      arguments: '{"city":"Paris","unit":null,"days":[2]}',
    });
  });

  it('refuses streamFunctionCallArguments on the Gemini API before sending', async () => {
    const error = await call(
      {
        messages: [QUESTION],
        tools: TOOLS,
        providerOptions: { google: { streamFunctionCallArguments: true } },
      },
      'generate',
    ).catch((thrown: unknown) => thrown);
    expect((error as { code?: string }).code).toBe('invalid_provider_options');
    expect(server.requests).toHaveLength(0);
  });

  it('a stream cut while a call was still arriving (willContinue) ends with IncompleteToolCallError', async () => {
    server.enqueue({
      type: 'gemini',
      chunks: [
        chunk([{ functionCall: { id: 'big', name: 'search', willContinue: true } }]),
        chunk([
          {
            functionCall: {
              partialArgs: [{ jsonPath: '$.query', stringValue: 'wea', willContinue: true }],
              willContinue: true,
            },
          },
        ]),
      ],
      cut: true,
    });
    const parts: StreamPart[] = [];
    for await (const part of geminiProvider(server.baseURL)('gemini-3-flash').stream({
      messages: [QUESTION],
      tools: TOOLS,
    })) {
      parts.push(part);
    }
    expect(parts.filter((part) => part.type === 'tool-call')).toHaveLength(0);
    const last = parts.at(-1);
    expect(last?.type === 'error' ? (last.error as { code?: string }).code : last?.type).toBe(
      'incomplete_tool_call',
    );
    const partial =
      last?.type === 'error' ? (last.error as { partialArguments?: string }).partialArguments : '';
    expect(partial).toBe('{"query":"wea"}');
  });

  it('a consumer that stops reading early closes the connection', async () => {
    server.enqueue({ type: 'stall', text: 'Thinking about it' });
    for await (const part of geminiProvider(server.baseURL)('gemini-3-flash').stream({
      messages: [QUESTION],
    })) {
      expect(part.type).toBe('text-delta');
      break;
    }
    await vi.waitFor(() => expect(server.closedEarly()).toBe(1));
  });

  it('a stream that ends cleanly without a finish reason is a StreamInterruptedError with the partial text', async () => {
    server.enqueue({ type: 'gemini', chunks: [chunk([{ text: 'Half an ans' }])] });
    const parts: StreamPart[] = [];
    for await (const part of geminiProvider(server.baseURL)('gemini-3-flash').stream({
      messages: [QUESTION],
    })) {
      parts.push(part);
    }
    const last = parts.at(-1);
    const error =
      last?.type === 'error' ? (last.error as { code?: string; partialText?: string }) : undefined;
    expect(error?.code).toBe('stream_interrupted');
    expect(error?.partialText).toBe('Half an ans');
  });
});

describe('finish reasons', () => {
  for (const mode of ['generate', 'stream'] as const) {
    for (const reason of ['SAFETY', 'RECITATION']) {
      it(`${reason} → finishReason content-filter, raw reason kept · ${mode}`, async () => {
        server.enqueue({ type: 'gemini', chunks: [chunk([{ text: 'Partial' }]), finish(reason)] });
        const response = await call({ messages: [QUESTION] }, mode);
        expect(response.finishReason).toBe('content-filter');
        expect(response.rawFinishReason).toBe(reason);
      });
    }
    for (const reason of ['MALFORMED_FUNCTION_CALL', 'UNEXPECTED_TOOL_CALL']) {
      it(`${reason} → FunctionCallFailedError, never an empty answer · ${mode}`, async () => {
        server.enqueue({
          type: 'gemini',
          chunks: [
            {
              candidates: [
                { finishReason: reason, finishMessage: 'Malformed function call: print(x', index: 0 },
              ],
            },
          ],
        });
        const error = await call({ messages: [QUESTION], tools: TOOLS }, mode).catch(
          (thrown: unknown) => thrown,
        );
        expect((error as { code?: string }).code).toBe('function_call_failed');
        expect((error as { finishReason?: string }).finishReason).toBe(reason);
        expect((error as { retryable?: boolean }).retryable).toBe(true);
      });
    }
    it(`a blocked prompt (promptFeedback.blockReason) → content-filter · ${mode}`, async () => {
      server.enqueue({ type: 'gemini', chunks: [{ promptFeedback: { blockReason: 'PROHIBITED_CONTENT' } }] });
      const response = await call({ messages: [QUESTION] }, mode);
      expect(response.finishReason).toBe('content-filter');
      expect(response.rawFinishReason).toBe('PROHIBITED_CONTENT');
    });
  }
});

describe('structured output and content parts', () => {
  it('sends responseMimeType application/json with responseJsonSchema', async () => {
    server.enqueue({ type: 'response', text: '{"city":"Paris"}' });
    const schema = { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } as const;
    const response = await call(
      {
        messages: [QUESTION],
        responseFormat: { type: 'json', name: 'answer', schema: { ...schema, required: ['city'] } },
      },
      'generate',
    );
    expect(response.text).toBe('{"city":"Paris"}');
    expect(body().generationConfig).toMatchObject({
      responseMimeType: 'application/json',
      responseJsonSchema: schema,
    });
  });

  it('sends images and files as inlineData and fileData, and tool-result media inside the functionResponse (Gemini 3)', async () => {
    server.enqueue({ type: 'response', text: 'ok' });
    const thought = server.sign({ functionCall: { id: 'r1', name: 'search', args: { query: 'radar' } } });
    await call(
      {
        messages: [
          {
            role: 'user',
            content: [
              { type: 'text', text: 'Look:' },
              { type: 'image', mediaType: 'image/png', data: 'iVBORw0KGgo=' },
              { type: 'file', mediaType: 'application/pdf', url: 'https://example.com/report.pdf' },
            ],
          },
          {
            role: 'assistant',
            content: '',
            toolCalls: [{ id: 'r1', toolName: 'search', arguments: '{"query":"radar"}' }],
            reasoning: [
              {
                type: 'reasoning',
                provider: 'google',
                text: '',
                signature: String(thought.thoughtSignature),
                id: 'gemini-part:function-call:r1',
              },
            ],
          },
          {
            role: 'tool',
            toolCallId: 'r1',
            toolName: 'search',
            content: [
              { type: 'text', text: 'Radar attached.' },
              { type: 'image', mediaType: 'image/webp', data: 'UklGRg==' },
            ],
          },
        ],
        tools: TOOLS,
      },
      'generate',
    );
    const contents = body().contents as Json[];
    expect(contents[0]?.parts).toEqual([
      { text: 'Look:' },
      { inlineData: { mimeType: 'image/png', data: 'iVBORw0KGgo=' } },
      { fileData: { fileUri: 'https://example.com/report.pdf', mimeType: 'application/pdf' } },
    ]);
    expect(contents[2]?.parts).toEqual([
      {
        functionResponse: {
          id: 'r1',
          name: 'search',
          response: { output: 'Radar attached.' },
          parts: [{ inlineData: { mimeType: 'image/webp', data: 'UklGRg==' } }],
        },
      },
    ]);
  });
});

describe('Vertex AI', () => {
  it('calls the Vertex path with a bearer token, for generate and stream', async () => {
    server.enqueue({ type: 'response', text: 'Bonjour' });
    server.enqueue({ type: 'response', text: 'Bonjour' });
    const model = vertexProvider(server.baseURL)('gemini-2.5-pro', { family: 'gemini-2.5' });
    expect((await model.generate({ messages: [QUESTION] })).text).toBe('Bonjour');
    expect((await collectStream(model.stream({ messages: [QUESTION] }))).text).toBe('Bonjour');
    expect(server.requests.map((request) => request.path)).toEqual([
      '/v1beta1/projects/fake-project/locations/us-central1/publishers/google/models/gemini-2.5-pro:generateContent',
      '/v1beta1/projects/fake-project/locations/us-central1/publishers/google/models/gemini-2.5-pro:streamGenerateContent?alt=sse',
    ]);
    expect(server.requests[0]?.headers.authorization).toBe('Bearer fake-vertex-token');
    expect(server.requests[0]?.headers['x-goog-api-key']).toBeUndefined();
    expect(project(server.requests[0] as never).messages.map((message) => message.role)).toEqual(['user']);
  });
});

describe('history rewrites', () => {
  it('sends broken call arguments as {} and leaves out an empty assistant turn, reporting both', async () => {
    server.enqueue({ type: 'response', text: 'ok' });
    const response = await call(
      {
        messages: [
          QUESTION,
          { role: 'assistant', content: '' },
          { role: 'user', content: 'Try again.' },
          {
            role: 'assistant',
            content: '',
            toolCalls: [{ id: 'b1', toolName: 'search', arguments: '{"query": "ro' }],
          },
          {
            role: 'tool',
            toolCallId: 'b1',
            toolName: 'search',
            content: 'Invalid arguments.',
            isError: true,
          },
        ],
        tools: TOOLS,
      },
      'generate',
      'gemini-2.5-flash',
      GEMINI_2_5,
    );
    const contents = body().contents as Json[];
    expect(contents.map((content) => content.role)).toEqual(['user', 'model', 'user']);
    expect(contents[0]?.parts).toEqual([{ text: 'Weather in Paris and Rome?' }, { text: 'Try again.' }]);
    expect(contents[1]?.parts).toEqual([{ functionCall: { id: 'b1', name: 'search', args: {} } }]);
    expect(contents[2]?.parts).toEqual([
      { functionResponse: { id: 'b1', name: 'search', response: { error: 'Invalid arguments.' } } },
    ]);
    const reasons = response.adjustments.map((adjustment) => adjustment.details?.reason);
    expect(reasons).toEqual(
      expect.arrayContaining(['tool-arguments-replaced', 'empty-assistant-message-dropped']),
    );
  });
});

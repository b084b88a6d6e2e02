import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { type Action, collectStream, type ModelResponse, type ToolCall } from '@org/core';
import { describe, expect, it } from 'vitest';
import { jsonReply, sseReply } from './fake-openai-server.js';
import { withTestModel } from './test-provider.js';

// Recordings collected by the Vercel AI SDK (see ../shared/corpora/README.md), replayed through the real SDK.
const CORPUS = fileURLToPath(
  new URL('../../../../shared/corpora/provider-fixtures/openai-chat/', import.meta.url),
);
const files = readdirSync(CORPUS);
const read = (name: string): string => readFileSync(`${CORPUS}${name}`, 'utf8');

/**
 * The Actions a recording yields: each call's arguments parsed as a JSON object. (The full parse + repair +
 * validate path lives in @org/tools, which providers do not depend on; here the raw text must simply be JSON.)
 */
function toActions(toolCalls: readonly ToolCall[]): Action[] {
  return toolCalls.map((call) => {
    const args: unknown = JSON.parse(call.arguments);
    if (typeof args !== 'object' || args === null || Array.isArray(args))
      throw new Error(`${call.id}: not an object`);
    return { id: call.id, toolName: call.toolName, args: args as Record<string, unknown> };
  });
}

/** What each recording holds, read independently of the adapter from the recordings themselves. */
const EXPECTED: Record<string, { actions: Action[]; text?: string; cachedInputTokens?: number }> = {
  'alibaba-tool-call.json': {
    actions: [
      { id: 'call_962bfd2ab8f54b89a1161356', toolName: 'weather', args: { location: 'San Francisco' } },
    ],
    cachedInputTokens: 0,
  },
  'alibaba-tool-call.chunks.txt': {
    actions: [
      { id: 'call_eee11723464a4b9eb8cee71d', toolName: 'weather', args: { location: 'San Francisco' } },
    ],
  },
  'deepseek-tool-call.json': {
    actions: [
      { id: 'call_00_9V0vrf86Pc9aelHCJMZqnJBo', toolName: 'weather', args: { location: 'San Francisco' } },
    ],
    cachedInputTokens: 320,
  },
  'deepseek-tool-call.chunks.txt': {
    actions: [
      { id: 'call_00_ioIn7yN9p1ZOMNpDLwd4MgAF', toolName: 'weather', args: { location: 'San Francisco' } },
    ],
    cachedInputTokens: 320,
  },
  'groq-tool-call.json': { actions: [{ id: 'ax9fskhev', toolName: 'weather', args: {} }] },
  'groq-tool-call.chunks.txt': { actions: [{ id: 'tk85n1k4m', toolName: 'weather', args: {} }] },
  'moonshotai-tool-call.json': {
    actions: [{ id: 'call_abc123', toolName: 'get_weather', args: { city: 'Paris' } }],
  },
  'xai-tool-call.json': {
    actions: [{ id: 'call_93562515', toolName: 'weather', args: { location: 'San Francisco' } }],
    cachedInputTokens: 244,
  },
  'xai-tool-call.chunks.txt': {
    actions: [{ id: 'call_55117580', toolName: 'weather', args: { location: 'San Francisco' } }],
    cachedInputTokens: 290,
  },
  'openai-text.json': { actions: [] },
  'openai-text.chunks.txt': { actions: [] },
  'anthropic-fallback-tool-call.sse': {
    actions: [{ id: 'toolu_sanitized', toolName: 'read_file', args: { path: 'a.txt' } }],
    text: 'Reading it.',
  },
};

const REQUEST = {
  messages: [{ role: 'user' as const, content: 'What is the weather in San Francisco?' }],
  tools: [
    {
      name: 'weather',
      description: 'Weather for a location.',
      inputSchema: { type: 'object' as const, properties: { location: { type: 'string' as const } } },
    },
  ],
};

async function replay(name: string): Promise<ModelResponse> {
  let response: ModelResponse | undefined;
  await withTestModel({ api: 'chat' }, async ({ server, model }) => {
    if (name.endsWith('.json')) {
      server.enqueue(jsonReply(200, JSON.parse(read(name))));
      response = await model.generate(REQUEST);
    } else if (name.endsWith('.chunks.txt')) {
      const lines = read(name)
        .split('\n')
        .filter((line) => line.trim() !== '');
      server.enqueue(sseReply(lines));
      response = await collectStream(model.stream(REQUEST));
    } else {
      server.enqueue({
        type: 'raw',
        handle: ({ response: http }) => {
          http.writeHead(200, { 'content-type': 'text/event-stream' });
          http.end(read(name));
        },
      });
      response = await collectStream(model.stream(REQUEST));
    }
  });
  if (response === undefined) throw new Error(`no response for ${name}`);
  return response;
}

describe('openai-chat recordings replay through the adapter', () => {
  it('every recording in the corpus has an expectation', () => {
    expect(files.sort()).toEqual(Object.keys(EXPECTED).sort());
  });

  for (const name of Object.keys(EXPECTED)) {
    const expected = EXPECTED[name]!;
    it(`${name} → ${expected.actions.length === 0 ? 'no Action' : expected.actions.map((action) => action.toolName).join(', ')}`, async () => {
      const response = await replay(name);
      expect(toActions(response.toolCalls)).toEqual(expected.actions);
      expect(response.finishReason).toBe(expected.actions.length > 0 ? 'tool-calls' : 'stop');
      if (expected.actions.length === 0) expect(response.text.length).toBeGreaterThan(100);
      if (expected.text !== undefined) expect(response.text).toBe(expected.text);
      if (expected.cachedInputTokens !== undefined)
        expect(response.usage.cachedInputTokens).toBe(expected.cachedInputTokens);
      expect(response.usage.inputTokens).toBeGreaterThan(name.endsWith('.sse') ? -1 : 0);
    });
  }

  // No `.json` / `.chunks.txt` pair is one recording (their response and call ids differ), so streamed and
  // non-streamed are not compared call for call; where a pair answers the same prompt, they must agree on what
  // to do: the same tools with the same arguments.
  for (const provider of ['alibaba', 'deepseek', 'groq', 'xai']) {
    it(`${provider}: the streamed and non-streamed recordings ask for the same Actions (ids aside)`, async () => {
      const generated = await replay(`${provider}-tool-call.json`);
      const streamed = await replay(`${provider}-tool-call.chunks.txt`);
      const withoutIds = (response: ModelResponse): unknown =>
        toActions(response.toolCalls).map(({ toolName, args }) => ({ toolName, args }));
      expect(withoutIds(streamed)).toEqual(withoutIds(generated));
      expect(streamed.toolCalls[0]?.id).not.toBe(generated.toolCalls[0]?.id);
    });
  }

  it('the same recording served both ways gives the same answer (a recorded stream, re-served as its JSON body)', async () => {
    // Built from one recording: the deepseek stream, and the completion those same chunks add up to.
    const lines = read('deepseek-tool-call.chunks.txt')
      .split('\n')
      .filter((line) => line.trim() !== '');
    const chunks = lines.map(
      (line) =>
        JSON.parse(line) as {
          id: string;
          usage?: unknown;
          choices: {
            delta: { tool_calls?: { id?: string; function?: { name?: string; arguments?: string } }[] };
          }[];
        },
    );
    let argumentsText = '';
    for (const chunk of chunks)
      for (const choice of chunk.choices)
        for (const call of choice.delta.tool_calls ?? []) argumentsText += call.function?.arguments ?? '';
    const body = {
      id: chunks[0]!.id,
      object: 'chat.completion',
      created: 1764664568,
      model: 'deepseek-reasoner',
      choices: [
        {
          index: 0,
          message: {
            role: 'assistant',
            content: '',
            tool_calls: [
              {
                id: 'call_00_ioIn7yN9p1ZOMNpDLwd4MgAF',
                type: 'function',
                function: { name: 'weather', arguments: argumentsText },
              },
            ],
          },
          finish_reason: 'tool_calls',
        },
      ],
      usage: chunks.at(-1)!.usage,
    };
    let generated: ModelResponse | undefined;
    let streamed: ModelResponse | undefined;
    await withTestModel({ api: 'chat' }, async ({ server, model }) => {
      server.enqueue(jsonReply(200, body), sseReply(lines));
      generated = await model.generate(REQUEST);
      streamed = await collectStream(model.stream(REQUEST));
    });
    expect(streamed?.toolCalls).toEqual(generated?.toolCalls);
    expect(streamed?.usage).toEqual(generated?.usage);
    expect(streamed?.finishReason).toBe(generated?.finishReason);
    expect(streamed?.responseId).toBe(generated?.responseId);
  });

  // DeepSeek's recorded thinking: `reasoning_content` beside the answer. The expected text is read from the recording.
  describe('deepseek thinking (reasoning_content) → one reasoning part of the adapter', () => {
    const recordedReasoning = (name: string): string => {
      if (name.endsWith('.json')) {
        const body = JSON.parse(read(name)) as { choices: { message: { reasoning_content: string } }[] };
        return body.choices[0]!.message.reasoning_content;
      }
      return read(name)
        .split('\n')
        .filter((line) => line.trim() !== '')
        .map((line) => JSON.parse(line) as { choices: { delta: { reasoning_content?: string | null } }[] })
        .flatMap((chunk) => chunk.choices.map((choice) => choice.delta.reasoning_content ?? ''))
        .join('');
    };
    const recordedReasoningTokens = (name: string): number => {
      const usage = read(name).match(/"reasoning_tokens":\s*(\d+)/);
      return Number(usage?.[1]);
    };
    for (const name of ['deepseek-tool-call.json', 'deepseek-tool-call.chunks.txt']) {
      it(name, async () => {
        const response = await replay(name);
        const text = recordedReasoning(name);
        expect(text.length).toBeGreaterThan(50);
        expect(response.reasoning).toEqual([{ type: 'reasoning', provider: 'openai', text }]);
        expect(response.usage.reasoningTokens).toBe(recordedReasoningTokens(name));
      });
    }
  });
});

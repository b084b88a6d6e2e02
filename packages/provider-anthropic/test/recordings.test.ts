import { readdirSync, readFileSync } from 'node:fs';
import {
  collectStream,
  type FinishReason,
  type ModelResponse,
  type ReasoningPart,
  type StreamPart,
  type ToolSpec,
} from '@org/core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { MalformedStreamError } from '../src/index.js';
import {
  type FakeAnthropicServer,
  type MessageLike,
  messageToEvents,
  startFakeAnthropicServer,
} from './fake-anthropic-server.js';
import { testProvider } from './test-provider.js';

// Every recording in ../shared/corpora/provider-fixtures/anthropic replayed through the adapter and the real SDK.
// `.json` files are non-streamed bodies; `.chunks.txt` files hold one SSE `data:` payload per line, served with the
// `event: <type>` line the SDK requires.

const DIRECTORY = new URL('../../../../shared/corpora/provider-fixtures/anthropic/', import.meta.url);
const read = (file: string): string => readFileSync(new URL(file, DIRECTORY), 'utf8');

interface Expectation {
  /** Client tool calls, by name and parsed arguments, in order. */
  readonly calls: readonly { readonly toolName: string; readonly args: unknown }[];
  readonly finishReason: FinishReason;
  /** The whole text, or a check of it. */
  readonly text: string | ((text: string) => boolean);
  readonly usage?: { readonly inputTokens: number; readonly outputTokens: number };
  /** The reasoning parts, in order; none when left out. */
  readonly reasoning?: readonly ReasoningPart[];
  readonly note?: string;
}

const none: Expectation['calls'] = [];
const SF_ELEMENTS = [
  { location: 'San Francisco', temperature: -5, condition: 'snowy' },
  { location: 'London', temperature: 0, condition: 'snowy' },
  { location: 'Paris', temperature: 23, condition: 'cloudy' },
  { location: 'Berlin', temperature: -9, condition: 'snowy' },
];

/** What each recording must yield. A recording added to the corpus without an entry here fails the suite. */
const EXPECTED: Record<string, Expectation | 'spliced-message'> = {
  'anthropic-clear-thinking.1.json': {
    calls: none,
    finishReason: 'stop',
    text: '925 ÷ 5 = 185',
    reasoning: [
      {
        type: 'reasoning',
        provider: 'anthropic',
        text: '925 divided by 5 = 185',
        signature:
          'Er4BCkYICxgCKkCoxqLHLrx4mFL9Ox7/aHKht87WDzXfvZ7qbZKSnHV8imA5b3LXxuVqcXQ9z5sXwDx20JIW/+6DJehOSNK72L83Egx0T9s7VzB6QUK9g5kaDO9lGaWN5CPEDJU0lyIw4+Ed3q4N9w+16h3cfQ+9stJXHCl+1nYDxjIOLcyJT8Ug/LTmtlp4bbxWmmfNicayKiasdReHiOnqz1sKEF0pR4kcnF5mQGdLxk8q3A3NY+wGsH8MtUIqxRgB',
      },
    ],
    note: 'the thinking block, signed, before the text',
  },
  'anthropic-clear-thinking.1.chunks.txt': {
    calls: none,
    finishReason: 'stop',
    text: '925 ÷ 5 = 185',
    usage: { inputTokens: 69, outputTokens: 53 },
    reasoning: [
      {
        type: 'reasoning',
        provider: 'anthropic',
        text: 'The previous result was 925. Now I need to divide that by 5.\n\n925 ÷ 5 = 185',
        signature:
          'EvQBCkYICxgCKkAxhD4NUKFzudtZ6NzbZdEiBACIScTzqjPViM596iWLZIk4EFKYYBj3B6Ptl3b0dcQv/VeJBNbejNWIWRBn+KPNEgz6HWtKx7p+QRgKsEoaDGjsiqfht7gTRFYHiyIwD1VSmNqHxv3wy8KEMP+LYb/TC4UH3H97tuoaADARFFcA0phdfxnzKQxFnc9lwY+dKlzUsaKSUAFeu1bDL5ikZJ1vL0Fkz6JjoFke0L/wOJRIUDUlDUOFJ1tZ3ea7g6LGE/5hwuvWgLwewdcm64d+43l7F57XrOmqNd6flI2K/oPr/4yzNgvi/EhT6Ca17BgB',
      },
    ],
    note: 'ten thinking_delta events (one empty) and one signature_delta make one signed reasoning part',
  },
  'anthropic-clear-tool-uses.1.json': {
    calls: none,
    finishReason: 'stop',
    text: (text) => text.startsWith("\n\nHere's a comparison") && text.endsWith('right now!'),
  },
  'anthropic-clear-tool-uses.1.chunks.txt': {
    calls: none,
    finishReason: 'stop',
    text: (text) =>
      text.startsWith("\n\nHere's a comparison") && text.endsWith('the better choice right now.'),
  },
  'anthropic-json-other-tool.1.json': {
    calls: [{ toolName: 'weather', args: { location: 'San Francisco' } }],
    finishReason: 'tool-calls',
    text: '',
  },
  'anthropic-json-other-tool.1.chunks.txt': {
    calls: [{ toolName: 'weather', args: { location: 'San Francisco' } }],
    finishReason: 'tool-calls',
    text: '',
    usage: { inputTokens: 843, outputTokens: 28 },
  },
  'anthropic-json-tool.1.json': {
    calls: [{ toolName: 'json', args: { elements: SF_ELEMENTS } }],
    finishReason: 'tool-calls',
    text: '',
  },
  'anthropic-json-tool.1.chunks.txt': {
    calls: [
      {
        toolName: 'json',
        args: { elements: [{ location: 'San Francisco', temperature: 58, condition: 'sunny' }] },
      },
    ],
    finishReason: 'tool-calls',
    text: '',
  },
  'anthropic-json-tool.2.chunks.txt': {
    calls: [
      {
        toolName: 'json',
        args: { elements: [{ location: 'San Francisco', temperature: 58, condition: 'sunny' }] },
      },
    ],
    finishReason: 'tool-calls',
    text: "I'll invoke the JSON response tool.",
  },
  'anthropic-mcp.1.json': {
    calls: none,
    finishReason: 'stop',
    text: (text) => text.startsWith('The echo tool responded back with: **"hello world"**'),
    note: 'mcp_tool_use / mcp_tool_result run on the server: left out',
  },
  'anthropic-mcp.1.chunks.txt': {
    calls: none,
    finishReason: 'stop',
    text: 'The echo tool responded back with: **hello world**\n\nIt simply echoed back the exact message that was sent to it.',
    note: 'the mcp_tool_use input streamed as input_json_delta is not a client call',
  },
  'anthropic-message-delta-input-tokens.chunks.txt': {
    calls: none,
    finishReason: 'stop',
    text: 'pong',
    usage: { inputTokens: 61, outputTokens: 2 },
  },
  'anthropic-programmatic-tool-calling.1.json': {
    calls: none,
    finishReason: 'stop',
    text: (text) =>
      text.startsWith("I'll help you simulate this dice game") && text.includes('**Game Over!**'),
    note: 'rollDie calls made by server-side code execution (caller code_execution_20250825) are not client calls',
  },
  'anthropic-programmatic-tool-calling.1.chunks.txt': {
    calls: none,
    finishReason: 'other',
    text: (text) => text.length > 0,
    note: 'first message only (reading stops at message_stop); its tool_use is called by code execution, so tool_use leaves nothing for the client: finish other',
  },
  'anthropic-refusal.json': {
    calls: none,
    finishReason: 'content-filter',
    text: '',
    usage: { inputTokens: 18, outputTokens: 5 },
  },
  'anthropic-refusal.chunks.txt': {
    calls: none,
    finishReason: 'content-filter',
    text: '',
    usage: { inputTokens: 18, outputTokens: 5 },
  },
  'anthropic-text.json': {
    calls: none,
    finishReason: 'stop',
    text: "Hello! I'm doing well, thanks for asking. How are you doing today? Is there anything I can help you with?",
  },
  'anthropic-text.chunks.txt': {
    calls: none,
    finishReason: 'stop',
    text: "Hello! I'm doing well, thank you for asking. How are you doing today? Is there anything I can help you with?",
    usage: { inputTokens: 12, outputTokens: 30 },
  },
  'anthropic-tool-no-args.json': {
    calls: [{ toolName: 'updateIssueList', args: {} }],
    finishReason: 'tool-calls',
    text: (text) => text.startsWith('<thinking>'),
  },
  'anthropic-tool-no-args.chunks.txt': {
    calls: [{ toolName: 'updateIssueList', args: {} }],
    finishReason: 'tool-calls',
    text: "I'll update the issue list for you.",
  },
  'anthropic-tool-search-regex.1.json': {
    calls: [{ toolName: 'get_temp_data', args: { location: 'San Francisco, CA', unit: 'fahrenheit' } }],
    finishReason: 'tool-calls',
    text: 'I found a tool to get temperature data! Let me use it to get the weather information for San Francisco.',
    note: 'the server-side tool_search_tool_regex call and its result are left out',
  },
  'anthropic-tool-search-regex.1.chunks.txt': {
    calls: [{ toolName: 'get_temp_data', args: { location: 'San Francisco, CA' } }],
    finishReason: 'tool-calls',
    text: 'Great! I found a weather tool. Let me get the current weather data for San Francisco.',
    note: 'the file holds two messages; reading stops at the first message_stop',
  },
  'duplicate-message-start.chunks.txt': {
    calls: none,
    finishReason: 'stop',
    text: 'Hello, World!',
    usage: { inputTokens: 17, outputTokens: 227 },
  },
  'spliced-message-start.chunks.txt': 'spliced-message',
};

const tools: ToolSpec[] = ['weather', 'json', 'updateIssueList', 'get_temp_data', 'rollDie', 'test-tool'].map(
  (name) => ({
    name,
    description: `${name} tool`,
    inputSchema: { type: 'object' },
  }),
);
const request = { messages: [{ role: 'user' as const, content: 'Replay.' }], tools };

let server: FakeAnthropicServer;
beforeEach(async () => {
  server = await startFakeAnthropicServer();
});
afterEach(async () => {
  await server.close();
});

function sseOf(chunks: string): string[] {
  return chunks
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => `event: ${(JSON.parse(line) as { type: string }).type}\ndata: ${line}\n\n`);
}

function check(response: ModelResponse, expected: Expectation): void {
  expect(
    response.toolCalls.map((call) => ({
      toolName: call.toolName,
      args: JSON.parse(call.arguments) as unknown,
    })),
  ).toEqual(expected.calls);
  for (const call of response.toolCalls) expect(call.id).toMatch(/^toolu_/);
  expect(response.finishReason).toBe(expected.finishReason);
  if (typeof expected.text === 'string') expect(response.text).toBe(expected.text);
  else expect(expected.text(response.text)).toBe(true);
  if (expected.usage !== undefined) expect(response.usage).toMatchObject(expected.usage);
  expect(response.reasoning).toEqual(expected.reasoning);
}

const files = readdirSync(DIRECTORY)
  .filter((file) => file.endsWith('.json') || file.endsWith('.chunks.txt'))
  .sort();

describe('the corpus', () => {
  it('has an expectation for every recording, and every expectation has its recording', () => {
    expect(files).toEqual(Object.keys(EXPECTED).sort());
  });

  it('pairs x.json / x.chunks.txt are separate recordings here (different message ids): checked one by one', () => {
    const pairs = files.filter(
      (file) => file.endsWith('.json') && files.includes(file.replace(/\.json$/, '.chunks.txt')),
    );
    expect(pairs.length).toBeGreaterThan(0);
    for (const file of pairs) {
      const jsonId = (JSON.parse(read(file)) as { id: string }).id;
      const firstLine = read(file.replace(/\.json$/, '.chunks.txt')).split('\n')[0] ?? '{}';
      const streamId = (JSON.parse(firstLine) as { message?: { id?: string } }).message?.id;
      // Were they one recording, the check below (streamed equals non-streamed) would run on the pair itself.
      expect(streamId).not.toBe(jsonId);
    }
  });
});

describe.each(files.filter((file) => file.endsWith('.json')))('%s', (file) => {
  const expected = EXPECTED[file];
  const body = JSON.parse(read(file)) as MessageLike;

  it('yields the expected text, tool calls and finish reason through generate()', async () => {
    server.enqueue({ type: 'json', body });
    if (typeof expected !== 'object') throw new Error(`no expectation for ${file}`);
    check(await testProvider(server)('m').generate(request), expected);
  });

  it('gives the same response when the same answer is streamed', async () => {
    server.enqueue({ type: 'json', body }, { type: 'sse', events: messageToEvents(body, 3) });
    const model = testProvider(server)('m');
    const generated = await model.generate(request);
    expect(await collectStream(model.stream(request))).toEqual(generated);
  });
});

describe.each(files.filter((file) => file.endsWith('.chunks.txt')))('%s', (file) => {
  const expected = EXPECTED[file];

  it('replays through stream()', async () => {
    server.enqueue({ type: 'sse', events: sseOf(read(file)) });
    const stream = testProvider(server)('m').stream(request);
    if (expected === 'spliced-message') {
      const parts: StreamPart[] = [];
      for await (const part of stream) parts.push(part);
      const last = parts[parts.length - 1];
      expect(last?.type).toBe('error');
      expect((last as { error: unknown }).error as MalformedStreamError).toMatchObject({
        reason: 'spliced-message',
        code: 'stream_interrupted',
      });
      expect(parts.some((part) => part.type === 'tool-call' || part.type === 'finish')).toBe(false);
      return;
    }
    if (expected === undefined) throw new Error(`no expectation for ${file}`);
    const parts: StreamPart[] = [];
    for await (const part of stream) parts.push(part);
    const response = await collectStream(
      (async function* replay() {
        yield* parts;
      })(),
    );
    check(response, expected);
    // Reasoning deltas add up to the reasoning text, and come before the part that completes it.
    const reasoningDeltas = parts.flatMap((part) => (part.type === 'reasoning-delta' ? [part.delta] : []));
    expect(reasoningDeltas.join('')).toBe((response.reasoning ?? []).map((part) => part.text).join(''));
    if (reasoningDeltas.length > 0) {
      expect(parts.findIndex((part) => part.type === 'reasoning')).toBeGreaterThan(
        parts.findLastIndex((part) => part.type === 'reasoning-delta'),
      );
    }
    // Deltas add up to each call's arguments.
    for (const call of response.toolCalls) {
      const deltas = parts
        .filter((part) => part.type === 'tool-call-delta' && part.toolCallId === call.id)
        .map((part) => (part as { argumentsDelta: string }).argumentsDelta)
        .join('');
      expect(deltas).toBe(call.arguments);
    }
  });
});

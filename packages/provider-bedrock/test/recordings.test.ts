import { readdirSync } from 'node:fs';
import { collectStream, type StreamPart, type ToolCall } from '@org/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  BEDROCK_FIXTURES_DIR,
  type FakeBedrockServer,
  readChunksFixture,
  readJsonFixture,
  startFakeBedrock,
} from './fake-bedrock-server.js';
import { createTestBedrock } from './test-provider.js';

interface ConverseFixture {
  output: {
    message: {
      content: Array<{ text?: string; toolUse?: { toolUseId: string; name: string; input: unknown } }>;
    };
  };
  stopReason: string;
  usage: { inputTokens: number; outputTokens: number; totalTokens: number };
}

const files = readdirSync(BEDROCK_FIXTURES_DIR);
const jsonFixtures = files.filter((name) => name.endsWith('.json'));
const chunkFixtures = files.filter((name) => name.endsWith('.chunks.txt'));
const messages = [{ role: 'user' as const, content: 'Replay the recording.' }];

let server: FakeBedrockServer;
beforeAll(async () => {
  server = await startFakeBedrock();
});
afterAll(async () => {
  await server.close();
});

describe('every recording in provider-fixtures/bedrock replays through the adapter', () => {
  it('finds the recordings', () => {
    expect(jsonFixtures.length).toBeGreaterThanOrEqual(11);
    expect(chunkFixtures.length).toBeGreaterThanOrEqual(12);
  });

  it.each(jsonFixtures)('Converse %s', async (fileName) => {
    const fixture = readJsonFixture(fileName) as ConverseFixture;
    server.enqueue({ json: fixture });
    const model = createTestBedrock(server).provider('anthropic.claude-3-haiku-20240307-v1:0');
    const response = await model.generate({ messages });

    const blocks = fixture.output.message.content;
    const expectedCalls: ToolCall[] = blocks.flatMap((block) =>
      block.toolUse === undefined
        ? []
        : [
            {
              id: block.toolUse.toolUseId,
              toolName: block.toolUse.name,
              arguments: JSON.stringify(block.toolUse.input),
            },
          ],
    );
    expect(response.text).toBe(blocks.map((block) => block.text ?? '').join(''));
    expect(response.toolCalls).toEqual(expectedCalls);
    expect(response.finishReason).toBe(fixture.stopReason === 'tool_use' ? 'tool-calls' : 'stop');
    expect(response.rawFinishReason).toBe(fixture.stopReason);
    expect(response.usage.inputTokens).toBe(fixture.usage.inputTokens);
    expect(response.usage.outputTokens).toBe(fixture.usage.outputTokens);
    expect(response.usage.totalTokens).toBe(fixture.usage.totalTokens);
    expect(response.adjustments).toEqual([]);
    for (const call of response.toolCalls) expect(() => JSON.parse(call.arguments)).not.toThrow();
  });

  it.each(chunkFixtures)('ConverseStream %s', async (fileName) => {
    const items = readChunksFixture(fileName);
    server.enqueue({ stream: items });
    const model = createTestBedrock(server).provider('us.anthropic.claude-3-5-sonnet-20240620-v1:0');
    const parts: StreamPart[] = [];
    for await (const part of model.stream({ messages })) parts.push(part);

    // The expectation, derived from the recording independently of the adapter.
    let text = '';
    const calls = new Map<number, { id: string; name: string; input: string }>();
    let stopReason = '';
    let usage: { inputTokens: number; outputTokens: number } | undefined;
    interface RecordedEvent {
      contentBlockIndex: number;
      start?: { toolUse?: { toolUseId: string; name: string } };
      delta?: { text?: string; toolUse?: { input: string } };
      stopReason?: string;
      usage?: { inputTokens: number; outputTokens: number };
    }
    for (const item of items) {
      if (!('event' in item)) continue;
      const payload = item.payload as RecordedEvent;
      const toolUse = payload.start?.toolUse;
      if (item.event === 'contentBlockStart' && toolUse !== undefined) {
        calls.set(payload.contentBlockIndex, { id: toolUse.toolUseId, name: toolUse.name, input: '' });
      }
      if (item.event === 'contentBlockDelta') {
        if (payload.delta?.text !== undefined) text += payload.delta.text;
        const call = calls.get(payload.contentBlockIndex);
        if (payload.delta?.toolUse !== undefined && call !== undefined)
          call.input += payload.delta.toolUse.input;
      }
      if (item.event === 'messageStop') stopReason = payload.stopReason ?? '';
      if (item.event === 'metadata') usage = payload.usage;
    }

    const last = parts.at(-1);
    expect(last?.type).toBe('finish');
    expect(parts.filter((part) => part.type === 'finish' || part.type === 'error')).toHaveLength(1);
    const collected = await collectStream(
      (async function* () {
        yield* parts;
      })(),
    );
    expect(collected.text).toBe(text);
    expect(collected.toolCalls).toEqual(
      [...calls.entries()]
        .sort(([left], [right]) => left - right)
        .map(([, call]) => ({
          id: call.id,
          toolName: call.name,
          arguments: call.input === '' ? '{}' : call.input,
        })),
    );
    expect(collected.rawFinishReason).toBe(stopReason);
    expect(collected.finishReason).toBe(stopReason === 'tool_use' ? 'tool-calls' : 'stop');
    expect(collected.usage.inputTokens).toBe(usage?.inputTokens ?? 0);
    expect(collected.usage.outputTokens).toBe(usage?.outputTokens ?? 0);
    // Each call is announced, streamed and completed under one id.
    for (const call of collected.toolCalls) {
      expect(parts).toContainEqual({ type: 'tool-call-start', toolCallId: call.id, toolName: call.toolName });
      const deltas = parts
        .filter((part) => part.type === 'tool-call-delta' && part.toolCallId === call.id)
        .map((part) => (part.type === 'tool-call-delta' ? part.argumentsDelta : ''))
        .join('');
      expect(deltas === '' ? '{}' : deltas).toBe(call.arguments);
    }
  });

  it('the reasoning recording yields the answer as text and the thinking as one signed reasoning part', async () => {
    server.enqueue({ stream: readChunksFixture('amazon-bedrock-reasoning.chunks.txt') });
    server.enqueue({ json: readJsonFixture('amazon-bedrock-reasoning.json') });
    const model = createTestBedrock(server).provider('us.anthropic.claude-3-7-sonnet-20250219-v1:0');
    const streamed = await collectStream(model.stream({ messages }));
    expect(streamed.text).toBe('There are **3** r\'s in "strawberry":\n\n1. st**r**awbe**r****r**y');
    expect(streamed.reasoning).toHaveLength(1);
    expect(streamed.reasoning?.[0]).toMatchObject({ type: 'reasoning', provider: 'bedrock' });
    expect(streamed.reasoning?.[0]?.text.startsWith('Let me count')).toBe(true);
    expect(streamed.reasoning?.[0]?.signature?.startsWith('Ep0CCkgICxAB')).toBe(true);
    const generated = await model.generate({ messages });
    expect(generated.text).toBe(streamed.text);
    expect(generated.text).not.toContain('Let me count');
    expect(generated.reasoning?.[0]?.signature?.startsWith('EvYBCkgICxAB')).toBe(true);
  });

  it('a block start with no toolUse and a tool call with empty input (tool-no-args) give arguments {}', async () => {
    server.enqueue({ stream: readChunksFixture('amazon-bedrock-tool-no-args.chunks.txt') });
    const model = createTestBedrock(server).provider('m');
    const response = await collectStream(model.stream({ messages }));
    expect(response.text).toBe("I'll update the issue list for you.");
    expect(response.toolCalls).toEqual([{ id: 'tool-use-id', toolName: 'updateIssueList', arguments: '{}' }]);
  });
});

import { collectStream, type Message, type ModelRequest, type ReasoningPart, type ToolSpec } from '@org/core';
import { describe, expect, it } from 'vitest';
import { countRequestTokens, createScriptedModel } from './index.js';

const weather: ToolSpec = { name: 'get_weather', description: 'Weather.', inputSchema: { type: 'object' } };
const call = { id: 'call_1', toolName: 'get_weather', arguments: '{"city":"Paris"}' };

const own: ReasoningPart = {
  type: 'reasoning',
  provider: 'scripted',
  text: 'Ask for Paris.',
  signature: 'b3du',
};
const foreign: ReasoningPart = {
  type: 'reasoning',
  provider: 'anthropic',
  text: 'FOREIGN: thought elsewhere.',
  signature: 'Zm9yZWlnbg==',
};

function history(reasoning: readonly ReasoningPart[]): Message[] {
  return [
    { role: 'user', content: 'Weather in Paris?' },
    { role: 'assistant', content: '', toolCalls: [call], reasoning },
    { role: 'tool', toolCallId: call.id, toolName: call.toolName, content: '18 °C' },
  ];
}

describe("reasoning in the history: the model's own is sent back, another provider's is left out", () => {
  it.each(['generate', 'stream'] as const)(
    "leaves out another provider's reasoning, reports it, and counts only what it sends · %s",
    async (method) => {
      const seen: ModelRequest[] = [];
      const model = createScriptedModel({
        script: (request) => {
          seen.push(request);
          return { text: 'Paris: 18 °C.' };
        },
      });
      const request: ModelRequest = { messages: history([foreign, own, foreign]), tools: [weather] };
      const response =
        method === 'generate' ? await model.generate(request) : await collectStream(model.stream(request));
      const sent = history([own]);
      expect(seen[0]?.messages).toEqual(sent);
      expect(model.requests[0]).toBe(request);
      expect(response.usage.inputTokens).toBe(countRequestTokens({ messages: sent, tools: [weather] }));
      expect(response.adjustments).toEqual([
        {
          kind: 'history-rewritten',
          message: expect.stringContaining(
            "Left out 2 reasoning part(s) of assistant message(s) 1, produced by 'anthropic'",
          ),
          details: {
            reason: 'foreign-reasoning-dropped',
            messageIndexes: [1],
            providers: ['anthropic'],
            count: 2,
          },
        },
      ]);
    },
  );

  it('drops the reasoning field of a message whose reasoning was all foreign, and keeps the rest of the request', async () => {
    const seen: ModelRequest[] = [];
    const model = createScriptedModel({
      script: (request) => {
        seen.push(request);
        return { text: 'ok' };
      },
    });
    await model.generate({ messages: history([foreign]), tools: [weather], temperature: 0.2 });
    expect(seen[0]?.messages[1]).toEqual({ role: 'assistant', content: '', toolCalls: [call] });
    expect(seen[0]?.temperature).toBe(0.2);
    expect(JSON.stringify(seen[0])).not.toContain('FOREIGN');
  });

  it("sends the model's own reasoning back unchanged, the same request object, without adjustments", async () => {
    const seen: ModelRequest[] = [];
    const model = createScriptedModel({
      provider: 'acme',
      script: (request) => {
        seen.push(request);
        return { text: 'ok' };
      },
    });
    const acme: ReasoningPart = { ...own, provider: 'acme' };
    const request: ModelRequest = { messages: history([acme]), tools: [weather] };
    const response = await model.generate(request);
    expect(seen[0]).toBe(request);
    expect(response.adjustments).toEqual([]);
  });
});

import type { Message, ToolSpec } from '@org/core';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createScriptedModel, createTaskScripts, type TaskOutputs } from './index.js';

const codeTool: ToolSpec = {
  name: 'run_code',
  description: 'declare function search(args: { query: string }): Promise<unknown>;',
  inputSchema: { type: 'object' },
};
const numRuns = Number(process.env.FC_NUM_RUNS ?? 200);

describe('createTaskScripts: the code script reads any program result', () => {
  it('answers from any text or JSON the code tool returned, reading only own keys, never throwing', async () => {
    const seen: TaskOutputs[] = [];
    const scripts = createTaskScripts({
      calls: [
        { id: 'a', toolName: 'search', arguments: { query: 'a' } },
        { id: 'b', toolName: 'search', arguments: { query: '$ref:a.next' } },
      ],
      answer: (observed) => {
        seen.push(observed);
        return 'answered';
      },
    });
    const json = fc.jsonValue().map((value) => JSON.stringify(value));
    const shaped = fc
      .record({
        status: fc.constantFrom('success', 'error', '__proto__', 'constructor'),
        value: fc.jsonValue(),
        failedCalls: fc.dictionary(fc.string(), fc.jsonValue()),
        tookEffect: fc.dictionary(
          fc.constantFrom('#1 search', '#2 search', '__proto__', 'toString'),
          fc.jsonValue(),
        ),
      })
      .map((body) => JSON.stringify(body));
    await fc.assert(
      fc.asyncProperty(fc.oneof(fc.string(), json, shaped), async (content) => {
        const model = createScriptedModel({ script: scripts.code });
        const history: Message[] = [
          { role: 'user', content: 'go' },
          { role: 'assistant', content: '', toolCalls: [{ id: 'c', toolName: 'run_code', arguments: '{}' }] },
          { role: 'tool', toolCallId: 'c', toolName: 'run_code', content },
        ];
        const response = await model.generate({ messages: history, tools: [codeTool] });
        expect(response.text).toBe('answered');
        const observed = seen.at(-1);
        // Whatever the result said, nothing was read through a prototype.
        expect(Object.getPrototypeOf(observed?.outputs)).toBeNull();
        expect(Object.getPrototypeOf(observed?.errors)).toBeNull();
      }),
      { numRuns },
    );
  });
});

import { defineTool, executeStreamingAction, ToolRegistry } from '@org/tools';
import { afterAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { shopTools } from './__fixtures__/shop-tools.js';
import { CODE_MODE_TOOL_NAME, type CodeResult, closeCodeSandboxes, createCodeModeTool } from './index.js';
import { scanLiteralArguments } from './literal-arguments.js';

afterAll(() => closeCodeSandboxes());

/** The arguments text of a code call, cut into fragments of `size` characters, as a model streams them. */
function fragmentsOf(code: string, size: number): string[] {
  const text = JSON.stringify({ code });
  const fragments: string[] = [];
  for (let index = 0; index < text.length; index += size) fragments.push(text.slice(index, index + size));
  return fragments;
}

describe('literal arguments', () => {
  it('reads literal objects, refuses expressions, and waits for what is incomplete', () => {
    const text = "{ id: 'o1', n: -2.5, ok: true, list: [1, 'a', null,], 'x y': {} }); next();";
    expect(scanLiteralArguments(text, 0)).toEqual({
      kind: 'literal',
      value: { id: 'o1', n: -2.5, ok: true, list: [1, 'a', null], 'x y': {} },
      end: text.indexOf(';'),
    });
    expect(scanLiteralArguments('{ id: orderId })', 0).kind).toBe('not-literal');
    // biome-ignore lint/suspicious/noTemplateCurlyInString: a template literal in the model's program, as text.
    expect(scanLiteralArguments('{ id: `o${1}` })', 0).kind).toBe('not-literal');
    expect(scanLiteralArguments('{ ...rest })', 0).kind).toBe('not-literal');
    expect(scanLiteralArguments('{ n: 1 + 2 })', 0).kind).toBe('not-literal');
    expect(scanLiteralArguments("{ id: 'o1' }, 2)", 0).kind).toBe('not-literal');
    expect(scanLiteralArguments('{ id: "o', 0).kind).toBe('incomplete');
    expect(scanLiteralArguments("{ id: 'o1' }", 0).kind).toBe('incomplete');
    expect(scanLiteralArguments('{ "__proto__": { "x": 1 } })', 0)).toMatchObject({ kind: 'literal' });
  });
});

describe('a streamed code call', () => {
  it('starts an eager call with literal arguments before the program is complete, and the program takes its result', async () => {
    let startedWhileStreaming = false;
    let streaming = true;
    let lookups = 0;
    const lookup = defineTool({
      name: 'lookup',
      description: 'Looks a key up.',
      input: z.object({ key: z.string() }),
      eager: true,
      execute: async ({ key }) => {
        lookups += 1;
        if (streaming) startedWhileStreaming = true;
        return { key, value: key.length };
      },
    });
    const results: CodeResult[] = [];
    const tools = new ToolRegistry([
      // Literal calls alone: a prefix run could also start the second lookup early, or not, as the race goes.
      createCodeModeTool({
        tools: [lookup, ...shopTools],
        onCodeResult: (result) => results.push(result),
        maxPrefixRuns: 0,
      }),
    ]);
    const code = [
      "const first = await lookup({ key: 'alpha' });",
      "// lookup({ key: 'in a comment' }) is never made",
      'const second = await lookup({ key: first.key + "!" });',
      'return first.value + second.value;',
    ].join('\n');
    const execution = executeStreamingAction(tools, { id: 'call_1', toolName: CODE_MODE_TOOL_NAME });
    expect(execution.startedEarly).toBe(true);
    for (const fragment of fragmentsOf(code, 7)) {
      execution.push(fragment);
      await new Promise((resolve) => setImmediate(resolve));
    }
    streaming = false;
    execution.complete({ id: 'call_1', toolName: CODE_MODE_TOOL_NAME, args: { code } });
    const observation = await execution.observation;
    expect(observation.status).toBe('success');
    const text = JSON.parse(String(observation.output));
    expect(text.value).toBe(11);
    expect(startedWhileStreaming).toBe(true);
    const [result] = results;
    expect(result?.calls.map((call) => call.early === true)).toEqual([true, false]);
    expect(result?.calls[0]?.observation.actionId).toBe('call_1/early-1');
    // The call written in a comment started early too (it was harmless: eager), was never made, and is reported.
    expect(result?.unusedEarlyCalls.map((call) => call.action.args)).toEqual([{ key: 'in a comment' }]);
    expect(text.unusedEarlyCalls).toContain('Their results were discarded');
    expect(lookups).toBe(3);
  });

  it('never starts a tool that is not eager or needs approval, and discards early calls of an answer that will not run', async () => {
    let ran = 0;
    const notEager = defineTool({
      name: 'write_note',
      description: 'Writes a note.',
      input: z.object({ text: z.string() }),
      execute: () => {
        ran += 1;
        return 'ok';
      },
    });
    const tools = new ToolRegistry([createCodeModeTool({ tools: [notEager, ...shopTools] })]);
    const code =
      "await write_note({ text: 'a' });\nawait refund_order({ id: 'o1' });\nawait get_order({ id: 'o1' });";
    const execution = executeStreamingAction(tools, { id: 'call_2', toolName: CODE_MODE_TOOL_NAME });
    for (const fragment of fragmentsOf(code, 5)) execution.push(fragment);
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(ran).toBe(0);
    execution.abort('the answer was discarded');
    const observation = await execution.observation;
    expect(observation.status).toBe('aborted');
    expect(ran).toBe(0);
  });
});

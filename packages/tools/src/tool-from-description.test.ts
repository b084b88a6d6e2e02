import { describe, expect, it } from 'vitest';
import {
  executeAction,
  InvalidToolDescriptionError,
  loadToolDescriptions,
  ToolRegistry,
  toolCallToAction,
  toolFromDescription,
} from './index.js';

describe('toolFromDescription', () => {
  it('makes every argument a required string', () => {
    const tool = toolFromDescription({
      name: 'escalate',
      description: 'Hand over to a human.',
      args: { reason: 'Why', team: 'Which team' },
    });
    expect(tool.inputSchema).toEqual({
      type: 'object',
      properties: {
        reason: { type: 'string', description: 'Why' },
        team: { type: 'string', description: 'Which team' },
      },
      required: ['reason', 'team'],
    });
    const listed = toolFromDescription({ name: 'note', description: 'Take a note.', args: ['text'] });
    expect(listed.inputSchema.required).toEqual(['text']);
  });

  it('returns its arguments by default, or runs the given function', async () => {
    const echo = toolFromDescription({
      name: 'answer',
      description: 'The final answer.',
      args: { text: 'The answer' },
    });
    const run = toolFromDescription({ name: 'shout', description: 'Shout.', args: ['text'] }, ({ text }) =>
      String(text).toUpperCase(),
    );
    const registry = new ToolRegistry([echo, run]);
    const action = toolCallToAction(registry, { id: 'c1', toolName: 'answer', arguments: '{"text": "42"}' });
    expect(action.ok && (await executeAction(registry, action.action)).output).toEqual({ text: '42' });
    expect(
      (await executeAction(registry, { id: 'c2', toolName: 'shout', args: { text: 'hi' } })).output,
    ).toBe('HI');
    // A number sent for a string argument converts back exactly, so it is accepted.
    const coerced = toolCallToAction(registry, { id: 'c3', toolName: 'answer', arguments: '{"text": 42}' });
    expect(coerced.ok && coerced.action.args).toEqual({ text: '42' });
  });
});

describe('loadToolDescriptions', () => {
  it('loads a YAML list', () => {
    const tools = loadToolDescriptions(`
- name: escalate
  description: Hand the conversation to a human.
  args:
    reason: Why a human is needed
- name: lookup_order
  description: Find an order.
  args: [order_id]
`);
    expect(tools.map((tool) => tool.name)).toEqual(['escalate', 'lookup_order']);
    expect(tools[1]?.inputSchema.required).toEqual(['order_id']);
  });

  it('loads JSON, and an object with a tools list', () => {
    const fromJson = loadToolDescriptions('[{"name": "a", "description": "A.", "args": {"x": "X"}}]');
    expect(fromJson[0]?.inputSchema.required).toEqual(['x']);
    const wrapped = loadToolDescriptions('tools:\n  - name: b\n    description: B.\n');
    expect(wrapped[0]?.inputSchema).toEqual({ type: 'object', properties: {} });
  });

  it('keeps __proto__ keys in YAML as data', () => {
    const tools = loadToolDescriptions(
      '- name: a\n  description: A.\n  args:\n    __proto__: injected\n    x: y\n',
    );
    expect(Object.keys(tools[0]?.inputSchema.properties ?? {})).toEqual(['__proto__', 'x']);
    expect(({} as Record<string, unknown>).x).toBeUndefined();
    expect(Object.getPrototypeOf(tools[0]?.inputSchema.properties)).toBe(Object.prototype);
  });

  it('reports every problem with its path', () => {
    const problems: Array<[string, string]> = [
      ['- name: a\n  description: A.\n- name: a\n  description: B.\n', '[1].name'],
      ['- name: a\n', '[0].description'],
      ['- name: a\n  description: A.\n  argz: {}\n', '[0].argz'],
      ['- name: a\n  description: A.\n  args: [1]\n', '[0].args[0]'],
      ['- name: bad name\n  description: A.\n', '[0]'],
      ['name: a', ''],
      ['[{"name": ', ''],
      ['a: 1\na: 2\n', ''],
    ];
    for (const [text, path] of problems) {
      try {
        loadToolDescriptions(text);
        throw new Error(`expected a failure for ${text}`);
      } catch (error) {
        expect(InvalidToolDescriptionError.isInstance(error), String(error)).toBe(true);
        expect((error as InvalidToolDescriptionError).path).toBe(path);
      }
    }
  });
});

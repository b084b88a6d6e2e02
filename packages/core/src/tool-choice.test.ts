import { describe, expect, expectTypeOf, it } from 'vitest';
import { InvalidToolChoiceError, OrgError } from './errors.js';
import { assertToolChoiceOffered, ToolChoice, type ToolChoiceInput, toToolChoice } from './tool-choice.js';

describe('ToolChoice constructors', () => {
  it('builds each mode, with any as an alias of required', () => {
    expect(ToolChoice.auto()).toEqual({ type: 'auto' });
    expect(ToolChoice.required()).toEqual({ type: 'required' });
    expect(ToolChoice.any()).toEqual({ type: 'required' });
    expect(ToolChoice.none()).toEqual({ type: 'none' });
    expect(ToolChoice.tool('get_weather')).toEqual({ type: 'tool', toolName: 'get_weather' });
  });

  it('returns frozen values that callers cannot corrupt', () => {
    expect(Object.isFrozen(ToolChoice.auto())).toBe(true);
    expect(Object.isFrozen(ToolChoice.tool('x'))).toBe(true);
  });

  it('rejects an empty or non-string tool name with a typed error', () => {
    expect(() => ToolChoice.tool('')).toThrow(InvalidToolChoiceError);
    expect(() => ToolChoice.tool('   ')).toThrow(/non-empty tool name/);
    expect(() => ToolChoice.tool(42 as unknown as string)).toThrow(InvalidToolChoiceError);
  });

  it('has precise types', () => {
    expectTypeOf(ToolChoice.auto()).toEqualTypeOf<ToolChoice>();
    expectTypeOf<ToolChoice['type']>().toEqualTypeOf<'auto' | 'required' | 'none' | 'tool'>();
    expectTypeOf<Extract<ToolChoice, { type: 'tool' }>>().toHaveProperty('toolName').toEqualTypeOf<string>();
    expectTypeOf<'any'>().toExtend<ToolChoiceInput>();
    // Configuration strings (environment variables, YAML) are accepted by the type and checked at run time.
    expectTypeOf<string | undefined>().toExtend<Parameters<typeof toToolChoice>[0]>();
    expectTypeOf(toToolChoice).returns.toEqualTypeOf<ToolChoice>();
  });
});

describe('toToolChoice', () => {
  it('defaults to auto', () => {
    expect(toToolChoice(undefined)).toEqual({ type: 'auto' });
    expect(toToolChoice(null)).toEqual({ type: 'auto' });
  });

  it.each([
    ['auto', { type: 'auto' }],
    ['required', { type: 'required' }],
    ['any', { type: 'required' }],
    ['none', { type: 'none' }],
    [' Required ', { type: 'required' }],
    ['ANY', { type: 'required' }],
  ] as const)('accepts %j', (input, expected) => {
    expect(toToolChoice(input as ToolChoiceInput)).toEqual(expected);
  });

  it('accepts the object forms, including {type:"any"}', () => {
    expect(toToolChoice({ type: 'tool', toolName: 'search' })).toEqual({ type: 'tool', toolName: 'search' });
    expect(toToolChoice({ type: 'none' })).toEqual({ type: 'none' });
    expect(toToolChoice({ type: 'any' } as unknown as ToolChoiceInput)).toEqual({ type: 'required' });
  });

  it('rejects an unknown string, listing the accepted values', () => {
    const error = captureError(() => toToolChoice('sometimes' as ToolChoiceInput));
    expect(InvalidToolChoiceError.isInstance(error)).toBe(true);
    expect(OrgError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ code: 'invalid_tool_choice', value: 'sometimes' });
    expect((error as InvalidToolChoiceError).accepted).toEqual(['auto', 'required', 'any', 'none']);
    expect((error as Error).message).toContain("'auto', 'required', 'any'");
  });

  it.each([
    [42],
    [{}],
    [{ type: 'function', function: { name: 'x' } }],
    [{ type: 'tool' }],
    [{ type: 'tool', toolName: '' }],
    [[]],
  ])('rejects malformed input %j', (input) => {
    expect(() => toToolChoice(input as unknown as ToolChoiceInput)).toThrow(InvalidToolChoiceError);
  });

  it('describes unprintable input without throwing something else', () => {
    const circular: Record<string, unknown> = { type: 'weird' };
    circular.self = circular;
    expect(() => toToolChoice(circular as unknown as ToolChoiceInput)).toThrow(InvalidToolChoiceError);
  });
});

describe('assertToolChoiceOffered', () => {
  const offered = ['get_weather', 'search_web', 'send_email'];

  it('accepts a named tool that is offered, and the unconstrained modes', () => {
    expect(() => assertToolChoiceOffered(ToolChoice.tool('search_web'), offered)).not.toThrow();
    expect(() => assertToolChoiceOffered(ToolChoice.auto(), [])).not.toThrow();
    expect(() => assertToolChoiceOffered(ToolChoice.none(), [])).not.toThrow();
    expect(() => assertToolChoiceOffered(ToolChoice.required(), offered)).not.toThrow();
  });

  it('names the tool, the offered ones and the closest match', () => {
    const error = captureError(() => assertToolChoiceOffered(ToolChoice.tool('get_wether'), offered));
    expect(InvalidToolChoiceError.isInstance(error)).toBe(true);
    const typed = error as InvalidToolChoiceError;
    expect(typed.toolName).toBe('get_wether');
    expect(typed.suggestion).toBe('get_weather');
    expect(typed.accepted).toEqual(offered);
    expect(typed.message).toBe(
      "Tool choice names 'get_wether', which is not offered. Did you mean 'get_weather'? Offered: get_weather, search_web, send_email.",
    );
  });

  it('offers no suggestion when nothing is close', () => {
    const error = captureError(() => assertToolChoiceOffered(ToolChoice.tool('translate'), offered));
    expect((error as InvalidToolChoiceError).suggestion).toBeUndefined();
    expect((error as Error).message).not.toContain('Did you mean');
  });

  it('treats prototype names as ordinary unknown names', () => {
    for (const name of ['constructor', '__proto__', 'toString']) {
      expect(() => assertToolChoiceOffered(ToolChoice.tool(name), offered)).toThrow(InvalidToolChoiceError);
    }
  });

  it('refuses required or a named tool when no tools are offered', () => {
    expect(() => assertToolChoiceOffered(ToolChoice.required(), [])).toThrow(/no tools are offered/);
    expect(() => assertToolChoiceOffered(ToolChoice.tool('x'), [])).toThrow(/Offered: \(no tools\)/);
  });
});

function captureError(action: () => unknown): unknown {
  try {
    action();
  } catch (error) {
    return error;
  }
  throw new Error('expected an error');
}

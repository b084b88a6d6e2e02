import { describe, expect, expectTypeOf, it } from 'vitest';
import { collectStream } from './collect-stream.js';
import { ProviderError, RateLimitError, UnsupportedSpecificationVersionError } from './errors.js';
import {
  assertLanguageModel,
  type LanguageModel,
  type ModelResponse,
  SPECIFICATION_VERSION,
  type StreamPart,
} from './language-model.js';
import { type ModelCapabilities, mergeCapabilities } from './model-capabilities.js';
import { addUsage, createUsage, EMPTY_USAGE, type Usage } from './usage.js';

const capabilities: ModelCapabilities = {
  toolCalls: true,
  toolChoice: { auto: 'native', required: 'native', none: 'native', tool: 'native' },
  parallelToolCalls: true,
  strictSchemas: false,
  streaming: true,
};

async function* partsOf(...parts: StreamPart[]): AsyncIterable<StreamPart> {
  yield* parts;
}

function modelFrom(parts: StreamPart[]): LanguageModel {
  return {
    specificationVersion: 'v1',
    provider: 'test',
    modelId: 'm',
    capabilities,
    generate: () => collectStream(partsOf(...parts)),
    stream: () => partsOf(...parts),
  };
}

describe('assertLanguageModel', () => {
  it('returns a model that implements this specification', () => {
    const model = modelFrom([]);
    expect(assertLanguageModel(model)).toBe(model);
    expect(SPECIFICATION_VERSION).toBe('v1');
  });

  it.each([
    ['another version', { ...modelFrom([]), specificationVersion: 'v2' }, '"v2"'],
    ['no version', { provider: 'legacy', generate() {}, stream() {} }, "Provider 'legacy'"],
    ['no methods', { specificationVersion: 'v1', provider: 'x' }, 'specification "v1"'],
    ['not an object', 'gpt-4o', 'The model implements'],
    ['null', null, 'The model implements'],
  ])('rejects %s with a clear typed error', (_, candidate, fragment) => {
    let caught: unknown;
    try {
      assertLanguageModel(candidate);
    } catch (error) {
      caught = error;
    }
    expect(UnsupportedSpecificationVersionError.isInstance(caught)).toBe(true);
    expect((caught as Error).message).toContain(fragment);
    expect((caught as Error).message).toContain("understands 'v1'");
  });
});

describe('collectStream', () => {
  it('assembles text, tool calls, finish reason, usage and adjustments', async () => {
    const usage = createUsage({ inputTokens: 10, outputTokens: 5, cachedInputTokens: 4 });
    const response = await collectStream(
      partsOf(
        { type: 'text-delta', delta: 'Checking ' },
        { type: 'tool-call-start', toolCallId: 'c1', toolName: 'get_weather' },
        { type: 'tool-call-delta', toolCallId: 'c1', argumentsDelta: '{"city":' },
        { type: 'text-delta', delta: 'now.' },
        { type: 'tool-call-delta', toolCallId: 'c1', argumentsDelta: '"Paris"}' },
        { type: 'tool-call', toolCall: { id: 'c1', toolName: 'get_weather', arguments: '{"city":"Paris"}' } },
        {
          type: 'finish',
          finishReason: 'tool-calls',
          rawFinishReason: 'tool_use',
          usage,
          adjustments: [{ kind: 'tool-choice-emulated', message: 'required emulated' }],
          responseId: 'r1',
        },
      ),
    );
    expect(response).toEqual<ModelResponse>({
      text: 'Checking now.',
      toolCalls: [{ id: 'c1', toolName: 'get_weather', arguments: '{"city":"Paris"}' }],
      finishReason: 'tool-calls',
      rawFinishReason: 'tool_use',
      usage: { inputTokens: 10, outputTokens: 5, totalTokens: 15, cachedInputTokens: 4 },
      adjustments: [{ kind: 'tool-choice-emulated', message: 'required emulated' }],
      responseId: 'r1',
    });
  });

  it('rethrows the error part', async () => {
    const error = new RateLimitError({ provider: 'p', message: 'slow down', retryAfterMs: 10 });
    await expect(
      collectStream(partsOf({ type: 'text-delta', delta: 'x' }, { type: 'error', error })),
    ).rejects.toBe(error);
  });

  it('rejects a stream that ends without finishing', async () => {
    await expect(collectStream(partsOf({ type: 'text-delta', delta: 'x' }))).rejects.toSatisfy((error) =>
      ProviderError.isInstance(error),
    );
  });
});

describe('capabilities', () => {
  it('merges a user override onto declared capabilities, ignoring unset fields', () => {
    const merged = mergeCapabilities(capabilities, {
      toolChoice: { required: 'emulated' },
      parallelToolCalls: false,
    });
    expect(merged.toolChoice).toEqual({
      auto: 'native',
      required: 'emulated',
      none: 'native',
      tool: 'native',
    });
    expect(merged.parallelToolCalls).toBe(false);
    expect(merged.streaming).toBe(true);
    expect(mergeCapabilities(capabilities, undefined)).toBe(capabilities);
    expect(mergeCapabilities(capabilities, { toolChoice: {} }).toolChoice).toEqual(capabilities.toolChoice);
  });
});

describe('usage', () => {
  it('totals input and output unless the provider gave a total', () => {
    expect(createUsage({ inputTokens: 3, outputTokens: 4 })).toEqual({
      inputTokens: 3,
      outputTokens: 4,
      totalTokens: 7,
    });
    expect(createUsage({ inputTokens: 3, outputTokens: 4, totalTokens: 9 }).totalTokens).toBe(9);
  });

  it('adds usages, keeping optional counts only where reported', () => {
    const a = createUsage({ inputTokens: 10, outputTokens: 2, cachedInputTokens: 8 });
    const b = createUsage({ inputTokens: 5, outputTokens: 1 });
    expect(addUsage(a, b)).toEqual({
      inputTokens: 15,
      outputTokens: 3,
      totalTokens: 18,
      cachedInputTokens: 8,
    });
    expect(addUsage(EMPTY_USAGE, b)).toEqual(b);
    expect(addUsage(b, b)).not.toHaveProperty('cachedInputTokens');
  });

  it('types the contract precisely', () => {
    expectTypeOf<Usage['cachedInputTokens']>().toEqualTypeOf<number | undefined>();
    expectTypeOf<StreamPart['type']>().toEqualTypeOf<
      | 'text-delta'
      | 'reasoning-delta'
      | 'reasoning'
      | 'tool-call-start'
      | 'tool-call-delta'
      | 'tool-call'
      | 'finish'
      | 'error'
    >();
    expectTypeOf<LanguageModel['stream']>().returns.toEqualTypeOf<AsyncIterable<StreamPart>>();
    expectTypeOf<ReturnType<LanguageModel['generate']>>().toEqualTypeOf<Promise<ModelResponse>>();
  });
});

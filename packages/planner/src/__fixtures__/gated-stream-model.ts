import {
  createUsage,
  type LanguageModel,
  type ModelRequest,
  type ModelResponse,
  SPECIFICATION_VERSION,
  type StreamPart,
  type ToolCall,
} from '@org/core';

/** One answer of a `GatedStreamModel`: its parts, in order; `'gate'` waits until the test opens the next gate. */
export type GatedAnswer = readonly (StreamPart | 'gate')[];

/** The parts of an answer that writes `text`, then each call (start, two argument deltas, complete), then finishes. */
export function answerParts(options: {
  text?: string;
  toolCalls?: readonly ToolCall[];
  /** Put a gate after the complete part of the call at this index. */
  gateAfterCall?: number;
}): (StreamPart | 'gate')[] {
  const parts: (StreamPart | 'gate')[] = [];
  if (options.text !== undefined) {
    for (const word of options.text.split(/(?<= )/)) parts.push({ type: 'text-delta', delta: word });
  }
  (options.toolCalls ?? []).forEach((call, index) => {
    const args = call.arguments;
    const half = Math.floor(args.length / 2);
    parts.push({ type: 'tool-call-start', toolCallId: call.id, toolName: call.toolName });
    parts.push({ type: 'tool-call-delta', toolCallId: call.id, argumentsDelta: args.slice(0, half) });
    parts.push({ type: 'tool-call-delta', toolCallId: call.id, argumentsDelta: args.slice(half) });
    parts.push({ type: 'tool-call', toolCall: call });
    if (options.gateAfterCall === index) parts.push('gate');
  });
  parts.push({
    type: 'finish',
    finishReason: (options.toolCalls?.length ?? 0) > 0 ? 'tool-calls' : 'stop',
    usage: createUsage({ inputTokens: 10, outputTokens: 5 }),
    adjustments: [],
  });
  return parts;
}

/**
 * A streaming model whose answers the test controls part by part: a `'gate'` holds the stream until `open()`, so a
 * test can observe what the loop did while the model was "still writing". `generate` collects the same parts.
 */
export class GatedStreamModel implements LanguageModel {
  readonly specificationVersion = SPECIFICATION_VERSION;
  readonly provider = 'gated';
  readonly modelId = 'gated-stream';
  readonly capabilities;
  readonly requests: ModelRequest[] = [];
  readonly #answers: GatedAnswer[];
  #gates: (() => void)[] = [];
  #waiting: (() => void)[] = [];

  constructor(answers: readonly GatedAnswer[], options: { streaming?: boolean } = {}) {
    this.#answers = [...answers];
    this.capabilities = {
      toolCalls: true,
      toolChoice: { auto: 'native', none: 'native', required: 'native', tool: 'native' },
      parallelToolCalls: true,
      strictSchemas: false,
      streaming: options.streaming ?? true,
    } as const;
  }

  /** Resolves once the stream is held at a gate. */
  atGate(): Promise<void> {
    if (this.#gates.length > 0) return Promise.resolve();
    return new Promise((resolve) => this.#waiting.push(resolve));
  }

  /** Lets a held stream go on. */
  open(): void {
    this.#gates.shift()?.();
  }

  async generate(request: ModelRequest): Promise<ModelResponse> {
    this.requests.push(request);
    const parts = this.#next().filter((part): part is StreamPart => part !== 'gate');
    let text = '';
    const toolCalls: ToolCall[] = [];
    for (const part of parts) {
      if (part.type === 'text-delta') text += part.delta;
      if (part.type === 'tool-call') toolCalls.push(part.toolCall);
      if (part.type === 'error') throw part.error;
      if (part.type === 'finish') {
        return { text, toolCalls, finishReason: part.finishReason, usage: part.usage, adjustments: [] };
      }
    }
    throw new Error('answer without finish');
  }

  async *stream(request: ModelRequest): AsyncGenerator<StreamPart> {
    this.requests.push(request);
    for (const part of this.#next()) {
      if (part === 'gate') {
        await new Promise<void>((resolve) => {
          this.#gates.push(resolve);
          for (const wake of this.#waiting.splice(0)) wake();
        });
        continue;
      }
      yield part;
    }
  }

  #next(): GatedAnswer {
    const answer = this.#answers.shift();
    if (answer === undefined) throw new Error('The gated model has no answer left.');
    return answer;
  }
}

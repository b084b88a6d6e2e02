import {
  AbortedError,
  type Adjustment,
  addUsage,
  assertToolChoiceOffered,
  type ContentLimits,
  createUsage,
  EMPTY_USAGE,
  type FinishReason,
  InvalidRequestError,
  type LanguageModel,
  type ModelCapabilities,
  type ModelCapabilitiesOverride,
  type ModelRequest,
  type ModelResponse,
  mergeCapabilities,
  ProviderUnavailableError,
  type ReasoningPart,
  SPECIFICATION_VERSION,
  StreamInterruptedError,
  type StreamPart,
  type ToolCall,
  type ToolChoice,
  UnsupportedToolChoiceError,
  type Usage,
} from '@org/core';
import { assertRequestMessages } from './check-messages.js';
import type { Clock } from './clock.js';
import { SCRIPTED_CONTENT_LIMITS } from './content-limits.js';
import { ScriptExhaustedError, ScriptMismatchError } from './errors.js';
import { leaveOutForeignReasoning } from './foreign-reasoning.js';
import { type LatencyProfile, outputTimeline, simulatedLatency } from './latency.js';
import { sleepOrAbort, untilAborted, waitUntil } from './model-waits.js';
import { assertResponseFormat } from './response-format.js';
import { type StreamChunking, streamSchedule } from './stream-schedule.js';
import { countOutputTokens, countReasoningTokens, countRequestTokens } from './token-counter.js';
import { validateOptions, validateTurn } from './validate-script.js';
import { createVirtualClock } from './virtual-clock.js';

/** One tool call of a scripted turn. */
export interface ScriptedToolCall {
  /** The call id; default `call_<callIndex>_<position>`, unique within a model. */
  readonly id?: string;
  readonly toolName: string;
  /**
   * The raw argument text, exactly as a model would send it (it may be broken JSON: that is the point), or an
   * object, sent as its `JSON.stringify`. Default `{}`.
   */
  readonly arguments?: string | Readonly<Record<string, unknown>>;
}

/**
 * One reasoning block of a scripted turn, returned as a `ReasoningPart` of the model's `provider`: a shown block
 * (`text`, with a `signature` where the provider signs), or a withheld one (`text: ''` and `redactedData` or
 * `encryptedContent`). Opaque fields are returned as they are.
 */
export interface ScriptedReasoning {
  /** The reasoning text the model shows; default `''` (withheld). */
  readonly text?: string;
  readonly signature?: string;
  readonly redactedData?: string;
  readonly id?: string;
  readonly encryptedContent?: string;
}

/** One answer of the scripted model. */
export interface ScriptedTurn {
  /**
   * The reasoning the answer starts with, in order: `ModelResponse.reasoning`, and in `stream` each block's
   * `reasoning-delta` parts then its `reasoning` part, before the text. Its tokens are output tokens, and are
   * reported as `usage.reasoningTokens`.
   */
  readonly reasoning?: readonly ScriptedReasoning[];
  readonly text?: string;
  readonly toolCalls?: readonly ScriptedToolCall[];
  /** Default `tool-calls` when the turn has tool calls, else `stop`. */
  readonly finishReason?: FinishReason;
  readonly rawFinishReason?: string;
  /** Replaces the counted usage, field by field. */
  readonly usage?: Partial<Omit<Usage, 'totalTokens'>>;
  /** Fail this call with this error instead of answering (a rate limit, an outage, ...). The turn is used up. */
  readonly error?: Error;
  /**
   * The answer never completes, until the request is aborted (`AbortedError`): `generate` waits; `stream` sends
   * the text (and the start of each call with half its arguments) first. Needs a request with a signal.
   */
  readonly stall?: boolean;
  /**
   * The connection is lost mid-answer: `stream` sends the text and the first half of each tool call's arguments
   * (each part when it would have been generated), then at once ends with a `StreamInterruptedError` part (no
   * `tool-call`, no `finish`); `generate` fails with `ProviderUnavailableError`.
   */
  readonly disconnect?: boolean;
}

/** What a script function knows about the call it answers. */
export interface ScriptContext {
  /** Zero-based index of this call among the calls the model answered. */
  readonly callIndex: number;
  /** The request's input tokens, as counted. */
  readonly inputTokens: number;
  /** The model's clock. */
  readonly clock: Clock;
  /** Which method received the request. */
  readonly method: 'generate' | 'stream';
  /** The request's abort signal, for a script function that waits. */
  readonly signal: AbortSignal | undefined;
}

/**
 * Answers a request; `undefined` means the request is out of script (`ScriptExhaustedError`). It receives the request
 * as the model "sends" it: checked, with reasoning of another provider left out (`model.requests` keeps the request
 * as received).
 */
export type ScriptFunction = (
  request: ModelRequest,
  context: ScriptContext,
) => ScriptedTurn | undefined | Promise<ScriptedTurn | undefined>;

/** A script: a list of turns (each a turn or a function of the request), or one function for every call. */
export type Script = readonly (ScriptedTurn | ScriptFunction)[] | ScriptFunction;

/** Options of `createScriptedModel`. */
export interface ScriptedModelOptions {
  readonly script: Script;
  /** Default `scripted-model`. */
  readonly modelId?: string;
  /** Default `scripted`. */
  readonly provider?: string;
  /**
   * Overrides the declared capabilities (by default: tools, every tool-choice mode native, parallel calls,
   * strict schemas, streaming; no structured output). `{ toolCalls: false }` makes a ReAct-only model that rejects
   * tool definitions; `{ structuredOutput: true }` one that takes `responseFormat` natively.
   */
  readonly capabilities?: ModelCapabilitiesOverride;
  /**
   * Size limits of inline images and files, checked before anything is sent (`ContentTooLargeError`). Default
   * `SCRIPTED_CONTENT_LIMITS`.
   */
  readonly contentLimits?: ContentLimits;
  /** Simulated latency of every call; none by default. */
  readonly latency?: LatencyProfile;
  /** The clock latency is spent on; default a new virtual clock (`model.clock`). */
  readonly clock?: Clock;
  /**
   * Fail with `ScriptMismatchError` when a turn contradicts the request's tool choice or parallel setting, as a
   * real model would not answer so. Default true.
   */
  readonly enforceToolChoice?: boolean;
  /**
   * Tokens per `text-delta` / `tool-call-delta` part when streaming: a delta closes at the first token boundary
   * once it holds this many tokens (a word of several tokens is not split). Default 4. Each part is sent when its
   * last token is generated, whatever the chunk size.
   */
  readonly streamChunkTokens?: number;
  /**
   * Cut deltas by characters instead: this many code points per delta (never inside a surrogate pair), each sent
   * when the token that holds its last character is generated. Set this or `streamChunkTokens`, not both.
   */
  readonly streamChunkCharacters?: number;
}

/** One call the model received, for tests and benchmarks. */
export interface ScriptedCall {
  /** Index among the answered calls; `undefined` for a request rejected before a turn was taken. */
  readonly callIndex: number | undefined;
  readonly method: 'generate' | 'stream';
  readonly request: ModelRequest;
  readonly inputTokens: number;
  readonly startedAt: number;
  readonly finishedAt: number;
  readonly response?: ModelResponse;
  readonly error?: unknown;
}

/** The scripted model: a `LanguageModel` plus what it recorded. */
export interface ScriptedModel extends LanguageModel {
  readonly clock: Clock;
  /** Every request received, in order (including rejected ones). */
  readonly requests: readonly ModelRequest[];
  /** Every call with its timing, tokens and outcome, in the order the calls ended. */
  readonly calls: readonly ScriptedCall[];
  /** The turns not yet used, or `undefined` for a script function. */
  readonly remainingTurns: number | undefined;
  /** Usage summed over every answered call. */
  readonly totalUsage: Usage;
}

const DEFAULT_CAPABILITIES: ModelCapabilities = Object.freeze({
  toolCalls: true,
  toolChoice: Object.freeze({ auto: 'native', required: 'native', none: 'native', tool: 'native' }),
  parallelToolCalls: true,
  strictSchemas: true,
  streaming: true,
  structuredOutput: false,
});

interface PreparedCall {
  readonly callIndex: number;
  readonly response: ModelResponse;
  readonly turn: ScriptedTurn;
  readonly inputTokens: number;
}

/** A request checked and converted as the model "sends" it, with the changes made to it. */
interface SentRequest {
  readonly request: ModelRequest;
  readonly adjustments: Adjustment[];
}

/**
 * Creates a `LanguageModel` that needs no network: it answers from a script, counts tokens with the o200k_base
 * tokenizer over exactly what a provider would receive (system prompt, tool schemas, history, images and files at a
 * fixed cost each), and can spend simulated latency on a virtual clock shared with tools and benchmarks. It checks
 * every request as a strict provider would (message shapes, media limits, tool calls paired with results, tool
 * choice offered and supported, `responseFormat` only where declared) and records it; reasoning of another
 * provider in the history is left out and reported. `stream` sends each part when its last token would have been
 * generated (reasoning first, a complete `tool-call` right after its last argument delta), and ends when
 * `generate` would have returned.
 *
 * @example
 * const model = createScriptedModel({
 *   script: [
 *     { toolCalls: [{ toolName: 'get_weather', arguments: '{"city":"Paris"}' }] },
 *     { text: 'It is 18°C in Paris.' },
 *   ],
 *   latency: LATENCY_PROFILES.typical,
 * });
 * const response = await model.generate({ messages, tools });
 * model.clock.now(); // simulated milliseconds spent
 */
export function createScriptedModel(options: ScriptedModelOptions): ScriptedModel {
  validateOptions(options);
  const script = options.script;
  const capabilities = mergeCapabilities(DEFAULT_CAPABILITIES, options.capabilities);
  const clock = options.clock ?? createVirtualClock();
  const provider = options.provider ?? 'scripted';
  const modelId = options.modelId ?? 'scripted-model';
  const enforceToolChoice = options.enforceToolChoice ?? true;
  const contentLimits = options.contentLimits ?? SCRIPTED_CONTENT_LIMITS;
  const chunking: StreamChunking =
    options.streamChunkCharacters === undefined
      ? { unit: 'tokens', size: options.streamChunkTokens ?? 4 }
      : { unit: 'characters', size: options.streamChunkCharacters };
  const requests: ModelRequest[] = [];
  const calls: ScriptedCall[] = [];
  let answered = 0;
  let totalUsage: Usage = EMPTY_USAGE;

  // Everything a strict provider refuses is refused here, before a turn is taken (before the script sees it).
  const checkRequest = (request: ModelRequest): SentRequest => {
    if (request.signal?.aborted) {
      throw new AbortedError({ operation: `${provider} model call`, cause: request.signal.reason });
    }
    assertRequestMessages(request.messages, contentLimits, provider);
    assertResponseFormat(request.responseFormat, { capabilities, provider, modelId });
    const tools = request.tools ?? [];
    const adjustments: Adjustment[] = [];
    if (tools.length > 0 && !capabilities.toolCalls) {
      throw new InvalidRequestError({
        provider,
        message:
          `Model '${modelId}' is declared without tool support (capabilities.toolCalls: false), ` +
          `but the request offers ${tools.length} tool(s). Use a ReAct planner, which describes tools in the prompt.`,
      });
    }
    const choice: ToolChoice = request.toolChoice ?? { type: 'auto' };
    if (tools.length > 0 || choice.type !== 'auto') {
      const support = capabilities.toolChoice[choice.type];
      if (support === 'unsupported') {
        throw new UnsupportedToolChoiceError({ provider, modelId, mode: choice.type });
      }
      if (support === 'emulated') {
        adjustments.push({
          kind: 'tool-choice-emulated',
          message: `Tool choice '${choice.type}' is declared emulated for '${modelId}'; the script honours it.`,
          details: { mode: choice.type },
        });
      }
      if (choice.type !== 'none')
        assertToolChoiceOffered(
          choice,
          tools.map((tool) => tool.name),
        );
    }
    const sent = leaveOutForeignReasoning(request, provider);
    if (sent.adjustment !== undefined) adjustments.push(sent.adjustment);
    return { request: sent.request, adjustments };
  };

  const takeTurn = async (
    request: ModelRequest,
    inputTokens: number,
    method: 'generate' | 'stream',
  ): Promise<PreparedCall> => {
    const callIndex = answered++;
    const context: ScriptContext = { callIndex, inputTokens, clock, method, signal: request.signal };
    let step: ScriptedTurn | ScriptFunction | undefined;
    if (typeof script === 'function') step = script;
    else step = script[callIndex];
    const turn = typeof step === 'function' ? await step(request, context) : step;
    if (turn === undefined) {
      const lastRole = request.messages.at(-1)?.role;
      throw new ScriptExhaustedError({
        callIndex,
        ...(typeof script === 'function' ? {} : { scriptLength: script.length }),
        ...(lastRole === undefined ? {} : { lastMessageRole: lastRole }),
      });
    }
    validateTurn(turn, `turn ${callIndex}`);
    if (turn.error !== undefined) throw turn.error;
    const toolCalls: ToolCall[] = (turn.toolCalls ?? []).map((call, position) => ({
      id: call.id ?? `call_${callIndex}_${position}`,
      toolName: call.toolName,
      arguments: typeof call.arguments === 'string' ? call.arguments : JSON.stringify(call.arguments ?? {}),
    }));
    if (enforceToolChoice) checkTurnAgainstRequest(request, toolCalls, callIndex, capabilities);
    const text = turn.text ?? '';
    const reasoning = (turn.reasoning ?? []).map((block) => reasoningPart(block, provider));
    const outputTokens = countOutputTokens({ text, toolCalls, reasoning });
    const usage = createUsage({
      inputTokens: turn.usage?.inputTokens ?? inputTokens,
      outputTokens: turn.usage?.outputTokens ?? outputTokens,
      cachedInputTokens: turn.usage?.cachedInputTokens,
      reasoningTokens:
        turn.usage?.reasoningTokens ?? (reasoning.length > 0 ? countReasoningTokens(reasoning) : undefined),
    });
    const finishReason = turn.finishReason ?? (toolCalls.length > 0 ? 'tool-calls' : 'stop');
    const response: ModelResponse = {
      text,
      toolCalls,
      ...(reasoning.length > 0 ? { reasoning } : {}),
      finishReason,
      usage,
      adjustments: [],
      responseId: `${provider}-${callIndex}`,
      ...(turn.rawFinishReason === undefined ? {} : { rawFinishReason: turn.rawFinishReason }),
      ...(request.includeRawResponse === true ? { rawResponse: turn } : {}),
    };
    return { callIndex, response, turn, inputTokens };
  };

  const prepare = async (
    request: ModelRequest,
    method: 'generate' | 'stream',
  ): Promise<PreparedCall & { adjustments: Adjustment[] }> => {
    const sent = checkRequest(request);
    const inputTokens = countRequestTokens(sent.request, { includeTools: capabilities.toolCalls });
    const prepared = await takeTurn(sent.request, inputTokens, method);
    return {
      ...prepared,
      adjustments: sent.adjustments,
      response: { ...prepared.response, adjustments: sent.adjustments },
    };
  };

  const abortedCall = (request: ModelRequest, cause: unknown): AbortedError =>
    new AbortedError({ operation: `${provider} model call`, cause: request.signal?.reason ?? cause });

  const record = (call: ScriptedCall): void => {
    calls.push(call);
    if (call.response !== undefined) totalUsage = addUsage(totalUsage, call.response.usage);
  };

  const model: ScriptedModel = {
    specificationVersion: SPECIFICATION_VERSION,
    provider,
    modelId,
    capabilities,
    clock,
    requests,
    calls,
    get remainingTurns(): number | undefined {
      return typeof script === 'function' ? undefined : Math.max(0, script.length - answered);
    },
    get totalUsage(): Usage {
      return totalUsage;
    },

    async generate(request: ModelRequest): Promise<ModelResponse> {
      requests.push(request);
      const startedAt = clock.now();
      let prepared: (PreparedCall & { adjustments: Adjustment[] }) | undefined;
      try {
        prepared = await prepare(request, 'generate');
        if (prepared.turn.stall === true) await untilAborted(request, prepared.callIndex);
        if (prepared.turn.disconnect === true) {
          throw new ProviderUnavailableError({
            provider,
            message: 'The scripted connection was lost (disconnect turn).',
          });
        }
        const latency = simulatedLatency(
          options.latency,
          prepared.inputTokens,
          prepared.response.usage.outputTokens,
        );
        if (latency.firstTokenMs + latency.generationMs > 0 || request.signal !== undefined) {
          await sleepOrAbort(clock, latency.firstTokenMs + latency.generationMs, request);
        }
        record({
          callIndex: prepared.callIndex,
          method: 'generate',
          request,
          inputTokens: prepared.inputTokens,
          startedAt,
          finishedAt: clock.now(),
          response: prepared.response,
        });
        return prepared.response;
      } catch (error) {
        const thrown = AbortedError.isInstance(error) ? abortedCall(request, error) : error;
        record({
          callIndex: prepared?.callIndex,
          method: 'generate',
          request,
          inputTokens: prepared?.inputTokens ?? 0,
          startedAt,
          finishedAt: clock.now(),
          error: thrown,
        });
        throw thrown;
      }
    },

    async *stream(request: ModelRequest): AsyncGenerator<StreamPart> {
      requests.push(request);
      const startedAt = clock.now();
      let prepared: (PreparedCall & { adjustments: Adjustment[] }) | undefined;
      try {
        prepared = await prepare(request, 'stream');
        const { response, turn } = prepared;
        const interrupted = turn.stall === true || turn.disconnect === true;
        const schedule = streamSchedule(response, chunking, { interrupted });
        const timeline = outputTimeline(
          options.latency,
          prepared.inputTokens,
          response.usage.outputTokens,
          schedule.totalTokens,
        );
        // Each part is due when its last token is generated, counted from when the request was sent (as a provider
        // keeps generating while its consumer works): a consumer that pulls late gets what is due at once.
        const sentAt = clock.now();
        await waitUntil(clock, sentAt + timeline.firstTokenMs, request);
        for (let index = 0; index < schedule.parts.length; index++) {
          await waitUntil(clock, sentAt + timeline.at(schedule.tokensAt[index] as number), request);
          yield schedule.parts[index] as StreamPart;
        }
        if (turn.stall === true) await untilAborted(request, prepared.callIndex);
        if (turn.disconnect === true) {
          throw new StreamInterruptedError({
            provider,
            message: 'The scripted connection was lost mid-stream (disconnect turn).',
            partialText: response.text,
          });
        }
        await waitUntil(clock, sentAt + timeline.endMs, request);
        const finish: StreamPart = {
          type: 'finish',
          finishReason: response.finishReason,
          usage: response.usage,
          adjustments: response.adjustments,
          ...(response.rawFinishReason === undefined ? {} : { rawFinishReason: response.rawFinishReason }),
          ...(response.responseId === undefined ? {} : { responseId: response.responseId }),
        };
        record({
          callIndex: prepared.callIndex,
          method: 'stream',
          request,
          inputTokens: prepared.inputTokens,
          startedAt,
          finishedAt: clock.now(),
          response,
        });
        yield finish;
      } catch (error) {
        const thrown = AbortedError.isInstance(error) ? abortedCall(request, error) : error;
        record({
          callIndex: prepared?.callIndex,
          method: 'stream',
          request,
          inputTokens: prepared?.inputTokens ?? 0,
          startedAt,
          finishedAt: clock.now(),
          error: thrown,
        });
        yield { type: 'error', error: thrown instanceof Error ? thrown : new Error(String(thrown)) };
      }
    },
  };
  return model;
}

function checkTurnAgainstRequest(
  request: ModelRequest,
  toolCalls: readonly ToolCall[],
  callIndex: number,
  capabilities: ModelCapabilities,
): void {
  const choice: ToolChoice = request.toolChoice ?? { type: 'auto' };
  const fail = (mismatch: string, message: string): never => {
    throw new ScriptMismatchError({ callIndex, mismatch, message });
  };
  if (toolCalls.length > 0 && !capabilities.toolCalls) {
    fail(
      'tool-calls-without-tool-support',
      'the turn has tool calls, but the model is declared without tool support.',
    );
  }
  if (toolCalls.length > 0 && (request.tools ?? []).length === 0 && capabilities.toolCalls) {
    fail('tool-calls-without-tools', 'the turn has tool calls, but the request offers no tools.');
  }
  if (choice.type === 'none' && toolCalls.length > 0) {
    fail(
      'tool-calls-under-none',
      `the turn calls ${toolCalls.map((call) => call.toolName).join(', ')} under tool choice 'none'.`,
    );
  }
  if (choice.type === 'required' && toolCalls.length === 0) {
    fail('no-tool-call-under-required', `the turn has no tool call under tool choice 'required'.`);
  }
  if (choice.type === 'tool' && !toolCalls.some((call) => call.toolName === choice.toolName)) {
    fail(
      'named-tool-not-called',
      `the turn does not call '${choice.toolName}', which the tool choice names.`,
    );
  }
  if (toolCalls.length > 1 && (request.parallelToolCalls === false || !capabilities.parallelToolCalls)) {
    fail(
      'parallel-calls-not-allowed',
      `the turn has ${toolCalls.length} tool calls, but parallel tool calls are off.`,
    );
  }
}

/** A scripted reasoning block as the model's `ReasoningPart`, its opaque fields as scripted. */
function reasoningPart(block: ScriptedReasoning, provider: string): ReasoningPart {
  return {
    type: 'reasoning',
    provider,
    text: block.text ?? '',
    ...(block.signature === undefined ? {} : { signature: block.signature }),
    ...(block.redactedData === undefined ? {} : { redactedData: block.redactedData }),
    ...(block.id === undefined ? {} : { id: block.id }),
    ...(block.encryptedContent === undefined ? {} : { encryptedContent: block.encryptedContent }),
  };
}

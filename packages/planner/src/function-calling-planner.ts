import {
  AbortedError,
  type Action,
  errorMessageOf,
  type LanguageModel,
  type Message,
  type ModelRequest,
  type ToolCall,
  type ToolChoice,
  type ToolMessage,
  type ToolSpec,
} from '@org/core';
import {
  formatObservationForModel,
  type SchemaTarget,
  type ToolObservation,
  type ToolRegistry,
  toJsonSchema,
  toolCallToAction,
  toolMessageContent,
} from '@org/tools';
import { isArgumentEcho } from './argument-leak.js';
import { InvalidAgentOptionsError } from './errors.js';
import { infer, requestSettings, type StreamCallbacks } from './infer.js';
import type { EarlyStarts, Planner, PlannerTurn, PlanningContext } from './planner.js';
import { toolCallsToActions } from './tool-calls-to-actions.js';

/** Options of `createFunctionCallingPlanner`. */
export interface FunctionCallingPlannerOptions {
  /**
   * At most this many tool calls of one turn are run; the others are answered with an error result and the cut
   * is reported. `1` also asks the provider for one call per turn (`parallelToolCalls: false`). Default: no limit.
   */
  readonly maxParallelToolCalls?: number;
  /**
   * The schema dialect of the tool specs sent to the model. Default: `openai-strict` when the model declares
   * `capabilities.strictSchemas` (each tool is sent `strict: true` when strict mode can express its schema, else
   * `strict: false` with a plain schema, reported once per run as a `schema-adapted` adjustment), `json-schema`
   * otherwise (adapters convert it). Set it to choose yourself, e.g. `json-schema` to never send `strict`.
   */
  readonly schemaTarget?: SchemaTarget;
  /** Drop assistant text that merely echoes its calls' arguments. Default true. */
  readonly dropArgumentEcho?: boolean;
}

/**
 * A planner for models with native tool calls. Each step sends the system prompt, the history and the tool
 * specs with the step's tool choice; tool calls become actions through `@org/tools` (an invalid or unknown call
 * becomes an error result the model sees next turn); an answer without tool calls is the final answer.
 *
 * @example
 * const result = await runAgent({
 *   model: openai('gpt-4.1'),
 *   tools: registry,
 *   planner: createFunctionCallingPlanner({ maxParallelToolCalls: 4 }),
 *   task: 'Is it warmer in Paris or Rome?',
 * });
 */
export function createFunctionCallingPlanner(options: FunctionCallingPlannerOptions = {}): Planner {
  const maxParallel = options.maxParallelToolCalls;
  if (maxParallel !== undefined && (!Number.isInteger(maxParallel) || maxParallel < 1)) {
    throw new InvalidAgentOptionsError({
      option: 'maxParallelToolCalls',
      message: `must be an integer >= 1, got ${String(maxParallel)}.`,
    });
  }
  const dropEcho = options.dropArgumentEcho ?? true;

  return {
    kind: 'function-calling',

    assertSupports(model: LanguageModel): void {
      if (!model.capabilities.toolCalls) {
        throw new InvalidAgentOptionsError({
          option: 'planner',
          message:
            `model '${model.modelId}' (${model.provider}) is declared without tool calls; ` +
            'use createReActPlanner(), which describes the tools in the prompt.',
        });
      }
    },

    async plan(context: PlanningContext): Promise<PlannerTurn> {
      const messages: Message[] = [
        ...(context.systemPrompt === undefined
          ? []
          : [{ role: 'system' as const, content: context.systemPrompt }]),
        ...(context.compiledHistory ?? context.history),
      ];
      const strictByDefault = options.schemaTarget === undefined && context.model.capabilities.strictSchemas;
      const target: SchemaTarget =
        options.schemaTarget ?? (strictByDefault ? 'openai-strict' : 'json-schema');
      const tools = context.tools.specs({ target });
      if (strictByDefault) reportNonStrictTools(context, tools);
      const request: ModelRequest = {
        messages,
        tools,
        toolChoice: providerToolChoice(context),
        ...(maxParallel === 1 ? { parallelToolCalls: false } : {}),
        ...requestSettings(context),
      };
      const early =
        context.early === undefined ? undefined : new EarlyConversion(context, context.early, maxParallel);
      const { response, record } = await infer(context, request, 'decision', early?.callbacks());
      const reasoning = response.reasoning === undefined ? {} : { reasoning: response.reasoning };
      if (response.toolCalls.length === 0) {
        return {
          kind: 'final-answer',
          text: response.text,
          toolCalls: [],
          actions: [],
          rejected: [],
          assistantMessage: { role: 'assistant', content: response.text, ...reasoning },
          inferences: [record],
        };
      }
      const toolCalls = uniqueToolCallIds(context, response.toolCalls);
      let text = response.text;
      if (dropEcho && text.trim() !== '' && isArgumentEcho(text, response.toolCalls)) {
        context.emit({
          type: 'adjustment',
          timestamp: context.now(),
          adjustment: {
            kind: 'history-rewritten',
            message:
              'The assistant text only echoed its tool calls’ arguments; it was dropped from the history.',
            details: { droppedCharacters: text.length },
          },
        });
        text = '';
      }
      const { actions, rejected } = toolCallsToActions(context, toolCalls, {
        finishReason: response.finishReason,
        maxParallelToolCalls: maxParallel,
        ...(early === undefined ? {} : { converted: early.converted }),
      });
      return {
        kind: 'actions',
        text,
        toolCalls,
        actions,
        rejected,
        assistantMessage: { role: 'assistant', content: text, toolCalls, ...reasoning },
        inferences: [record],
      };
    },

    recordTurn(turn: PlannerTurn, observations: readonly ToolObservation[]): Message[] {
      if (turn.kind !== 'actions') return [turn.assistantMessage];
      const byId = new Map(observations.map((observation) => [observation.actionId, observation]));
      const results: ToolMessage[] = turn.toolCalls.map((call) => {
        const observation = byId.get(call.id) ?? missingResult(call.id, call.toolName);
        return {
          role: 'tool',
          toolCallId: call.id,
          toolName: call.toolName,
          // Text, and the images or files the tool returned (`withContent`) as content parts.
          content: toolMessageContent(formatObservationForModel(observation), observation.content),
          ...(observation.status === 'success' ? {} : { isError: true }),
        };
      });
      return [turn.assistantMessage, ...results];
    },
  };
}

/**
 * Tool-call ids must be unique in a conversation for every provider to pair results with calls. Some servers
 * return empty ids, or restart their numbering each response (`call_0` again); such ids are replaced with unique
 * ones and the change is reported, so the history stays valid.
 */
function uniqueToolCallIds(context: PlanningContext, toolCalls: readonly ToolCall[]): readonly ToolCall[] {
  const used = usedToolCallIds(context.history);
  const renamed: { from: string; to: string }[] = [];
  const result = toolCalls.map((call, index) => {
    if (call.id !== '' && !used.has(call.id)) {
      used.add(call.id);
      return call;
    }
    let id = `${call.id === '' ? 'call' : call.id}_s${context.step}_${index}`;
    while (used.has(id)) id = `${id}_`;
    used.add(id);
    renamed.push({ from: call.id, to: id });
    return { ...call, id };
  });
  if (renamed.length > 0) {
    context.emit({
      type: 'adjustment',
      timestamp: context.now(),
      adjustment: {
        kind: 'history-rewritten',
        message: `${renamed.length} tool call id(s) were empty or already used in this conversation and were replaced with unique ids.`,
        details: { renamed },
      },
    });
  }
  return result;
}

// The loop appends to one history array for the whole run: remembering how far it was scanned keeps the id check
// linear in the run's length (rescanning every step made long runs quadratic, the loop's hottest function).
const usedIdsByHistory = new WeakMap<readonly Message[], { scanned: number; used: Set<string> }>();

/** Every tool-call id the history's assistant messages used, scanning only messages added since the last call. */
function usedToolCallIds(history: readonly Message[]): Set<string> {
  let entry = usedIdsByHistory.get(history);
  if (entry === undefined || entry.scanned > history.length) {
    entry = { scanned: 0, used: new Set() };
    usedIdsByHistory.set(history, entry);
  }
  for (; entry.scanned < history.length; entry.scanned++) {
    const message = history[entry.scanned]!;
    if (message.role === 'assistant') for (const call of message.toolCalls ?? []) entry.used.add(call.id);
  }
  return entry.used;
}

// What was last reported per run (the loop keeps one history array per run), so a run reports its tools once.
const reportedNonStrict = new WeakMap<readonly Message[], string>();

/**
 * The model enforces schemas (`strictSchemas`), but strict mode cannot express some tools' schemas (a free-form
 * object, a tuple, an untyped value): those go out `strict: false`, which is reported, with the reason, once per run.
 * Tools defined with `strict: false` are the application's choice and are not reported.
 */
function reportNonStrictTools(context: PlanningContext, specs: readonly ToolSpec[]): void {
  const nonStrict = specs.filter((spec) => spec.strict === false);
  const key = nonStrict.map((spec) => spec.name).join('\u0000');
  if (reportedNonStrict.get(context.history) === key) return;
  reportedNonStrict.set(context.history, key);
  const byProviderName = providerNames(context.tools);
  const tools = nonStrict.flatMap((spec) => {
    const tool = byProviderName.get(spec.name);
    if (tool === undefined || tool.strict === false) return [];
    return [{ toolName: tool.name, reason: strictReason(tool.name, tool.inputSchema) }];
  });
  if (tools.length === 0) return;
  context.emit({
    type: 'adjustment',
    timestamp: context.now(),
    adjustment: {
      kind: 'schema-adapted',
      message:
        `'${context.model.modelId}' enforces tool schemas (capabilities.strictSchemas), but strict mode cannot ` +
        `express the schema of ${tools.map((tool) => `'${tool.toolName}' (${tool.reason})`).join(', ')}; ` +
        `${tools.length === 1 ? 'it was' : 'they were'} sent with strict: false and a plain JSON Schema, and ` +
        `${tools.length === 1 ? 'its' : 'their'} arguments are still validated before running.`,
      details: { reason: 'strict-not-expressible', tools },
    },
  });
}

function providerNames(registry: ToolRegistry): Map<string, ReturnType<ToolRegistry['list']>[number]> {
  const byName = new Map<string, ReturnType<ToolRegistry['list']>[number]>();
  for (const tool of registry.list()) byName.set(registry.providerName(tool.name) ?? tool.name, tool);
  return byName;
}

/** Why strict mode cannot express a schema: the message of the error converting it says what and where. */
function strictReason(toolName: string, schema: ToolSpec['inputSchema']): string {
  try {
    toJsonSchema(schema, { target: 'openai-strict', toolName });
    return 'not expressible in strict mode';
  } catch (error) {
    return errorMessageOf(error);
  }
}

/** A named tool choice uses the name the tool is sent under (`math.factorial` is sent as `math_factorial`). */
function providerToolChoice(context: PlanningContext): ToolChoice {
  const choice = context.toolChoice;
  if (choice.type !== 'tool') return choice;
  const providerName = context.tools.providerName(choice.toolName);
  return providerName === undefined || providerName === choice.toolName
    ? choice
    : { type: 'tool', toolName: providerName };
}

/** A result for a call the loop did not answer: never expected, but the history must stay valid regardless. */
export function missingResult(actionId: string, toolName: string): ToolObservation {
  return {
    actionId,
    toolName,
    status: 'error',
    error: { code: 'missing_tool_result', message: 'This call produced no result.' },
    durationMs: 0,
  };
}

/**
 * Converts each tool call of a streamed answer as soon as it is complete, and offers it to the loop (which may start
 * it early). The conversion is the one the end of the step would make: a call converted here is not converted again,
 * so its events and its action are the same whether the answer streamed or not. Calls whose id will be replaced
 * (empty, or already used) and calls that fail conversion are left to the end of the step, where the answer's
 * finish reason is known.
 */
class EarlyConversion {
  /** The valid actions converted while streaming, by call id. */
  readonly converted = new Map<string, Action>();
  readonly #context: PlanningContext;
  readonly #early: EarlyStarts;
  readonly #maxParallel: number;
  readonly #seen = new Set<string>();
  /** Ids whose call began in this answer: a second call under the same id is renamed later, never started. */
  readonly #begun = new Set<string>();
  #position = 0;
  #startPosition = 0;

  constructor(context: PlanningContext, early: EarlyStarts, maxParallel: number | undefined) {
    this.#context = context;
    this.#early = early;
    this.#maxParallel = maxParallel ?? Number.POSITIVE_INFINITY;
  }

  callbacks(): StreamCallbacks {
    return {
      onAttempt: async (attempt) => {
        if (attempt === 1) return;
        // A retried model call: the earlier attempt's calls are gone, and so is what started for them.
        this.converted.clear();
        this.#seen.clear();
        this.#begun.clear();
        this.#position = 0;
        this.#startPosition = 0;
        await this.#early.restart(
          new AbortedError({ operation: 'an attempt at the answer that was retried' }),
        );
      },
      onToolCallStart: (toolCallId, toolName) => {
        const position = this.#startPosition++;
        const first = !this.#begun.has(toolCallId);
        this.#begun.add(toolCallId);
        // Only the first call under an id keeps it, and a call beyond the parallel limit never runs.
        if (first && position < this.#maxParallel && this.#keepsId(toolCallId)) {
          this.#early.callStarted(toolCallId, toolName);
        }
      },
      onToolCallDelta: (toolCallId, delta) => this.#early.argumentsDelta(toolCallId, delta),
      onToolCall: (call) => this.#onToolCall(call),
    };
  }

  #onToolCall(call: ToolCall): void {
    const position = this.#position++;
    const repeated = this.#seen.has(call.id);
    this.#seen.add(call.id);
    // A later call under an id already used in this answer is renamed at the end: it is not the call that began.
    if (repeated || !this.#keepsId(call.id)) return;
    if (position >= this.#maxParallel) {
      this.#early.callRejected(call.id, 'beyond maxParallelToolCalls');
      return;
    }
    // Only a call whose arguments needed no repair is converted before the answer's finish reason is known: a repair
    // (a missing final brace) is safe after a normal stop but means a cut-off call after a `length` stop.
    const result = toolCallToAction(this.#context.tools, call, { finishReason: 'tool-calls' });
    if (!result.ok) {
      this.#early.callRejected(call.id, result.error);
      return;
    }
    if (result.repairs.length > 0) return;
    this.converted.set(call.id, result.action);
    this.#early.callReady(result.action, call);
  }

  /** Whether the call keeps its id in the history (`uniqueToolCallIds` replaces empty and used ones). */
  #keepsId(toolCallId: string): boolean {
    return toolCallId !== '' && !usedToolCallIds(this.#context.history).has(toolCallId);
  }
}

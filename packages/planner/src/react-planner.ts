import {
  type LanguageModel,
  type Message,
  readStrictJson,
  redactSecrets,
  type ToolCall,
  truncateText,
} from '@org/core';
import {
  formatObservationForModel,
  type SchemaTarget,
  type ToolMediaPart,
  type ToolObservation,
  toolMessageContent,
} from '@org/tools';
import { DecisionExtractionError, InvalidAgentOptionsError } from './errors.js';
import { missingResult } from './function-calling-planner.js';
import { infer, requestSettings } from './infer.js';
import type { InferenceRecord, Planner, PlannerTurn, PlanningContext } from './planner.js';
import { parseReActDecision, type ReActDecision } from './react-decision.js';
import { renderReActInstructions, toolChoiceViolation } from './react-prompt.js';
import { toolCallsToActions } from './tool-calls-to-actions.js';

/** Bytes of a reason an answer could not be used, as the model is told it. */
const MAX_REASON_BYTES = 2_000;

/** Options of `createReActPlanner`. */
export interface ReActPlannerOptions {
  /** Extra attempts after an answer holds no usable decision; the parse error is shown to the model. Default 2. */
  readonly maxRetries?: number;
  /**
   * `decision` (default): the final answer is the decision's `answer`. `separate-inference`: once the model
   * decides to answer, one more call asks for the answer in plain prose.
   */
  readonly finalAnswer?: 'decision' | 'separate-inference';
  /** The schema dialect of the tool schemas shown in the prompt. Default `json-schema`. */
  readonly schemaTarget?: SchemaTarget;
  /** The prompt of the separate final-answer inference. */
  readonly finalAnswerPrompt?: string;
  /**
   * The decision format the prompt asks for: `json` (default), `{"thought", "type", "tool", "args", "answer"}`,
   * or `text`, `Thought: / Action: / Action Input: / Final Answer:`. Both are read either way.
   */
  readonly decisionFormat?: 'json' | 'text';
  /**
   * How a decision is recorded in the history: `normalized` (default) rewrites it in `decisionFormat`, whatever
   * format the model used, so every step shows the model the format it is asked for; `verbatim` keeps the
   * model's own text.
   */
  readonly historyFormat?: 'normalized' | 'verbatim';
}

/**
 * A decision written in one of the two formats, as the history records it.
 *
 * @example
 * renderDecision({ type: 'final_answer', thought: 'I know.', answer: 'Rome.', format: 'json' }, 'text');
 * // 'Thought: I know.\nFinal Answer: Rome.'
 */
export function renderDecision(decision: ReActDecision, format: 'json' | 'text'): string {
  if (format === 'json') {
    if (decision.type === 'final_answer') {
      return JSON.stringify({ thought: decision.thought, type: 'final_answer', answer: decision.answer });
    }
    // Read by the strict reader, so a value written back is the value the model wrote (no rounded integer, no
    // last-key-wins); broken arguments are shown as the model wrote them, and the observation says what is wrong.
    const read = readStrictJson(decision.argumentsText);
    const args: unknown = read.ok ? read.value : decision.argumentsText;
    return JSON.stringify({ thought: decision.thought, type: 'call_tool', tool: decision.tool, args });
  }
  const thought = decision.thought === '' ? '' : `Thought: ${decision.thought}\n`;
  return decision.type === 'final_answer'
    ? `${thought}Final Answer: ${decision.answer}`
    : `${thought}Action: ${decision.tool}\nAction Input: ${decision.argumentsText}`;
}

const DEFAULT_FINAL_ANSWER_PROMPT =
  'Write your final answer for the user now, in plain prose, without the JSON decision format.';

/**
 * A planner for any model, with or without native tools: the tools and a decision format are described in the
 * system prompt, and each answer is read as one decision, `{thought, type: "call_tool" | "final_answer", tool,
 * args, answer}` or the classic `Thought: / Action: / Action Input: / Final Answer:` text. An answer that holds
 * no decision is retried with the parse error shown to the model; a decision naming an unknown tool or invalid
 * arguments becomes an error observation. Each step records the model's text and `Observation: <result>`.
 *
 * @example
 * const result = await runAgent({
 *   model: createScriptedModel({ script, capabilities: { toolCalls: false } }),
 *   tools: registry,
 *   planner: createReActPlanner({ maxRetries: 2 }),
 *   task: 'Is it warmer in Paris or Rome?',
 * });
 */
export function createReActPlanner(options: ReActPlannerOptions = {}): Planner {
  const maxRetries = options.maxRetries ?? 2;
  if (!Number.isInteger(maxRetries) || maxRetries < 0) {
    throw new InvalidAgentOptionsError({
      option: 'maxRetries',
      message: `must be an integer >= 0, got ${String(maxRetries)}.`,
    });
  }
  const target = options.schemaTarget ?? 'json-schema';
  const finalAnswerMode = options.finalAnswer ?? 'decision';
  const historyFormat = options.historyFormat ?? 'normalized';
  const decisionFormat = options.decisionFormat ?? 'json';

  return {
    kind: 'react',

    assertSupports(_model: LanguageModel): void {},

    async plan(context: PlanningContext): Promise<PlannerTurn> {
      const instructions = renderReActInstructions(
        context.tools.specs({ target }),
        context.toolChoice,
        decisionFormat,
      );
      if (context.toolChoice.type !== 'auto') {
        context.emit({
          type: 'adjustment',
          timestamp: context.now(),
          adjustment: {
            kind: 'tool-choice-emulated',
            message: `Tool choice '${context.toolChoice.type}' is stated in the ReAct instructions and checked on the decision.`,
            details: { mode: context.toolChoice.type },
          },
        });
      }
      const system =
        context.systemPrompt === undefined ? instructions : `${context.systemPrompt}\n\n${instructions}`;
      const base: Message[] = [
        { role: 'system', content: system },
        ...(context.compiledHistory ?? context.history),
      ];
      const retryMessages: Message[] = [];
      const inferences: InferenceRecord[] = [];
      let lastText = '';
      let lastReason = '';
      for (let attempt = 0; attempt <= maxRetries; attempt++) {
        const { response, record } = await infer(
          context,
          { messages: [...base, ...retryMessages], ...requestSettings(context) },
          attempt === 0 ? 'decision' : 'retry',
        );
        inferences.push(record);
        lastText = response.text;
        const parsed = parseReActDecision(response.text);
        const reason = parsed.ok ? toolChoiceViolation(context.toolChoice, parsed.decision) : parsed.reason;
        if (!parsed.ok || reason !== undefined) {
          // The reason may quote the model's text (a 1 MB "type"): bounded before it goes back to the model.
          lastReason = truncateText(reason ?? '', MAX_REASON_BYTES, { what: 'reason', redact: 'all' });
          context.emit({
            type: 'decision-extraction-failed',
            timestamp: context.now(),
            step: context.step,
            attempt: attempt + 1,
            message: lastReason,
            text: redactSecrets(response.text),
          });
          retryMessages.push(
            { role: 'assistant', content: response.text },
            { role: 'user', content: `Your answer could not be used: ${lastReason}` },
          );
          continue;
        }
        const decision = parsed.decision;
        const assistantMessage = {
          role: 'assistant' as const,
          content: historyFormat === 'verbatim' ? response.text : renderDecision(decision, decisionFormat),
        };
        if (decision.type === 'final_answer') {
          let answer = decision.answer;
          if (finalAnswerMode === 'separate-inference') {
            const final = await infer(
              context,
              {
                messages: [
                  ...base,
                  assistantMessage,
                  { role: 'user', content: options.finalAnswerPrompt ?? DEFAULT_FINAL_ANSWER_PROMPT },
                ],
                ...requestSettings(context),
              },
              'final-answer',
            );
            inferences.push(final.record);
            answer = final.response.text;
            // The history keeps the prose answer the user sees, not the decision that asked for it.
            return {
              kind: 'final-answer',
              text: answer,
              toolCalls: [],
              actions: [],
              rejected: [],
              assistantMessage: { role: 'assistant', content: answer },
              inferences,
            };
          }
          return {
            kind: 'final-answer',
            text: answer,
            toolCalls: [],
            actions: [],
            rejected: [],
            assistantMessage,
            inferences,
          };
        }
        const toolCall: ToolCall = {
          id: `react_${context.step}`,
          toolName: decision.tool,
          arguments: decision.argumentsText,
        };
        const { actions, rejected } = toolCallsToActions(context, [toolCall], {
          finishReason: response.finishReason,
          maxParallelToolCalls: undefined,
        });
        return {
          kind: 'actions',
          text: decision.thought,
          toolCalls: [toolCall],
          actions,
          rejected,
          assistantMessage,
          inferences,
        };
      }
      return {
        kind: 'failed',
        text: '',
        toolCalls: [],
        actions: [],
        rejected: [],
        assistantMessage: { role: 'assistant', content: lastText },
        inferences,
        error: new DecisionExtractionError({ attempts: maxRetries + 1, text: lastText, reason: lastReason }),
      };
    },

    recordTurn(turn: PlannerTurn, observations: readonly ToolObservation[]): Message[] {
      if (turn.kind !== 'actions') return [turn.assistantMessage];
      const byId = new Map(observations.map((observation) => [observation.actionId, observation]));
      const media: ToolMediaPart[] = [];
      const results = turn.toolCalls.map((call) => {
        const observation = byId.get(call.id) ?? missingResult(call.id, call.toolName);
        if (observation.content !== undefined) media.push(...observation.content);
        return `Observation: ${formatObservationForModel(observation)}`;
      });
      // Images and files a tool returned follow the observations' text in the same user message.
      return [
        turn.assistantMessage,
        { role: 'user', content: toolMessageContent(results.join('\n'), media) },
      ];
    },
  };
}

import { type Event as AgUiEvent, EventType, type RunAgentInput, type TokenUsage } from '@ag-ui/core';
import { EventEncoder } from '@ag-ui/encoder';
import {
  AbortedError,
  MAX_TIMER_DELAY_MS,
  OrgError,
  type RunEvent,
  type RunEventListener,
  type RunEventListeners,
  runEventListenersProblem,
} from '@org/core';
import { type AgentResult, runAgent } from '@org/planner';
import { ToolRegistry } from '@org/tools';
import { toApprovalInterrupts } from './approval-interrupts.js';
import { AgUiRequestError, InvalidAgUiOptionError } from './errors.js';
import { AgUiEventMapper } from './event-mapper.js';
import { type AgUiAgentOptions, type PreparedRun, prepareRun } from './prepare-run.js';
import { readRunInput } from './read-run-input.js';
import { snapshotInputOf, toSnapshotMessages } from './snapshot-messages.js';

/** Default largest run input: a long conversation with a few images fits; a runaway client does not. */
export const DEFAULT_MAX_BODY_BYTES = 4 * 1024 * 1024;

/** What `runOptions` sees of a request: the request itself (headers, cookies, URL) and its validated run input. */
export interface AgUiRunContext {
  readonly request: Request;
  readonly input: RunAgentInput;
}

/** Options of `createAgUiHandler`: the agent (`runAgent` options) and the endpoint's limits. */
export interface AgUiHandlerOptions extends AgUiAgentOptions {
  /**
   * Options of one run, from its request: the user's values for tools' hidden parameters (`injected`), their own
   * `hooks`, tools or system prompt. Merged over the handler's options. Called after the input is validated and
   * before the run starts; authenticate before the handler (a throw here is a server error, not an answer).
   *
   * @example
   * runOptions: async ({ request }) => ({ injected: { userId: await userIdFrom(request) } })
   */
  readonly runOptions?: (
    context: AgUiRunContext,
  ) => Partial<AgUiAgentOptions> | Promise<Partial<AgUiAgentOptions>>;
  /** Largest run input accepted, in bytes; larger is refused with 413 before it is read whole. Default 4 MiB. */
  readonly maxBodyBytes?: number;
  /** How often an idle stream sends an SSE comment, so proxies keep the connection open. Default 15 000 ms. */
  readonly heartbeatMs?: number;
}

/** A web-standard request handler: Next.js route handlers, Hono, Bun, Deno, Cloudflare Workers. */
export type AgUiHandler = (request: Request) => Promise<Response>;

/**
 * Serves an agent over AG-UI: a web-standard handler that reads a `RunAgentInput` (POST, JSON, bounded, checked with
 * the protocol's schema) and answers with the run as AG-UI events over SSE (`@ag-ui/encoder`): `RUN_STARTED`, per
 * model call a step with its text, reasoning and tool calls, each tool's result, plan steps as nested calls, then a
 * `MESSAGES_SNAPSHOT` and one `RUN_FINISHED` (an interrupt outcome when a call waits for approval, `pendingToolCallIds`
 * when a front-end tool was called) or `RUN_ERROR`. A request that cannot run is an HTTP error with a JSON body; a
 * client that goes away aborts the run through its signal.
 *
 * @example
 * // app/api/agent/route.ts (Next.js)
 * import { createAgUiHandler } from '@org/ag-ui';
 * import { openai } from '@org/provider-openai';
 * import { tools } from '../../tools';
 *
 * export const POST = createAgUiHandler({
 *   model: openai('gpt-4.1'),
 *   tools,
 *   systemPrompt: 'You are a helpful assistant.',
 *   stateSecret: process.env.AGENT_STATE_SECRET,
 * });
 */
export function createAgUiHandler(options: AgUiHandlerOptions): AgUiHandler {
  const { maxBodyBytes = DEFAULT_MAX_BODY_BYTES, heartbeatMs = 15_000, runOptions, ...agent } = options;
  for (const [option, value] of [
    ['maxBodyBytes', maxBodyBytes],
    ['heartbeatMs', heartbeatMs],
  ] as const) {
    if (
      !Number.isSafeInteger(value) ||
      value < 1 ||
      (option === 'heartbeatMs' && value > MAX_TIMER_DELAY_MS)
    ) {
      throw new InvalidAgUiOptionError({
        option,
        reason: `must be a positive integer${option === 'heartbeatMs' ? ` up to ${MAX_TIMER_DELAY_MS}` : ''}`,
      });
    }
  }
  const listenersProblem = runEventListenersProblem(agent.onEvent);
  if (listenersProblem !== undefined) {
    throw new InvalidAgUiOptionError({ option: 'onEvent', reason: listenersProblem });
  }
  if (typeof agent.model !== 'object' || agent.model === null) {
    throw new InvalidAgUiOptionError({ option: 'model', reason: 'a LanguageModel is required' });
  }
  // One registry for every request: tools given as a one-shot iterable are read once, and a bad tool fails here.
  const base: AgUiAgentOptions = { ...agent, tools: toRegistry(agent.tools) };
  return async (request: Request): Promise<Response> => {
    let input: RunAgentInput;
    try {
      input = await readRunInput(request, maxBodyBytes);
    } catch (error) {
      if (AgUiRequestError.isInstance(error)) return errorResponse(error);
      throw error;
    }
    const overrides = runOptions === undefined ? undefined : await runOptions({ request, input });
    const server: AgUiAgentOptions =
      overrides === undefined
        ? base
        : {
            ...base,
            ...overrides,
            tools: overrides.tools === undefined ? base.tools : toRegistry(overrides.tools),
          };
    let prepared: PreparedRun;
    try {
      prepared = prepareRun(input, server);
    } catch (error) {
      if (AgUiRequestError.isInstance(error)) return errorResponse(error);
      throw error;
    }
    return streamRun(request, input, prepared, server, heartbeatMs);
  };
}

function toRegistry(tools: AgUiAgentOptions['tools']): ToolRegistry {
  return tools instanceof ToolRegistry ? tools : new ToolRegistry(tools);
}

function errorResponse(error: AgUiRequestError): Response {
  const body = {
    error: { code: error.code, problem: error.problem, message: error.message, field: error.field },
  };
  return new Response(JSON.stringify(body), {
    status: error.status,
    headers: {
      'content-type': 'application/json',
      ...(error.problem === 'method' ? { allow: 'POST' } : {}),
    },
  });
}

function streamRun(
  request: Request,
  input: RunAgentInput,
  prepared: PreparedRun,
  agent: AgUiAgentOptions,
  heartbeatMs: number,
): Response {
  const abort = new AbortController();
  const abortRun = (): void => {
    if (!abort.signal.aborted)
      abort.abort(new AbortedError({ operation: 'AG-UI run', cause: 'the client went away' }));
  };
  request.signal.addEventListener('abort', abortRun, { once: true });
  const encoder = new EventEncoder();
  const bytes = new TextEncoder();
  let closed = false;

  let heartbeat: ReturnType<typeof setInterval> | undefined;
  const stop = (): void => {
    closed = true;
    clearInterval(heartbeat);
    request.signal.removeEventListener('abort', abortRun);
  };

  const body = new ReadableStream<Uint8Array>({
    start: (controller) => {
      const write = (text: string): void => {
        if (closed) return;
        try {
          controller.enqueue(bytes.encode(text));
        } catch {
          // The stream was torn down under us (the client went away): the run is being aborted.
          stop();
          abortRun();
        }
      };
      const send = (event: AgUiEvent): void => write(encoder.encodeSSE(event));
      // An SSE comment now and then, so proxies do not close a connection that waits on a slow tool.
      heartbeat = setInterval(() => write(': keep-alive\n\n'), heartbeatMs);
      void runToEvents(input, prepared, agent, abort.signal, send).finally(() => {
        if (closed) return;
        stop();
        controller.close();
      });
    },
    cancel: () => {
      stop();
      abortRun();
    },
  });
  return new Response(body, {
    status: 200,
    headers: {
      'content-type': encoder.getContentType(),
      'cache-control': 'no-cache, no-transform',
      'x-accel-buffering': 'no',
    },
  });
}

/** Runs the agent and sends its events; never rejects (every failure is a `RUN_ERROR`). */
async function runToEvents(
  input: RunAgentInput,
  prepared: PreparedRun,
  agent: AgUiAgentOptions,
  signal: AbortSignal,
  send: (event: AgUiEvent) => void,
): Promise<void> {
  const { threadId, runId } = input;
  const mapper = new AgUiEventMapper({ runId, frontEndToolNames: prepared.frontEndToolNames });
  send({ type: EventType.RUN_STARTED, threadId, runId });
  const toClient = (event: RunEvent): void => {
    for (const mapped of mapper.map(event)) send(mapped);
  };
  // Ours first: a throwing listener of the application (isolated by the loop) never costs the client an event. The
  // application's are checked by `runAgent` (a bad one from `runOptions` ends this request with a RUN_ERROR).
  const given = agent.onEvent;
  const onEvent: RunEventListeners =
    given === undefined
      ? toClient
      : [toClient, ...(Array.isArray(given) ? given : [given as RunEventListener])];
  let result: AgentResult;
  try {
    result = await runAgent({ ...prepared.options, signal, onEvent });
  } catch (error) {
    // Refused before the run started: options, or a resume (a tampered or replayed state).
    for (const mapped of mapper.closeAll()) send(mapped);
    send(runError(error));
    return;
  }
  for (const mapped of mapper.closeAll()) send(mapped);
  if (signal.aborted) return; // the client is gone: nobody reads what would follow
  const awaitingFrontEnd = new Set(
    (result.steps.at(-1)?.observations ?? [])
      .filter(
        (observation) =>
          observation.status === 'success' && prepared.frontEndToolNames.has(observation.toolName),
      )
      .map((observation) => observation.actionId),
  );
  const messages = toSnapshotMessages(result.messages, {
    input: snapshotInputOf(input.messages),
    parentMessageIdOf: (toolCallId) => mapper.parentMessageIdOf(toolCallId),
    lastTextMessageId: mapper.lastTextMessageId,
    lastIndex: result.messages.length - 1,
    prefix: runId,
    awaitingFrontEnd: result.finishReason === 'terminal-tool' ? awaitingFrontEnd : new Set(),
  });
  send({ type: EventType.MESSAGES_SNAPSHOT, messages });
  send(terminalEvent(result, input, agent, awaitingFrontEnd));
}

function terminalEvent(
  result: AgentResult,
  input: RunAgentInput,
  agent: AgUiAgentOptions,
  awaitingFrontEnd: ReadonlySet<string>,
): AgUiEvent {
  const { threadId, runId } = input;
  const usage = tokenUsage(result, agent);
  switch (result.finishReason) {
    case 'approval-required': {
      if (result.state === undefined || result.pendingApprovals === undefined) {
        return runError(new Error('The run paused for approval without a state to resume from.'));
      }
      if (result.state.seal === undefined) {
        return {
          type: EventType.RUN_ERROR,
          code: 'approval_needs_state_secret',
          message:
            'A tool call needs approval, but the handler has no stateSecret: the paused state would travel ' +
            'through the front end unsealed. Give createAgUiHandler a stateSecret.',
          usage,
        };
      }
      return {
        type: EventType.RUN_FINISHED,
        threadId,
        runId,
        outcome: {
          type: 'interrupt',
          interrupts: toApprovalInterrupts(result.pendingApprovals, result.state),
        },
        usage,
      };
    }
    case 'error':
    case 'loop-guard':
      return { ...runError(result.error ?? new Error(result.finishDetail ?? result.finishReason)), usage };
    case 'aborted':
      return { type: EventType.RUN_FINISHED, threadId, runId, outcome: { type: 'cancelled' }, usage };
    default: {
      const pendingToolCallIds = result.finishReason === 'terminal-tool' ? [...awaitingFrontEnd] : [];
      // A turn ended by front-end calls has no answer yet: the front end's results come first.
      if (pendingToolCallIds.length > 0) {
        return {
          type: EventType.RUN_FINISHED,
          threadId,
          runId,
          outcome: { type: 'success', pendingToolCallIds },
          usage,
        };
      }
      return {
        type: EventType.RUN_FINISHED,
        threadId,
        runId,
        result: { text: result.text, finishReason: result.finishReason },
        usage,
      };
    }
  }
}

function runError(error: unknown): Extract<AgUiEvent, { type: EventType.RUN_ERROR }> {
  if (OrgError.isInstance(error))
    return { type: EventType.RUN_ERROR, code: error.code, message: error.message };
  // Not one of ours: its message may hold anything, so only its kind is told.
  const name = error instanceof Error ? error.name : typeof error;
  return { type: EventType.RUN_ERROR, code: 'error', message: `The run failed (${name}).` };
}

function tokenUsage(result: AgentResult, agent: AgUiAgentOptions): TokenUsage[] {
  const { usage } = result;
  return [
    {
      provider: agent.model.provider,
      model: agent.model.modelId,
      inputTokens: usage.inputTokens,
      outputTokens: usage.outputTokens,
      totalTokens: usage.totalTokens,
      ...(usage.reasoningTokens === undefined ? {} : { reasoningTokens: usage.reasoningTokens }),
      ...(usage.cachedInputTokens === undefined ? {} : { cachedInputTokens: usage.cachedInputTokens }),
    },
  ];
}

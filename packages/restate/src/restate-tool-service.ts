import { errorMessageOf, type JsonSchema, MAX_TIMER_DELAY_MS } from '@org/core';
import {
  executeAction,
  InvalidToolOptionError,
  type Tool,
  type ToolHooks,
  type ToolObservation,
  ToolRegistry,
  toJsonSchema,
} from '@org/tools';
import * as restate from '@restatedev/restate-sdk';
import { InvalidRestateAgentOptionError } from './errors.js';
import { journaledObservation } from './journal-values.js';
import type {
  RemoteToolDescription,
  RemoteToolRequest,
  ToolServiceDescription,
} from './remote-tool-protocol.js';
import { strictJsonSerde } from './strict-json-serde.js';

/** Options of `createRestateToolService`. */
export interface RestateToolServiceOptions {
  /** The service's name in Restate; agents name it in `restateToolSource(name)`. */
  readonly name: string;
  readonly tools: ToolRegistry | Iterable<Tool>;
  /** Hooks around every call, run in the service's process. */
  readonly hooks?: ToolHooks;
  /** Values of the tools' hidden parameters, supplied here (an agent cannot send them). */
  readonly injected?: Readonly<Record<string, unknown>>;
  /**
   * Whether only other Restate services may call it (`true`, the default): the ingress refuses outside callers, so a
   * call cannot skip the approval an agent asks for. Set `false` to call the tools over HTTP too.
   */
  readonly ingressPrivate?: boolean;
}

/** The handlers of a tool service, as Restate clients see them. */
export interface RestateToolServiceHandlers {
  /** Lists the served tools (names, descriptions, schemas) for `remoteTools` to build its proxies from. */
  describe(ctx: restate.Context): Promise<ToolServiceDescription>;
  /** Runs one call of a served tool and answers its observation (a failure is an observation, not a throw). */
  execute(ctx: restate.Context, request: RemoteToolRequest): Promise<ToolObservation>;
}

/** A Restate service serving tools; bind it to an endpoint (`restate.serve({ services: [service] })`). */
export type RestateToolService<Name extends string = string> = restate.ServiceDefinition<
  Name,
  RestateToolServiceHandlers
>;

const MAX_ID_LENGTH = 512;

function requestProblem(request: unknown): string | undefined {
  if (typeof request !== 'object' || request === null || Array.isArray(request))
    return 'the request is not an object';
  const record = request as Record<string, unknown>;
  const field = (key: string): unknown => (Object.hasOwn(record, key) ? record[key] : undefined);
  const actionId = field('actionId');
  if (typeof actionId !== 'string' || actionId.length === 0 || actionId.length > MAX_ID_LENGTH) {
    return `actionId must be a string of 1 to ${MAX_ID_LENGTH} characters`;
  }
  if (typeof field('toolName') !== 'string') return 'toolName must be a string';
  const args = field('args');
  if (typeof args !== 'object' || args === null || Array.isArray(args)) return 'args must be an object';
  for (const key of ['timeoutMs', 'outputBudgetBytes']) {
    const value = field(key);
    if (value !== undefined && (typeof value !== 'number' || !(value > 0) || value > MAX_TIMER_DELAY_MS)) {
      return `${key} must be a number above 0, at most ${MAX_TIMER_DELAY_MS}`;
    }
  }
  return undefined;
}

/** How a tool is described to agents. */
function describeTool(tool: Tool): RemoteToolDescription {
  let outputSchema: JsonSchema | undefined;
  if (tool.output !== undefined) {
    try {
      outputSchema = toJsonSchema(tool.output);
    } catch {
      // An output schema that cannot be described still checks outputs here; agents just cannot read it.
      outputSchema = undefined;
    }
  }
  return {
    name: tool.name,
    description: tool.description,
    inputSchema: tool.inputSchema,
    ...(outputSchema === undefined ? {} : { outputSchema }),
    needsApproval: tool.needsApproval !== false,
    terminal: tool.terminal,
  };
}

/**
 * Serves tools as a Restate service, so they run on the machines that run this service's endpoint, scaled and
 * retried by the engine, while agents elsewhere call them (`restateToolSource(name)` in `createRestateAgent`). Each
 * call is one durable call from the agent's journal: sent once, its observation journaled there.
 *
 * Handlers: `describe` (the tools' names, descriptions and schemas) and `execute` (one call: the arguments are
 * validated, the tool runs with its timeout, hooks and hidden values, and the answer is the observation).
 *
 * @example
 * import * as restate from '@restatedev/restate-sdk';
 * const weatherTools = createRestateToolService({ name: 'weather-tools', tools: [getWeather] });
 * await restate.serve({ services: [weatherTools], port: 9081 });
 */
export function createRestateToolService<const Name extends string>(
  options: RestateToolServiceOptions & { readonly name: Name },
): RestateToolService<Name> {
  if (typeof options.name !== 'string' || !/^[A-Za-z_][\w.-]{0,127}$/.test(options.name)) {
    throw new InvalidRestateAgentOptionError({
      option: 'name',
      message: `must be a service name (letters, digits, '_', '.', '-'; starting with a letter or '_'), got ${JSON.stringify(options.name)}.`,
    });
  }
  let registry: ToolRegistry;
  try {
    registry = ToolRegistry.from(options.tools, 'tools');
  } catch (error) {
    if (!InvalidToolOptionError.isInstance(error)) throw error;
    throw new InvalidRestateAgentOptionError({
      option: 'tools',
      message: 'must be a ToolRegistry or tools.',
    });
  }
  const description: ToolServiceDescription = {
    version: 1,
    tools: registry.list().map(describeTool),
  };
  const handlers: RestateToolServiceHandlers = {
    describe: restate.handlers.handler(
      { input: strictJsonSerde<undefined>() },
      async (_ctx: restate.Context): Promise<ToolServiceDescription> => description,
    ),
    execute: restate.handlers.handler(
      { input: strictJsonSerde<RemoteToolRequest>() },
      async (ctx: restate.Context, request: RemoteToolRequest): Promise<ToolObservation> => {
        const problem = requestProblem(request);
        if (problem !== undefined) {
          throw new restate.TerminalError(`Invalid tool request: ${problem}.`, { errorCode: 400 });
        }
        let observation: ToolObservation;
        try {
          observation = await executeAction(
            registry,
            { id: request.actionId, toolName: request.toolName, args: { ...request.args } },
            {
              validate: true,
              // A call whose attempt the engine cut is made again: this one stops rather than run beside it.
              signal: ctx.request().attemptCompletedSignal,
              ...(request.timeoutMs === undefined ? {} : { timeoutMs: request.timeoutMs }),
              ...(request.outputBudgetBytes === undefined
                ? {}
                : { outputBudgetBytes: request.outputBudgetBytes }),
              ...(options.hooks === undefined ? {} : { hooks: options.hooks }),
              ...(options.injected === undefined ? {} : { injected: options.injected }),
            },
          );
        } catch (error) {
          // executeAction answers every tool failure with an observation; a throw is a request it cannot take.
          throw new restate.TerminalError(`Invalid tool request: ${errorMessageOf(error)}`, {
            errorCode: 400,
          });
        }
        return journaledObservation(observation);
      },
    ),
  };
  return restate.service({
    name: options.name,
    handlers,
    options: { ingressPrivate: options.ingressPrivate ?? true },
  }) as RestateToolService<Name>;
}

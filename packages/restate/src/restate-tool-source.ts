import { defineTool, type Tool, type ToolExecutionContext } from '@org/tools';
import type { DurableRuntime } from './durable-runtime.js';
import { InvalidRemoteToolResponseError, InvalidRestateAgentOptionError, RemoteToolError } from './errors.js';
import {
  type RemoteToolRequest,
  readRemoteObservation,
  readToolServiceDescription,
} from './remote-tool-protocol.js';

/** Tools served by a Restate service (`createRestateToolService`), as an agent offers them. Plain data. */
export interface RestateToolSource {
  /** The tool service's name in Restate. */
  readonly service: string;
  /** Put before each tool's name in this agent (`weather.` gives `weather.get_forecast`). Default none. */
  readonly prefix: string;
}

/**
 * Offers the tools of a tool service to a durable agent (`toolSources` of `createRestateAgent`). At the start of each
 * run the agent asks the service for its tools (`describe`, a durable call: journaled, so a replay offers the same
 * tools); each call of one of them, direct or as a plan step, is a durable call to the service's `execute`, which runs
 * the tool on whichever process serves the service.
 *
 * @example
 * createRestateAgent({ agent: { model, toolSources: [restateToolSource('weather-tools')] } });
 */
export function restateToolSource(
  service: string,
  options: { readonly prefix?: string } = {},
): RestateToolSource {
  if (typeof service !== 'string' || !/^[A-Za-z_][\w.-]{0,127}$/.test(service)) {
    throw new InvalidRestateAgentOptionError({
      option: 'toolSources',
      message: `a tool source names a Restate service (letters, digits, '_', '.', '-'), got ${JSON.stringify(service)}.`,
    });
  }
  const prefix = options.prefix ?? '';
  if (typeof prefix !== 'string') {
    throw new InvalidRestateAgentOptionError({
      option: 'toolSources',
      message: 'a prefix must be a string.',
    });
  }
  return Object.freeze({ service, prefix });
}

/** What a remote tool's call carries from the run besides its arguments. */
export interface RemoteCallSettings {
  /** The run's `toolTimeoutMs`, kept by the service. */
  readonly timeoutMs: number | undefined;
}

/**
 * The tools of a source, for one run: described by the service (a journaled call), each one's `execute` a durable
 * call to the service. A failure the service reports is thrown as `RemoteToolError`, so the agent sees an error
 * observation naming the remote status and code.
 */
export async function loadToolSource(
  source: RestateToolSource,
  runtime: DurableRuntime,
  settings: RemoteCallSettings,
): Promise<Tool[]> {
  const description = readToolServiceDescription(
    source.service,
    await runtime.call(source.service, 'describe', null),
  );
  return description.tools.map((remote, index) => {
    const execute = async (
      args: Record<string, unknown>,
      context: ToolExecutionContext,
    ): Promise<unknown> => {
      const request: RemoteToolRequest = {
        actionId: context.toolCallId,
        toolName: remote.name,
        args,
        ...(settings.timeoutMs === undefined ? {} : { timeoutMs: settings.timeoutMs }),
        ...(context.outputBudgetBytes === undefined ? {} : { outputBudgetBytes: context.outputBudgetBytes }),
      };
      const observation = readRemoteObservation(
        source.service,
        request,
        await runtime.call(source.service, 'execute', request),
      );
      if (observation.status === 'success') {
        return observation.rawOutput !== undefined ? observation.rawOutput : observation.output;
      }
      throw new RemoteToolError({
        service: source.service,
        toolName: remote.name,
        status: observation.status,
        code: observation.error?.code ?? 'unknown',
        message: observation.error?.message ?? '',
      });
    };
    try {
      return defineTool({
        name: `${source.prefix}${remote.name}`,
        description: remote.description,
        input: remote.inputSchema,
        ...(remote.outputSchema === undefined ? {} : { output: remote.outputSchema }),
        needsApproval: remote.needsApproval,
        terminal: remote.terminal,
        execute,
      });
    } catch (error) {
      throw new InvalidRemoteToolResponseError({
        service: source.service,
        field: `tools[${index}]`,
        problem: error instanceof Error ? error.message : String(error),
      });
    }
  });
}

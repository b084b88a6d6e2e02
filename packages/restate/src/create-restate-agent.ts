import * as restate from '@restatedev/restate-sdk';
import { approveRun, runStatus } from './approval.js';
import { runDurableAgent } from './durable-run.js';
import { InvalidRestateAgentOptionError } from './errors.js';
import type {
  ApprovalInput,
  DurableAgentResult,
  RestateAgentInput,
  RestateAgentOptions,
  RestateAgentStatus,
} from './restate-agent-types.js';
import { strictJsonSerde } from './strict-json-serde.js';

/** The handlers of a durable agent, as Restate clients see them. */
export interface RestateAgentHandlers {
  /** Runs the agent (once per workflow key: the run's id) and resolves with its result. */
  run(ctx: restate.WorkflowContext, input: RestateAgentInput): Promise<DurableAgentResult>;
  /** Decides the approval the run waits for; a second approval of the same pause is refused (409). */
  approve(
    ctx: restate.WorkflowSharedContext,
    input: ApprovalInput,
  ): Promise<{ readonly runId: string; readonly round: number }>;
  /** What the run waits for. */
  status(ctx: restate.WorkflowSharedContext): Promise<RestateAgentStatus>;
}

/** A durable agent: a Restate workflow. Bind it to an endpoint (`restate.serve({ services: [agent] })`). */
export type RestateAgent<Name extends string = string> = restate.WorkflowDefinition<
  Name,
  RestateAgentHandlers
>;

const NAME_PATTERN = /^[A-Za-z_][\w.-]{0,127}$/;

function checkOptions(options: RestateAgentOptions, name: string): void {
  if (typeof options !== 'object' || options === null) {
    throw new InvalidRestateAgentOptionError({ option: 'options', message: 'must be an object.' });
  }
  if (!NAME_PATTERN.test(name)) {
    throw new InvalidRestateAgentOptionError({
      option: 'name',
      message: `must be a workflow name (letters, digits, '_', '.', '-'; starting with a letter or '_'), got ${JSON.stringify(name)}.`,
    });
  }
  const agent = options.agent;
  if (typeof agent !== 'function' && (typeof agent !== 'object' || agent === null)) {
    throw new InvalidRestateAgentOptionError({
      option: 'agent',
      message: 'must be the agent settings ({ model, tools, ... }) or a function of the run returning them.',
    });
  }
  if (typeof agent === 'object' && typeof agent.model !== 'object') {
    throw new InvalidRestateAgentOptionError({ option: 'agent', message: 'has no model.' });
  }
  for (const [key, value] of Object.entries(options.modelRetry ?? {})) {
    if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 1) {
      throw new InvalidRestateAgentOptionError({
        option: `modelRetry.${key}`,
        message: `must be a whole number from 1, got ${String(value)}.`,
      });
    }
  }
  if (
    options.retentionMs !== undefined &&
    (!Number.isSafeInteger(options.retentionMs) || options.retentionMs < 1)
  ) {
    throw new InvalidRestateAgentOptionError({
      option: 'retentionMs',
      message: 'must be a whole number of ms from 1.',
    });
  }
}

/**
 * An agent that runs durably on Restate, as a workflow: each run is one workflow, keyed by its id.
 *
 * - Every model call and every tool call is a journaled step; plan steps (`plan: true`) are journaled one by one and
 *   scheduled as their dependencies finish. If the process running it dies, the engine resumes the run on any
 *   process serving this workflow, from its journal: no completed model call or tool call runs again.
 * - A run that needs approval waits on a durable promise, suspended, for hours if need be; `approve`, from any
 *   process, decides it exactly once (a second approval is refused with 409), and the run resumes.
 * - `toolSources` offers tools served by other Restate services (`createRestateToolService`), run where those run.
 *
 * Handlers, over the ingress: `POST /<name>/<runId>/run` (or `/run/send`) with `{ task }` starts a run;
 * `POST /<name>/<runId>/approve` with `{ decisions }` decides an approval; `POST /<name>/<runId>/status`.
 *
 * @example
 * import * as restate from '@restatedev/restate-sdk';
 * const agent = createRestateAgent({
 *   name: 'support-agent',
 *   agent: { model: openai('gpt-4o-mini'), tools: [lookupOrder, refund], plan: true },
 * });
 * await restate.serve({ services: [agent], port: 9080 });
 * // curl localhost:8080/support-agent/run-42/run --json '{"task": "Refund order 7"}'
 */
export function createRestateAgent<const Name extends string = 'agent'>(
  options: RestateAgentOptions & { readonly name?: Name },
): RestateAgent<Name> {
  const name = (options?.name ?? 'agent') as Name;
  checkOptions(options, name);
  const handlers: RestateAgentHandlers = {
    run: restate.handlers.workflow.workflow(
      { input: strictJsonSerde<RestateAgentInput>() },
      (ctx: restate.WorkflowContext, input: RestateAgentInput) => runDurableAgent(ctx, input, options),
    ),
    approve: restate.handlers.workflow.shared(
      { input: strictJsonSerde<ApprovalInput>() },
      (ctx: restate.WorkflowSharedContext, input: ApprovalInput) => approveRun(ctx, input),
    ),
    status: restate.handlers.workflow.shared((ctx: restate.WorkflowSharedContext) => runStatus(ctx)),
  };
  return restate.workflow({
    name,
    handlers,
    ...(options.retentionMs === undefined ? {} : { options: { workflowRetention: options.retentionMs } }),
  }) as RestateAgent<Name>;
}

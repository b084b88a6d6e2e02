import type { RunAgentInput } from '@ag-ui/core';
import type { AgentOptions } from '@org/planner';
import { ToolRegistry } from '@org/tools';
import { readApprovalResume } from './approval-interrupts.js';
import { AgUiRequestError } from './errors.js';
import { toFrontEndTools } from './front-end-tools.js';
import { toInputConversation } from './input-messages.js';

/** The agent's configuration: `runAgent` options without what each run input gives (conversation, resume, signal). */
export type AgUiAgentOptions = Omit<AgentOptions, 'task' | 'messages' | 'resume' | 'signal' | 'runId'>;

/** A run input made into `runAgent` options, checked before anything runs. */
export interface PreparedRun {
  readonly options: AgentOptions;
  readonly frontEndToolNames: ReadonlySet<string>;
  readonly resuming: boolean;
}

/**
 * Reads a run input into `runAgent` options: the front end's tools beside the server's, its `context` and `state`
 * shown to the model after the system prompt, and either the conversation (`messages`) or, when the input carries
 * `resume` entries, the paused run's state and decisions (the conversation then comes from the state, and the
 * input's messages are the front end's copy of it). A resume needs the agent's `stateSecret` (refused without one,
 * since an unsealed state could be the client's own). Throws `AgUiRequestError` for anything that cannot run.
 */
export function prepareRun(input: RunAgentInput, agent: AgUiAgentOptions): PreparedRun {
  const serverTools = agent.tools instanceof ToolRegistry ? agent.tools : new ToolRegistry(agent.tools);
  const frontEndTools = toFrontEndTools(input.tools, serverTools);
  const tools =
    frontEndTools.length === 0
      ? serverTools
      : ToolRegistry.compose(serverTools, new ToolRegistry(frontEndTools));
  const systemPrompt = withFrontEndContext(agent.systemPrompt, input);
  const base: AgentOptions = {
    ...agent,
    tools,
    ...(systemPrompt === undefined ? {} : { systemPrompt }),
  };
  const frontEndToolNames = new Set(frontEndTools.map((tool) => tool.name));
  if (input.resume !== undefined && input.resume.length > 0) {
    // Without a secret the planner cannot tell a state it paused from one the client wrote (a pending call to an
    // approval-gated tool with the client's own arguments, a fresh resume token each time): no resume is trusted.
    if (agent.stateSecret === undefined) {
      throw new AgUiRequestError({
        problem: 'resume',
        message:
          'This endpoint cannot resume a paused run: resuming needs a stateSecret on the handler, so the paused ' +
          'state it gets back is known to be its own. Give createAgUiHandler / serveAgUi a stateSecret.',
        field: 'resume',
      });
    }
    return {
      options: { ...base, resume: readApprovalResume(input.resume) },
      frontEndToolNames,
      resuming: true,
    };
  }
  const conversation = toInputConversation(input.messages, {
    frontEndToolNames,
    outputBudgetBytes: agent.outputBudgetBytes,
  });
  return {
    options: { ...base, messages: conversation.messages, runId: input.runId },
    frontEndToolNames,
    resuming: false,
  };
}

/**
 * The system prompt with the front end's `context` entries and `state` after it. Both come with every run input, so
 * a resumed run sees the same prompt as long as the front end sends the same context (a changed one is refused by
 * the resume as a changed system prompt).
 */
function withFrontEndContext(systemPrompt: string | undefined, input: RunAgentInput): string | undefined {
  const sections: string[] = [];
  if (systemPrompt !== undefined && systemPrompt !== '') sections.push(systemPrompt);
  if (input.context.length > 0) {
    sections.push(
      [
        'Context from the application:',
        ...input.context.map((entry) => `- ${entry.description}: ${entry.value}`),
      ].join('\n'),
    );
  }
  const state: unknown = input.state;
  const emptyObject =
    typeof state === 'object' && state !== null && !Array.isArray(state) && Object.keys(state).length === 0;
  if (state !== undefined && state !== null && !emptyObject) {
    sections.push(`State of the application (JSON):\n${JSON.stringify(state)}`);
  }
  return sections.length === 0 ? undefined : sections.join('\n\n');
}

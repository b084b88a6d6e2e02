import { defineTool, executeAction, ToolRegistry } from '@org/tools';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createToolPlanTool, executePlan, type StepRunner } from './index.js';

function emailTools(sent: string[]) {
  const search = defineTool({
    name: 'search',
    description: 'Search contacts.',
    input: z.object({ name: z.string() }),
    execute: ({ name }) => ({ email: `${name.toLowerCase()}@example.com` }),
  });
  const sendEmail = defineTool({
    name: 'send_email',
    description: 'Send an email.',
    input: z.object({ to: z.string(), body: z.string() }),
    needsApproval: true,
    execute: ({ to }) => {
      sent.push(to);
      return 'sent';
    },
  });
  const maybeTransfer = defineTool({
    name: 'transfer',
    description: 'Move money.',
    input: z.object({ amount: z.number() }),
    needsApproval: async ({ amount }) => amount > 100,
    execute: ({ amount }) => {
      sent.push(`transfer ${amount}`);
      return 'done';
    },
  });
  return new ToolRegistry([search, sendEmail, maybeTransfer]);
}

const plan = {
  steps: [
    { id: 'who', tool: 'search', arguments: { name: 'Ada' } },
    { id: 'mail', tool: 'send_email', arguments: { to: '$ref:who.email', body: 'Hello' } },
    { id: 'after', tool: 'search', arguments: { name: '$ref:mail' } },
  ],
};

describe('steps whose tool needs approval', () => {
  it('are blocked, never run, and their dependents are skipped', async () => {
    const sent: string[] = [];
    const result = await executePlan(plan, { tools: emailTools(sent) });
    expect(sent).toEqual([]);
    const byId = Object.fromEntries(result.steps.map((step) => [step.id, step]));
    expect(byId.who?.status).toBe('success');
    expect(byId.mail?.status).toBe('blocked');
    expect(byId.mail?.error).toMatchObject({ code: 'approval_required' });
    expect(byId.mail?.error?.message).toContain("Call 'send_email' directly instead");
    expect(byId.after?.status).toBe('skipped');
  });

  it('cannot be run by a custom runner either: the executor decides before any runner sees the step', async () => {
    const ran: string[] = [];
    const runner: StepRunner = {
      run: async ({ action }) => {
        ran.push(action.toolName);
        return {
          actionId: action.id,
          toolName: action.toolName,
          status: 'success',
          output: 'ok',
          durationMs: 0,
        };
      },
    };
    await executePlan(plan, { tools: emailTools([]), runner });
    expect(ran).toEqual(['search']);
  });

  it('run when approveStep approves them, with the resolved arguments', async () => {
    const sent: string[] = [];
    const asked: unknown[] = [];
    const result = await executePlan(plan, {
      tools: emailTools(sent),
      approveStep: (action) => {
        asked.push(action.args);
        return true;
      },
    });
    expect(asked).toEqual([{ to: 'ada@example.com', body: 'Hello' }]);
    expect(sent).toEqual(['ada@example.com']);
    expect(result.steps.every((step) => step.status === 'success')).toBe(true);
  });

  it('evaluate a predicate per call, and fail closed when deciding throws', async () => {
    const sent: string[] = [];
    const result = await executePlan(
      {
        steps: [
          { id: 'small', tool: 'transfer', arguments: { amount: 50 } },
          { id: 'large', tool: 'transfer', arguments: { amount: 5000 } },
        ],
      },
      {
        tools: emailTools(sent),
        approveStep: () => {
          throw new Error('policy service down');
        },
      },
    );
    expect(sent).toEqual(['transfer 50']);
    const large = result.steps.find((step) => step.id === 'large');
    expect(large?.status).toBe('blocked');
    expect(large?.error?.message).toContain('policy service down');
  });

  it('stay blocked when a model hides them inside execute_tool_plan', async () => {
    const sent: string[] = [];
    const tools = emailTools(sent);
    const planTool = createToolPlanTool({ tools });
    const observation = await executeAction(new ToolRegistry([planTool]), {
      id: 'call_1',
      toolName: 'execute_tool_plan',
      args: plan,
    });
    expect(sent).toEqual([]);
    expect(observation.status).toBe('success');
    expect(JSON.stringify(observation.output)).toContain('approval');
  });
});

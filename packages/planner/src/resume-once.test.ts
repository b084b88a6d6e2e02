import { createScriptedModel } from '@org/provider-scripted';
import { defineTool, ToolRegistry } from '@org/tools';
import { describe, expect, it } from 'vitest';
import {
  type AgentState,
  createInMemoryResumeTokenStore,
  createReActPlanner,
  InvalidAgentOptionsError,
  InvalidResumeStateError,
  ResumeAlreadyClaimedError,
  runAgent,
} from './index.js';

const SECRET = 'sixteen-or-more-bytes-of-secret';

function tools(paid: number[]): ToolRegistry {
  return new ToolRegistry([
    defineTool({
      name: 'pay',
      description: 'Pays an amount.',
      input: { type: 'object', properties: { amount: { type: 'number' } }, required: ['amount'] },
      needsApproval: true,
      execute: (args: Record<string, unknown>) => {
        paid.push(args.amount as number);
        return 'paid';
      },
    }),
  ]);
}

const payTurn = { toolCalls: [{ id: 'p1', toolName: 'pay', arguments: { amount: 5 } }] };

describe('runAgent: a paused state is resumed once', () => {
  it('refuses a second resume with ResumeAlreadyClaimedError, the tool having run once', async () => {
    const paid: number[] = [];
    const paused = await runAgent({
      model: createScriptedModel({ script: [payTurn] }),
      tools: tools(paid),
      task: 'Pay.',
    });
    const state = paused.state as AgentState;
    expect(typeof state.resumeToken).toBe('string');
    const resumeTokenStore = createInMemoryResumeTokenStore();
    const resume = () =>
      runAgent({
        model: createScriptedModel({ script: [{ text: 'Done.' }] }),
        tools: tools(paid),
        resumeTokenStore,
        resume: { state: JSON.parse(JSON.stringify(state)) as AgentState, decisions: { p1: true } },
      });
    expect((await resume()).finishReason).toBe('final-answer');
    const second = await resume().catch((error: unknown) => error);
    expect(ResumeAlreadyClaimedError.isInstance(second)).toBe(true);
    expect(second).toMatchObject({ code: 'resume_already_claimed', runId: paused.runId });
    expect(paid).toEqual([5]);
  });

  it('resumes a ReAct run once too', async () => {
    const paid: number[] = [];
    const model = createScriptedModel({
      capabilities: { toolCalls: false },
      script: [
        { text: '{"thought": "pay", "type": "call_tool", "tool": "pay", "args": {"amount": 7}}' },
        { text: '{"thought": "done", "type": "final_answer", "answer": "Paid."}' },
      ],
    });
    const planner = createReActPlanner();
    const paused = await runAgent({ model, tools: tools(paid), planner, task: 'Pay 7.' });
    const id = paused.pendingApprovals?.[0]?.id as string;
    const state = JSON.parse(JSON.stringify(paused.state)) as AgentState;
    const resumed = await runAgent({
      model,
      tools: tools(paid),
      planner,
      resume: { state, decisions: { [id]: true } },
    });
    expect(resumed.text).toBe('Paid.');
    expect(paid).toEqual([7]);
  });

  it('keeps the in-memory store within maxTokens, forgetting the oldest claim', () => {
    const store = createInMemoryResumeTokenStore({ maxTokens: 2 });
    expect([store.claim('a', { runId: 'r' }), store.claim('a', { runId: 'r' })]).toEqual([true, false]);
    store.claim('b', { runId: 'r' });
    store.claim('c', { runId: 'r' });
    expect(store.claim('b', { runId: 'r' })).toBe(false);
    expect(store.claim('a', { runId: 'r' })).toBe(true);
    expect(() => createInMemoryResumeTokenStore({ maxTokens: 0 })).toThrow(InvalidAgentOptionsError);
  });
});

describe('runAgent: sealed states (stateSecret)', () => {
  it('seals a paused state, verifies it after a trip through JSON, and refuses an edit or a missing seal', async () => {
    const paid: number[] = [];
    const paused = await runAgent({
      model: createScriptedModel({ script: [payTurn] }),
      tools: tools(paid),
      task: 'Pay.',
      stateSecret: SECRET,
      toolTimeoutMs: Number.POSITIVE_INFINITY,
    });
    const text = JSON.stringify(paused.state);
    expect(paused.state?.seal).toMatch(/^hmac-sha256:[0-9a-f]{64}$/);
    const resume = (state: unknown, stateSecret: string | string[] = SECRET) =>
      runAgent({
        model: createScriptedModel({ script: [{ text: 'Done.' }] }),
        tools: tools(paid),
        stateSecret,
        resumeTokenStore: createInMemoryResumeTokenStore(),
        resume: { state: state as AgentState, decisions: { p1: true } },
      }).catch((error: unknown) => error);
    const edited = JSON.parse(text);
    edited.history[0].content = 'Pay everyone.';
    expect(await resume(edited)).toMatchObject({ code: 'invalid_resume_state', reason: 'tampered' });
    const { seal: _seal, ...unsealed } = JSON.parse(text);
    expect(await resume(unsealed)).toMatchObject({ code: 'invalid_resume_state', reason: 'unsealed' });
    expect(await resume(JSON.parse(text), 'another secret of enough bytes')).toMatchObject({
      reason: 'tampered',
    });
    expect(paid).toEqual([]);
    // Rotation: the old secret still verifies when listed after the new one.
    const resumed = await resume(JSON.parse(text), ['the new secret of enough bytes', SECRET]);
    expect(resumed).toMatchObject({ finishReason: 'final-answer' });
    expect(paid).toEqual([5]);
  });

  it('requires the secret again on resume, and refuses a short one', async () => {
    const paused = await runAgent({
      model: createScriptedModel({ script: [payTurn] }),
      tools: tools([]),
      task: 'Pay.',
      stateSecret: SECRET,
    });
    const refused = await runAgent({
      model: createScriptedModel({ script: [] }),
      tools: tools([]),
      resume: { state: paused.state as AgentState, decisions: { p1: true } },
    }).catch((error: unknown) => error);
    expect(InvalidResumeStateError.isInstance(refused)).toBe(true);
    expect((refused as InvalidResumeStateError).missingOptions).toEqual(['stateSecret']);
    await expect(
      runAgent({
        model: createScriptedModel({ script: [] }),
        tools: tools([]),
        task: 'x',
        stateSecret: 'short',
      }),
    ).rejects.toSatisfy((error) => InvalidAgentOptionsError.isInstance(error));
  });
});

describe('runAgent: statistics by model-chosen tool names', () => {
  it('counts a tool named __proto__ or constructor as its own entry, on a null-prototype record', async () => {
    const result = await runAgent({
      model: createScriptedModel({
        script: [
          {
            toolCalls: [
              { id: 'a', toolName: '__proto__', arguments: {} },
              { id: 'b', toolName: 'constructor', arguments: {} },
              { id: 'c', toolName: 'constructor', arguments: {} },
            ],
          },
          { text: 'Done.' },
        ],
      }),
      tools: tools([]),
      task: 'Call.',
    });
    expect(result.finishReason).toBe('final-answer');
    expect(Object.getPrototypeOf(result.toolStats)).toBe(null);
    expect(Object.keys(result.toolStats).sort()).toEqual(['__proto__', 'constructor']);
    expect(result.toolStats.constructor).toMatchObject({ chosen: 2, invalid: 2 });
    expect(Object.hasOwn(result.toolStats, 'toString')).toBe(false);
  });
});

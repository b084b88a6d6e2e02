/**
 * Issue 18, classes 4, 8 and 10: names a model chooses, a paused run resumed twice, and stored state as untrusted
 * input.
 *
 * Class 4: tool names, tool-call ids and plan step ids named like `Object.prototype` members (`__proto__`,
 * `constructor`, `toString`, `hasOwnProperty`, `valueOf`) are plain names everywhere: approvals, statistics, results
 * and plan summaries hold them as own data and inherit nothing.
 *
 * Class 8: a paused state is resumed once. Duplicated resumes (in sequence, concurrently, through the JSON text, on
 * one store shared as two processes would share a database) run the approved calls once; every other resume is a
 * `ResumeAlreadyClaimedError` thrown before anything runs. A refused resume (a missing decision) spends nothing.
 *
 * Class 10: random mutations of a real paused state (a field replaced by a hostile value, deleted, truncated, a
 * prototype-named key added, a call added) are refused with a typed error before anything runs, or run exactly the
 * calls the model made with the arguments the human approved; with `stateSecret`, every edit is refused.
 *
 * Every run is cheap (one scripted model answer, three small tools), so `test:stress` runs each property 100,000
 * times; the prototype guard checks the built-in prototypes after every test.
 */

import { randomUUID } from 'node:crypto';
import { OrgError } from '@org/core';
import { executePlan, formatPlanResult } from '@org/plan-executor';
import {
  type AgentResult,
  type AgentState,
  createInMemoryResumeTokenStore,
  InvalidResumeStateError,
  ResumeAlreadyClaimedError,
  type ResumeTokenStore,
  runAgent,
} from '@org/planner';
import { createScriptedModel } from '@org/provider-scripted';
import { defineTool, ToolRegistry } from '@org/tools';
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { assertEveryCallAnsweredOnce, NUM_RUNS, propertyTimeout } from './support/run-helpers.js';

const PROTOTYPE_NAMES = ['__proto__', 'constructor', 'toString', 'hasOwnProperty', 'valueOf'] as const;
const SECRET = 'a test secret of more than 16 bytes';

/** What the tools actually ran, in order, as `tool canonical-args`. */
const ledger: string[] = [];
const entry = (tool: string, args: unknown): string => `${tool} ${JSON.stringify(args)}`;

const paymentTools = new ToolRegistry([
  defineTool({
    name: 'pay',
    description: 'Pays an amount to someone.',
    input: {
      type: 'object',
      properties: { amount: { type: 'integer' }, to: { type: 'string' } },
      required: ['amount', 'to'],
      additionalProperties: false,
    },
    needsApproval: (args: Record<string, unknown>) => (args.amount as number) > 100,
    execute: (args: Record<string, unknown>) => {
      ledger.push(entry('pay', { amount: args.amount, to: args.to }));
      return `Paid ${String(args.amount)} to ${String(args.to)}.`;
    },
  }),
  defineTool({
    name: 'lookup',
    description: 'Looks something up.',
    input: {
      type: 'object',
      properties: { query: { type: 'string' } },
      required: ['query'],
      additionalProperties: false,
    },
    execute: (args: Record<string, unknown>) => {
      ledger.push(entry('lookup', { query: args.query }));
      return 'found';
    },
  }),
]);

/** The model's one turn: the call needing approval has the id `constructor` (class 4 inside classes 8 and 10). */
const PAUSING_TURN = {
  toolCalls: [
    { id: 'constructor', toolName: 'pay', arguments: { amount: 300, to: 'alice' } },
    { id: 'c_lookup', toolName: 'lookup', arguments: { query: 'balance' } },
    { id: 'c_small', toolName: 'pay', arguments: { amount: 50, to: 'bob' } },
  ],
};
/** The calls a resume approving `constructor` runs, each exactly once, with exactly these arguments. */
const APPROVED_RUN = [
  entry('pay', { amount: 300, to: 'alice' }),
  entry('lookup', { query: 'balance' }),
  entry('pay', { amount: 50, to: 'bob' }),
].sort();
/** JSON text: a key `constructor` that JSON.parse keeps as own data. */
const decisionsText = (approved: boolean): string => `{"constructor": ${approved}}`;

async function pause(options: { stateSecret?: string } = {}): Promise<AgentResult> {
  const paused = await runAgent({
    model: createScriptedModel({ script: [PAUSING_TURN] }),
    tools: paymentTools,
    task: 'Pay Alice 300 and Bob 50.',
    ...options,
  });
  if (paused.finishReason !== 'approval-required')
    throw new Error(`expected a pause, got ${paused.finishReason}`);
  return paused;
}

interface Resumed {
  readonly result?: AgentResult;
  readonly error?: unknown;
  readonly ran: readonly string[];
}

async function resume(
  state: unknown,
  /** `store`: a fresh in-memory store when absent (each resume on its own), `'default'` for runAgent's default. */
  options: {
    decisions?: unknown;
    store?: ResumeTokenStore | 'default' | undefined;
    stateSecret?: string;
  } = {},
): Promise<Resumed> {
  const before = ledger.length;
  try {
    const result = await runAgent({
      model: createScriptedModel({ script: [{ text: 'Done.' }] }),
      tools: paymentTools,
      resume: {
        state: state as AgentState,
        decisions: (Object.hasOwn(options, 'decisions')
          ? options.decisions
          : JSON.parse(decisionsText(true))) as Record<string, boolean>,
      },
      ...(options.store === 'default'
        ? {}
        : { resumeTokenStore: options.store ?? createInMemoryResumeTokenStore() }),
      ...(options.stateSecret === undefined ? {} : { stateSecret: options.stateSecret }),
    });
    return { result, ran: ledger.slice(before) };
  } catch (error) {
    return { error, ran: ledger.slice(before) };
  }
}

/** A typed refusal: an error of the family, never a TypeError from reading a malformed field. */
function expectTypedRefusal(outcome: Resumed, reasons?: readonly string[]): void {
  expect(outcome.result).toBeUndefined();
  expect(OrgError.isInstance(outcome.error), String(outcome.error)).toBe(true);
  expect(
    InvalidResumeStateError.isInstance(outcome.error) || ResumeAlreadyClaimedError.isInstance(outcome.error),
  ).toBe(true);
  if (reasons !== undefined) expect(reasons).toContain((outcome.error as InvalidResumeStateError).reason);
  expect(outcome.ran).toEqual([]);
}

/** Ran only calls the model made, with the arguments approved, each at most once. */
function expectOnlyApprovedCalls(outcome: Resumed): void {
  expect(new Set(outcome.ran).size).toBe(outcome.ran.length);
  for (const call of outcome.ran) expect(APPROVED_RUN).toContain(call);
}

// ---------------------------------------------------------------------------------------------------------------

describe('issue 18, class 4: model-chosen names are own data everywhere', () => {
  const executed = new Map<string, number>();
  const prototypeTools = new ToolRegistry([
    ...PROTOTYPE_NAMES.map((name) =>
      defineTool({
        name,
        description: `A tool named ${name}.`,
        input: { type: 'object', properties: {}, additionalProperties: true },
        execute: () => {
          executed.set(name, (executed.get(name) ?? 0) + 1);
          return name;
        },
      }),
    ),
    defineTool({
      name: 'approve_me',
      description: 'Needs approval.',
      input: { type: 'object', properties: {}, additionalProperties: true },
      needsApproval: true,
      execute: () => {
        executed.set('approve_me', (executed.get('approve_me') ?? 0) + 1);
        return 'approved';
      },
    }),
  ]);
  const toolNames = fc.constantFrom(
    ...PROTOTYPE_NAMES,
    'approve_me',
    // Not registered: unknown tools named like prototype members.
    'prototype',
    'isPrototypeOf',
    '__defineGetter__',
  );
  const callId = fc.oneof(fc.constantFrom(...PROTOTYPE_NAMES), fc.stringMatching(/^[a-z][a-z0-9_]{0,8}$/));

  it(
    'property: prototype-named tools and call ids: statistics, approvals and observations hold each as own data',
    async () => {
      await fc.assert(
        fc.asyncProperty(
          fc.uniqueArray(fc.tuple(callId, toolNames), { minLength: 1, maxLength: 6, selector: ([id]) => id }),
          async (calls) => {
            executed.clear();
            const model = createScriptedModel({
              script: [
                { toolCalls: calls.map(([id, toolName]) => ({ id, toolName, arguments: {} })) },
                { text: 'Done.' },
              ],
            });
            let result = await runAgent({ model, tools: prototypeTools, task: 'Call them.' });
            const approvals = calls.filter(([, name]) => name === 'approve_me').map(([id]) => id);
            if (approvals.length > 0) {
              expect(result.finishReason).toBe('approval-required');
              expect(result.pendingApprovals?.map((action) => action.id)).toEqual(approvals);
              // Decisions as a webhook delivers them: JSON text, read with JSON.parse (own keys, `__proto__` too).
              const decisions = JSON.parse(
                `{${approvals.map((id) => `${JSON.stringify(id)}: true`).join(',')}}`,
              ) as Record<string, boolean>;
              result = await runAgent({
                model,
                tools: prototypeTools,
                resume: { state: JSON.parse(JSON.stringify(result.state)) as AgentState, decisions },
              });
            }
            expect(result.finishReason).toBe('final-answer');
            assertEveryCallAnsweredOnce(result);
            const stats = result.toolStats;
            expect(Object.getPrototypeOf(stats)).toBe(null);
            const used = [...new Set(calls.map(([, name]) => name))].sort();
            expect(Object.keys(stats).sort()).toEqual(used);
            for (const name of used) {
              const count = calls.filter(([, toolName]) => toolName === name).length;
              expect(Object.hasOwn(stats, name)).toBe(true);
              expect(stats[name]?.chosen).toBe(count);
              const registered = prototypeTools.resolve(name) !== undefined;
              expect(stats[name]?.succeeded).toBe(registered ? count : 0);
              expect(stats[name]?.invalid).toBe(registered ? 0 : count);
              expect(executed.get(name) ?? 0).toBe(registered ? count : 0);
            }
            for (const name of PROTOTYPE_NAMES) {
              if (!used.includes(name)) expect(Object.hasOwn(stats, name)).toBe(false);
            }
            // Each observation answers its own call, whatever its id.
            const byId = new Map(
              result.observations.map((observation) => [observation.actionId, observation]),
            );
            for (const [id, name] of calls) expect(byId.get(id)?.toolName).toBe(name);
          },
        ),
        { numRuns: NUM_RUNS },
      );
    },
    propertyTimeout(3),
  );

  it(
    'property: plan step ids named like prototype members: one own result each, in PlanResult and formatPlanResult',
    async () => {
      const echo = new ToolRegistry([
        defineTool({
          name: 'echo',
          description: 'Echoes its value.',
          input: { type: 'object', properties: { value: {} }, additionalProperties: false },
          execute: (args: Record<string, unknown>) => ({ value: args.value ?? null }),
        }),
      ]);
      const stepId = fc.oneof(
        fc.constantFrom(...PROTOTYPE_NAMES),
        fc.stringMatching(/^[a-z][a-z0-9_]{0,6}$/),
      );
      await fc.assert(
        fc.asyncProperty(
          fc.uniqueArray(stepId, { minLength: 1, maxLength: 8 }),
          fc.array(fc.nat(), { minLength: 8, maxLength: 8 }),
          async (ids, picks) => {
            // Each step but the first refers to an earlier one (prototype-named ids included) or holds its index.
            const steps = ids.map((id, index) => ({
              id,
              tool: 'echo',
              arguments: {
                value:
                  index === 0 || (picks[index] ?? 0) % 3 === 0
                    ? index
                    : `$ref:${ids[(picks[index] ?? 0) % index]}.value`,
              },
            }));
            const result = await executePlan({ steps }, { tools: echo });
            expect(result.status).toBe('success');
            expect(result.steps.map((step) => step.id)).toEqual(ids);
            const expected = new Map<string, unknown>();
            for (const step of steps) {
              const value = step.arguments.value;
              expected.set(step.id, typeof value === 'number' ? value : expected.get(value.slice(5, -6)));
            }
            for (const step of result.steps) expect(step.output).toEqual({ value: expected.get(step.id) });
            const formatted = JSON.parse(formatPlanResult(result)) as { results: Record<string, unknown> };
            expect(Object.keys(formatted.results).sort()).toEqual([...ids].sort());
            for (const id of ids) {
              expect(Object.hasOwn(formatted.results, id)).toBe(true);
              expect(formatted.results[id]).toEqual({ value: expected.get(id) });
            }
          },
        ),
        { numRuns: NUM_RUNS },
      );
    },
    propertyTimeout(2),
  );
});

// ---------------------------------------------------------------------------------------------------------------

describe('issue 18, class 8: a paused state is resumed once', () => {
  it(
    'property: duplicated resumes (sequential, concurrent, from the JSON text, one store shared by two "processes"): the approved calls run once',
    async () => {
      await fc.assert(
        fc.asyncProperty(
          fc.integer({ min: 2, max: 5 }),
          fc.constantFrom('sequential', 'concurrent'),
          fc.constantFrom('default', 'shared', 'async-database'),
          fc.boolean(),
          fc.boolean(),
          async (copies, order, storeKind, sealed, approved) => {
            const secret = sealed ? { stateSecret: SECRET } : {};
            const paused = await pause(secret);
            const text = JSON.stringify(paused.state);
            const claimed = new Set<string>();
            const store: ResumeTokenStore | 'default' =
              storeKind === 'default'
                ? 'default'
                : storeKind === 'shared'
                  ? createInMemoryResumeTokenStore()
                  : {
                      // A database: the claim resolves later, the insert itself atomic.
                      claim: async (token) => {
                        await Promise.resolve();
                        if (claimed.has(token)) return false;
                        claimed.add(token);
                        return true;
                      },
                    };
            const resumeOnce = (index: number): Promise<Resumed> =>
              resume(
                // Half from the object the run returned, half from its JSON text, as two processes would read it.
                index % 2 === 0 ? paused.state : JSON.parse(text),
                { decisions: JSON.parse(decisionsText(approved)), ...secret, store },
              );
            // A refused resume spends nothing: the next one still runs.
            const refused = await resume(paused.state, { decisions: {}, ...secret, store });
            expectTypedRefusal(refused, ['decisions']);
            const start = ledger.length;
            const outcomes: Resumed[] = [];
            if (order === 'sequential') {
              for (let index = 0; index < copies; index++) outcomes.push(await resumeOnce(index));
            } else {
              outcomes.push(
                ...(await Promise.all(Array.from({ length: copies }, (_, index) => resumeOnce(index)))),
              );
            }
            const succeeded = outcomes.filter((outcome) => outcome.result !== undefined);
            expect(succeeded).toHaveLength(1);
            expect(succeeded[0]?.result?.finishReason).toBe('final-answer');
            for (const outcome of outcomes) {
              if (outcome.result === undefined) {
                expect(ResumeAlreadyClaimedError.isInstance(outcome.error)).toBe(true);
                // Concurrent resumes share the ledger: what each ran is only told apart in sequence.
                if (order === 'sequential') expect(outcome.ran).toEqual([]);
              }
            }
            const ran = ledger.slice(start).sort();
            expect(ran).toEqual(
              approved
                ? APPROVED_RUN
                : APPROVED_RUN.filter((call) => call !== entry('pay', { amount: 300, to: 'alice' })),
            );
          },
        ),
        { numRuns: NUM_RUNS },
      );
    },
    propertyTimeout(5),
  );

  it('a store that answers anything but true refuses the resume; a second pause gets a new token', async () => {
    const paused = await pause();
    for (const answer of [false, 'yes', 1, undefined, null]) {
      const outcome = await resume(paused.state, {
        store: { claim: () => answer as unknown as boolean },
      });
      expect(ResumeAlreadyClaimedError.isInstance(outcome.error)).toBe(true);
      expect(outcome.ran).toEqual([]);
    }
    const again = await pause();
    expect(again.state?.resumeToken).not.toBe(paused.state?.resumeToken);
  });
});

// ---------------------------------------------------------------------------------------------------------------

type Path = readonly (string | number)[];

/** Every path to a value in a JSON tree (the root excluded). */
function pathsOf(value: unknown, prefix: Path = [], into: Path[] = []): Path[] {
  if (typeof value !== 'object' || value === null) return into;
  const keys: (string | number)[] = Array.isArray(value)
    ? value.map((_, index) => index)
    : Object.keys(value);
  for (const key of keys) {
    const path = [...prefix, key];
    into.push(path);
    pathsOf((value as Record<string | number, unknown>)[key], path, into);
  }
  return into;
}

type Mutation =
  | { readonly kind: 'replace'; readonly path: number; readonly value: unknown }
  | { readonly kind: 'delete'; readonly path: number }
  | { readonly kind: 'truncate'; readonly path: number; readonly keep: number }
  | { readonly kind: 'prototype-key'; readonly path: number; readonly key: string; readonly value: unknown };

const hostileValue: fc.Arbitrary<unknown> = fc.oneof(
  fc.constantFrom(...PROTOTYPE_NAMES, null, {}, [], -1, 0, 1e308, 999_999, 'x', '', true, false, 1.5),
  fc.jsonValue({ maxDepth: 2 }),
  fc.constantFrom(...PROTOTYPE_NAMES).map((key) => JSON.parse(`{"${key}": {"polluted": true}}`) as unknown),
);

const mutation = (pathCount: number): fc.Arbitrary<Mutation> =>
  fc.oneof(
    fc.record({ kind: fc.constant('replace' as const), path: fc.nat(pathCount - 1), value: hostileValue }),
    fc.record({ kind: fc.constant('delete' as const), path: fc.nat(pathCount - 1) }),
    fc.record({ kind: fc.constant('truncate' as const), path: fc.nat(pathCount - 1), keep: fc.nat(3) }),
    fc.record({
      kind: fc.constant('prototype-key' as const),
      path: fc.nat(pathCount - 1),
      key: fc.constantFrom(...PROTOTYPE_NAMES),
      value: hostileValue,
    }),
  );

/** Applies a mutation to a fresh copy of the state's JSON; returns the copy. */
function mutate(text: string, paths: readonly Path[], change: Mutation): Record<string, unknown> {
  const root = JSON.parse(text) as Record<string, unknown>;
  const path = paths[change.path] as Path;
  let parent: Record<string | number, unknown> = root;
  for (const key of path.slice(0, -1)) parent = parent[key] as Record<string | number, unknown>;
  const key = path[path.length - 1] as string | number;
  const define = (target: object, name: string | number, value: unknown): void => {
    Object.defineProperty(target, name, { value, enumerable: true, writable: true, configurable: true });
  };
  switch (change.kind) {
    case 'replace':
      define(parent, key, change.value);
      break;
    case 'delete':
      if (Array.isArray(parent)) parent.splice(key as number, 1);
      else delete parent[key];
      break;
    case 'truncate': {
      const target = parent[key];
      if (Array.isArray(target)) target.length = Math.min(target.length, change.keep);
      else if (typeof target === 'string') define(parent, key, target.slice(0, change.keep));
      else if (typeof target === 'object' && target !== null) {
        for (const name of Object.keys(target).slice(change.keep))
          delete (target as Record<string, unknown>)[name];
      } else define(parent, key, undefined);
      break;
    }
    case 'prototype-key': {
      const target = parent[key];
      define(typeof target === 'object' && target !== null ? target : parent, change.key, change.value);
      break;
    }
  }
  return root;
}

describe('issue 18, class 10: stored state is untrusted input', () => {
  let plainText = '';
  let plainPaths: Path[] = [];
  let sealedText = '';
  let sealedPaths: Path[] = [];

  beforeAll(async () => {
    plainText = JSON.stringify((await pause()).state);
    plainPaths = pathsOf(JSON.parse(plainText));
    sealedText = JSON.stringify((await pause({ stateSecret: SECRET })).state);
    sealedPaths = pathsOf(JSON.parse(sealedText));
  });

  it('the untouched state resumes and runs the approved calls once (plain and sealed)', async () => {
    for (const [text, secret] of [
      [plainText, {}],
      [sealedText, { stateSecret: SECRET }],
    ] as const) {
      const outcome = await resume(JSON.parse(text), secret);
      expect(outcome.result?.finishReason).toBe('final-answer');
      expect([...outcome.ran].sort()).toEqual(APPROVED_RUN);
    }
  });

  it(
    'property: a random mutation of a real paused state: a typed refusal before anything runs, or only the approved calls, once',
    async () => {
      await fc.assert(
        fc.asyncProperty(mutation(plainPaths.length), async (change) => {
          const outcome = await resume(mutate(plainText, plainPaths, change));
          if (outcome.result === undefined) {
            expectTypedRefusal(outcome);
            return;
          }
          expectOnlyApprovedCalls(outcome);
          assertEveryCallAnsweredOnce(outcome.result);
        }),
        { numRuns: NUM_RUNS },
      );
    },
    propertyTimeout(2),
  );

  it(
    'property: with stateSecret, every edit of a sealed state is refused (tampered, unsealed or malformed) before anything runs',
    async () => {
      await fc.assert(
        fc.asyncProperty(mutation(sealedPaths.length), async (change) => {
          const mutated = mutate(sealedText, sealedPaths, change);
          const outcome = await resume(mutated, { stateSecret: SECRET });
          if (JSON.stringify(mutated) === sealedText) {
            // Not an edit (a value replaced by itself): it runs as approved.
            expect(outcome.result?.finishReason).toBe('final-answer');
            expect([...outcome.ran].sort()).toEqual(APPROVED_RUN);
            return;
          }
          expectTypedRefusal(outcome, ['tampered', 'unsealed', 'malformed']);
        }),
        { numRuns: NUM_RUNS },
      );
    },
    propertyTimeout(2),
  );

  it(
    'property: edited arguments and added calls: refused, or never run, unless consistently forged without a secret',
    async () => {
      type Forgery =
        | {
            readonly kind: 'approved-args';
            readonly amount: number;
            readonly where: 'action' | 'approval' | 'call' | 'all';
          }
        | {
            readonly kind: 'add-call';
            readonly tool: 'pay' | 'lookup';
            readonly amount: number;
            readonly id: string;
          };
      const forgery: fc.Arbitrary<Forgery> = fc.oneof(
        fc.record({
          kind: fc.constant('approved-args' as const),
          amount: fc.integer({ min: 101, max: 10_000_000 }).filter((amount) => amount !== 300),
          where: fc.constantFrom('action' as const, 'approval' as const, 'call' as const, 'all' as const),
        }),
        fc.record({
          kind: fc.constant('add-call' as const),
          tool: fc.constantFrom('pay' as const, 'lookup' as const),
          amount: fc.integer({ min: 101, max: 10_000_000 }),
          id: fc.oneof(
            fc.constantFrom(...PROTOTYPE_NAMES.filter((name) => name !== 'constructor')),
            fc.constant('c_added'),
          ),
        }),
      );
      await fc.assert(
        fc.asyncProperty(forgery, fc.boolean(), async (forged, sealed) => {
          const state = JSON.parse(sealed ? sealedText : plainText) as {
            pending: {
              turn: {
                toolCalls: Record<string, unknown>[];
                actions: Record<string, unknown>[];
                assistantMessage: { toolCalls: Record<string, unknown>[] };
              };
            };
            pendingApprovals: Record<string, unknown>[];
          };
          const turn = state.pending.turn;
          let forgedCall: string;
          if (forged.kind === 'approved-args') {
            const args = { amount: forged.amount, to: 'mallory' };
            forgedCall = entry('pay', args);
            if (forged.where === 'action' || forged.where === 'all')
              (turn.actions[0] as Record<string, unknown>).args = args;
            if (forged.where === 'approval' || forged.where === 'all')
              (state.pendingApprovals[0] as Record<string, unknown>).args = args;
            if (forged.where === 'call' || forged.where === 'all') {
              (turn.toolCalls[0] as Record<string, unknown>).arguments = JSON.stringify(args);
              (turn.assistantMessage.toolCalls[0] as Record<string, unknown>).arguments =
                JSON.stringify(args);
            }
          } else {
            const args =
              forged.tool === 'pay' ? { amount: forged.amount, to: 'mallory' } : { query: 'secrets' };
            forgedCall = entry(forged.tool, args);
            const call = { id: forged.id, toolName: forged.tool, arguments: JSON.stringify(args) };
            turn.toolCalls.push(call);
            turn.assistantMessage.toolCalls.push(call);
            turn.actions.push({ id: forged.id, toolName: forged.tool, args });
          }
          const outcome = await resume(state, sealed ? { stateSecret: SECRET } : {});
          if (sealed) {
            expectTypedRefusal(outcome, ['tampered']);
            return;
          }
          // Without a secret, a coordinated forgery of a call that needs no approval cannot be told from the model's:
          // that is what sealing is for. Everything else is refused or not run.
          const undetectable =
            (forged.kind === 'approved-args' && forged.where === 'all') ||
            (forged.kind === 'add-call' && forged.tool === 'lookup');
          if (outcome.result === undefined) {
            expectTypedRefusal(outcome);
            return;
          }
          if (!undetectable) expect(outcome.ran).not.toContain(forgedCall);
          expect(new Set(outcome.ran).size).toBe(outcome.ran.length);
          if (forged.kind === 'add-call' && forged.tool === 'pay') {
            // An added call that needs approval never runs unapproved.
            const observation = outcome.result.observations.find((item) => item.actionId === forged.id);
            expect(observation).toMatchObject({ status: 'blocked', error: { code: 'approval_required' } });
          }
        }),
        { numRuns: NUM_RUNS },
      );
    },
    propertyTimeout(2),
  );

  it('a malformed state names the field in an InvalidResumeStateError, never a TypeError', async () => {
    const cases: [string, (state: Record<string, unknown>) => unknown][] = [
      ['state', () => null],
      ['state', () => 'a string'],
      ['version', (state) => ({ ...state, version: 2 })],
      ['resumeToken', (state) => ({ ...state, resumeToken: undefined })],
      ['history', (state) => ({ ...state, history: {} })],
      ['pending', (state) => ({ ...state, pending: null })],
      [
        'pending.turn.actions',
        (state) => ({
          ...state,
          pending: {
            ...(state.pending as object),
            turn: { ...(state.pending as { turn: object }).turn, actions: 'x' },
          },
        }),
      ],
      [
        'pendingApprovals[0].args',
        (state) => ({ ...state, pendingApprovals: [{ id: 'constructor', toolName: 'pay', args: null }] }),
      ],
      ['toolStats["__proto__"]', (state) => ({ ...state, toolStats: JSON.parse('{"__proto__": 5}') })],
      [
        'run.requires[0]',
        (state) => ({ ...state, run: { ...(state.run as object), requires: ['__proto__'] } }),
      ],
      ['callCounts[0]', (state) => ({ ...state, callCounts: [['a']] })],
    ];
    for (const [field, edit] of cases) {
      const outcome = await resume(edit(JSON.parse(plainText)));
      expectTypedRefusal(outcome, ['malformed']);
      expect((outcome.error as InvalidResumeStateError).field).toBe(field);
    }
    // Malformed decisions, with an id named like a prototype member.
    for (const decisions of [
      null,
      [],
      { constructor: 'yes' },
      { constructor: null },
      JSON.parse('{"constructor": true, "__proto__": true}'),
    ]) {
      const outcome = await resume(JSON.parse(plainText), { decisions });
      expectTypedRefusal(outcome, ['decisions']);
    }
  });

  it('a resume token is never reused by another pause (random states carry distinct tokens)', async () => {
    const tokens = new Set<string>();
    for (let index = 0; index < 20; index++) tokens.add((await pause()).state?.resumeToken ?? randomUUID());
    expect(tokens.size).toBe(20);
  });
});

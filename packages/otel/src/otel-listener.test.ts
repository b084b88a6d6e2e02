import { SpanKind, SpanStatusCode } from '@opentelemetry/api';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  type ReadableSpan,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { closeCodeSandboxes, createCodeModeTool } from '@org/code-mode';
import { RateLimitError, type RunEvent, registerSecret } from '@org/core';
import { createToolPlanTool } from '@org/plan-executor';
import { type AgentState, runAgent } from '@org/planner';
import { createScriptedModel, createVirtualClock } from '@org/provider-scripted';
import { defineTool, ToolRegistry } from '@org/tools';
import { afterAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { boundText, formatSpanTree, otelListener, TRUNCATION_MARKER } from './index.js';

function setup(): { exporter: InMemorySpanExporter; provider: BasicTracerProvider } {
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  return { exporter, provider };
}

const KEY_ATTRIBUTES = [
  'gen_ai.operation.name',
  'gen_ai.provider.name',
  'gen_ai.agent.name',
  'gen_ai.request.model',
  'gen_ai.response.model',
  'gen_ai.response.finish_reasons',
  'gen_ai.usage.input_tokens',
  'gen_ai.usage.output_tokens',
  'gen_ai.tool.name',
  'gen_ai.tool.call.id',
  'org.plan.id',
  'org.plan.step.id',
  'org.tool.status',
  'org.run.finish_reason',
  'error.type',
];

interface Node {
  name: string;
  kind: string;
  status: string;
  attributes: Record<string, unknown>;
  children: Node[];
}

const ms = (time: readonly [number, number]): number => time[0] * 1000 + time[1] / 1e6;

/** The spans as a tree (children in start order), with the attributes that matter, for a whole-tree assertion. */
function treeOf(spans: readonly ReadableSpan[]): Node[] {
  const byParent = new Map<string | undefined, ReadableSpan[]>();
  for (const span of spans) {
    const parent = span.parentSpanContext?.spanId;
    byParent.set(parent, [...(byParent.get(parent) ?? []), span]);
  }
  const build = (span: ReadableSpan): Node => ({
    name: span.name,
    kind: SpanKind[span.kind],
    status: SpanStatusCode[span.status.code],
    attributes: Object.fromEntries(
      KEY_ATTRIBUTES.filter((key) => span.attributes[key] !== undefined).map((key) => [
        key,
        span.attributes[key],
      ]),
    ),
    children: [...(byParent.get(span.spanContext().spanId) ?? [])]
      .sort(
        (a, b) =>
          ms(a.startTime) - ms(b.startTime) ||
          a.name.localeCompare(b.name) ||
          String(a.attributes['org.plan.step.id']).localeCompare(String(b.attributes['org.plan.step.id'])),
      )
      .map(build),
  });
  return (byParent.get(undefined) ?? []).map(build);
}

const reading = z.object({ city: z.string(), temperatureC: z.number() });

function weatherTools(clock: ReturnType<typeof createVirtualClock>): ToolRegistry {
  return new ToolRegistry([
    defineTool({
      name: 'get_weather',
      description: 'Current temperature of a city.',
      input: z.object({ city: z.string() }),
      execute: async ({ city }) => {
        await clock.sleep(city === 'Paris' ? 300 : 500);
        if (city === 'Atlantis') throw new Error('No weather station in Atlantis.');
        return { city, temperatureC: city === 'Paris' ? 18 : 24 };
      },
    }),
    defineTool({
      name: 'compare_temperatures',
      description: 'Says which city is warmer.',
      input: z.object({ first: reading, second: reading }),
      execute: ({ first, second }) => (first.temperatureC >= second.temperatureC ? first.city : second.city),
    }),
  ]);
}

const PLAN = {
  steps: [
    { id: 'paris', tool: 'get_weather', arguments: { city: 'Paris' } },
    { id: 'rome', tool: 'get_weather', arguments: { city: 'Rome' } },
    { id: 'compare', tool: 'compare_temperatures', arguments: { first: '$ref:paris', second: '$ref:rome' } },
  ],
};

const chat = (finish: string, extra: Record<string, unknown> = {}) => ({
  'gen_ai.operation.name': 'chat',
  'gen_ai.provider.name': 'scripted',
  'gen_ai.request.model': 'scripted-model',
  'gen_ai.response.model': 'scripted-model',
  'gen_ai.response.finish_reasons': [finish],
  'gen_ai.usage.input_tokens': expect.any(Number),
  'gen_ai.usage.output_tokens': expect.any(Number),
  ...extra,
});

const step = (planId: string, stepId: string, tool: string) => ({
  'gen_ai.operation.name': 'execute_tool',
  'gen_ai.tool.name': tool,
  'gen_ai.tool.call.id': `${planId}/${stepId}`,
  'org.plan.id': planId,
  'org.plan.step.id': stepId,
  'org.tool.status': 'success',
});

describe('otelListener', () => {
  afterAll(() => closeCodeSandboxes());

  it("records a code-mode program's calls as execute_tool spans under the code call, as a plan's steps", async () => {
    const { exporter, provider } = setup();
    const clock = createVirtualClock();
    const tools = weatherTools(clock);
    const program = [
      "const paris = await get_weather({ city: 'Paris' });",
      "const rome = await get_weather({ city: 'Rome' });",
      'return await compare_temperatures({ first: paris, second: rome });',
    ].join('\n');
    const model = createScriptedModel({
      clock,
      script: [{ toolCalls: [{ toolName: 'run_code', arguments: { code: program } }] }, { text: 'Rome.' }],
    });
    const result = await runAgent({
      model,
      clock,
      tools: new ToolRegistry([...tools.list(), createCodeModeTool({ tools })]),
      task: 'Is it warmer in Paris or Rome?',
      runId: 'run-code',
      onEvent: otelListener({ tracer: provider.getTracer('test'), agentName: 'weather' }),
    });
    expect(result.finishReason).toBe('final-answer');
    const codeCallId = result.steps[0]?.toolCalls[0]?.id as string;
    const call = (n: number, tool: string) => ({
      name: `execute_tool ${tool}`,
      kind: 'INTERNAL',
      status: 'UNSET',
      attributes: {
        'gen_ai.operation.name': 'execute_tool',
        'gen_ai.tool.name': tool,
        'gen_ai.tool.call.id': `${codeCallId}/${n}`,
        'org.tool.status': 'success',
      },
      children: [],
    });
    const [root] = treeOf(exporter.getFinishedSpans());
    expect(root?.name).toBe('invoke_agent weather');
    expect(root?.children.map((child) => child.name)).toEqual([
      'chat scripted-model',
      'execute_tool run_code',
      'chat scripted-model',
    ]);
    const codeSpan = root?.children[1];
    expect(codeSpan?.attributes).toMatchObject({
      'gen_ai.tool.call.id': codeCallId,
      'org.tool.status': 'success',
    });
    // The program's three calls, in the order it made them, under the code call (not beside it).
    expect(codeSpan?.children).toEqual([
      call(1, 'get_weather'),
      call(2, 'get_weather'),
      call(3, 'compare_temperatures'),
    ]);
  });

  it('records a plan-mode run as one tree: run, model calls, the plan call, its steps as siblings', async () => {
    const { exporter, provider } = setup();
    const clock = createVirtualClock();
    const tools = weatherTools(clock);
    const model = createScriptedModel({
      clock,
      script: [
        { toolCalls: [{ toolName: 'execute_tool_plan', arguments: PLAN }] },
        { text: 'Rome is warmer.' },
      ],
    });
    const result = await runAgent({
      model,
      clock,
      tools: new ToolRegistry([...tools.list(), createToolPlanTool({ tools, clock })]),
      task: 'Is it warmer in Paris or Rome?',
      runId: 'run-plan',
      onEvent: otelListener({ tracer: provider.getTracer('test'), agentName: 'weather' }),
    });
    expect(result.finishReason).toBe('final-answer');
    const spans = exporter.getFinishedSpans();
    const planId = result.steps[0]?.toolCalls[0]?.id as string;
    expect(treeOf(spans)).toEqual([
      {
        name: 'invoke_agent weather',
        kind: 'INTERNAL',
        status: 'UNSET',
        attributes: {
          'gen_ai.operation.name': 'invoke_agent',
          'gen_ai.agent.name': 'weather',
          'gen_ai.provider.name': 'scripted',
          'gen_ai.request.model': 'scripted-model',
          'gen_ai.usage.input_tokens': result.usage.inputTokens,
          'gen_ai.usage.output_tokens': result.usage.outputTokens,
          'org.run.finish_reason': 'final-answer',
        },
        children: [
          {
            name: 'chat scripted-model',
            kind: 'CLIENT',
            status: 'UNSET',
            attributes: chat('tool-calls'),
            children: [],
          },
          {
            name: 'execute_tool execute_tool_plan',
            kind: 'INTERNAL',
            status: 'UNSET',
            attributes: {
              'gen_ai.operation.name': 'execute_tool',
              'gen_ai.tool.name': 'execute_tool_plan',
              'gen_ai.tool.call.id': planId,
              'org.tool.status': 'success',
            },
            children: [
              // Paris and Rome ran at once: siblings that both start when the plan does.
              {
                name: 'execute_tool get_weather',
                kind: 'INTERNAL',
                status: 'UNSET',
                attributes: step(planId, 'paris', 'get_weather'),
                children: [],
              },
              {
                name: 'execute_tool get_weather',
                kind: 'INTERNAL',
                status: 'UNSET',
                attributes: step(planId, 'rome', 'get_weather'),
                children: [],
              },
              {
                name: 'execute_tool compare_temperatures',
                kind: 'INTERNAL',
                status: 'UNSET',
                attributes: step(planId, 'compare', 'compare_temperatures'),
                children: [],
              },
            ],
          },
          {
            name: 'chat scripted-model',
            kind: 'CLIENT',
            status: 'UNSET',
            attributes: chat('stop'),
            children: [],
          },
        ],
      },
    ]);
    // Times are the events' own, on the virtual clock: concurrent steps overlap, compare starts when Rome ends.
    const stepSpan = (id: string) =>
      spans.find((span) => span.attributes['org.plan.step.id'] === id) as ReadableSpan;
    expect(ms(stepSpan('paris').startTime)).toBe(ms(stepSpan('rome').startTime));
    expect(ms(stepSpan('rome').endTime) - ms(stepSpan('rome').startTime)).toBe(500);
    expect(ms(stepSpan('compare').startTime)).toBe(ms(stepSpan('rome').endTime));
    expect(new Set(spans.map((span) => span.spanContext().traceId)).size).toBe(1);
    // Content is off by default.
    expect(spans.some((span) => 'gen_ai.tool.call.arguments' in span.attributes)).toBe(false);
    expect(formatSpanTree(spans, { durations: false }).split('\n')).toEqual([
      `invoke_agent weather  (tokens ${result.usage.inputTokens}→${result.usage.outputTokens}, final-answer)`,
      expect.stringMatching(/^├─ chat scripted-model {2}\(CLIENT, tokens \d+→\d+, tool-calls\)$/),
      '├─ execute_tool execute_tool_plan',
      '│  ├─ execute_tool get_weather  (step paris)',
      '│  ├─ execute_tool get_weather  (step rome)',
      '│  └─ execute_tool compare_temperatures  (step compare)',
      expect.stringMatching(/^└─ chat scripted-model {2}\(CLIENT, tokens \d+→\d+, stop\)$/),
    ]);
  });

  it('a run paused for approval and resumed from JSON: each run span counts its own model calls, never twice', async () => {
    const { exporter, provider } = setup();
    const tracer = provider.getTracer('test');
    const clock = createVirtualClock();
    const deleted: string[] = [];
    const tools = new ToolRegistry([
      ...weatherTools(clock).list(),
      defineTool({
        name: 'delete_report',
        description: 'Deletes a report.',
        input: z.object({ name: z.string() }),
        needsApproval: true,
        execute: ({ name }) => {
          deleted.push(name);
          return 'deleted';
        },
      }),
    ]);
    const paused = await runAgent({
      model: createScriptedModel({
        clock,
        script: [
          { toolCalls: [{ toolName: 'get_weather', arguments: { city: 'Paris' } }] },
          { toolCalls: [{ id: 'd1', toolName: 'delete_report', arguments: { name: 'old weather report' } }] },
        ],
      }),
      tools,
      task: 'Look up Paris, then delete the old weather report.',
      clock,
      onEvent: otelListener({ tracer }),
    });
    expect(paused.finishReason).toBe('approval-required');
    const state = JSON.parse(JSON.stringify(paused.state)) as AgentState;
    const resumed = await runAgent({
      model: createScriptedModel({
        clock,
        script: [{ text: 'It is 18°C in Paris; the report is deleted.' }],
      }),
      tools,
      clock,
      resume: { state, decisions: { d1: true } },
      onEvent: otelListener({ tracer }),
    });
    expect(resumed.finishReason).toBe('final-answer');
    expect(deleted).toEqual(['old weather report']);

    const spans = exporter.getFinishedSpans();
    const runSpans = spans.filter((span) => span.name === 'invoke_agent');
    const chats = spans.filter((span) => span.name.startsWith('chat '));
    expect(runSpans).toHaveLength(2);
    expect(chats).toHaveLength(3);
    const tokens = (span: ReadableSpan, attribute: string): number => span.attributes[attribute] as number;
    const sum = (list: readonly ReadableSpan[], attribute: string): number =>
      list.reduce((total, span) => total + tokens(span, attribute), 0);
    for (const attribute of ['gen_ai.usage.input_tokens', 'gen_ai.usage.output_tokens']) {
      // Each run span holds its own segment's model calls (its children), so summing run spans double counts nothing.
      for (const run of runSpans) {
        const own = chats.filter((chat) => chat.parentSpanContext?.spanId === run.spanContext().spanId);
        expect(tokens(run, attribute)).toBe(sum(own, attribute));
        expect(tokens(run, attribute)).toBeGreaterThan(0);
      }
      expect(sum(runSpans, attribute)).toBe(sum(chats, attribute));
    }
    // The whole run's figure (so far) is there too, under its own name.
    const first = runSpans[0] as ReadableSpan;
    const last = runSpans.at(-1) as ReadableSpan;
    expect(tokens(last, 'org.run.total_usage.input_tokens')).toBe(sum(chats, 'gen_ai.usage.input_tokens'));
    expect(tokens(last, 'org.run.total_usage.output_tokens')).toBe(sum(chats, 'gen_ai.usage.output_tokens'));
    expect(tokens(first, 'org.run.total_usage.input_tokens')).toBe(
      tokens(first, 'gen_ai.usage.input_tokens'),
    );
    // And the results say the same: `segmentUsage` for what each call spent, `usage` for the whole run so far.
    expect(paused.segmentUsage.inputTokens).toBe(tokens(first, 'gen_ai.usage.input_tokens'));
    expect(paused.usage).toEqual(paused.segmentUsage);
    expect(resumed.segmentUsage.inputTokens).toBe(tokens(last, 'gen_ai.usage.input_tokens'));
    expect(resumed.usage.inputTokens).toBe(
      paused.segmentUsage.inputTokens + resumed.segmentUsage.inputTokens,
    );
    expect(resumed.usage.outputTokens).toBe(
      paused.segmentUsage.outputTokens + resumed.segmentUsage.outputTokens,
    );
  });

  it('records a failed model call: the chat span and the run span end in ERROR with the typed code', async () => {
    const { exporter, provider } = setup();
    const clock = createVirtualClock();
    const model = createScriptedModel({
      clock,
      script: [
        { toolCalls: [{ toolName: 'get_weather', arguments: { city: 'Paris' } }] },
        { error: new RateLimitError({ message: 'Too many requests.', provider: 'scripted' }) },
      ],
    });
    const result = await runAgent({
      model,
      clock,
      tools: weatherTools(clock),
      task: 'Weather in Paris?',
      onEvent: otelListener({ tracer: provider.getTracer('test') }),
    });
    expect(result.finishReason).toBe('error');
    const spans = exporter.getFinishedSpans();
    const callId = result.steps[0]?.toolCalls[0]?.id as string;
    expect(treeOf(spans)).toEqual([
      {
        name: 'invoke_agent',
        kind: 'INTERNAL',
        status: 'ERROR',
        attributes: {
          'gen_ai.operation.name': 'invoke_agent',
          'gen_ai.provider.name': 'scripted',
          'gen_ai.request.model': 'scripted-model',
          'gen_ai.usage.input_tokens': result.usage.inputTokens,
          'gen_ai.usage.output_tokens': result.usage.outputTokens,
          'org.run.finish_reason': 'error',
          'error.type': 'rate_limited',
        },
        children: [
          {
            name: 'chat scripted-model',
            kind: 'CLIENT',
            status: 'UNSET',
            attributes: chat('tool-calls'),
            children: [],
          },
          {
            name: 'execute_tool get_weather',
            kind: 'INTERNAL',
            status: 'UNSET',
            attributes: {
              'gen_ai.operation.name': 'execute_tool',
              'gen_ai.tool.name': 'get_weather',
              'gen_ai.tool.call.id': callId,
              'org.tool.status': 'success',
            },
            children: [],
          },
          {
            name: 'chat scripted-model',
            kind: 'CLIENT',
            status: 'ERROR',
            attributes: {
              'gen_ai.operation.name': 'chat',
              'gen_ai.provider.name': 'scripted',
              'gen_ai.request.model': 'scripted-model',
              'error.type': 'rate_limited',
            },
            children: [],
          },
        ],
      },
    ]);
    const failed = spans.find(
      (span) => span.status.code === SpanStatusCode.ERROR && span.name.startsWith('chat'),
    );
    expect(failed?.status.message).toBe('Too many requests.');
    expect(spans.find((span) => span.name === 'invoke_agent')?.status.message).toBe('Too many requests.');
  });

  it('marks failed, skipped and never-started calls and steps as errors with their codes', async () => {
    const { exporter, provider } = setup();
    const clock = createVirtualClock();
    const tools = weatherTools(clock);
    const plan = {
      steps: [
        { id: 'a', tool: 'get_weather', arguments: { city: 'Atlantis' } },
        { id: 'b', tool: 'compare_temperatures', arguments: { first: '$ref:a', second: '$ref:a' } },
      ],
    };
    const model = createScriptedModel({
      clock,
      script: [
        {
          toolCalls: [
            { toolName: 'execute_tool_plan', arguments: plan },
            { toolName: 'get_weather', arguments: { town: 'Paris' } },
          ],
        },
        { text: 'Unknown.' },
      ],
    });
    await runAgent({
      model,
      clock,
      tools: new ToolRegistry([...tools.list(), createToolPlanTool({ tools, clock })]),
      task: 'Atlantis?',
      onEvent: otelListener({ tracer: provider.getTracer('test') }),
    });
    const spans = exporter.getFinishedSpans();
    const errors = spans
      .filter((span) => span.status.code === SpanStatusCode.ERROR)
      .map(
        (span) =>
          `${span.name} ${String(span.attributes['org.plan.step.id'] ?? '-')} ${String(span.attributes['error.type'])}`,
      )
      .sort();
    expect(errors).toEqual([
      'execute_tool compare_temperatures b dependency_failed',
      'execute_tool get_weather - invalid_tool_arguments',
      'execute_tool get_weather a tool_execution_failed',
    ]);
    const plan0 = spans.find((span) => span.name === 'execute_tool execute_tool_plan') as ReadableSpan;
    const skipped = spans.find((span) => span.attributes['org.plan.step.id'] === 'b') as ReadableSpan;
    expect(skipped.parentSpanContext?.spanId).toBe(plan0.spanContext().spanId);
  });

  it('keeps several runs through one listener apart, even when their plans use the same step ids', async () => {
    const { exporter, provider } = setup();
    const onEvent = otelListener({ tracer: provider.getTracer('test') });
    const runOnce = async (runId: string) => {
      const clock = createVirtualClock();
      const tools = weatherTools(clock);
      const model = createScriptedModel({
        clock,
        script: [{ toolCalls: [{ toolName: 'execute_tool_plan', arguments: PLAN }] }, { text: 'Rome.' }],
      });
      return runAgent({
        model,
        clock,
        runId,
        tools: new ToolRegistry([...tools.list(), createToolPlanTool({ tools, clock })]),
        task: 'Warmer?',
        onEvent,
      });
    };
    await Promise.all([runOnce('first'), runOnce('second')]);
    const spans = exporter.getFinishedSpans();
    const trees = treeOf(spans);
    expect(trees).toHaveLength(2);
    for (const tree of trees) {
      const planNode = tree.children.find((child) => child.name === 'execute_tool execute_tool_plan');
      expect(planNode?.children.map((child) => child.attributes['org.plan.step.id'])).toEqual([
        'paris',
        'rome',
        'compare',
      ]);
    }
    expect(new Set(spans.map((span) => span.spanContext().traceId)).size).toBe(2);
  });

  it('records content only when asked, redacted of secrets and cut to its byte cap', async () => {
    const secret = 'otel-test-secret-9f8e7d6c5b';
    registerSecret(secret);
    const { exporter, provider } = setup();
    const echo = defineTool({
      name: 'echo',
      description: 'Echoes, at length.',
      input: z.object({ text: z.string() }),
      execute: ({ text }) => `${text} ${'é'.repeat(200)}`,
    });
    const leak = defineTool({
      name: 'leak',
      description: 'Fails, naming a secret.',
      input: z.object({}),
      execute: () => {
        throw new Error(`cannot use ${secret}`);
      },
    });
    const model = createScriptedModel({
      script: [
        {
          text: `Calling with ${secret}.`,
          toolCalls: [
            { toolName: 'echo', arguments: { text: `key=${secret}` } },
            { toolName: 'leak', arguments: {} },
          ],
        },
        { error: new RateLimitError({ message: `quota of ${secret} used`, provider: 'scripted' }) },
      ],
    });
    await runAgent({
      model,
      tools: new ToolRegistry([echo, leak]),
      task: `Use ${secret}`,
      onEvent: otelListener({ tracer: provider.getTracer('test'), captureContent: { maxBytes: 120 } }),
    });
    const spans = exporter.getFinishedSpans();
    const everything = JSON.stringify(
      spans.map((span) => ({
        name: span.name,
        attributes: span.attributes,
        events: span.events,
        status: span.status,
      })),
    );
    expect(everything).not.toContain(secret);
    expect(everything).toContain('[REDACTED]');
    const echoSpan = spans.find((span) => span.name === 'execute_tool echo') as ReadableSpan;
    expect(echoSpan.attributes['gen_ai.tool.call.arguments']).toBe('{"text":"key=[REDACTED]"}');
    const result = echoSpan.attributes['gen_ai.tool.call.result'] as string;
    expect(result.endsWith(TRUNCATION_MARKER)).toBe(true);
    expect(new TextEncoder().encode(result).length).toBeLessThanOrEqual(120);
    expect(
      spans.find((span) => span.name.startsWith('chat'))?.attributes['gen_ai.output.messages'],
    ).toContain('[REDACTED]');
  });

  it('ends spans left open at run end with an error saying so', () => {
    const { exporter, provider } = setup();
    const onEvent = otelListener({ tracer: provider.getTracer('test') });
    const events: RunEvent[] = [
      { type: 'run-started', timestamp: 0, runId: 'r' },
      {
        type: 'inference-started',
        timestamp: 1,
        runId: 'r',
        step: 0,
        modelId: 'm',
        provider: 'p',
        messageCount: 1,
        toolCount: 0,
        toolChoice: { type: 'auto' },
      },
      { type: 'tool-call-started', timestamp: 2, runId: 'r', action: { id: 'c1', toolName: 't', args: {} } },
      { type: 'plan-step-started', timestamp: 3, runId: 'r', planId: 'c1', stepId: 's', toolName: 'u' },
      {
        type: 'run-finished',
        timestamp: 10,
        runId: 'r',
        reason: 'error',
        steps: 0,
        usage: { inputTokens: 0, outputTokens: 0, totalTokens: 0 },
        segmentUsage: { inputTokens: 0, outputTokens: 0, totalTokens: 0 },
        error: { code: 'provider_error', message: 'boom' },
      },
    ];
    for (const event of events) onEvent(event);
    const spans = exporter.getFinishedSpans();
    expect(spans.map((span) => `${span.name} ${String(span.attributes['error.type'])}`)).toEqual([
      'execute_tool u unclosed_span',
      'execute_tool t unclosed_span',
      'chat m unclosed_span',
      'invoke_agent provider_error',
    ]);
    expect(spans[0]?.status.message).toMatch(/still open when its run ended/);
    expect(spans.every((span) => ms(span.endTime) === 10)).toBe(true);

    // endOpenSpans closes what a run that never finished left open.
    onEvent({ type: 'run-started', timestamp: 20, runId: 'r2' });
    onEvent.endOpenSpans('process exiting');
    expect(exporter.getFinishedSpans().at(-1)?.status).toEqual({
      code: SpanStatusCode.ERROR,
      message: 'process exiting',
    });
  });
});

describe('boundText', () => {
  it('keeps text that fits and cuts longer text on a character boundary, marker included', () => {
    expect(boundText('short', 64)).toBe('short');
    const cut = boundText('é'.repeat(100), 31);
    expect(cut.endsWith(TRUNCATION_MARKER)).toBe(true);
    expect(new TextEncoder().encode(cut).length).toBeLessThanOrEqual(31);
    expect(cut).not.toContain('\uFFFD');
  });
});

/**
 * The viewer's model of the recorded runs: it folds each recorded event into its run (model calls, tool calls, plan
 * steps, approvals, totals) and lays out each plan with its dependencies and critical path. Like the page script, it
 * is served as its own text (`createRunStore.toString()`), so its body must be self-contained: no imports, no
 * references outside it (types excepted, they are erased). It runs in Node too, where it is unit tested.
 */

type Json = Record<string, unknown>;

/** Token counts, as the events carry them. */
export interface Usage {
  inputTokens: number;
  outputTokens: number;
  totalTokens: number;
}

export interface ModelCall {
  readonly index: number;
  readonly step: number;
  readonly modelId: string;
  readonly provider: string;
  readonly messageCount: number;
  readonly toolCount: number;
  readonly toolChoice: string;
  readonly startedAt: number;
  status: 'running' | 'finished' | 'failed';
  durationMs?: number | undefined;
  finishReason?: string | undefined;
  usage?: Usage | undefined;
  text: string;
  reasoning: string;
  toolCalls: { id: string; toolName: string; arguments: string }[];
  adjustments: string[];
  error?: string | undefined;
  responseId?: string | undefined;
}

export interface ToolCallView {
  readonly id: string;
  toolName: string;
  /** The arguments the tool ran with (`tool-call-started`). */
  arguments?: unknown;
  /** The arguments as the model wrote them (`inference-finished`), or as they streamed. */
  modelArguments?: string | undefined;
  streamedArguments: string;
  startedAt?: number | undefined;
  status: string;
  output?: unknown;
  error?: string | undefined;
  durationMs?: number | undefined;
  progress: unknown[];
  notes: string[];
}

export interface PlanStep {
  readonly id: string;
  toolName: string;
  startedAt?: number | undefined;
  finishedAt?: number | undefined;
  status: string;
  durationMs?: number | undefined;
  error?: string | undefined;
  dependsOn: string[];
}

export interface Run {
  readonly id: string;
  readonly source: string;
  firstAt: number;
  lastAt: number;
  startedAt?: number | undefined;
  finishedAt?: number | undefined;
  reason?: string | undefined;
  steps?: number | undefined;
  usage: Usage;
  runUsageKnown: boolean;
  error?: string | undefined;
  readonly modelCalls: ModelCall[];
  readonly toolCalls: Map<string, ToolCallView>;
  readonly plans: Map<string, Map<string, PlanStep>>;
  /**
   * The entries of `plans` that are programs (a code-mode call's calls, step id `n` for the call `<code call>/<n>`),
   * not plans: they have no written dependencies.
   */
  readonly programs: Set<string>;
  readonly approvals: Map<string, { toolName: string; args: unknown; requestedAt: number }>;
  /** What each model call was asked (`model-request` records of a recording model), in call order. */
  readonly requests: Json[];
  readonly notes: string[];
  records: number;
}

/** A plan laid out: its steps (each with the steps it references) and its critical path, first step first. */
export interface PlanLayout {
  readonly steps: PlanStep[];
  readonly criticalPath: string[];
}

/** The runs folded from records, and what the page asks of them. */
export interface RunStore {
  /** Every run, by run id (events outside a run are grouped by file). */
  readonly runs: Map<string, Run>;
  /** Folds one record (a row's `record`, as parsed) into its run. */
  apply(source: string, record: Json): void;
  /** A plan of a run laid out, its dependencies read from the plan the model wrote. */
  plan(run: Run, planId: string): PlanLayout;
  /** A tool call's arguments: as run, or as the model wrote them when the run's copy is empty (a streamed plan). */
  writtenArguments(call: ToolCallView): unknown;
}

/**
 * A new, empty store of runs.
 *
 * @example
 * const store = createRunStore();
 * store.apply('a.jsonl', record);
 * store.plan(store.runs.get('run-1')!, 'call_0').criticalPath; // ['rome', 'compare']
 */
export function createRunStore(): RunStore {
  const runs = new Map<string, Run>();
  const own = (value: unknown, key: string): unknown =>
    typeof value === 'object' && value !== null && Object.hasOwn(value, key)
      ? (value as Json)[key]
      : undefined;
  const text = (value: unknown, fallback = ''): string => (typeof value === 'string' ? value : fallback);
  const num = (value: unknown): number | undefined =>
    typeof value === 'number' && Number.isFinite(value) ? value : undefined;
  const usageOf = (value: unknown): Usage => ({
    inputTokens: num(own(value, 'inputTokens')) ?? 0,
    outputTokens: num(own(value, 'outputTokens')) ?? 0,
    totalTokens: num(own(value, 'totalTokens')) ?? 0,
  });
  const show = (value: unknown): string => {
    if (value === undefined) return '';
    if (typeof value === 'string') return value;
    return JSON.stringify(value, null, 2);
  };
  const errorText = (value: unknown): string =>
    `${text(own(value, 'code'), 'error')}: ${text(own(value, 'message'))}`;

  const REFERENCE = /\$ref:([A-Za-z0-9_-]+)/g;
  /**
   * The canonical form of a string of the steps-object form, as the plan executor rewrites it before reading its
   * references (`expandShortReferences` of `@org/plan-executor`, mirrored: this file cannot import): `$id` and
   * `$id.field` become `$ref:id...`, `$$` is a literal `$`, `$ref:` stays, any other `$` is literal.
   */
  const expandShortReferences = (value: string): string => {
    const isIdCharacter = (character: string): boolean => /^[A-Za-z0-9_-]$/.test(character);
    let position = value.indexOf('$');
    if (position === -1) return value;
    let result = '';
    let last = 0;
    while (position !== -1) {
      const next = value.charAt(position + 1);
      if (next === '$') {
        result += value.slice(last, position + 1);
        last = position + 2;
        position = value.indexOf('$', last);
        continue;
      }
      if (value.startsWith('$ref:', position)) {
        position = value.indexOf('$', position + 5);
        continue;
      }
      if (isIdCharacter(next)) {
        result += `${value.slice(last, position)}$ref:`;
        last = position + 1;
      }
      position = value.indexOf('$', position + 1);
    }
    return result + value.slice(last);
  };
  /**
   * The step ids a step's arguments reference, as the plan executor reads them: `$ref:<id>...` in every string value
   * (never in keys); in the steps-object form (`short`) the short `$<id>...` too.
   */
  const referencedSteps = (
    value: unknown,
    short: boolean,
    seen = new Set<string>(),
    depth = 0,
  ): Set<string> => {
    if (depth > 64) return seen;
    if (typeof value === 'string') {
      const canonical = short ? expandShortReferences(value) : value;
      for (const match of canonical.matchAll(REFERENCE)) if (match[1] !== undefined) seen.add(match[1]);
    } else if (Array.isArray(value)) {
      for (const item of value) referencedSteps(item, short, seen, depth + 1);
    } else if (typeof value === 'object' && value !== null) {
      for (const item of Object.values(value)) referencedSteps(item, short, seen, depth + 1);
    }
    return seen;
  };
  /** A value written as itself or as its JSON text (a plan, a step's arguments): read; the raw text when not JSON. */
  const fromJsonText = (written: unknown): unknown => {
    if (typeof written !== 'string') return written;
    try {
      return JSON.parse(written) as unknown;
    } catch {
      return written;
    }
  };
  /**
   * Each step's dependencies from an `execute_tool_plan` call's arguments (JSON text or value), in either form the
   * plan executor reads: the list `[{id, tool, arguments}]`, or the steps object `{id: {"<tool>": arguments}}` (or
   * `{id: {tool, arguments}}`), where `$id` is a reference too.
   */
  const planDependencies = (args: unknown): Map<string, string[]> => {
    const result = new Map<string, string[]>();
    const plan = fromJsonText(args);
    const steps = own(plan, 'steps');
    const entries: [string, unknown][] = [];
    const short = !Array.isArray(steps);
    if (Array.isArray(steps)) {
      for (const step of steps) {
        const id = own(step, 'id');
        if (typeof id === 'string') entries.push([id, own(step, 'arguments')]);
      }
    } else if (typeof steps === 'object' && steps !== null) {
      for (const [id, step] of Object.entries(steps)) {
        if (typeof step !== 'object' || step === null || Array.isArray(step)) continue;
        const keys = Object.keys(step);
        const spelledOut =
          typeof own(step, 'tool') === 'string' && keys.every((key) => key === 'tool' || key === 'arguments');
        // `{"<tool>": arguments}`: the one key is the tool's name.
        const written = spelledOut
          ? own(step, 'arguments')
          : keys.length === 1
            ? own(step, keys[0] ?? '')
            : undefined;
        entries.push([id, written]);
      }
    }
    for (const [id, written] of entries) {
      result.set(
        id,
        [...referencedSteps(fromJsonText(written), short)].filter((dependency) => dependency !== id),
      );
    }
    return result;
  };

  const runFor = (key: string, source: string, at: number): Run => {
    let run = runs.get(key);
    if (run === undefined) {
      run = {
        id: key,
        source,
        firstAt: at,
        lastAt: at,
        usage: { inputTokens: 0, outputTokens: 0, totalTokens: 0 },
        runUsageKnown: false,
        modelCalls: [],
        toolCalls: new Map(),
        plans: new Map(),
        programs: new Set(),
        approvals: new Map(),
        requests: [],
        notes: [],
        records: 0,
      };
      runs.set(key, run);
    }
    return run;
  };
  const toolCall = (run: Run, id: string, toolName: string): ToolCallView => {
    let call = run.toolCalls.get(id);
    if (call === undefined) {
      call = { id, toolName, streamedArguments: '', status: 'running', progress: [], notes: [] };
      run.toolCalls.set(id, call);
    }
    return call;
  };
  const planStep = (run: Run, planId: string, stepId: string, toolName: string): PlanStep => {
    let plan = run.plans.get(planId);
    if (plan === undefined) {
      plan = new Map();
      run.plans.set(planId, plan);
    }
    let step = plan.get(stepId);
    if (step === undefined) {
      step = { id: stepId, toolName, status: 'running', dependsOn: [] };
      plan.set(stepId, step);
    }
    return step;
  };
  /** A tool call's arguments: as run, or as the model wrote them when the run's copy is empty (a streamed plan). */
  const writtenArguments = (call: ToolCallView): unknown => {
    const ran = call.arguments;
    const empty = typeof ran === 'object' && ran !== null && Object.keys(ran).length === 0;
    if (ran !== undefined && !empty) return ran;
    const written =
      call.modelArguments ?? (call.streamedArguments === '' ? undefined : call.streamedArguments);
    if (written === undefined) return ran;
    try {
      return JSON.parse(written) as unknown;
    } catch {
      return written;
    }
  };
  const openCall = (run: Run): ModelCall | undefined => run.modelCalls[run.modelCalls.length - 1];

  /** Folds one recorded event into its run. */
  const apply = (source: string, record: Json): void => {
    const event = own(record, 'event');
    const type = text(own(event, 'type'));
    const at = num(own(event, 'timestamp')) ?? 0;
    const runKey = text(own(event, 'runId'), `${source} (events outside a run)`);
    const run = runFor(runKey, source, at);
    run.records += 1;
    run.firstAt = Math.min(run.firstAt, at);
    run.lastAt = Math.max(run.lastAt, at);
    const omitted = own(record, 'omitted');
    if (typeof omitted === 'string') run.notes.push(`${type}: ${omitted}`);
    const truncated = own(record, 'truncated');
    if (Array.isArray(truncated)) run.notes.push(`${type}: cut to fit: ${truncated.join('; ')}`);
    switch (type) {
      case 'run-started':
        run.startedAt ??= at;
        run.finishedAt = undefined;
        run.reason = undefined;
        break;
      case 'run-finished': {
        run.finishedAt = at;
        run.reason = text(own(event, 'reason'), 'unknown');
        run.steps = num(own(event, 'steps'));
        const usage = usageOf(own(event, 'usage'));
        // A resumed run finishes again: its totals add up across its parts.
        if (!run.runUsageKnown) run.usage = { inputTokens: 0, outputTokens: 0, totalTokens: 0 };
        run.usage.inputTokens += usage.inputTokens;
        run.usage.outputTokens += usage.outputTokens;
        run.usage.totalTokens += usage.totalTokens;
        run.runUsageKnown = true;
        const error = own(event, 'error');
        if (error !== undefined) run.error = errorText(error);
        break;
      }
      case 'inference-started': {
        const choice = own(event, 'toolChoice');
        const choiceType = text(own(choice, 'type'), 'auto');
        run.modelCalls.push({
          index: run.modelCalls.length + 1,
          step: num(own(event, 'step')) ?? 0,
          modelId: text(own(event, 'modelId'), '?'),
          provider: text(own(event, 'provider'), '?'),
          messageCount: num(own(event, 'messageCount')) ?? 0,
          toolCount: num(own(event, 'toolCount')) ?? 0,
          toolChoice: choiceType === 'tool' ? `tool ${text(own(choice, 'toolName'))}` : choiceType,
          startedAt: at,
          status: 'running',
          text: '',
          reasoning: '',
          toolCalls: [],
          adjustments: [],
        });
        break;
      }
      case 'text-delta':
      case 'reasoning-delta': {
        const call = openCall(run);
        if (call === undefined) break;
        if (type === 'text-delta') call.text += text(own(event, 'delta'));
        else call.reasoning += text(own(event, 'delta'));
        break;
      }
      case 'inference-finished': {
        const call = openCall(run);
        if (call === undefined) break;
        call.status = 'finished';
        call.durationMs = num(own(event, 'durationMs'));
        call.finishReason = text(own(event, 'finishReason'));
        call.usage = usageOf(own(event, 'usage'));
        const finalText = own(event, 'text');
        if (typeof finalText === 'string') call.text = finalText;
        const responseId = own(event, 'responseId');
        if (typeof responseId === 'string') call.responseId = responseId;
        const calls = own(event, 'toolCalls');
        if (Array.isArray(calls)) {
          call.toolCalls = calls.map((item) => ({
            id: text(own(item, 'id')),
            toolName: text(own(item, 'toolName')),
            arguments: text(own(item, 'arguments')),
          }));
          for (const item of call.toolCalls)
            toolCall(run, item.id, item.toolName).arguments ??= item.arguments;
        }
        const adjustments = own(event, 'adjustments');
        if (Array.isArray(adjustments)) {
          call.adjustments = adjustments.map(
            (item) => `${text(own(item, 'kind'), 'adjustment')}: ${text(own(item, 'message'), show(item))}`,
          );
        }
        if (!run.runUsageKnown) {
          run.usage.inputTokens += call.usage.inputTokens;
          run.usage.outputTokens += call.usage.outputTokens;
          run.usage.totalTokens += call.usage.totalTokens;
        }
        break;
      }
      case 'inference-failed': {
        const call = openCall(run);
        if (call === undefined) break;
        call.status = 'failed';
        call.durationMs = num(own(event, 'durationMs'));
        call.error = errorText(own(event, 'error'));
        break;
      }
      case 'tool-call-streaming-started':
        toolCall(run, text(own(event, 'toolCallId')), text(own(event, 'toolName')));
        break;
      case 'tool-call-arguments-delta':
        toolCall(run, text(own(event, 'toolCallId')), '').streamedArguments += text(own(event, 'delta'));
        break;
      case 'tool-call-started': {
        const action = own(event, 'action');
        const call = toolCall(run, text(own(action, 'id')), text(own(action, 'toolName')));
        call.toolName = text(own(action, 'toolName'), call.toolName);
        call.arguments = own(action, 'args');
        call.startedAt = at;
        call.status = 'running';
        run.approvals.delete(call.id);
        break;
      }
      case 'tool-call-progress': {
        const progress = own(event, 'progress');
        const progressType = text(own(progress, 'type'));
        // A plan reports its steps as progress too; they are drawn from their own events, on the timeline.
        if (progressType.startsWith('plan-step-')) break;
        const parentId = text(own(event, 'actionId'));
        const isPlan = run.plans.has(parentId) && !run.programs.has(parentId);
        // A call a program made (code mode): a step of the program's timeline, its id the call's number.
        if (!isPlan && (progressType === 'tool-call-started' || progressType === 'tool-call-finished')) {
          const started = progressType === 'tool-call-started';
          const nested = own(progress, started ? 'action' : 'observation');
          const callId = text(own(nested, started ? 'id' : 'actionId'));
          const stepId = callId.startsWith(`${parentId}/`) ? callId.slice(parentId.length + 1) : callId;
          const toolName = text(own(nested, 'toolName'));
          const stepAt = num(own(progress, 'timestamp')) ?? at;
          run.programs.add(parentId);
          const step = planStep(run, parentId, stepId, toolName);
          step.toolName = toolName === '' ? step.toolName : toolName;
          if (started) {
            step.startedAt = stepAt;
            break;
          }
          step.finishedAt = stepAt;
          step.status = text(own(nested, 'status'), 'unknown');
          step.durationMs = num(own(nested, 'durationMs'));
          step.startedAt ??= step.durationMs === undefined ? undefined : stepAt - step.durationMs;
          const error = own(nested, 'error');
          if (error !== undefined) step.error = show(error);
          break;
        }
        toolCall(run, parentId, text(own(event, 'toolName'))).progress.push(progress);
        break;
      }
      case 'tool-call-finished': {
        const observation = own(event, 'observation');
        const call = toolCall(run, text(own(observation, 'actionId')), text(own(observation, 'toolName')));
        call.status = text(own(observation, 'status'), 'unknown');
        call.output = own(observation, 'output');
        call.durationMs = num(own(observation, 'durationMs'));
        const error = own(observation, 'error');
        if (error !== undefined) call.error = show(error);
        run.approvals.delete(call.id); // approved and run, or denied: no longer pending
        break;
      }
      case 'validation-failed':
        toolCall(run, text(own(event, 'toolCallId')), text(own(event, 'toolName'))).notes.push(
          `arguments refused: ${show(own(event, 'error'))}`,
        );
        break;
      case 'tool-call-intercepted':
        toolCall(run, text(own(event, 'actionId')), text(own(event, 'toolName'))).notes.push(
          `${text(own(event, 'decision'))} by a hook: ${text(own(event, 'reason'))}`,
        );
        break;
      case 'approval-requested': {
        const action = own(event, 'action');
        run.approvals.set(text(own(action, 'id')), {
          toolName: text(own(action, 'toolName')),
          args: own(action, 'args'),
          requestedAt: at,
        });
        break;
      }
      case 'plan-step-started': {
        const step = planStep(
          run,
          text(own(event, 'planId'), '(plan)'),
          text(own(event, 'stepId')),
          text(own(event, 'toolName')),
        );
        step.toolName = text(own(event, 'toolName'), step.toolName);
        step.startedAt = at;
        break;
      }
      case 'plan-step-finished': {
        const step = planStep(
          run,
          text(own(event, 'planId'), '(plan)'),
          text(own(event, 'stepId')),
          text(own(event, 'toolName')),
        );
        step.toolName = text(own(event, 'toolName'), step.toolName);
        step.finishedAt = at;
        step.status = text(own(event, 'status'), 'unknown');
        step.durationMs = num(own(event, 'durationMs'));
        const error = own(event, 'error');
        if (error !== undefined) step.error = show(error);
        break;
      }
      case 'decision-extraction-failed':
        run.notes.push(
          `step ${num(own(event, 'step')) ?? '?'}: the decision could not be read: ${text(own(event, 'message'))}`,
        );
        break;
      case 'model-request':
        run.requests.push(event as Json);
        break;
      case 'adjustment':
        break; // shown with the model call that made it (`inference-finished` carries the same adjustments)
      default:
        run.notes.push(`unknown event type ${JSON.stringify(type)}`);
    }
  };

  /**
   * The critical path of a plan: from the last step to finish back through the dependency it waited for last, as
   * long as that dependency ended when the step started (within `gapMs`).
   */
  const criticalPath = (steps: PlanStep[], gapMs = 1): string[] => {
    const ran = steps.filter((step) => step.startedAt !== undefined && step.finishedAt !== undefined);
    const byId = new Map(ran.map((step) => [step.id, step]));
    const path: string[] = [];
    let current = [...ran].sort((a, b) => (b.finishedAt ?? 0) - (a.finishedAt ?? 0))[0];
    while (current !== undefined && !path.includes(current.id)) {
      path.unshift(current.id);
      const startedAt = current.startedAt ?? 0;
      current = current.dependsOn
        .map((id) => byId.get(id))
        .filter((step): step is PlanStep => step !== undefined)
        .sort((a, b) => (b.finishedAt ?? 0) - (a.finishedAt ?? 0))
        .find((step) => (step.finishedAt ?? 0) >= startedAt - gapMs);
    }
    return path;
  };

  /**
   * A program's calls have no written dependencies: each is taken to have waited for the call that finished last
   * before it started (a program starts a call after an `await`, and the latest result it had is the one it most
   * plausibly awaited), so the critical path is the chain of calls, each starting as the previous one ended, that
   * bounds the program's wall time. Calls that ran side by side (`Promise.all`) depend on what preceded them all.
   */
  const programDependencies = (steps: PlanStep[]): void => {
    for (const step of steps) {
      const startedAt = step.startedAt;
      const before =
        startedAt === undefined
          ? undefined
          : steps
              .filter(
                (other) =>
                  other !== step && other.finishedAt !== undefined && other.finishedAt <= startedAt + 1,
              )
              .sort((a, b) => (b.finishedAt ?? 0) - (a.finishedAt ?? 0))[0];
      step.dependsOn = before === undefined ? [] : [before.id];
    }
  };

  const plan = (run: Run, planId: string): PlanLayout => {
    const steps = [...(run.plans.get(planId)?.values() ?? [])];
    if (run.programs.has(planId)) {
      programDependencies(steps);
      // A program's next call starts a worker round trip after the result it awaited: any gap is the program's own.
      return { steps, criticalPath: criticalPath(steps, Number.POSITIVE_INFINITY) };
    }
    // The steps' references, from the plan as the model wrote it (a streamed plan starts before its call's
    // arguments are whole, so the started call may carry none).
    const planCall = run.toolCalls.get(planId);
    const dependencies = planDependencies(planCall === undefined ? undefined : writtenArguments(planCall));
    for (const step of steps) step.dependsOn = dependencies.get(step.id) ?? [];
    return { steps, criticalPath: criticalPath(steps) };
  };

  return { runs, apply, plan, writtenArguments };
}

/// <reference lib="dom" />

/**
 * The viewer's browser script. It is served as the text of this function (`(${runDevtoolsPage})()`), so it must be
 * self-contained: no imports, no references outside its body. It follows `/events` (server-sent rows of the
 * recording files), folds them into runs, and draws the page with DOM nodes and `textContent` only: recorded text
 * is hostile input and never becomes markup.
 */
export function runDevtoolsPage(): void {
  type Json = Record<string, unknown>;
  type Usage = { inputTokens: number; outputTokens: number; totalTokens: number };

  interface ModelCall {
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

  interface ToolCallView {
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

  interface PlanStep {
    readonly id: string;
    toolName: string;
    startedAt?: number | undefined;
    finishedAt?: number | undefined;
    status: string;
    durationMs?: number | undefined;
    error?: string | undefined;
    dependsOn: string[];
  }

  interface Run {
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
    readonly approvals: Map<string, { toolName: string; args: unknown; requestedAt: number }>;
    /** What each model call was asked (`model-request` records of a recording model), in call order. */
    readonly requests: Json[];
    readonly notes: string[];
    records: number;
  }

  const runs = new Map<string, Run>();
  const errorRows: string[] = [];
  let selected: string | undefined;
  let connection = 'connecting';
  let drawScheduled = false;

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
  const ms = (value: number | undefined): string =>
    value === undefined ? '…' : value >= 1000 ? `${(value / 1000).toFixed(2)} s` : `${Math.round(value)} ms`;
  const errorText = (value: unknown): string =>
    `${text(own(value, 'code'), 'error')}: ${text(own(value, 'message'))}`;

  const REFERENCE = /\$ref:([A-Za-z0-9_-]+)/g;
  /** The step ids a step's arguments reference, as the plan executor reads `$ref:<id>...`. */
  const referencedSteps = (value: unknown, seen = new Set<string>(), depth = 0): Set<string> => {
    if (depth > 64) return seen;
    if (typeof value === 'string') {
      for (const match of value.matchAll(REFERENCE)) if (match[1] !== undefined) seen.add(match[1]);
    } else if (Array.isArray(value)) {
      for (const item of value) referencedSteps(item, seen, depth + 1);
    } else if (typeof value === 'object' && value !== null) {
      for (const item of Object.values(value)) referencedSteps(item, seen, depth + 1);
    }
    return seen;
  };
  /** Each step's dependencies from an `execute_tool_plan` call's arguments (list or object form, JSON text or value). */
  const planDependencies = (args: unknown): Map<string, string[]> => {
    const result = new Map<string, string[]>();
    let plan = args;
    if (typeof plan === 'string') {
      try {
        plan = JSON.parse(plan);
      } catch {
        return result;
      }
    }
    const steps = own(plan, 'steps');
    const entries: [string, unknown][] = [];
    if (Array.isArray(steps)) {
      for (const step of steps) {
        const id = own(step, 'id');
        if (typeof id === 'string') entries.push([id, own(step, 'arguments')]);
      }
    } else if (typeof steps === 'object' && steps !== null) {
      for (const [id, step] of Object.entries(steps)) entries.push([id, own(step, 'arguments')]);
    }
    for (const [id, stepArguments] of entries) {
      result.set(
        id,
        [...referencedSteps(stepArguments)].filter((dependency) => dependency !== id),
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
        // A plan reports its steps as progress too; they are drawn from their own events, on the timeline.
        if (text(own(progress, 'type')).startsWith('plan-step-')) break;
        toolCall(run, text(own(event, 'actionId')), text(own(event, 'toolName'))).progress.push(progress);
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

  /** The critical path of a plan: from the last step to finish back through the dependency it waited for last. */
  const criticalPath = (steps: PlanStep[]): string[] => {
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
        .find((step) => (step.finishedAt ?? 0) >= startedAt - 1);
    }
    return path;
  };

  // ---- drawing ----
  const h = (
    tag: string,
    attributes: Record<string, string> = {},
    ...children: (Node | string | undefined)[]
  ): HTMLElement => {
    const element = document.createElement(tag);
    for (const [name, value] of Object.entries(attributes)) element.setAttribute(name, value);
    for (const child of children) {
      if (child === undefined) continue;
      element.append(typeof child === 'string' ? document.createTextNode(child) : child);
    }
    return element;
  };
  const pre = (value: unknown, label: string): HTMLElement | undefined => {
    const shown = show(value);
    return shown === ''
      ? undefined
      : h('div', { class: 'block' }, h('div', { class: 'label' }, label), h('pre', {}, shown));
  };
  const tokens = (usage: Usage): string =>
    `${usage.totalTokens} tokens (${usage.inputTokens} in, ${usage.outputTokens} out)`;
  const runStatus = (run: Run): string =>
    run.finishedAt === undefined
      ? 'running'
      : run.reason === 'approval-required'
        ? 'waiting for approval'
        : (run.reason ?? '');
  const runDuration = (run: Run): number => (run.finishedAt ?? run.lastAt) - (run.startedAt ?? run.firstAt);

  const drawRunList = (): HTMLElement => {
    const list = h('ul', { class: 'runs', 'aria-label': 'Runs' });
    const ordered = [...runs.values()].sort((a, b) => b.firstAt - a.firstAt);
    for (const run of ordered) {
      const button = h(
        'button',
        { type: 'button', class: `run-item${run.id === selected ? ' selected' : ''}`, 'data-run-id': run.id },
        h('span', { class: 'run-id' }, run.id),
        h('span', { class: `status status-${runStatus(run).replace(/\W+/g, '-')}` }, runStatus(run)),
        h(
          'span',
          { class: 'meta' },
          `${ms(runDuration(run))} · ${run.usage.totalTokens} tokens · ${run.modelCalls.length} model calls`,
        ),
      );
      button.addEventListener('click', () => {
        selected = run.id;
        draw();
      });
      list.append(h('li', {}, button));
    }
    if (ordered.length === 0) list.append(h('li', { class: 'empty' }, 'No runs recorded yet. Waiting…'));
    return list;
  };

  /** One message of a request as a person reads it: who said it, and what. */
  const messageLine = (message: unknown): string => {
    const role = text(own(message, 'role'), '?');
    const content = own(message, 'content');
    const said = typeof content === 'string' ? content : show(content);
    const calls = own(message, 'toolCalls');
    const wrote = Array.isArray(calls)
      ? calls.map((call) => ` → ${text(own(call, 'toolName'))}(${text(own(call, 'arguments'))})`).join('')
      : '';
    const toolName = own(message, 'toolName');
    return `${role}${typeof toolName === 'string' ? ` (${toolName})` : ''}: ${said}${wrote}`;
  };
  const drawRequest = (request: Json | undefined): HTMLElement | undefined => {
    if (request === undefined) return undefined;
    const messages = own(request, 'messages');
    const tools = own(request, 'tools');
    return h(
      'div',
      { class: 'block request' },
      h('div', { class: 'label' }, 'Messages'),
      h(
        'ol',
        { class: 'messages' },
        ...(Array.isArray(messages) ? messages : []).map((message) => h('li', {}, messageLine(message))),
      ),
      h('div', { class: 'label' }, 'Tools offered'),
      h(
        'p',
        { class: 'tools-offered' },
        Array.isArray(tools) && tools.length > 0
          ? tools.map((tool) => text(own(tool, 'name'), '?')).join(', ')
          : 'none',
      ),
    );
  };

  const drawModelCall = (call: ModelCall, request: Json | undefined): HTMLElement =>
    h(
      'section',
      { class: `model-call ${call.status}`, 'data-model-call': String(call.index) },
      h(
        'h3',
        {},
        `Model call ${call.index} · ${call.provider}/${call.modelId} · step ${call.step} · ${call.status}`,
      ),
      h(
        'p',
        { class: 'meta' },
        `${call.messageCount} messages, ${call.toolCount} tools, tool choice ${call.toolChoice} · ${ms(call.durationMs)}` +
          (call.usage === undefined ? '' : ` · ${tokens(call.usage)}`) +
          (call.finishReason === undefined ? '' : ` · finish: ${call.finishReason}`),
      ),
      drawRequest(request),
      pre(call.reasoning, 'Reasoning'),
      pre(call.text, 'Text'),
      call.toolCalls.length === 0
        ? undefined
        : h(
            'div',
            { class: 'block' },
            h('div', { class: 'label' }, 'Tool calls'),
            h('ul', {}, ...call.toolCalls.map((item) => h('li', {}, `${item.toolName}(${item.arguments})`))),
          ),
      call.adjustments.length === 0
        ? undefined
        : h(
            'div',
            { class: 'block' },
            h('div', { class: 'label' }, 'Adjustments'),
            h('ul', {}, ...call.adjustments.map((item) => h('li', {}, item))),
          ),
      call.error === undefined ? undefined : h('p', { class: 'error' }, call.error),
    );

  const drawToolCall = (call: ToolCallView): HTMLElement =>
    h(
      'section',
      { class: `tool-call status-${call.status}`, 'data-tool-call': call.id },
      h('h3', {}, `${call.toolName} · ${call.status} · ${ms(call.durationMs)}`),
      h('p', { class: 'meta' }, `call ${call.id}`),
      pre(writtenArguments(call), 'Arguments'),
      pre(call.output, 'Result'),
      call.error === undefined
        ? undefined
        : h('div', { class: 'block error' }, h('div', { class: 'label' }, 'Error'), h('pre', {}, call.error)),
      call.progress.length === 0 ? undefined : pre(call.progress, 'Progress'),
      ...call.notes.map((note) => h('p', { class: 'note' }, note)),
    );

  const drawPlan = (run: Run, planId: string, plan: Map<string, PlanStep>): HTMLElement => {
    const steps = [...plan.values()];
    // The steps' references, from the plan as the model wrote it (a streamed plan starts before its call's
    // arguments are whole, so the started call may carry none).
    const planCall = run.toolCalls.get(planId);
    const dependencies = planDependencies(planCall === undefined ? undefined : writtenArguments(planCall));
    for (const step of steps) step.dependsOn = dependencies.get(step.id) ?? [];
    const path = criticalPath(steps);
    const times = steps
      .flatMap((step) => [step.startedAt, step.finishedAt])
      .filter((t): t is number => t !== undefined);
    const origin = times.length === 0 ? 0 : Math.min(...times);
    const span = Math.max(1, (times.length === 0 ? 0 : Math.max(...times)) - origin);
    const rows = steps.map((step) => {
      const start = ((step.startedAt ?? step.finishedAt ?? origin) - origin) / span;
      const end = ((step.finishedAt ?? run.lastAt) - origin) / span;
      const critical = path.includes(step.id);
      const bar = h('div', {
        class: `bar status-${step.status}${critical ? ' critical' : ''}${step.startedAt === undefined ? ' never-ran' : ''}`,
        title: `${step.id}: ${step.status}`,
      });
      // Set through the CSSOM: the page's policy refuses inline `style` attributes.
      bar.style.left = `${(start * 100).toFixed(2)}%`;
      bar.style.width = `${Math.max(0.5, (end - start) * 100).toFixed(2)}%`;
      return h(
        'div',
        { class: `plan-step${critical ? ' critical' : ''}`, 'data-plan-step': step.id },
        h(
          'div',
          { class: 'step-name' },
          `${critical ? '★ ' : ''}${step.id} · ${step.toolName} · ${step.status} · ${ms(step.durationMs)}`,
        ),
        h('div', { class: 'track' }, bar),
        h(
          'div',
          { class: 'deps' },
          step.dependsOn.length === 0 ? 'no dependencies' : `after ${step.dependsOn.join(', ')}`,
        ),
        step.error === undefined ? undefined : h('div', { class: 'error' }, step.error),
      );
    });
    return h(
      'section',
      { class: 'plan', 'data-plan-id': planId },
      h('h3', {}, `Plan ${planId} · ${steps.length} steps · ${ms(span)}`),
      h('p', { class: 'critical-path' }, `Critical path: ${path.length === 0 ? 'none' : path.join(' → ')}`),
      ...rows,
    );
  };

  const drawRun = (run: Run): HTMLElement => {
    const approvals = [...run.approvals.entries()];
    const tools = [...run.toolCalls.values()].filter(
      (call) => call.status !== 'running' || call.startedAt !== undefined,
    );
    return h(
      'article',
      { class: 'run', 'data-run': run.id },
      h('h2', {}, `Run ${run.id}`),
      h(
        'dl',
        { class: 'totals' },
        h('dt', {}, 'Status'),
        h('dd', { 'data-total': 'status' }, runStatus(run)),
        h('dt', {}, 'Time'),
        h('dd', { 'data-total': 'time' }, ms(runDuration(run))),
        h('dt', {}, 'Tokens'),
        h('dd', { 'data-total': 'tokens' }, tokens(run.usage)),
        h('dt', {}, 'Model calls'),
        h('dd', {}, String(run.modelCalls.length)),
        h('dt', {}, 'Tool calls'),
        h('dd', {}, String(tools.length)),
        h('dt', {}, 'Recorded in'),
        h('dd', {}, run.source),
      ),
      run.error === undefined ? undefined : h('p', { class: 'error' }, run.error),
      approvals.length === 0
        ? undefined
        : h(
            'section',
            { class: 'approvals' },
            h('h3', {}, 'Pending approvals'),
            ...approvals.map(([id, approval]) =>
              h(
                'div',
                { class: 'approval', 'data-approval': id },
                h('strong', {}, `${approval.toolName} is waiting for approval`),
                pre(approval.args, 'Arguments'),
              ),
            ),
          ),
      ...[...run.plans.entries()].map(([planId, plan]) => drawPlan(run, planId, plan)),
      h('h3', { class: 'section' }, 'Model calls'),
      ...run.modelCalls.map((call, index) => drawModelCall(call, run.requests[index])),
      h('h3', { class: 'section' }, 'Tool calls'),
      ...tools.map(drawToolCall),
      run.notes.length === 0
        ? undefined
        : h(
            'section',
            { class: 'notes' },
            h('h3', {}, 'Notes'),
            h('ul', {}, ...run.notes.map((note) => h('li', {}, note))),
          ),
    );
  };

  const draw = (): void => {
    drawScheduled = false;
    const root = document.getElementById('app');
    if (root === null) return;
    if (selected === undefined || !runs.has(selected)) {
      selected = [...runs.values()].sort((a, b) => b.firstAt - a.firstAt)[0]?.id;
    }
    const run = selected === undefined ? undefined : runs.get(selected);
    root.replaceChildren(
      h(
        'header',
        {},
        h('h1', {}, 'org devtools'),
        h('span', { class: `connection ${connection}` }, connection),
      ),
      h(
        'div',
        { class: 'layout' },
        h(
          'nav',
          {},
          drawRunList(),
          errorRows.length === 0
            ? undefined
            : h(
                'section',
                { class: 'error-rows' },
                h('h3', {}, `Unreadable lines (${errorRows.length})`),
                h('ul', {}, ...errorRows.slice(-200).map((row) => h('li', { class: 'error-row' }, row))),
              ),
        ),
        h('main', {}, run === undefined ? h('p', {}, 'Select a run.') : drawRun(run)),
      ),
    );
  };
  const scheduleDraw = (): void => {
    if (drawScheduled) return;
    drawScheduled = true;
    requestAnimationFrame(draw);
  };

  const receive = (data: string): void => {
    let rows: unknown;
    try {
      rows = JSON.parse(data);
    } catch {
      errorRows.push('the server sent a batch that is not JSON');
      return;
    }
    if (!Array.isArray(rows)) return;
    for (const row of rows) {
      const kind = own(row, 'kind');
      const source = text(own(row, 'source'));
      if (kind === 'record') apply(source, own(row, 'record') as Json);
      else errorRows.push(`${source}:${num(own(row, 'line')) ?? '?'}: ${text(own(row, 'message'))}`);
    }
    scheduleDraw();
  };

  const events = new EventSource('events');
  events.addEventListener('rows', (message) => receive((message as MessageEvent<string>).data));
  events.addEventListener('open', () => {
    connection = 'live';
    scheduleDraw();
  });
  events.addEventListener('error', () => {
    // The browser reconnects by itself; the server then sends every row again, so start from nothing.
    connection = 'reconnecting';
    runs.clear();
    errorRows.length = 0;
    scheduleDraw();
  });
  draw();
}

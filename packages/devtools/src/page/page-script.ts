/// <reference lib="dom" />
import type { ModelCall, Run, RunStore, ToolCallView, Usage } from './run-store.js';

/**
 * The viewer's browser script. It is served as its own text, called with the run store's factory
 * (`(${runDevtoolsPage})(${createRunStore})`), so its body must be self-contained: no imports (types excepted), no
 * references outside it. It follows `/events` (server-sent rows of the recording files), folds them into runs with
 * the store, and draws the page with DOM nodes and `textContent` only: recorded text is hostile input and never
 * becomes markup.
 */
export function runDevtoolsPage(createRunStore: () => RunStore): void {
  type Json = Record<string, unknown>;
  const store = createRunStore();
  const runs = store.runs;
  const errorRows: string[] = [];
  let selected: string | undefined;
  let connection = 'connecting';
  let drawScheduled = false;

  // The store's readers live in its own serialised scope; these are the page's copies.
  const own = (value: unknown, key: string): unknown =>
    typeof value === 'object' && value !== null && Object.hasOwn(value, key)
      ? (value as Json)[key]
      : undefined;
  const text = (value: unknown, fallback = ''): string => (typeof value === 'string' ? value : fallback);
  const num = (value: unknown): number | undefined =>
    typeof value === 'number' && Number.isFinite(value) ? value : undefined;
  const show = (value: unknown): string => {
    if (value === undefined) return '';
    if (typeof value === 'string') return value;
    return JSON.stringify(value, null, 2);
  };
  const ms = (value: number | undefined): string =>
    value === undefined ? '…' : value >= 1000 ? `${(value / 1000).toFixed(2)} s` : `${Math.round(value)} ms`;

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
      pre(store.writtenArguments(call), 'Arguments'),
      pre(call.output, 'Result'),
      call.error === undefined
        ? undefined
        : h('div', { class: 'block error' }, h('div', { class: 'label' }, 'Error'), h('pre', {}, call.error)),
      call.progress.length === 0 ? undefined : pre(call.progress, 'Progress'),
      ...call.notes.map((note) => h('p', { class: 'note' }, note)),
    );

  const drawPlan = (run: Run, planId: string): HTMLElement => {
    const { steps, criticalPath: path } = store.plan(run, planId);
    // A code-mode program's calls, drawn like a plan's steps; their order is inferred from the times (no `$ref`s).
    const program = run.programs.has(planId);
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
          step.dependsOn.length === 0
            ? 'no dependencies'
            : `after ${step.dependsOn.join(', ')}${program ? ' (by time)' : ''}`,
        ),
        step.error === undefined ? undefined : h('div', { class: 'error' }, step.error),
      );
    });
    return h(
      'section',
      { class: program ? 'plan program' : 'plan', 'data-plan-id': planId },
      h(
        'h3',
        {},
        program
          ? `Program ${planId} · ${steps.length} calls · ${ms(span)}`
          : `Plan ${planId} · ${steps.length} steps · ${ms(span)}`,
      ),
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
      ...[...run.plans.keys()].map((planId) => drawPlan(run, planId)),
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
      if (kind === 'record') store.apply(source, own(row, 'record') as Json);
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

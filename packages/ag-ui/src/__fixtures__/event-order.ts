import { type BaseEvent, EventType } from '@ag-ui/core';

/**
 * Checks a run's AG-UI events against the protocol's ordering rules and returns the problems found (empty when the
 * stream is well formed): `RUN_STARTED` first; exactly one terminal event (`RUN_FINISHED` or `RUN_ERROR`), last;
 * every `*_START` of a text message, tool call, reasoning message, reasoning span and step has exactly one `*_END`
 * with the same id (or step name), with its content, arguments and end only while it is open; no id started twice;
 * a `TOOL_CALL_RESULT` only for an announced and ended call, once; nothing open when the run ends.
 */
export function eventOrderProblems(events: readonly BaseEvent[]): string[] {
  const problems: string[] = [];
  const open = {
    text: new Set<string>(),
    tool: new Set<string>(),
    reasoningMessage: new Set<string>(),
    reasoning: new Set<string>(),
    step: new Set<string>(),
  };
  const started = { text: new Set<string>(), tool: new Set<string>(), reasoningMessage: new Set<string>() };
  const answered = new Set<string>();
  let terminal = -1;
  const fields = (event: BaseEvent): Record<string, unknown> => event as unknown as Record<string, unknown>;
  const id = (event: BaseEvent, key: string): string => String(fields(event)[key]);

  events.forEach((event, index) => {
    const at = `#${index} ${event.type}`;
    if (index === 0 && event.type !== EventType.RUN_STARTED)
      problems.push(`${at}: the first event is not RUN_STARTED`);
    if (index > 0 && event.type === EventType.RUN_STARTED) problems.push(`${at}: a second RUN_STARTED`);
    if (terminal !== -1) problems.push(`${at}: after the terminal event #${terminal}`);
    const begin = (kind: keyof typeof open, key: string, once?: Set<string>): void => {
      const value = id(event, key);
      if (open[kind].has(value)) problems.push(`${at}: ${value} is already open`);
      if (once?.has(value) === true) problems.push(`${at}: ${value} was started before`);
      open[kind].add(value);
      once?.add(value);
    };
    const within = (kind: keyof typeof open, key: string): void => {
      if (!open[kind].has(id(event, key))) problems.push(`${at}: ${id(event, key)} is not open`);
    };
    const end = (kind: keyof typeof open, key: string): void => {
      within(kind, key);
      open[kind].delete(id(event, key));
    };
    switch (event.type) {
      case EventType.TEXT_MESSAGE_START:
        begin('text', 'messageId', started.text);
        break;
      case EventType.TEXT_MESSAGE_CONTENT:
        within('text', 'messageId');
        if (fields(event).delta === '') problems.push(`${at}: an empty delta`);
        break;
      case EventType.TEXT_MESSAGE_END:
        end('text', 'messageId');
        break;
      case EventType.TOOL_CALL_START:
        begin('tool', 'toolCallId', started.tool);
        break;
      case EventType.TOOL_CALL_ARGS:
        within('tool', 'toolCallId');
        break;
      case EventType.TOOL_CALL_END:
        end('tool', 'toolCallId');
        break;
      case EventType.TOOL_CALL_RESULT: {
        const call = id(event, 'toolCallId');
        if (!started.tool.has(call)) problems.push(`${at}: a result for ${call}, which was never announced`);
        if (open.tool.has(call)) problems.push(`${at}: a result for ${call} before its TOOL_CALL_END`);
        if (answered.has(call)) problems.push(`${at}: a second result for ${call}`);
        answered.add(call);
        break;
      }
      case EventType.REASONING_START:
        begin('reasoning', 'messageId');
        break;
      case EventType.REASONING_MESSAGE_START:
        within('reasoning', 'messageId');
        begin('reasoningMessage', 'messageId', started.reasoningMessage);
        break;
      case EventType.REASONING_MESSAGE_CONTENT:
        within('reasoningMessage', 'messageId');
        break;
      case EventType.REASONING_MESSAGE_END:
        end('reasoningMessage', 'messageId');
        break;
      case EventType.REASONING_END:
        end('reasoning', 'messageId');
        break;
      case EventType.STEP_STARTED:
        begin('step', 'stepName');
        break;
      case EventType.STEP_FINISHED:
        end('step', 'stepName');
        break;
      case EventType.RUN_FINISHED:
      case EventType.RUN_ERROR:
        terminal = index;
        for (const [kind, ids] of Object.entries(open)) {
          if (ids.size > 0) problems.push(`${at}: still open (${kind}): ${[...ids].join(', ')}`);
        }
        break;
      default:
        break;
    }
  });
  if (events.length > 0 && terminal === -1) problems.push('the stream has no RUN_FINISHED or RUN_ERROR');
  return problems;
}

/** Parses an SSE body of `data:` lines (the AG-UI encoder's format) into events. */
export function parseSseEvents(text: string): BaseEvent[] {
  return (
    text
      .split('\n\n')
      // Comment-only blocks (`: keep-alive`) carry no event.
      .filter((block) => block.split('\n').some((line) => line.startsWith('data:')))
      .map((block) => {
        const data = block
          .split('\n')
          .filter((line) => line.startsWith('data:'))
          .map((line) => line.slice(5).trimStart())
          .join('\n');
        return JSON.parse(data) as BaseEvent;
      })
  );
}

import { parseToolArguments } from '@org/tools';

/** A ReAct decision: call one tool, or give the final answer. */
export type ReActDecision =
  | {
      readonly type: 'call_tool';
      readonly thought: string;
      readonly tool: string;
      /** The arguments as raw JSON text, for the usual parse / repair / validate path. */
      readonly argumentsText: string;
      /** Which format the model used. */
      readonly format: 'json' | 'text';
    }
  | {
      readonly type: 'final_answer';
      readonly thought: string;
      readonly answer: string;
      readonly format: 'json' | 'text';
    };

/** The outcome of reading a decision from a model's text. */
export type ReActDecisionResult =
  | { readonly ok: true; readonly decision: ReActDecision }
  | { readonly ok: false; readonly reason: string };

const FORMAT_HINT =
  'Answer with one JSON object: {"thought": "...", "type": "call_tool", "tool": "<tool name>", "args": {...}} ' +
  'or {"thought": "...", "type": "final_answer", "answer": "..."}; or in the text form ' +
  '"Thought: ...\\nAction: <tool name>\\nAction Input: {...}" or "Thought: ...\\nFinal Answer: ...".';

/**
 * Reads a ReAct decision from a model's text, in either format:
 * - JSON: `{"thought", "type": "call_tool" | "final_answer", "tool", "args", "answer"}`, bare or in a code fence,
 *   possibly with prose around it;
 * - text: `Thought: ... / Action: ... / Action Input: ...` or `Thought: ... / Final Answer: ...`.
 *
 * Never throws: a text that holds no decision gives `{ ok: false, reason }`, the reason written to be shown to
 * the model on a retry.
 *
 * @example
 * parseReActDecision('Thought: I need the weather.\nAction: get_weather\nAction Input: {"city": "Paris"}');
 * // { ok: true, decision: { type: 'call_tool', tool: 'get_weather', argumentsText: '{"city": "Paris"}', ... } }
 */
export function parseReActDecision(text: string): ReActDecisionResult {
  const unfenced = stripFences(text).trim();
  if (unfenced === '') return { ok: false, reason: `The answer is empty. ${FORMAT_HINT}` };
  const startsAsJson = unfenced.startsWith('{');
  if (startsAsJson) {
    const fromJson = decisionFromJson(unfenced);
    if (fromJson.ok || fromJson.found) return fromJson.result;
  }
  const lines = unfenced.split('\n');
  const blocks = labelledBlocks(lines);
  if (blocks.some((block) => block.label === 'action' || block.label === 'final answer'))
    return decisionFromText(lines, blocks);
  if (!startsAsJson) {
    const fromJson = decisionFromJson(unfenced);
    if (fromJson.ok || fromJson.found) return fromJson.result;
  }
  return { ok: false, reason: `No decision was found in the answer. ${FORMAT_HINT}` };
}

// A fence is a line of its own (```json opens, ``` closes); backticks inside a value (an answer quoting code) stay.
function stripFences(text: string): string {
  return text.replace(/^[ \t]*```[a-zA-Z0-9_-]*[ \t]*\r?$\n?/gm, '');
}

/**
 * `found` is true when a JSON object that looks like a decision was found (valid or not). Each candidate is read by
 * the one strict reader of `@org/tools` (duplicate keys refused, no integer silently rounded, safe repairs only).
 */
function decisionFromJson(text: string): { ok: boolean; found: boolean; result: ReActDecisionResult } {
  for (const candidate of jsonObjectCandidates(text)) {
    const parsed = parseToolArguments(candidate);
    if (!parsed.ok) continue;
    const record = parsed.value;
    if (!(Object.hasOwn(record, 'type') || Object.hasOwn(record, 'tool') || Object.hasOwn(record, 'answer')))
      continue;
    const result = decisionFromRecord(record);
    return { ok: result.ok, found: true, result };
  }
  return { ok: false, found: false, result: { ok: false, reason: 'no JSON object' } };
}

function decisionFromRecord(record: Record<string, unknown>): ReActDecisionResult {
  const own = (key: string): unknown => (Object.hasOwn(record, key) ? record[key] : undefined);
  const thought = typeof own('thought') === 'string' ? (own('thought') as string) : '';
  const recordType = own('type');
  const rawType =
    typeof recordType === 'string'
      ? recordType
          .trim()
          .toLowerCase()
          .replace(/[\s-]+/g, '_')
      : '';
  let type: string = rawType;
  if (type === '')
    type = Object.hasOwn(record, 'tool')
      ? 'call_tool'
      : Object.hasOwn(record, 'answer')
        ? 'final_answer'
        : '';
  const tool = own('tool');
  const answer = own('answer');
  if (type === 'call_tool' || type === 'tool_call' || type === 'action') {
    if (typeof tool !== 'string' || tool.trim() === '') {
      return {
        ok: false,
        reason: `A "call_tool" decision needs "tool": the name of the tool to call. ${FORMAT_HINT}`,
      };
    }
    // Read by the strict reader, every value is exact: serialising it again loses nothing.
    const args = own('args') ?? own('arguments');
    let argumentsText: string;
    if (args === undefined) argumentsText = '{}';
    else if (typeof args === 'string') argumentsText = args;
    else argumentsText = JSON.stringify(args);
    return {
      ok: true,
      decision: { type: 'call_tool', thought, tool: tool.trim(), argumentsText, format: 'json' },
    };
  }
  if (type === 'final_answer' || type === 'answer' || type === 'final') {
    if (answer === undefined || answer === null) {
      return {
        ok: false,
        reason: `A "final_answer" decision needs "answer": the answer for the user. ${FORMAT_HINT}`,
      };
    }
    const text = typeof answer === 'string' ? answer : JSON.stringify(answer);
    return { ok: true, decision: { type: 'final_answer', thought, answer: text, format: 'json' } };
  }
  return {
    ok: false,
    reason: `"type" must be "call_tool" or "final_answer", got ${JSON.stringify(recordType) ?? 'nothing'}. ${FORMAT_HINT}`,
  };
}

/**
 * Balanced `{...}` substrings, string-aware, in order of their opening brace (at most 20). One pass over the text
 * with a stack of open braces: text full of unclosed braces costs no more than any other.
 */
function jsonObjectCandidates(text: string): string[] {
  const found: { readonly start: number; readonly end: number }[] = [];
  const open: number[] = [];
  let inString = false;
  let escaped = false;
  for (let index = text.indexOf('{'); index >= 0 && index < text.length; index++) {
    const character = text[index];
    if (inString) {
      if (escaped) escaped = false;
      else if (character === '\\') escaped = true;
      else if (character === '"') inString = false;
      continue;
    }
    if (character === '"') inString = open.length > 0;
    else if (character === '{') open.push(index);
    else if (character === '}') {
      const start = open.pop();
      if (start !== undefined) found.push({ start, end: index + 1 });
    }
  }
  return found
    .sort((left, right) => left.start - right.start)
    .slice(0, 20)
    .map(({ start, end }) => text.slice(start, end));
}

type Label = 'thought' | 'action' | 'action input' | 'final answer' | 'observation';

/**
 * A label line in any of the styles models write: `Action:`, `**Action:**`, `**Action**:`, `### Thought:`,
 * `- Final Answer:`. Anchored and without nested quantifiers: one pass over the line.
 */
const LABEL_LINE =
  /^([ \t>#*_-]*)(thought|action[ \t]*input|action|final[ \t]*answer|observation)[ \t]*([*_]*)[ \t]*:[ \t]*([*_]*)[ \t]*(.*)$/i;

/** The label and the text after it, or undefined for a line that is not a label line. */
function readLabelLine(text: string): { readonly label: Label; readonly rest: string } | undefined {
  const match = LABEL_LINE.exec(text);
  if (match === null) return undefined;
  const [, prefix = '', name = '', beforeColon = '', afterColon = '', value = ''] = match;
  const label = name.toLowerCase().replace(/[ \t]+/g, ' ') as Label;
  // `**Action:** x` closes its emphasis after the colon; in `Action: **x**` the emphasis belongs to the value.
  const closesAfterColon = /[*_]/.test(prefix) && beforeColon === '';
  return { label, rest: closesAfterColon ? value : `${afterColon}${value}` };
}

interface LabelledBlock {
  readonly label: Label;
  /** The text after the label and the lines up to the next label line, trimmed. */
  readonly value: string;
  /** The index of the label's line. */
  readonly line: number;
  /** The text after the label on its own line. */
  readonly rest: string;
}

/** The lines of a text as labelled blocks, in one pass; text before the first label is ignored. */
function labelledBlocks(lines: readonly string[]): LabelledBlock[] {
  const blocks: { label: Label; line: number; rest: string; lines: string[] }[] = [];
  lines.forEach((text, line) => {
    const labelled = readLabelLine(text);
    if (labelled === undefined) {
      blocks.at(-1)?.lines.push(text);
      return;
    }
    blocks.push({ ...labelled, line, lines: [labelled.rest] });
  });
  return blocks.map(({ label, line, rest, lines: parts }) => ({
    label,
    line,
    rest,
    value: parts.join('\n').trim(),
  }));
}

const WRAPPED_NAME = /^(\*\*|__|[`'"*])(.+)\1$/;

/** A tool name without the Markdown emphasis, code ticks or quotes around it (`**get_weather**`); `a_` stays. */
function unwrapName(text: string): string {
  let name = text.trim();
  for (let round = 0; round < 3; round++) {
    const wrapped = WRAPPED_NAME.exec(name);
    if (wrapped === null) break;
    name = (wrapped[2] as string).trim();
  }
  return name;
}

/**
 * The text form. The decision is the first complete one: an `Action:` followed by its `Action Input:`, or a
 * `Final Answer:`. What follows a complete action (an invented `Observation:`, a second Thought / Action block, a
 * premature final answer) is the model writing ahead of results it has not seen, and is ignored; an `Action Input:`
 * ends at the next label line. A final answer runs to the end of the text, so an action after it is refused.
 */
function decisionFromText(lines: readonly string[], blocks: readonly LabelledBlock[]): ReActDecisionResult {
  let thought = '';
  for (let index = 0; index < blocks.length; index++) {
    const block = blocks[index] as LabelledBlock;
    if (block.label === 'thought') {
      thought = block.value;
      continue;
    }
    if (block.label === 'final answer') {
      const answer = [block.rest, ...lines.slice(block.line + 1)].join('\n').trim();
      if (blocks.slice(index + 1).some((part) => part.label === 'action')) {
        return {
          ok: false,
          reason: `The answer has both a "Final Answer:" and an "Action:" after it; give exactly one of them. ${FORMAT_HINT}`,
        };
      }
      if (answer === '') return { ok: false, reason: `"Final Answer:" is empty. ${FORMAT_HINT}` };
      return { ok: true, decision: { type: 'final_answer', thought, answer, format: 'text' } };
    }
    if (block.label !== 'action') continue;
    const tool = unwrapName(block.value.split('\n', 1)[0] ?? '');
    if (tool === '') return { ok: false, reason: `"Action:" names no tool. ${FORMAT_HINT}` };
    const input = blocks[index + 1];
    if (input?.label !== 'action input') {
      return {
        ok: false,
        reason: `"Action: ${tool}" has no "Action Input:" line with its JSON arguments. ${FORMAT_HINT}`,
      };
    }
    return {
      ok: true,
      decision: {
        type: 'call_tool',
        thought,
        tool,
        argumentsText: input.value === '' ? '{}' : input.value,
        format: 'text',
      },
    };
  }
  return { ok: false, reason: `No "Action:" or "Final Answer:" line was found. ${FORMAT_HINT}` };
}

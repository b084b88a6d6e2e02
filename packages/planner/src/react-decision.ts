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
  if (/^\s*(Action|Final Answer)\s*:/im.test(unfenced)) return decisionFromText(unfenced);
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

/** `found` is true when a JSON object that looks like a decision was found (valid or not). */
function decisionFromJson(text: string): { ok: boolean; found: boolean; result: ReActDecisionResult } {
  for (const candidate of jsonObjectCandidates(text)) {
    let value: unknown;
    try {
      value = JSON.parse(candidate);
    } catch {
      continue;
    }
    if (typeof value !== 'object' || value === null || Array.isArray(value)) continue;
    const record = value as Record<string, unknown>;
    if (!('type' in record || 'tool' in record || 'answer' in record)) continue;
    const result = decisionFromRecord(record);
    return { ok: result.ok, found: true, result };
  }
  return { ok: false, found: false, result: { ok: false, reason: 'no JSON object' } };
}

function decisionFromRecord(record: Record<string, unknown>): ReActDecisionResult {
  const thought = typeof record.thought === 'string' ? record.thought : '';
  const rawType =
    typeof record.type === 'string'
      ? record.type
          .trim()
          .toLowerCase()
          .replace(/[\s-]+/g, '_')
      : '';
  let type: string = rawType;
  if (type === '') type = 'tool' in record ? 'call_tool' : 'answer' in record ? 'final_answer' : '';
  if (type === 'call_tool' || type === 'tool_call' || type === 'action') {
    if (typeof record.tool !== 'string' || record.tool.trim() === '') {
      return {
        ok: false,
        reason: `A "call_tool" decision needs "tool": the name of the tool to call. ${FORMAT_HINT}`,
      };
    }
    const args = record.args ?? record.arguments;
    let argumentsText: string;
    if (args === undefined) argumentsText = '{}';
    else if (typeof args === 'string') argumentsText = args;
    else argumentsText = JSON.stringify(args);
    return {
      ok: true,
      decision: { type: 'call_tool', thought, tool: record.tool.trim(), argumentsText, format: 'json' },
    };
  }
  if (type === 'final_answer' || type === 'answer' || type === 'final') {
    if (record.answer === undefined || record.answer === null) {
      return {
        ok: false,
        reason: `A "final_answer" decision needs "answer": the answer for the user. ${FORMAT_HINT}`,
      };
    }
    const answer = typeof record.answer === 'string' ? record.answer : JSON.stringify(record.answer);
    return { ok: true, decision: { type: 'final_answer', thought, answer, format: 'json' } };
  }
  return {
    ok: false,
    reason: `"type" must be "call_tool" or "final_answer", got ${JSON.stringify(record.type) ?? 'nothing'}. ${FORMAT_HINT}`,
  };
}

/** Balanced `{...}` substrings, string-aware, in order of their opening brace. */
function jsonObjectCandidates(text: string): string[] {
  const candidates: string[] = [];
  for (
    let start = text.indexOf('{');
    start >= 0 && candidates.length < 20;
    start = text.indexOf('{', start + 1)
  ) {
    let depth = 0;
    let inString = false;
    let escaped = false;
    for (let index = start; index < text.length; index++) {
      const character = text[index];
      if (inString) {
        if (escaped) escaped = false;
        else if (character === '\\') escaped = true;
        else if (character === '"') inString = false;
        continue;
      }
      if (character === '"') inString = true;
      else if (character === '{') depth++;
      else if (character === '}') {
        depth--;
        if (depth === 0) {
          candidates.push(text.slice(start, index + 1));
          break;
        }
      }
    }
  }
  return candidates;
}

function decisionFromText(text: string): ReActDecisionResult {
  const thought =
    /^\s*Thought\s*:\s*([\s\S]*?)(?=^\s*(?:Action|Final Answer)\s*:|$(?![\s\S]))/im.exec(text)?.[1]?.trim() ??
    '';
  const finalAnswer = /^\s*Final Answer\s*:\s*([\s\S]*)$/im.exec(text);
  const action = /^\s*Action\s*:[ \t]*(.*)$/im.exec(text);
  if (finalAnswer !== null && action !== null) {
    return {
      ok: false,
      reason: `The answer has both an "Action:" and a "Final Answer:"; give exactly one of them. ${FORMAT_HINT}`,
    };
  }
  if (finalAnswer !== null) {
    const answer = (finalAnswer[1] ?? '').trim();
    if (answer === '') return { ok: false, reason: `"Final Answer:" is empty. ${FORMAT_HINT}` };
    return { ok: true, decision: { type: 'final_answer', thought, answer, format: 'text' } };
  }
  if (action === null)
    return { ok: false, reason: `No "Action:" or "Final Answer:" line was found. ${FORMAT_HINT}` };
  const tool = (action[1] ?? '')
    .trim()
    .replace(/^[`'"]+|[`'"]+$/g, '')
    .trim();
  if (tool === '') return { ok: false, reason: `"Action:" names no tool. ${FORMAT_HINT}` };
  const input = /^\s*Action Input\s*:\s*([\s\S]*?)(?=^\s*Observation\s*:|$(?![\s\S]))/im.exec(text);
  if (input === null) {
    return {
      ok: false,
      reason: `"Action: ${tool}" has no "Action Input:" line with its JSON arguments. ${FORMAT_HINT}`,
    };
  }
  const argumentsText = (input[1] ?? '').trim();
  return {
    ok: true,
    decision: {
      type: 'call_tool',
      thought,
      tool,
      argumentsText: argumentsText === '' ? '{}' : argumentsText,
      format: 'text',
    },
  };
}

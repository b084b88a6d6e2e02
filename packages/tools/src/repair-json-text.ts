/** Finish reasons (normalised and raw provider values) after which the model's output is complete. */
const NORMAL_FINISH_REASONS: ReadonlySet<string> = new Set([
  'stop',
  'tool-calls',
  'tool_calls',
  'tool_use',
  'end_turn',
  'stop_sequence',
  'function_call',
]);

/** Finish reasons that mean the output was cut off by a token limit. */
const TRUNCATING_FINISH_REASONS: ReadonlySet<string> = new Set([
  'length',
  'max_tokens',
  'max_output_tokens',
  'model_length',
  'model_context_window_exceeded',
]);

/** True when a finish reason says the output hit a token limit (`length`, `max_tokens`, ...). */
export function isTruncatingFinishReason(finishReason: string | undefined): boolean {
  return finishReason !== undefined && TRUNCATING_FINISH_REASONS.has(finishReason.toLowerCase());
}

/** True when a finish reason says the model ended normally (`stop`, `tool-calls`, `end_turn`, ...). */
export function isNormalFinishReason(finishReason: string | undefined): boolean {
  return finishReason !== undefined && NORMAL_FINISH_REASONS.has(finishReason.toLowerCase());
}

/** Text after the safe repairs, and what was done, in order. */
export interface RepairedJsonText {
  readonly text: string;
  readonly repairs: readonly string[];
}

/** Scans JSON-ish text outside of strings; calls `visit` for every character that is not inside a string. */
function scanOutsideStrings(
  text: string,
  visit: (char: string, index: number) => void,
): { inString: boolean } {
  let inString = false;
  for (let index = 0; index < text.length; index++) {
    const char = text[index] as string;
    if (inString) {
      if (char === '\\') index++;
      else if (char === '"') inString = false;
      continue;
    }
    if (char === '"') inString = true;
    visit(char, index);
  }
  return { inString };
}

const FENCE = '```';
const INFO_STRING = /^[A-Za-z0-9_-]*$/;

// Written with indexOf rather than a regex: the text is untrusted and up to 1 MiB, and a lazy `[\s\S]*?` fence
// pattern backtracks quadratically on long runs of spaces or backticks.
function stripCodeFence(text: string, repairs: string[]): string {
  if (text.length >= 6 && text.startsWith(FENCE) && text.endsWith(FENCE)) {
    let start = 3;
    while (start < text.length && /[A-Za-z0-9_-]/.test(text[start] as string)) start++;
    const body = text.slice(start, text.length - 3);
    if (!body.includes(FENCE)) {
      repairs.push('removed a Markdown code fence around the arguments');
      return body.trim();
    }
  }
  const open = text.indexOf(FENCE);
  if (open < 0) return text;
  const lineEnd = text.indexOf('\n', open);
  if (lineEnd < 0 || !INFO_STRING.test(text.slice(open + 3, lineEnd).trim())) return text;
  const close = text.indexOf(FENCE, lineEnd + 1);
  if (close < 0 || text.indexOf(FENCE, close + 3) >= 0) return text;
  repairs.push('took the arguments out of the one Markdown code block in the text');
  return text.slice(lineEnd + 1, close).trim();
}

/** Keeps the one balanced top-level object when there is prose before or after it (and no other braces). */
function stripProse(text: string, repairs: string[]): string {
  const start = text.indexOf('{');
  if (start <= 0 && text.endsWith('}')) return text;
  if (start < 0) return text;
  const prefix = text.slice(0, start);
  if (/[{}[\]"]/.test(prefix)) return text;
  let depth = 0;
  let end = -1;
  scanOutsideStrings(text.slice(start), (char, index) => {
    if (end >= 0) return;
    if (char === '{') depth++;
    else if (char === '}') {
      depth--;
      if (depth === 0) end = start + index;
    }
  });
  if (end < 0) {
    // Unbalanced: keep everything from the brace on; a later repair may close it.
    if (prefix.trim() === '') return text;
    repairs.push('removed text before the JSON object');
    return text.slice(start);
  }
  const suffix = text.slice(end + 1);
  if (/[{}[\]]/.test(suffix)) return text;
  if (prefix.trim() === '' && suffix.trim() === '') return text;
  repairs.push('removed text around the JSON object');
  return text.slice(start, end + 1);
}

function removeTrailingCommas(text: string, repairs: string[]): string {
  const removals: number[] = [];
  let lastComma = -1;
  scanOutsideStrings(text, (char, index) => {
    if (char === ',') lastComma = index;
    else if (char === '}' || char === ']') {
      if (lastComma >= 0) removals.push(lastComma);
      lastComma = -1;
    } else if (char !== ' ' && char !== '\n' && char !== '\r' && char !== '\t') lastComma = -1;
  });
  if (removals.length === 0) return text;
  repairs.push(`removed ${removals.length} trailing comma${removals.length === 1 ? '' : 's'}`);
  let result = '';
  let from = 0;
  for (const index of removals) {
    result += text.slice(from, index);
    from = index + 1;
  }
  return result + text.slice(from);
}

/** Adds the one missing final `}` when only the outermost object is unclosed and the last value is complete. */
function closeFinalBrace(text: string, repairs: string[]): string {
  const stack: string[] = [];
  let last = '';
  const { inString } = scanOutsideStrings(text, (char) => {
    if (char === '{' || char === '[') stack.push(char);
    else if (char === '}' || char === ']') stack.pop();
    if (char !== ' ' && char !== '\n' && char !== '\r' && char !== '\t') last = char;
  });
  if (inString || stack.length !== 1 || stack[0] !== '{' || text[0] !== '{') return text;
  if (last === ',' || last === ':') return text;
  repairs.push('added the missing closing brace at the end');
  return `${text}}`;
}

/**
 * Applies the safe repairs, in order: a Markdown code fence, prose around the object, trailing commas, and (only
 * when `allowCloseBrace`, i.e. the model stopped normally) one missing final `}`. Never guesses quotes, keys or
 * values. Valid JSON is returned unchanged, and repairing repaired text changes nothing more.
 */
export function repairJsonText(text: string, options: { allowCloseBrace: boolean }): RepairedJsonText {
  const repairs: string[] = [];
  let current = text.trim();
  current = stripCodeFence(current, repairs);
  current = stripProse(current, repairs);
  current = removeTrailingCommas(current, repairs);
  if (options.allowCloseBrace) current = closeFinalBrace(current, repairs);
  return { text: current, repairs };
}

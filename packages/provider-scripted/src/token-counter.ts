import type {
  Message,
  MessageContent,
  ModelRequest,
  ReasoningPart,
  ResponseFormat,
  ToolCall,
  ToolSpec,
} from '@org/core';
import { bytePairTokenCount, O200K_PATTERN } from './o200k-ranks.js';

/**
 * Framing tokens added per message (role markers and separators), as OpenAI documents for its chat models.
 * Constants rather than per-provider guesses: they make every count a sum of independent parts, so expected
 * counts can be derived analytically.
 */
export const MESSAGE_OVERHEAD_TOKENS = 3;
/** Framing tokens added per tool call inside an assistant message. */
export const TOOL_CALL_OVERHEAD_TOKENS = 3;
/** Tokens that prime the reply, added once per request. */
export const REQUEST_OVERHEAD_TOKENS = 3;
/**
 * Tokens of one image part, whatever its size or source (inline or URL): OpenAI's count for a 512×512 image at high
 * detail (85 + 4 tiles × 170). Providers count images by their pixels; a fixed cost keeps counts derivable without
 * decoding images, so benchmarks stay deterministic.
 */
export const IMAGE_PART_TOKENS = 765;
/**
 * Tokens of one file part (a PDF, a text file), whatever its size or source: about one page of a PDF, which
 * Anthropic documents at 1,500 to 3,000 tokens. A fixed cost, like `IMAGE_PART_TOKENS`.
 */
export const FILE_PART_TOKENS = 1_500;

const COUNT_CACHE_ENTRIES = 4_096;
const countCache = new Map<string, number>();

// Byte-pair merging is quadratic in the length of one pre-token, and a pre-token can be a whole argument string
// (`[[[[…` of a 10^5-deep payload is one punctuation run): a 8,000-character run took 20 s. Pieces longer than this
// are counted in slices of this length, which bounds the work; ordinary text never has such pieces, so its counts
// stay exactly the tokenizer's.
const MAX_PIECE_CHARACTERS = 64;
// o200k_base's own pre-tokenizer: the tokenizer encodes each of its pieces on its own, so counting piece by piece
// gives the same tokens, and a piece's count can be remembered (`":"`, ` the` and the slices of a long run repeat).
const PRE_TOKENIZER = new RegExp(O200K_PATTERN, 'gu');
const PIECE_CACHE_ENTRIES = 8_192;
const pieceCache = new Map<string, number>();

function pieceTokens(piece: string): number {
  const cached = pieceCache.get(piece);
  if (cached !== undefined) return cached;
  // The tokenizer's `encode(piece)`: the pre-tokenizer's matches inside the piece (a slice of a long run may split
  // again), each merged on its own; text the pattern does not match yields no token, as in the tokenizer.
  let count = 0;
  for (const match of piece.matchAll(PRE_TOKENIZER)) count += bytePairTokenCount(match[0]);
  if (pieceCache.size >= PIECE_CACHE_ENTRIES) pieceCache.clear();
  pieceCache.set(piece, count);
  return count;
}

/** Where a slice of an over-long piece ends: 64 UTF-16 units on, 63 where 64 would split a surrogate pair. */
function sliceEnd(text: string, offset: number, end: number): number {
  const cut = offset + MAX_PIECE_CHARACTERS;
  if (cut >= end) return end;
  const before = text.charCodeAt(cut - 1);
  const after = text.charCodeAt(cut);
  const splitsPair = before >= 0xd800 && before <= 0xdbff && after >= 0xdc00 && after <= 0xdfff;
  return splitsPair ? cut - 1 : cut;
}

/**
 * Visits a text in spans that end on token boundaries, in order, with the tokens of each: the tokenizer's pieces
 * (a word with its leading space, a number group, a punctuation run), over-long ones in slices. `countTokens` is
 * the sum over these spans, so a stream cut at their ends is timed consistently with the count. Internal.
 */
export function forEachTokenSpan(text: string, visit: (end: number, tokens: number) => void): void {
  const visitPiece = (start: number, end: number): void => {
    for (let offset = start; offset < end; ) {
      const next = sliceEnd(text, offset, end);
      visit(next, pieceTokens(text.slice(offset, next)));
      offset = next;
    }
  };
  let covered = 0;
  for (const match of text.matchAll(PRE_TOKENIZER)) {
    // o200k_base's pattern matches every character; a gap would still be counted, as its own span.
    if (match.index > covered) visitPiece(covered, match.index);
    visitPiece(match.index, match.index + match[0].length);
    covered = match.index + match[0].length;
  }
  if (covered < text.length) visitPiece(covered, text.length);
}

function countUncached(text: string): number {
  let count = 0;
  forEachTokenSpan(text, (_end, tokens) => {
    count += tokens;
  });
  return count;
}

/**
 * Counts the tokens of a text with the o200k_base tokenizer (GPT-4o and later). Special-token text such as
 * `<|endoftext|>` is counted as ordinary text, as a provider counts user content. Counted piece by piece (the
 * tokenizer's own pre-tokens, each piece's count remembered), so time is linear in the length: a single pre-token
 * longer than 64 characters (a long run of one character class, never ordinary text) is counted in 64-character
 * slices (63 where 64 would split a surrogate pair), which may differ from the tokenizer by a token or so per slice.
 *
 * @example
 * countTokens('hello world'); // 2
 */
export function countTokens(text: string): number {
  if (text === '') return 0;
  const cached = countCache.get(text);
  if (cached !== undefined) return cached;
  const count = countUncached(text);
  // A run sends the same history again on every call: counting each message once keeps long runs linear.
  if (countCache.size >= COUNT_CACHE_ENTRIES) countCache.clear();
  countCache.set(text, count);
  return count;
}

/**
 * Tokens of one tool call as it appears in an assistant message (or a response): name and raw arguments.
 *
 * @example
 * countToolCallTokens({ toolName: 'get_weather', arguments: '{"city":"Paris"}' });
 */
export function countToolCallTokens(toolCall: Pick<ToolCall, 'toolName' | 'arguments'>): number {
  return TOOL_CALL_OVERHEAD_TOKENS + countTokens(toolCall.toolName) + countTokens(toolCall.arguments);
}

/**
 * Tokens of a message's content: a string's tokens, or the sum over its parts of each text part's tokens,
 * `IMAGE_PART_TOKENS` per image and `FILE_PART_TOKENS` per file (inline or by URL; names and media types are not
 * counted). A single text part counts as its text alone.
 *
 * @example
 * countContentTokens([{ type: 'text', text: 'What is this?' }, { type: 'image', mediaType: 'image/png', data }]);
 * // countTokens('What is this?') + IMAGE_PART_TOKENS
 */
export function countContentTokens(content: MessageContent): number {
  if (typeof content === 'string') return countTokens(content);
  let tokens = 0;
  for (const part of content) {
    if (part.type === 'text') tokens += countTokens(part.text);
    else tokens += part.type === 'image' ? IMAGE_PART_TOKENS : FILE_PART_TOKENS;
  }
  return tokens;
}

/**
 * Tokens of reasoning parts: the tokens of their texts. Opaque fields (signatures, redacted or encrypted data, ids)
 * are not counted, like tool-call ids: a withheld part counts 0.
 *
 * @example
 * countReasoningTokens(response.reasoning ?? []);
 */
export function countReasoningTokens(reasoning: readonly Pick<ReasoningPart, 'text'>[]): number {
  return reasoning.reduce((sum, part) => sum + countTokens(part.text), 0);
}

/**
 * Tokens of one message as a provider receives it: framing, the content (`countContentTokens`), and for an
 * assistant message the texts of its reasoning (`countReasoningTokens`) and each tool call. Tool-call ids are not
 * counted (they are opaque handles providers map to their own short ids).
 *
 * @example
 * countMessageTokens({ role: 'user', content: 'Weather in Paris?' });
 */
export function countMessageTokens(message: Message): number {
  if (message.role !== 'assistant') return MESSAGE_OVERHEAD_TOKENS + countContentTokens(message.content);
  return (
    MESSAGE_OVERHEAD_TOKENS +
    countReasoningTokens(message.reasoning ?? []) +
    countTokens(message.content) +
    (message.toolCalls ?? []).reduce((sum, call) => sum + countToolCallTokens(call), 0)
  );
}

/**
 * The JSON text a provider receives for one tool: `{"name", "description", "parameters"}`.
 *
 * @example
 * renderToolSpec(registry.specs()[0]);
 */
export function renderToolSpec(spec: ToolSpec): string {
  return JSON.stringify({ name: spec.name, description: spec.description, parameters: spec.inputSchema });
}

/**
 * Tokens of one tool definition: its JSON text (`renderToolSpec`).
 *
 * @example
 * const toolTokens = registry.specs().reduce((sum, spec) => sum + countToolSpecTokens(spec), 0);
 */
export function countToolSpecTokens(spec: ToolSpec): number {
  return countTokens(renderToolSpec(spec));
}

/**
 * The JSON text a provider receives for a structured-output format: `{"name", "description", "schema"}`.
 *
 * @example
 * renderResponseFormat({ type: 'json', name: 'weather', schema: { type: 'object' } });
 * // '{"name":"weather","schema":{"type":"object"}}'
 */
export function renderResponseFormat(format: ResponseFormat): string {
  return JSON.stringify({ name: format.name, description: format.description, schema: format.schema });
}

/**
 * Input tokens of a request: the reply priming, every message (system prompt, history, task), every tool schema
 * and the response format (`renderResponseFormat`) when there is one. The sum of independent parts, so
 * `countRequestTokens({messages: [...a, ...b]})` equals the count of `a` plus the message counts of `b`. Pass
 * `includeTools: false` when the model does not receive the tools.
 *
 * @example
 * const inputTokens = countRequestTokens({ messages, tools: registry.specs() });
 */
export function countRequestTokens(
  request: Pick<ModelRequest, 'messages' | 'tools' | 'responseFormat'>,
  options: { includeTools?: boolean } = {},
): number {
  const tools = options.includeTools === false ? [] : (request.tools ?? []);
  return (
    REQUEST_OVERHEAD_TOKENS +
    request.messages.reduce((sum, message) => sum + countMessageTokens(message), 0) +
    tools.reduce((sum, spec) => sum + countToolSpecTokens(spec), 0) +
    (request.responseFormat === undefined ? 0 : countTokens(renderResponseFormat(request.responseFormat)))
  );
}

/**
 * Output tokens of an answer, in the order they are generated: its reasoning texts (`countReasoningTokens`), its
 * text, then each tool call (name and raw arguments).
 *
 * @example
 * countOutputTokens(await model.generate(request));
 */
export function countOutputTokens(answer: {
  readonly text: string;
  readonly toolCalls: readonly Pick<ToolCall, 'toolName' | 'arguments'>[];
  readonly reasoning?: readonly Pick<ReasoningPart, 'text'>[] | undefined;
}): number {
  return (
    countReasoningTokens(answer.reasoning ?? []) +
    countTokens(answer.text) +
    answer.toolCalls.reduce((sum, call) => sum + countTokens(call.toolName) + countTokens(call.arguments), 0)
  );
}

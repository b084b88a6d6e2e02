/**
 * Checks the real Converse API makes on a request before any model runs, made by the fake server with the real
 * API's wording (as seen in its ValidationExceptions), so that tests see through the real SDK what a user of the
 * real API would see. Only the checks these tests need are made.
 */

interface WireBlock {
  readonly text?: unknown;
  readonly toolUse?: unknown;
  readonly toolResult?: { readonly content?: readonly WireBlock[] };
  readonly reasoningContent?: { readonly reasoningText?: { readonly signature?: unknown } };
  readonly document?: { readonly name?: unknown };
  readonly [key: string]: unknown;
}

interface WireRequestBody {
  readonly messages?: readonly { readonly role?: unknown; readonly content?: readonly WireBlock[] }[];
  readonly additionalModelRequestFields?: { readonly thinking?: { readonly type?: unknown } };
}

/** Claude's errors reach Converse callers inside this sentence. */
const MODEL_ERRORS = 'The model returned the following errors: ';

const THINKING_FIRST =
  'When `thinking` is enabled, a final `assistant` message must start with a thinking block (preceeding the ' +
  'lastmost set of `tool_use` and `tool_result` blocks). We recommend you include thinking blocks from previous ' +
  'turns. To avoid this requirement, disable `thinking`. Please consult our documentation at ' +
  'https://docs.claude.com/en/docs/build-with-claude/extended-thinking';

const DOCUMENT_NAME_RULE =
  'The document file name can only contain alphanumeric characters, whitespace characters, hyphens, parentheses, ' +
  "and square brackets. The name can't contain more than one consecutive whitespace character. Check that the " +
  'file name conforms to these restrictions and retry your request.';

const DUPLICATE_DOCUMENT_NAMES =
  "Messages can't contain duplicate document names. Rename the document and retry your request.";

const VALID_DOCUMENT_NAME = /^[A-Za-z0-9()[\]-]+(?: [A-Za-z0-9()[\]-]+)*$/;

/** Claude's name of a Converse content block, as its errors say it. */
function claudeBlockType(block: WireBlock | undefined): string {
  if (block === undefined) return 'nothing';
  if (block.toolUse !== undefined) return 'tool_use';
  if (block.toolResult !== undefined) return 'tool_result';
  if (block.reasoningContent !== undefined) return 'thinking';
  return Object.keys(block)[0] ?? 'nothing';
}

/**
 * The message of the ValidationException Bedrock answers this Converse request with, or `undefined` when it passes
 * the checks:
 * - a `reasoningText` block without its signature: `messages.N.content.M.thinking.signature: Field required`;
 * - with thinking enabled (`additionalModelRequestFields.thinking.type` `enabled` or `adaptive`), a last assistant
 *   turn with tool calls, answered by tool results, that does not start with its reasoning: `Expected `thinking`
 *   or `redacted_thinking`, but found `tool_use``;
 * - document names Converse refuses, or used twice in the request (ignoring case).
 */
export function converseValidationError(body: WireRequestBody): string | undefined {
  const messages = body.messages ?? [];
  for (const [messageIndex, message] of messages.entries()) {
    if (message.role !== 'assistant') continue;
    for (const [blockIndex, block] of (message.content ?? []).entries()) {
      const reasoningText = block.reasoningContent?.reasoningText;
      if (reasoningText !== undefined && typeof reasoningText.signature !== 'string') {
        return `${MODEL_ERRORS}messages.${messageIndex}.content.${blockIndex}.thinking.signature: Field required`;
      }
    }
  }
  const thinking = body.additionalModelRequestFields?.thinking?.type;
  if (thinking === 'enabled' || thinking === 'adaptive') {
    const lastAssistant = messages.findLastIndex((message) => message.role === 'assistant');
    const turn = messages[lastAssistant]?.content ?? [];
    const answered = (messages[lastAssistant + 1]?.content ?? []).some(
      (block) => block.toolResult !== undefined,
    );
    if (
      turn.some((block) => block.toolUse !== undefined) &&
      answered &&
      turn[0]?.reasoningContent === undefined
    ) {
      return (
        `${MODEL_ERRORS}messages.${lastAssistant}.content.0.type: Expected \`thinking\` or \`redacted_thinking\`, ` +
        `but found \`${claudeBlockType(turn[0])}\`. ${THINKING_FIRST}`
      );
    }
  }
  const names = new Set<string>();
  for (const message of messages) {
    const blocks = (message.content ?? []).flatMap((block) => [block, ...(block.toolResult?.content ?? [])]);
    for (const block of blocks) {
      if (block.document === undefined) continue;
      const name = block.document.name;
      if (typeof name !== 'string' || name.length > 200 || !VALID_DOCUMENT_NAME.test(name)) {
        return DOCUMENT_NAME_RULE;
      }
      if (names.has(name.toLowerCase())) return DUPLICATE_DOCUMENT_NAMES;
      names.add(name.toLowerCase());
    }
  }
  return undefined;
}

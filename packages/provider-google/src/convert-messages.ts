import type { Content, FunctionResponse, FunctionResponsePart, Part } from '@google/genai';
import {
  type Adjustment,
  type AssistantMessage,
  type ContentPart,
  contentText,
  InvalidRequestError,
  type Message,
  type MessageContent,
  type ReasoningPart,
  readStrictJson,
  type ToolMessage,
} from '@org/core';
import { wireCallId } from './call-ids.js';
import { GOOGLE_FILE_MEDIA_TYPES, GOOGLE_IMAGE_MEDIA_TYPES } from './content-limits.js';
import { readAnchor } from './part-anchors.js';
import type { PropertyNames } from './property-names.js';
import { PROVIDER } from './provider-name.js';
import { SKIP_THOUGHT_SIGNATURE, signUnsignedCallTurn } from './skip-thought-signature.js';

/** The conversation as Gemini takes it, and what was changed to get there. */
export interface ConvertedMessages {
  readonly systemInstruction: Content | undefined;
  readonly contents: Content[];
  readonly adjustments: Adjustment[];
}

/** How messages are converted for one model. */
export interface ConvertOptions {
  readonly propertyNames: PropertyNames;
  /** Whether images and files of a tool result may go inside its `functionResponse` (Gemini 3). */
  readonly mediaInFunctionResponses: boolean;
  /** Whether an unsigned function-calling turn gets `SKIP_THOUGHT_SIGNATURE` (Gemini 3 refuses it otherwise). */
  readonly requiresThoughtSignatures: boolean;
}

/**
 * Maps core messages onto Gemini `contents`: system messages into `systemInstruction`; user content parts as
 * `inlineData` / `fileData`; each assistant turn as a `model` turn whose parts carry every thought and thought
 * signature back where it came from; the results of one turn's calls as one `user` turn of `functionResponse` parts,
 * in the order of the calls (Gemini matches them by order and name, and by id where the model gave one). Reasoning of
 * another provider is left out and reported as `history-rewritten`, as is anything moved; for a family that requires
 * thought signatures (Gemini 3), a function-calling turn without one is sent with `SKIP_THOUGHT_SIGNATURE`, reported.
 *
 * @example
 * const { systemInstruction, contents, adjustments } = convertMessages(request.messages, options);
 */
export function convertMessages(messages: readonly Message[], options: ConvertOptions): ConvertedMessages {
  const system: Part[] = [];
  const contents: Content[] = [];
  const adjustments: Adjustment[] = [];
  const foreign: { messageIndex: number; provider: string }[] = [];
  let lateSystem = false;
  let mediaMoved = 0;
  const replacedArguments: number[] = [];
  const emptyDropped: number[] = [];
  const unsignedCallTurns: number[] = [];
  let lastAssistant: AssistantMessage | undefined;
  let pendingResults: { message: ToolMessage; messageIndex: number }[] = [];

  const push = (content: Content): void => {
    const last = contents.at(-1);
    // Gemini wants turns to alternate; tool results followed by a user message are one user turn.
    if (last !== undefined && last.role === content.role)
      last.parts = [...(last.parts ?? []), ...(content.parts ?? [])];
    else contents.push(content);
  };
  const flushResults = (): void => {
    if (pendingResults.length === 0) return;
    const order = (lastAssistant?.toolCalls ?? []).map((call) => call.id);
    const sorted = [...pendingResults].sort(
      (a, b) => order.indexOf(a.message.toolCallId) - order.indexOf(b.message.toolCallId),
    );
    const parts: Part[] = [];
    const moved: Part[] = [];
    for (const { message, messageIndex } of sorted) {
      const result = convertToolResult(message, messageIndex, options.mediaInFunctionResponses);
      parts.push({ functionResponse: result.functionResponse });
      if (result.moved.length > 0) {
        mediaMoved += result.moved.length;
        moved.push(
          { text: `[The result of ${message.toolName} (${message.toolCallId}) includes:]` },
          ...result.moved,
        );
      }
    }
    push({ role: 'user', parts: [...parts, ...moved] });
    pendingResults = [];
  };

  for (const [messageIndex, message] of messages.entries()) {
    if (message.role !== 'tool') flushResults();
    switch (message.role) {
      case 'system':
        if (contents.length > 0) lateSystem = true;
        system.push({ text: message.content });
        break;
      case 'user':
        push({ role: 'user', parts: convertContent(message.content, messageIndex) });
        break;
      case 'tool':
        pendingResults.push({ message, messageIndex });
        break;
      default: {
        lastAssistant = message;
        const parts = convertAssistant(
          message,
          messageIndex,
          options.propertyNames,
          foreign,
          replacedArguments,
        );
        if (options.requiresThoughtSignatures && signUnsignedCallTurn(parts))
          unsignedCallTurns.push(messageIndex);
        if (parts.length > 0) push({ role: 'model', parts });
        else emptyDropped.push(messageIndex);
        break;
      }
    }
  }
  flushResults();

  if (foreign.length > 0) adjustments.push(foreignReasoningLeftOut(foreign));
  if (lateSystem) {
    adjustments.push({
      kind: 'history-rewritten',
      message:
        'Gemini takes instructions only in systemInstruction: system messages after the first turn were moved there.',
      details: { reason: 'system-message-moved' },
    });
  }
  if (replacedArguments.length > 0) {
    adjustments.push({
      kind: 'history-rewritten',
      message:
        `Call arguments that are not a JSON object (in assistant message(s) ${[...new Set(replacedArguments)].join(', ')}) ` +
        "were sent as {}: Gemini takes a function call's arguments only as an object.",
      details: { reason: 'tool-arguments-replaced', messageIndexes: [...new Set(replacedArguments)] },
    });
  }
  if (emptyDropped.length > 0) {
    adjustments.push({
      kind: 'history-rewritten',
      message: `Assistant message(s) ${emptyDropped.join(', ')} had no text and no calls, and were left out: Gemini refuses an empty turn.`,
      details: { reason: 'empty-assistant-message-dropped', messageIndexes: emptyDropped },
    });
  }
  if (unsignedCallTurns.length > 0) {
    adjustments.push({
      kind: 'history-rewritten',
      message:
        `The function calls of assistant message(s) ${unsignedCallTurns.join(', ')} carry no Gemini thought signature ` +
        `(another provider's calls, or a history stored without its reasoning), which this model refuses: they were ` +
        `sent with Google's documented '${SKIP_THOUGHT_SIGNATURE}' value, so the model goes on without the reasoning ` +
        "behind them. Keep each answer's reasoning parts in the history to send the real signatures.",
      details: { reason: 'thought-signature-skipped', messageIndexes: unsignedCallTurns },
    });
  }
  if (mediaMoved > 0) {
    adjustments.push({
      kind: 'history-rewritten',
      message:
        `${mediaMoved} image(s) or file(s) of tool results were sent in the user turn after the function responses: ` +
        'this model family takes no media inside a functionResponse.',
      details: { reason: 'tool-result-media-moved', parts: mediaMoved },
    });
  }
  return {
    systemInstruction: system.length === 0 ? undefined : { role: 'user', parts: system },
    contents,
    adjustments,
  };
}

/**
 * The parts of a model turn: its thoughts, text and calls, each signature on the part it came from. The reasoning
 * list is in the order the parts arrived; text before calls, the usual order of a Gemini turn.
 */
function convertAssistant(
  message: AssistantMessage,
  messageIndex: number,
  propertyNames: PropertyNames,
  foreign: { messageIndex: number; provider: string }[],
  replacedArguments: number[],
): Part[] {
  const calls = message.toolCalls ?? [];
  const callParts = new Map<string, Part>();
  for (const call of calls) {
    const id = wireCallId(call.id);
    callParts.set(call.id, {
      functionCall: {
        name: call.toolName,
        args: argumentsObject(propertyNames.argumentsToWire(call.toolName, call.arguments), () =>
          replacedArguments.push(messageIndex),
        ),
        ...(id === undefined ? {} : { id }),
      },
    });
  }
  const parts: Part[] = [];
  let textDone = 0;
  const text = message.content;
  const emitText = (end: number): void => {
    const bounded = Math.min(end, text.length);
    if (bounded > textDone) parts.push({ text: text.slice(textDone, bounded) });
    textDone = Math.max(textDone, bounded);
  };
  /** The signed text part exactly as it came: the text before it first, then its own range with the signature. */
  const emitSignedText = (start: number, end: number, signature: string | undefined): void => {
    emitText(start);
    const from = Math.max(textDone, Math.min(start, text.length));
    const to = Math.max(from, Math.min(end, text.length));
    parts.push({
      text: text.slice(from, to),
      ...(signature === undefined ? {} : { thoughtSignature: signature }),
    });
    textDone = to;
  };
  const emitCallsUpTo = (toolCallId: string | undefined): void => {
    emitText(text.length);
    for (const call of calls) {
      const part = callParts.get(call.id);
      if (part !== undefined) {
        parts.push(part);
        callParts.delete(call.id);
      }
      if (call.id === toolCallId) return;
    }
  };

  for (const reasoning of message.reasoning ?? []) {
    if (reasoning.provider !== PROVIDER) {
      foreign.push({ messageIndex, provider: reasoning.provider });
      continue;
    }
    const anchor = readAnchor(reasoning.id);
    if (anchor === undefined) {
      parts.push(thoughtPart(reasoning));
    } else if (anchor.kind === 'text') {
      emitSignedText(anchor.start, anchor.end, reasoning.signature);
    } else {
      const part = callParts.get(anchor.toolCallId);
      if (part === undefined) continue; // its call is not in this turn: nothing to sign
      emitCallsUpTo(anchor.toolCallId);
      if (reasoning.signature !== undefined) part.thoughtSignature = reasoning.signature;
    }
  }
  emitCallsUpTo(undefined);
  return parts;
}

function thoughtPart(reasoning: ReasoningPart): Part {
  // A signature-only thought came back as `redactedData` (nothing to show); it returns as it came, without text.
  if (reasoning.redactedData !== undefined)
    return { thought: true, thoughtSignature: reasoning.redactedData };
  return {
    text: reasoning.text,
    thought: true,
    ...(reasoning.signature === undefined ? {} : { thoughtSignature: reasoning.signature }),
  };
}

/** The arguments as an object; a model's broken output (not a JSON object) is sent as `{}` and reported. */
function argumentsObject(text: string, onReplaced: () => void): Record<string, unknown> {
  const parsed = readStrictJson(text);
  if (
    parsed.ok &&
    typeof parsed.value === 'object' &&
    parsed.value !== null &&
    !Array.isArray(parsed.value)
  ) {
    return parsed.value as Record<string, unknown>;
  }
  onReplaced();
  return {};
}

function convertToolResult(
  message: ToolMessage,
  messageIndex: number,
  mediaInFunctionResponses: boolean,
): { functionResponse: FunctionResponse; moved: Part[] } {
  const content = message.content;
  const media = typeof content === 'string' ? [] : content.filter((part) => part.type !== 'text');
  const text =
    typeof content === 'string' ? content : contentText(content.filter((part) => part.type === 'text'));
  const id = wireCallId(message.toolCallId);
  const mediaParts = media.map((part, partIndex) => convertPart(part, messageIndex, partIndex));
  const functionResponse: FunctionResponse = {
    name: message.toolName,
    ...(id === undefined ? {} : { id }),
    response: message.isError === true ? { error: text } : { output: text },
    ...(mediaInFunctionResponses && mediaParts.length > 0
      ? { parts: mediaParts.map((part): FunctionResponsePart => part as FunctionResponsePart) }
      : {}),
  };
  return { functionResponse, moved: mediaInFunctionResponses ? [] : mediaParts };
}

function convertContent(content: MessageContent, messageIndex: number): Part[] {
  if (typeof content === 'string') return [{ text: content }];
  return content.map((part, partIndex) => convertPart(part, messageIndex, partIndex));
}

function convertPart(part: ContentPart, messageIndex: number, partIndex: number): Part {
  if (part.type === 'text') return { text: part.text };
  const accepted = part.type === 'image' ? GOOGLE_IMAGE_MEDIA_TYPES : GOOGLE_FILE_MEDIA_TYPES;
  if (part.mediaType !== undefined && !accepted.includes(part.mediaType)) {
    throw new InvalidRequestError({
      provider: PROVIDER,
      providerCode: 'unsupported_media_type',
      message:
        `Part ${partIndex} of message ${messageIndex} is ${part.type === 'image' ? 'an image' : 'a file'} of media ` +
        `type '${part.mediaType}', which Gemini does not take; it takes ${accepted.join(', ')}.`,
    });
  }
  const displayName = part.type === 'file' ? part.filename : undefined;
  if (part.data !== undefined) {
    return {
      inlineData: {
        mimeType: part.mediaType,
        data: part.data,
        ...(displayName === undefined ? {} : { displayName }),
      },
    };
  }
  return {
    fileData: {
      fileUri: part.url,
      ...(part.mediaType === undefined ? {} : { mimeType: part.mediaType }),
      ...(displayName === undefined ? {} : { displayName }),
    },
  };
}

function foreignReasoningLeftOut(foreign: readonly { messageIndex: number; provider: string }[]): Adjustment {
  const providers = [...new Set(foreign.map((entry) => entry.provider))];
  const messageIndexes = [...new Set(foreign.map((entry) => entry.messageIndex))];
  return {
    kind: 'history-rewritten',
    message:
      `Left out ${foreign.length} reasoning part(s) of assistant message(s) ${messageIndexes.join(', ')}, produced by ` +
      `${providers.map((name) => `'${name}'`).join(', ')}: Gemini only takes back its own thoughts and signatures, ` +
      'and reasoning is never shown to the model as plain text.',
    details: { reason: 'foreign-reasoning-dropped', providers, messageIndexes },
  };
}

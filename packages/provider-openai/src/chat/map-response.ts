import { ProviderError, type ReasoningPart, type ToolCall } from '@org/core';
import type { ParsedAnswer } from '../parsed-answer.js';
import { argumentsText, asRecord, stringField } from '../wire-fields.js';
import { mapChatFinishReason } from './map-finish-reason.js';
import { mapChatUsage } from './map-usage.js';
import { chatReasoningText } from './reasoning-field.js';

/** Decodes a non-streamed Chat Completions body. */
export function mapChatResponse(body: unknown, provider: string): ParsedAnswer {
  const root = asRecord(body);
  const choices = Array.isArray(root?.choices) ? root.choices : [];
  const choice = asRecord(choices.find((item) => asRecord(item)?.index === 0) ?? choices[0]);
  const message = asRecord(choice?.message);
  if (choice === undefined || message === undefined) {
    throw new ProviderError({
      provider,
      providerCode: 'invalid_response',
      message: `${provider} chat completion answered without a choice; the response cannot be read.`,
      responseBody: body,
    });
  }
  const toolCalls: ToolCall[] = [];
  const rawCalls = Array.isArray(message.tool_calls) ? message.tool_calls : [];
  rawCalls.forEach((raw, position) => {
    const call = asRecord(raw);
    const fn = asRecord(call?.function);
    const name = stringField(fn, 'name');
    if (name === undefined || name === '') {
      throw new ProviderError({
        provider,
        providerCode: 'invalid_response',
        message: `${provider} chat completion returned tool call ${position} without a function name.`,
        responseBody: body,
      });
    }
    const id = stringField(call, 'id');
    toolCalls.push({
      id: id === undefined || id === '' ? `call_${position}` : id,
      toolName: name,
      arguments: argumentsText(fn?.arguments),
    });
  });
  const refusal = stringField(message, 'refusal');
  const text = stringField(message, 'content') ?? refusal ?? '';
  const reasoningText = chatReasoningText(message);
  const reasoning: ReasoningPart[] =
    reasoningText === undefined ? [] : [{ type: 'reasoning', provider, text: reasoningText }];
  const rawFinishReason = stringField(choice, 'finish_reason');
  const responseId = stringField(root, 'id');
  return {
    text,
    toolCalls,
    ...(reasoning.length === 0 ? {} : { reasoning }),
    finishReason:
      refusal !== undefined && refusal !== ''
        ? 'content-filter'
        : mapChatFinishReason(rawFinishReason, toolCalls.length > 0),
    ...(rawFinishReason === undefined ? {} : { rawFinishReason }),
    usage: mapChatUsage(root?.usage),
    ...(responseId === undefined ? {} : { responseId }),
  };
}

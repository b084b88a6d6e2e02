import { ProviderError, type ToolCall } from '@org/core';
import { chatFinishReason } from './finish-reason.js';
import { argumentsText, asRecord, type ParsedAnswer, stringField } from './parsed-answer.js';
import { chatUsage } from './usage.js';

/** Decodes a non-streamed Chat Completions body. */
export function parseChatCompletion(body: unknown, provider: string): ParsedAnswer {
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
  const rawFinishReason = stringField(choice, 'finish_reason');
  const responseId = stringField(root, 'id');
  return {
    text,
    toolCalls,
    finishReason:
      refusal !== undefined && refusal !== ''
        ? 'content-filter'
        : chatFinishReason(rawFinishReason, toolCalls.length > 0),
    ...(rawFinishReason === undefined ? {} : { rawFinishReason }),
    usage: chatUsage(root?.usage),
    ...(responseId === undefined ? {} : { responseId }),
  };
}

import {
  ContextLengthExceededError,
  ProviderError,
  ProviderUnavailableError,
  RateLimitError,
  type ToolCall,
} from '@org/core';
import { responsesFinishReason } from './finish-reason.js';
import { argumentsText, asRecord, type ParsedAnswer, stringField } from './parsed-answer.js';
import { responsesUsage } from './usage.js';

/** The error a `failed` response (or a `response.failed` event) carries, as a core error chosen by its code. */
export function failedResponseError(
  response: Record<string, unknown> | undefined,
  provider: string,
): ProviderError {
  const error = asRecord(response?.error);
  const code = stringField(error, 'code');
  const options = {
    provider,
    message: `${provider} response failed: ${stringField(error, 'message') ?? 'no reason given'}`,
    responseBody: response?.error,
    ...(code === undefined ? {} : { providerCode: code }),
  };
  if (code === 'rate_limit_exceeded') return new RateLimitError(options);
  if (code === 'context_length_exceeded') return new ContextLengthExceededError(options);
  if (code === 'server_error' || code === 'overloaded') return new ProviderUnavailableError(options);
  return new ProviderError(options);
}

/** Decodes a Responses API `response` object (a non-streamed body, or the final one of a stream). */
export function parseResponse(body: unknown, provider: string): ParsedAnswer {
  const root = asRecord(body);
  if (root === undefined || !Array.isArray(root.output)) {
    throw new ProviderError({
      provider,
      providerCode: 'invalid_response',
      message: `${provider} response has no output list; the response cannot be read.`,
      responseBody: body,
    });
  }
  const status = stringField(root, 'status');
  if (status === 'failed') throw failedResponseError(root, provider);
  let text = '';
  let refused = false;
  const toolCalls: ToolCall[] = [];
  for (const rawItem of root.output) {
    const item = asRecord(rawItem);
    const type = stringField(item, 'type');
    if (type === 'message') {
      for (const rawPart of Array.isArray(item?.content) ? item.content : []) {
        const part = asRecord(rawPart);
        if (part?.type === 'output_text') text += stringField(part, 'text') ?? '';
        if (part?.type === 'refusal') {
          refused = true;
          text += stringField(part, 'refusal') ?? '';
        }
      }
    } else if (type === 'function_call') {
      const name = stringField(item, 'name');
      const callId = stringField(item, 'call_id') ?? stringField(item, 'id');
      if (name === undefined || callId === undefined) {
        throw new ProviderError({
          provider,
          providerCode: 'invalid_response',
          message: `${provider} response has a function call without a name or call id.`,
          responseBody: body,
        });
      }
      toolCalls.push({ id: callId, toolName: name, arguments: argumentsText(item?.arguments) });
    }
  }
  const incompleteReason = stringField(asRecord(root.incomplete_details), 'reason');
  const rawFinishReason = incompleteReason ?? status;
  const responseId = stringField(root, 'id');
  return {
    text,
    toolCalls,
    finishReason: responsesFinishReason(status, incompleteReason, toolCalls.length > 0, refused),
    ...(rawFinishReason === undefined ? {} : { rawFinishReason }),
    usage: responsesUsage(root.usage),
    ...(responseId === undefined ? {} : { responseId }),
  };
}

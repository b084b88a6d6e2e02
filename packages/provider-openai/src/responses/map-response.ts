import { ProviderError, type ReasoningPart, type ToolCall } from '@org/core';
import type { ParsedAnswer } from '../parsed-answer.js';
import { argumentsText, asRecord, stringField } from '../wire-fields.js';
import { failedResponseError } from './failed-response-error.js';
import { mapResponsesFinishReason } from './map-finish-reason.js';
import { mapResponsesUsage } from './map-usage.js';
import { reasoningFromItem } from './reasoning-item.js';

/** Decodes a Responses API `response` object (a non-streamed body, or the final one of a stream). */
export function mapResponsesResponse(body: unknown, provider: string): ParsedAnswer {
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
  const reasoning: ReasoningPart[] = [];
  for (const rawItem of root.output) {
    const item = asRecord(rawItem);
    const type = stringField(item, 'type');
    if (type === 'message') {
      for (const rawPart of Array.isArray(item?.content) ? item.content : []) {
        const part = asRecord(rawPart);
        const partType = stringField(part, 'type');
        if (partType === 'output_text') text += stringField(part, 'text') ?? '';
        if (partType === 'refusal') {
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
    } else if (type === 'reasoning') {
      reasoning.push(reasoningFromItem(item, provider));
    }
  }
  const incompleteReason = stringField(asRecord(root.incomplete_details), 'reason');
  const rawFinishReason = incompleteReason ?? status;
  const responseId = stringField(root, 'id');
  return {
    text,
    toolCalls,
    ...(reasoning.length === 0 ? {} : { reasoning }),
    finishReason: mapResponsesFinishReason(status, incompleteReason, toolCalls.length > 0, refused),
    ...(rawFinishReason === undefined ? {} : { rawFinishReason }),
    usage: mapResponsesUsage(root.usage),
    ...(responseId === undefined ? {} : { responseId }),
  };
}

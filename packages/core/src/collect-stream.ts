import type { Adjustment } from './adjustment.js';
import { ProviderError } from './errors.js';
import type { ModelResponse, StreamPart } from './language-model.js';
import type { ReasoningPart } from './message.js';
import type { ToolCall } from './tool-call.js';

/**
 * Consumes a model stream and returns the same `ModelResponse` that `generate` would, so callers (and the
 * conformance suite) can treat both paths alike. Rethrows the stream's `error` part; a stream that ends without a
 * `finish` part is a `ProviderError`.
 *
 * @example
 * const response = await collectStream(model.stream(request));
 */
export async function collectStream(stream: AsyncIterable<StreamPart>): Promise<ModelResponse> {
  let text = '';
  const toolCalls: ToolCall[] = [];
  const reasoning: ReasoningPart[] = [];
  for await (const part of stream) {
    switch (part.type) {
      case 'text-delta':
        text += part.delta;
        break;
      case 'tool-call':
        toolCalls.push(part.toolCall);
        break;
      case 'reasoning':
        reasoning.push(part.reasoning);
        break;
      case 'error':
        throw part.error;
      case 'finish': {
        const adjustments: readonly Adjustment[] = part.adjustments;
        return {
          text,
          toolCalls,
          ...(reasoning.length === 0 ? {} : { reasoning }),
          finishReason: part.finishReason,
          usage: part.usage,
          adjustments,
          ...(part.rawFinishReason === undefined ? {} : { rawFinishReason: part.rawFinishReason }),
          ...(part.responseId === undefined ? {} : { responseId: part.responseId }),
        };
      }
      default:
        break;
    }
  }
  throw new ProviderError({ provider: 'unknown', message: 'The model stream ended without a finish part.' });
}

import { ProviderError } from '@org/core';
import { PROVIDER } from './provider-name.js';

/** The most of one answer read, in bytes (a JSON body, or a whole stream): 64 MiB by default. */
export const DEFAULT_MAX_RESPONSE_BYTES = 64 * 1024 * 1024;

/**
 * A `fetch` for the SDK client the provider creates whose answers stop at `maxBytes`: the SDK reads a JSON body, and
 * buffers an SSE event, whole before the adapter sees it, so an endless or oversized answer is cut here, with a
 * `ProviderError` `response_too_large`, instead of filling memory.
 *
 * @example
 * new Mistral({ apiKey, httpClient: new HTTPClient({ fetcher: boundedFetch(DEFAULT_MAX_RESPONSE_BYTES) }) });
 */
export function boundedFetch(
  maxBytes: number,
): (input: string | URL | Request, init?: RequestInit) => Promise<Response> {
  return async (input, init) => {
    const response = await fetch(input, init);
    if (response.body === null) return response;
    let bytes = 0;
    const limited = response.body.pipeThrough(
      new TransformStream<Uint8Array, Uint8Array>({
        transform(chunk, controller) {
          bytes += chunk.byteLength;
          if (bytes > maxBytes) {
            controller.error(
              new ProviderError({
                provider: PROVIDER,
                providerCode: 'response_too_large',
                message: `${PROVIDER}: the answer passed ${maxBytes} bytes (maxResponseBytes) and was cut off.`,
              }),
            );
            return;
          }
          controller.enqueue(chunk);
        },
      }),
    );
    return new Response(limited, {
      status: response.status,
      statusText: response.statusText,
      headers: response.headers,
    });
  };
}

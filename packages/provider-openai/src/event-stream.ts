import type OpenAI from 'openai';
import { Stream } from 'openai/core/streaming';

/** Decoded events of a server-sent event stream, and whether the server ended it with `data: [DONE]`. */
export interface EventStream {
  readonly events: AsyncIterable<unknown>;
  /** True once `data: [DONE]` went by; Chat Completions streams that end without it were cut off. */
  sawDone(): boolean;
}

const DONE_LINE = /^data:\s?\[DONE\]\s*$/;

/**
 * Decodes a streamed response with the SDK's own SSE decoder, watching the raw lines for `data: [DONE]` on the
 * way: the SDK's iterator ends the same way whether or not `[DONE]` came, and a Chat Completions stream that ends
 * without it is an interrupted answer, not a complete one.
 */
export function openEventStream(
  response: Response,
  controller: AbortController,
  client: OpenAI,
): EventStream {
  let done = false;
  let carry = '';
  const decoder = new TextDecoder();
  const watch = (text: string): void => {
    const lines = (carry + text).split(/\r\n|\r|\n/);
    carry = lines.pop() ?? '';
    if (lines.some((line) => DONE_LINE.test(line))) done = true;
  };
  const tapped = response.body?.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, stream) {
        watch(decoder.decode(chunk, { stream: true }));
        stream.enqueue(chunk);
      },
      flush() {
        watch(`${decoder.decode()}\n`);
      },
    }),
  );
  const copy = new Response(tapped ?? null, { status: response.status, headers: response.headers });
  return { events: Stream.fromSSEResponse<unknown>(copy, controller, client), sawDone: () => done };
}

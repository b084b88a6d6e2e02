import { collectStream, type ModelRequest, type ModelResponse, type StreamPart } from '@org/core';

/** How a case calls the model: `generate()`, or `stream()` collected into a response. */
export type CallMode = 'generate' | 'stream';

/** Calls the model once in the given mode and returns the response (a collected stream for `stream`). */
export async function callModel(
  model: {
    generate(request: ModelRequest): Promise<ModelResponse>;
    stream(request: ModelRequest): AsyncIterable<StreamPart>;
  },
  request: ModelRequest,
  mode: CallMode,
): Promise<ModelResponse> {
  return mode === 'generate' ? model.generate(request) : collectStream(model.stream(request));
}

/**
 * Reads a whole stream into its parts. A stream must not throw: failures arrive as one final `error` part. A thrown
 * exception is returned as `thrown` so the case can report the contract breach clearly.
 */
export async function readStream(
  stream: AsyncIterable<StreamPart>,
): Promise<{ parts: StreamPart[]; thrown: unknown; threw: boolean }> {
  const parts: StreamPart[] = [];
  try {
    for await (const part of stream) parts.push(part);
    return { parts, thrown: undefined, threw: false };
  } catch (error) {
    return { parts, thrown: error, threw: true };
  }
}

/**
 * The error a call ended with: the rejection of `generate()`, or the final `error` part of `stream()`. Returns
 * `undefined` when the call succeeded. A stream that throws instead of yielding an `error` part fails the case.
 */
export async function errorOfCall(
  model: {
    generate(request: ModelRequest): Promise<ModelResponse>;
    stream(request: ModelRequest): AsyncIterable<StreamPart>;
  },
  request: ModelRequest,
  mode: CallMode,
): Promise<unknown> {
  if (mode === 'generate') {
    try {
      await model.generate(request);
      return undefined;
    } catch (error) {
      return error;
    }
  }
  const { parts, thrown, threw } = await readStream(model.stream(request));
  if (threw) {
    throw new Error(
      `stream() threw instead of ending with an 'error' part: ${thrown instanceof Error ? thrown.message : String(thrown)}`,
    );
  }
  const last = parts.at(-1);
  return last?.type === 'error' ? last.error : undefined;
}

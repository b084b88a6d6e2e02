import type { RunAgentInput } from '@ag-ui/core';
import { RunAgentInputSchema } from '@ag-ui/core/schemas';
import { readStrictJson } from '@org/core';
import { AgUiRequestError } from './errors.js';

/** Nesting accepted in a run input: messages carry tool arguments (64 levels in `@org/tools`) inside an envelope. */
const MAX_INPUT_DEPTH = 128;
/** Problems quoted in one error message: enough to fix a request, bounded against hostile inputs. */
const MAX_LISTED_PROBLEMS = 5;

/**
 * Reads an AG-UI `RunAgentInput` from a request: POST only, `application/json`, at most `maxBodyBytes` (read as a
 * stream and stopped at the limit, whatever `Content-Length` says), strict JSON (`readStrictJson`: no duplicate keys,
 * no lossy numbers, bounded depth), then the protocol's own schema (`RunAgentInputSchema` of `@ag-ui/core`).
 * Throws `AgUiRequestError` naming the problem.
 */
export async function readRunInput(request: Request, maxBodyBytes: number): Promise<RunAgentInput> {
  if (request.method !== 'POST') {
    throw new AgUiRequestError({
      problem: 'method',
      message: `Use POST to run the agent, not ${request.method}.`,
    });
  }
  const contentType = request.headers.get('content-type') ?? '';
  if (contentType.split(';')[0]?.trim().toLowerCase() !== 'application/json') {
    throw new AgUiRequestError({
      problem: 'content-type',
      message: `The run input must be sent as application/json, not ${JSON.stringify(contentType.slice(0, 100))}.`,
    });
  }
  const text = await readBodyWithin(request, maxBodyBytes);
  const read = readStrictJson(text, { maxBytes: maxBodyBytes, maxDepth: MAX_INPUT_DEPTH });
  if (!read.ok) {
    throw new AgUiRequestError({
      problem: 'run-input',
      message: `The run input is not strict JSON: ${read.reason.slice(0, 300)}.`,
      ...(read.path === undefined ? {} : { field: read.path }),
    });
  }
  const parsed = RunAgentInputSchema.safeParse(read.value);
  if (!parsed.success) {
    const issues = parsed.error.issues;
    const listed = issues
      .slice(0, MAX_LISTED_PROBLEMS)
      .map((issue) => `${formatPath(issue.path) || '(input)'}: ${issue.message}`);
    const more =
      issues.length > MAX_LISTED_PROBLEMS ? ` (and ${issues.length - MAX_LISTED_PROBLEMS} more)` : '';
    const first = issues[0];
    throw new AgUiRequestError({
      problem: 'run-input',
      message: `The body is not an AG-UI RunAgentInput: ${listed.join('; ')}${more}.`,
      ...(first === undefined ? {} : { field: formatPath(first.path) }),
    });
  }
  // The schema's output type materialises `tools` and `context` the way the SDK's type requires them.
  const input = parsed.data as RunAgentInput;
  return { ...input, tools: input.tools ?? [], context: input.context ?? [] };
}

/** `messages[2].toolCalls[0].id` from a zod issue path. */
export function formatPath(path: readonly PropertyKey[]): string {
  return path
    .map((segment, index) =>
      typeof segment === 'number' ? `[${segment}]` : `${index === 0 ? '' : '.'}${String(segment)}`,
    )
    .join('');
}

async function readBodyWithin(request: Request, maxBodyBytes: number): Promise<string> {
  const declared = Number(request.headers.get('content-length'));
  const tooLarge = (): AgUiRequestError =>
    new AgUiRequestError({
      problem: 'body-size',
      message: `The run input is larger than the limit of ${maxBodyBytes} bytes.`,
    });
  if (Number.isFinite(declared) && declared > maxBodyBytes) throw tooLarge();
  if (request.body === null) return '';
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > maxBodyBytes) {
      await reader.cancel().catch(() => undefined);
      throw tooLarge();
    }
    chunks.push(value);
  }
  const bytes = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  const decoded = new TextDecoder('utf-8', { fatal: true });
  try {
    return decoded.decode(bytes);
  } catch (cause) {
    throw new AgUiRequestError({ problem: 'run-input', message: 'The run input is not valid UTF-8.', cause });
  }
}

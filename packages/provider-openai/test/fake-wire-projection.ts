import type { JsonSchema } from '@org/core';
import type {
  WireContentPart,
  WireMessage,
  WireReasoning,
  WireRequest,
  WireResponseFormat,
  WireToolChoice,
} from '@org/provider-conformance';

type Item = Record<string, unknown>;

const DATA_URL = /^data:([^;,]+);base64,([\s\S]*)$/;

function projectChoice(choice: unknown): WireToolChoice {
  if (choice === undefined || choice === null) return undefined;
  if (choice === 'auto' || choice === 'required' || choice === 'none') return { type: choice };
  const record = choice as { type?: string; name?: string; function?: { name?: string } };
  const name = record.function?.name ?? record.name;
  if (record.type === 'function' && typeof name === 'string') return { type: 'tool', toolName: name };
  throw new Error(`Unexpected tool_choice on the wire: ${JSON.stringify(choice)}`);
}

/** Media given as a URL: a `data:` URL split into its media type and base64 data, any other kept as the URL. */
function media(url: unknown): { mediaType?: string; data?: string; url?: string } {
  const text = String(url);
  const match = DATA_URL.exec(text);
  return match === null ? { url: text } : { mediaType: match[1] as string, data: match[2] as string };
}

function projectChatPart(part: Item): WireContentPart {
  if (part.type === 'text') return { type: 'text', text: String(part.text) };
  if (part.type === 'image_url') return { type: 'image', ...media((part.image_url as Item).url) };
  if (part.type === 'file') {
    const file = part.file as Item;
    return {
      type: 'file',
      ...media(file.file_data),
      ...(file.filename === undefined ? {} : { filename: String(file.filename) }),
    };
  }
  throw new Error(`Unexpected Chat Completions content part on the wire: ${JSON.stringify(part)}`);
}

function projectInputPart(part: Item): WireContentPart {
  if (part.type === 'input_text') return { type: 'text', text: String(part.text) };
  if (part.type === 'input_image') return { type: 'image', ...media(part.image_url) };
  if (part.type === 'input_file') {
    return {
      type: 'file',
      ...(part.file_data === undefined ? { url: String(part.file_url) } : media(part.file_data)),
      ...(part.filename === undefined ? {} : { filename: String(part.filename) }),
    };
  }
  throw new Error(`Unexpected Responses API content part on the wire: ${JSON.stringify(part)}`);
}

function projectContent(content: unknown, project: (part: Item) => WireContentPart): WireContentPart[] {
  return typeof content === 'string' ? [{ type: 'text', text: content }] : (content as Item[]).map(project);
}

function projectFormat(format: Item | undefined): WireResponseFormat | undefined {
  if (format === undefined) return undefined;
  return {
    ...(format.name === undefined ? {} : { name: String(format.name) }),
    schema: format.schema as JsonSchema,
  };
}

/** A Chat Completions body as the conformance suite's neutral facts (it carries no reasoning). */
export function projectChat(body: Record<string, unknown>): WireRequest {
  const messages = (body.messages as Item[]).map((message): WireMessage => {
    const role = message.role as WireMessage['role'];
    if (role === 'tool') {
      return {
        role,
        toolCallId: String(message.tool_call_id),
        content: projectContent(message.content, projectChatPart),
      };
    }
    if (role === 'user') return { role, content: projectContent(message.content, projectChatPart) };
    const calls = message.tool_calls as { id: string }[] | undefined;
    if (role === 'assistant' && calls && calls.length > 0)
      return { role, toolCallIds: calls.map((call) => call.id) };
    return { role };
  });
  const tools = (body.tools as { function: { name: string; parameters: JsonSchema } }[] | undefined) ?? [];
  const format = (body.response_format as Item | undefined)?.json_schema as Item | undefined;
  return {
    toolChoice: projectChoice(body.tool_choice),
    parallelToolCalls: body.parallel_tool_calls as boolean | undefined,
    tools: tools.map((tool) => ({ name: tool.function.name, inputSchema: tool.function.parameters })),
    messages,
    stream: body.stream === true,
    responseFormat: projectFormat(format),
    rawBody: JSON.stringify(body),
  };
}

function projectReasoningItem(item: Item): WireReasoning {
  const summary = Array.isArray(item.summary) ? (item.summary as Item[]) : [];
  return {
    text: summary.map((part) => String(part.text)).join('\n\n'),
    ...(item.id === undefined ? {} : { id: String(item.id) }),
    ...(item.encrypted_content === undefined ? {} : { encryptedContent: String(item.encrypted_content) }),
  };
}

/**
 * A Responses API body as the conformance suite's neutral facts: an assistant turn's text and `function_call` items
 * make one assistant message with all the call ids, and the `reasoning` items before them are its reasoning.
 */
export function projectResponses(body: Record<string, unknown>): WireRequest {
  const messages: WireMessage[] = [];
  let reasoning: WireReasoning[] = [];
  let turnOpen = false;
  const assistant = (toolCallId: string | undefined): void => {
    const last = messages.at(-1);
    if (turnOpen && last?.role === 'assistant') {
      messages[messages.length - 1] = {
        ...last,
        ...(toolCallId === undefined ? {} : { toolCallIds: [...(last.toolCallIds ?? []), toolCallId] }),
      };
      return;
    }
    messages.push({
      role: 'assistant',
      ...(toolCallId === undefined ? {} : { toolCallIds: [toolCallId] }),
      ...(reasoning.length === 0 ? {} : { reasoning }),
    });
    reasoning = [];
    turnOpen = true;
  };
  for (const item of body.input as Item[]) {
    if (item.type === 'reasoning') {
      reasoning.push(projectReasoningItem(item));
      turnOpen = false;
    } else if (item.type === 'function_call') assistant(String(item.call_id));
    else if (item.role === 'assistant') {
      turnOpen = false;
      assistant(undefined);
    } else {
      turnOpen = false;
      if (item.type === 'function_call_output') {
        messages.push({
          role: 'tool',
          toolCallId: String(item.call_id),
          content: projectContent(item.output, projectInputPart),
        });
      } else if (item.role === 'user') {
        messages.push({ role: 'user', content: projectContent(item.content, projectInputPart) });
      } else messages.push({ role: item.role as WireMessage['role'] });
    }
  }
  const tools = (body.tools as { name: string; parameters: JsonSchema }[] | undefined) ?? [];
  return {
    toolChoice: projectChoice(body.tool_choice),
    parallelToolCalls: body.parallel_tool_calls as boolean | undefined,
    tools: tools.map((tool) => ({ name: tool.name, inputSchema: tool.parameters })),
    messages,
    stream: body.stream === true,
    responseFormat: projectFormat((body.text as Item | undefined)?.format as Item | undefined),
    rawBody: JSON.stringify(body),
  };
}

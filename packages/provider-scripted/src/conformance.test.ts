import { type ModelRequest, ProviderError } from '@org/core';
import {
  type ConformanceFixture,
  projectModelRequest,
  runConformanceSuite,
  type ScriptedReply,
  type WireRequest,
} from '@org/provider-conformance';
import { createScriptedModel, type ScriptedTurn } from './index.js';

// The scripted model has no wire: its wire request is the ModelRequest it received, and each queued reply is
// rendered as one scripted turn (stalls and disconnects as `stall` / `disconnect` turns). HTTP error mapping is
// a wire concern and does not apply to it.
function turnOf(reply: ScriptedReply): ScriptedTurn {
  switch (reply.type) {
    case 'response':
      return {
        ...(reply.text === undefined ? {} : { text: reply.text }),
        ...(reply.toolCalls === undefined
          ? {}
          : {
              toolCalls: reply.toolCalls.map((call) => ({
                id: call.id,
                toolName: call.toolName,
                arguments: call.arguments,
              })),
            }),
        ...(reply.finishReason === undefined ? {} : { finishReason: reply.finishReason }),
        ...(reply.usage === undefined ? {} : { usage: reply.usage }),
      };
    case 'stall':
      return { ...(reply.text === undefined ? {} : { text: reply.text }), stall: true };
    case 'disconnect':
      return {
        text: reply.text,
        ...(reply.partialToolCall === undefined
          ? {}
          : {
              toolCalls: [
                {
                  id: reply.partialToolCall.id,
                  toolName: reply.partialToolCall.toolName,
                  arguments: reply.partialToolCall.partialArguments,
                },
              ],
            }),
        disconnect: true,
      };
    default:
      return {
        error: new ProviderError({
          provider: 'scripted',
          message: `'${reply.type}' replies need a network.`,
        }),
      };
  }
}

async function createFixture(): Promise<ConformanceFixture> {
  const queue: ScriptedReply[] = [];
  const seen: WireRequest[] = [];
  const model = createScriptedModel({
    streamChunkCharacters: 3,
    script: (request: ModelRequest, context) => {
      seen.push(projectModelRequest(request, { stream: context.method === 'stream' }));
      const reply = queue.shift();
      return reply === undefined ? undefined : turnOf(reply);
    },
  });
  return {
    model,
    enqueue: (reply) => void queue.push(reply),
    requests: () => seen,
    close: async () => undefined,
  };
}

runConformanceSuite({ name: 'scripted', capabilities: { stalls: true, disconnects: true }, createFixture });

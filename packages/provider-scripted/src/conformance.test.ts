import { type ModelCapabilitiesOverride, type ModelRequest, ProviderError } from '@org/core';
import {
  type ConformanceFixture,
  type HarnessCapabilities,
  projectModelRequest,
  runConformanceSuite,
  type ScriptedReply,
  type WireRequest,
} from '@org/provider-conformance';
import { createScriptedModel, SCRIPTED_CONTENT_LIMITS, type ScriptedTurn } from './index.js';

// The scripted model has no wire: its wire request is the ModelRequest its script receives (as the model "sends"
// it: reasoning of another provider left out), and each queued reply is rendered as one scripted turn (reasoning
// blocks as `reasoning`, stalls and disconnects as `stall` / `disconnect` turns). HTTP error mapping is a wire
// concern and does not apply to it.
function turnOf(reply: ScriptedReply): ScriptedTurn {
  switch (reply.type) {
    case 'response':
      return {
        ...(reply.reasoning === undefined ? {} : { reasoning: reply.reasoning }),
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

function fixtureFactory(capabilities?: ModelCapabilitiesOverride): () => Promise<ConformanceFixture> {
  return async () => {
    const queue: ScriptedReply[] = [];
    const seen: WireRequest[] = [];
    const model = createScriptedModel({
      streamChunkCharacters: 3,
      ...(capabilities === undefined ? {} : { capabilities }),
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
  };
}

// `projectModelRequest` projects every fact (reasoning, content parts, response format, the request as `rawBody`),
// and the turns render reasoning: the harness provides all the feature cases need.
const capabilities: HarnessCapabilities = {
  stalls: true,
  disconnects: true,
  reasoning: 'round-trip',
  contentParts: { limits: SCRIPTED_CONTENT_LIMITS },
  structuredOutput: true,
};

// By default the model declares no structured output: a responseFormat is refused before the script sees it.
runConformanceSuite({ name: 'scripted', capabilities, createFixture: fixtureFactory() });

// Declared with structured output, it takes the responseFormat and returns the scripted JSON text.
runConformanceSuite({
  name: 'scripted with structured output',
  capabilities,
  createFixture: fixtureFactory({ structuredOutput: true }),
});

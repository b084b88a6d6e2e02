import type { Adjustment, Message, ModelRequest } from '@org/core';

/**
 * The request as the scripted model "sends" it: reasoning parts another provider produced (`part.provider` is not
 * this model's) are left out of the assistant messages, because their signatures would not verify and reasoning is
 * never shown to a model as plain text; a `history-rewritten` adjustment names the messages and providers. The
 * model's own reasoning stays, in order. A request without foreign reasoning is returned as is (the same object).
 *
 * @example
 * const { request: sent, adjustment } = leaveOutForeignReasoning(request, 'scripted');
 */
export function leaveOutForeignReasoning(
  request: ModelRequest,
  provider: string,
): { readonly request: ModelRequest; readonly adjustment: Adjustment | undefined } {
  const messageIndexes: number[] = [];
  const providers = new Set<string>();
  let count = 0;
  const messages = request.messages.map((message, index): Message => {
    if (message.role !== 'assistant' || message.reasoning === undefined) return message;
    const own = message.reasoning.filter((part) => part.provider === provider);
    if (own.length === message.reasoning.length) return message;
    for (const part of message.reasoning) if (part.provider !== provider) providers.add(part.provider);
    count += message.reasoning.length - own.length;
    messageIndexes.push(index);
    const { reasoning: _reasoning, ...rest } = message;
    return own.length === 0 ? rest : { ...rest, reasoning: own };
  });
  if (count === 0) return { request, adjustment: undefined };
  const names = [...providers];
  return {
    request: { ...request, messages },
    adjustment: {
      kind: 'history-rewritten',
      message:
        `Left out ${count} reasoning part(s) of assistant message(s) ${messageIndexes.join(', ')}, produced by ` +
        `${names.map((name) => `'${name}'`).join(', ')}: the scripted model takes back only its own reasoning ` +
        `('${provider}'), and reasoning is never shown to a model as plain text.`,
      details: { reason: 'foreign-reasoning-dropped', messageIndexes, providers: names, count },
    },
  };
}

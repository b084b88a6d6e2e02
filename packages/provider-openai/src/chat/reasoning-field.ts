import { stringField } from '../wire-fields.js';

/**
 * The reasoning text an OpenAI-compatible server puts beside the answer in a Chat Completions message or delta:
 * `reasoning_content` (DeepSeek, vLLM, Qwen) or `reasoning` (OpenRouter, Ollama). OpenAI's own Chat Completions
 * returns none. Empty text counts as none.
 */
export function chatReasoningText(record: Record<string, unknown> | undefined): string | undefined {
  const text = stringField(record, 'reasoning_content') ?? stringField(record, 'reasoning');
  return text === undefined || text === '' ? undefined : text;
}

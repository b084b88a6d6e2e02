import { InvalidScriptError } from './errors.js';
import { assertLatencyProfile } from './latency.js';
import type { ScriptedModelOptions, ScriptedTurn } from './scripted-model.js';

const REASONING_FIELDS = ['text', 'signature', 'redactedData', 'id', 'encryptedContent'] as const;
const LIMIT_FIELDS = ['maxImageBytes', 'maxFileBytes', 'maxTotalBytes'] as const;

/** Throws `InvalidScriptError` unless the options are well formed (the script's turns, latency, chunking, limits). */
export function validateOptions(options: ScriptedModelOptions): void {
  const script: unknown = options.script;
  if (typeof script !== 'function' && !Array.isArray(script)) {
    throw new InvalidScriptError({ path: 'script', message: 'must be an array of turns or a function.' });
  }
  if (Array.isArray(script)) {
    script.forEach((step: unknown, index) => {
      if (typeof step !== 'function') validateTurn(step as ScriptedTurn, `script[${index}]`);
    });
  }
  if (options.latency !== undefined) assertLatencyProfile(options.latency);
  for (const key of ['streamChunkTokens', 'streamChunkCharacters'] as const) {
    const size = options[key];
    if (size !== undefined && (!Number.isInteger(size) || size < 1)) {
      throw new InvalidScriptError({ path: key, message: `must be an integer >= 1, got ${String(size)}.` });
    }
  }
  if (options.streamChunkTokens !== undefined && options.streamChunkCharacters !== undefined) {
    throw new InvalidScriptError({
      path: 'streamChunkTokens',
      message: 'set either streamChunkTokens or streamChunkCharacters, not both.',
    });
  }
  if (options.contentLimits !== undefined) validateContentLimits(options.contentLimits);
}

function validateContentLimits(limits: ScriptedModelOptions['contentLimits']): void {
  if (typeof limits !== 'object' || limits === null) {
    throw new InvalidScriptError({ path: 'contentLimits', message: 'must be an object of byte limits.' });
  }
  for (const key of LIMIT_FIELDS) {
    const value: unknown = limits[key];
    if (value === undefined && key === 'maxTotalBytes') continue;
    if (typeof value !== 'number' || !Number.isInteger(value) || value < 0) {
      throw new InvalidScriptError({
        path: `contentLimits.${key}`,
        message: `must be a whole number of bytes >= 0, got ${String(value)}.`,
      });
    }
  }
}

function validateReasoning(reasoning: unknown, path: string): void {
  if (!Array.isArray(reasoning)) {
    throw new InvalidScriptError({ path, message: 'must be an array of reasoning blocks.' });
  }
  reasoning.forEach((block: unknown, index) => {
    if (typeof block !== 'object' || block === null) {
      throw new InvalidScriptError({ path: `${path}[${index}]`, message: 'must be an object.' });
    }
    for (const field of REASONING_FIELDS) {
      const value: unknown = (block as Record<string, unknown>)[field];
      if (value !== undefined && typeof value !== 'string') {
        throw new InvalidScriptError({ path: `${path}[${index}].${field}`, message: 'must be a string.' });
      }
    }
  });
}

/** Throws `InvalidScriptError` naming the field (under `path`) unless the turn is well formed. */
export function validateTurn(turn: ScriptedTurn, path: string): void {
  if (typeof turn !== 'object' || turn === null) {
    throw new InvalidScriptError({ path, message: 'a turn must be an object or a function.' });
  }
  if (turn.text !== undefined && typeof turn.text !== 'string') {
    throw new InvalidScriptError({ path: `${path}.text`, message: 'must be a string.' });
  }
  if (turn.reasoning !== undefined) validateReasoning(turn.reasoning, `${path}.reasoning`);
  if (turn.toolCalls !== undefined && !Array.isArray(turn.toolCalls)) {
    throw new InvalidScriptError({ path: `${path}.toolCalls`, message: 'must be an array.' });
  }
  const ids = new Set<string>();
  (turn.toolCalls ?? []).forEach((call, index) => {
    const callPath = `${path}.toolCalls[${index}]`;
    if (typeof call?.toolName !== 'string' || call.toolName === '') {
      throw new InvalidScriptError({ path: `${callPath}.toolName`, message: 'must be a non-empty string.' });
    }
    const args: unknown = call.arguments;
    if (args !== undefined && typeof args !== 'string' && (typeof args !== 'object' || args === null)) {
      throw new InvalidScriptError({
        path: `${callPath}.arguments`,
        message: 'must be the raw argument text or an object.',
      });
    }
    if (call.id !== undefined) {
      if (ids.has(call.id)) {
        throw new InvalidScriptError({ path: `${callPath}.id`, message: `duplicates id '${call.id}'.` });
      }
      ids.add(call.id);
    }
  });
  if (turn.error !== undefined && !(turn.error instanceof Error)) {
    throw new InvalidScriptError({ path: `${path}.error`, message: 'must be an Error.' });
  }
}

import type { ThinkingConfig, ThinkingLevel } from '@google/genai';
import { closestMatch, InvalidProviderOptionsError, type ProviderOptions } from '@org/core';
import { PROVIDER } from './provider-name.js';

/**
 * What `providerOptions.google` of a request may carry.
 *
 * @example
 * await model.generate({
 *   messages,
 *   providerOptions: { google: { thinkingConfig: { thinkingLevel: 'low', includeThoughts: true } } },
 * });
 */
export interface GoogleRequestOptions {
  /**
   * Gemini's `thinkingConfig`: a token budget (`thinkingBudget`, 0 off, -1 automatic; Gemini 2.5) or a level
   * (`thinkingLevel`; Gemini 3), not both, and `includeThoughts` to receive thought summaries as reasoning.
   */
  readonly thinkingConfig?: {
    readonly thinkingBudget?: number;
    readonly thinkingLevel?: 'minimal' | 'low' | 'medium' | 'high';
    readonly includeThoughts?: boolean;
  };
  /** `'VALIDATED'`: the `auto` tool choice is sent as mode `VALIDATED` (calls checked against their schemas). */
  readonly functionCallingMode?: 'VALIDATED';
  /** The name of a cached content (`cachedContents/...`) the request builds on. */
  readonly cachedContent?: string;
  /**
   * Vertex AI only: stream each call's arguments in fragments (`functionCallingConfig.streamFunctionCallArguments`);
   * the call's `tool-call-start` then comes with its first fragment, its `tool-call` once the last one arrived.
   */
  readonly streamFunctionCallArguments?: boolean;
}

const KEYS: readonly string[] = [
  'thinkingConfig',
  'functionCallingMode',
  'cachedContent',
  'streamFunctionCallArguments',
];
const THINKING_KEYS: readonly string[] = ['thinkingBudget', 'thinkingLevel', 'includeThoughts'];
const LEVELS: readonly string[] = ['minimal', 'low', 'medium', 'high'];

/** The options as the request takes them. */
export interface ResolvedRequestOptions {
  readonly thinkingConfig: ThinkingConfig | undefined;
  readonly validated: boolean;
  readonly cachedContent: string | undefined;
  readonly streamFunctionCallArguments: boolean;
}

function isRecord(value: unknown): value is Readonly<Record<string, unknown>> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function own(record: Readonly<Record<string, unknown>>, key: string): unknown {
  return Object.hasOwn(record, key) ? record[key] : undefined;
}

/**
 * Reads and checks `providerOptions.google`: an unknown key (with a did-you-mean) or a wrong value is refused with
 * `InvalidProviderOptionsError` before sending, never ignored.
 */
export function readProviderOptions(providerOptions: ProviderOptions | undefined): ResolvedRequestOptions {
  const none: ResolvedRequestOptions = {
    thinkingConfig: undefined,
    validated: false,
    cachedContent: undefined,
    streamFunctionCallArguments: false,
  };
  if (providerOptions === undefined || !Object.hasOwn(providerOptions, PROVIDER)) return none;
  const options: unknown = providerOptions[PROVIDER];
  const fail = (option: string, message: string): never => {
    throw new InvalidProviderOptionsError({
      provider: PROVIDER,
      option: `providerOptions.${PROVIDER}${option}`,
      message,
    });
  };
  const checkKeys = (
    record: Readonly<Record<string, unknown>>,
    keys: readonly string[],
    at: string,
  ): void => {
    for (const key of Object.keys(record)) {
      if (keys.includes(key)) continue;
      const suggestion = closestMatch(key, keys);
      fail(
        `${at}.${key}`,
        `providerOptions.${PROVIDER}${at} has no option '${key}'${suggestion === undefined ? '' : ` (did you mean '${suggestion}'?)`}; it takes ${keys.map((name) => `'${name}'`).join(', ')}.`,
      );
    }
  };
  if (!isRecord(options)) return fail('', `providerOptions.${PROVIDER} must be an object.`);
  checkKeys(options, KEYS, '');

  let thinkingConfig: ThinkingConfig | undefined;
  const thinking = own(options, 'thinkingConfig');
  if (thinking !== undefined) {
    if (!isRecord(thinking)) return fail('.thinkingConfig', 'thinkingConfig must be an object.');
    checkKeys(thinking, THINKING_KEYS, '.thinkingConfig');
    const budget = own(thinking, 'thinkingBudget');
    const level = own(thinking, 'thinkingLevel');
    const includeThoughts = own(thinking, 'includeThoughts');
    if (
      budget !== undefined &&
      (typeof budget !== 'number' || !Number.isSafeInteger(budget) || budget < -1)
    ) {
      fail(
        '.thinkingConfig.thinkingBudget',
        'thinkingBudget must be a whole number of tokens, 0 (off) or -1 (automatic).',
      );
    }
    if (level !== undefined && (typeof level !== 'string' || !LEVELS.includes(level))) {
      fail(
        '.thinkingConfig.thinkingLevel',
        `thinkingLevel must be one of ${LEVELS.map((name) => `'${name}'`).join(', ')}.`,
      );
    }
    if (budget !== undefined && level !== undefined) {
      fail(
        '.thinkingConfig',
        'give thinkingBudget or thinkingLevel, not both: Gemini refuses a request with both.',
      );
    }
    if (includeThoughts !== undefined && typeof includeThoughts !== 'boolean') {
      fail('.thinkingConfig.includeThoughts', 'includeThoughts must be a boolean.');
    }
    thinkingConfig = {
      ...(budget === undefined ? {} : { thinkingBudget: budget as number }),
      ...(level === undefined ? {} : { thinkingLevel: (level as string).toUpperCase() as ThinkingLevel }),
      ...(includeThoughts === undefined ? {} : { includeThoughts: includeThoughts as boolean }),
    };
  }
  const mode = own(options, 'functionCallingMode');
  if (mode !== undefined && mode !== 'VALIDATED') {
    fail(
      '.functionCallingMode',
      "functionCallingMode must be 'VALIDATED' (the other modes follow the tool choice).",
    );
  }
  const cachedContent = own(options, 'cachedContent');
  if (cachedContent !== undefined && (typeof cachedContent !== 'string' || cachedContent === '')) {
    fail('.cachedContent', 'cachedContent must be the name of a cached content, e.g. cachedContents/abc123.');
  }
  const streamArguments = own(options, 'streamFunctionCallArguments');
  if (streamArguments !== undefined && typeof streamArguments !== 'boolean') {
    fail('.streamFunctionCallArguments', 'streamFunctionCallArguments must be a boolean.');
  }
  return {
    thinkingConfig,
    validated: mode === 'VALIDATED',
    cachedContent: cachedContent as string | undefined,
    streamFunctionCallArguments: streamArguments === true,
  };
}

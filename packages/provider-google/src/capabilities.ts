import type { ModelCapabilities } from '@org/core';

/**
 * The Gemini model families this adapter knows, each declared (never guessed from the model id): pick one with
 * `google(modelId, { family })`.
 * - `gemini-3`: function-call ids, thought signatures required on every function-calling turn, `VALIDATED` mode,
 *   JSON Schema tools (`parametersJsonSchema`), images and files inside function responses.
 * - `gemini-2.5`: thinking and thought signatures, no call ids, JSON Schema tools; media in a tool result goes in a
 *   user turn after the function responses.
 * - `gemini-2.0`: no thinking; tools and response schemas in the OpenAPI subset (`parameters`, `responseSchema`).
 */
export type GoogleModelFamily = 'gemini-3' | 'gemini-2.5' | 'gemini-2.0';

/** What a family needs on the wire, beside its `ModelCapabilities`. */
export interface GoogleFamilyTraits {
  readonly capabilities: ModelCapabilities;
  /** How tool and response schemas are sent: JSON Schema (`parametersJsonSchema`) or the OpenAPI subset. */
  readonly schemaDialect: 'json-schema' | 'openapi';
  /** Whether a `functionResponse` may carry `parts` (images and files of a tool result). */
  readonly mediaInFunctionResponses: boolean;
  /**
   * Whether the API refuses a function-calling turn without a thought signature (Gemini 3): an unsigned one, from
   * another provider's history or stored without its reasoning, is then sent with Google's documented skip value.
   */
  readonly requiresThoughtSignatures: boolean;
}

const ALL_NATIVE: ModelCapabilities = Object.freeze({
  toolCalls: true,
  toolChoice: Object.freeze({ auto: 'native', required: 'native', none: 'native', tool: 'native' } as const),
  // Gemini has no switch for parallel calls: `parallelToolCalls: false` is reported as ignored.
  parallelToolCalls: false,
  strictSchemas: false,
  streaming: true,
  structuredOutput: true,
});

/**
 * Every family's declared traits. `toolChoice` is native for all four modes everywhere: auto → `AUTO`, required →
 * `ANY`, none → `NONE`, a named tool → `ANY` with `allowedFunctionNames`.
 *
 * @example
 * const model = google('gemini-2.0-flash', { family: 'gemini-2.0' });
 * GOOGLE_MODEL_FAMILIES['gemini-2.0'].schemaDialect; // 'openapi'
 */
export const GOOGLE_MODEL_FAMILIES: Readonly<Record<GoogleModelFamily, GoogleFamilyTraits>> = Object.freeze({
  'gemini-3': Object.freeze({
    capabilities: ALL_NATIVE,
    schemaDialect: 'json-schema',
    mediaInFunctionResponses: true,
    requiresThoughtSignatures: true,
  }),
  'gemini-2.5': Object.freeze({
    capabilities: ALL_NATIVE,
    schemaDialect: 'json-schema',
    mediaInFunctionResponses: false,
    requiresThoughtSignatures: false,
  }),
  'gemini-2.0': Object.freeze({
    capabilities: ALL_NATIVE,
    schemaDialect: 'openapi',
    mediaInFunctionResponses: false,
    requiresThoughtSignatures: false,
  }),
});

/** The family a model is taken to be when `settings.family` is not given: the current one. */
export const DEFAULT_GOOGLE_MODEL_FAMILY: GoogleModelFamily = 'gemini-3';

/**
 * The default family's capabilities. Users override them per model (`settings.capabilities`).
 *
 * @example
 * const model = google('gemini-3-flash', { capabilities: { toolChoice: { tool: 'emulated' } } });
 */
export const GOOGLE_DEFAULT_CAPABILITIES: ModelCapabilities = ALL_NATIVE;

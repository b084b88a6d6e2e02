import type { ModelCapabilitiesOverride } from '@org/core';
import type { RetryOptions } from './retry-options.js';

/**
 * How a request with tool choice `none` is sent. Converse has no "none" mode, and it rejects a conversation that
 * holds tool blocks when no `toolConfig` is sent, so every policy changes something and reports it as an Adjustment.
 *
 * - `instruct-and-reject` (default, loses nothing): tools and history are sent unchanged with `toolChoice: {auto: {}}`
 *   and a system instruction not to call tools. A call that comes back anyway is never returned as a `ToolCall`:
 *   it is reported in a `tool-calls-rejected` Adjustment (with its id, name and raw arguments).
 * - `rewrite-history-as-text`: no `toolConfig`; every `toolUse` / `toolResult` block of the history becomes a text
 *   block describing the call or the result, so the model still sees what happened.
 * - `drop-tools`: no `toolConfig`; the tool blocks of the history are removed (what most libraries do).
 *
 * @example
 * const model = bedrock('us.amazon.nova-pro-v1:0', { noneToolChoicePolicy: 'rewrite-history-as-text' });
 */
export type NoneToolChoicePolicy = 'instruct-and-reject' | 'rewrite-history-as-text' | 'drop-tools';

/**
 * The accepted values of `NoneToolChoicePolicy`, in documentation order.
 *
 * @example
 * NONE_TOOL_CHOICE_POLICIES.includes(process.env.NONE_POLICY as NoneToolChoicePolicy);
 */
export const NONE_TOOL_CHOICE_POLICIES: readonly NoneToolChoicePolicy[] = Object.freeze([
  'instruct-and-reject',
  'rewrite-history-as-text',
  'drop-tools',
]);

/**
 * Per-model settings: the second argument of `bedrock(modelId, settings)`.
 *
 * @example
 * const settings: BedrockModelSettings = {
 *   capabilities: { toolChoice: { required: 'emulated', tool: 'emulated' } },
 *   noneToolChoicePolicy: 'instruct-and-reject',
 *   retry: { maxRetries: 4 },
 * };
 */
export interface BedrockModelSettings {
  /**
   * What this model can do, merged onto the adapter's declaration with `mergeCapabilities`. Bedrock serves many
   * model families behind one API and some reject `toolChoice` `any` / `tool`: declare it here
   * (`{ toolChoice: { required: 'unsupported' } }` or `'emulated'`). A model that refuses tool use in
   * ConverseStream is declared `{ streaming: false }`: `stream()` then makes one Converse call and replays it as
   * parts. Nothing is guessed from the model id.
   */
  readonly capabilities?: ModelCapabilitiesOverride;
  /** How tool choice `none` is sent. Default `instruct-and-reject`. */
  readonly noneToolChoicePolicy?: NoneToolChoicePolicy;
  /**
   * When Bedrock answers a `required` / `tool` choice with a ValidationException saying the model does not support
   * it, retry once with the mode emulated (an instruction plus a check of the answer) instead of throwing
   * `UnsupportedToolChoiceError`. Reported as a `tool-choice-emulated` Adjustment. Default `false`.
   */
  readonly emulateUnsupportedToolChoice?: boolean;
  /** Retries of throttling, 5xx and connection failures for this model; overrides the provider's. */
  readonly retry?: RetryOptions;
}

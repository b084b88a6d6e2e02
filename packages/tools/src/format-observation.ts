import { stringifyWithin, type TruncateTextOptions, truncateText } from '@org/core';
import type { ToolObservation } from './execute-action.js';
import { DEFAULT_OUTPUT_BUDGET_BYTES, MAX_SERIALIZED_BYTES, serializeOutput } from './serialize-output.js';

/** Options of {@link formatObservationForModel}. */
export interface FormatObservationOptions {
  /**
   * The byte budget (UTF-8) of the output or the error text. Default: 50 000 (the default output budget of
   * `executeAction`) for an error, 16 MiB (`MAX_SERIALIZED_BYTES`) for an output, which `executeAction` already
   * cut to its call's budget. The artifact list has at most 4 096 bytes of its own.
   */
  readonly budgetBytes?: number;
}

/*
 * Without `budgetBytes`, an output is bounded by the memory bound only (16 MiB): `executeAction` already cut it to
 * the call's budget, which may be larger than the default (`runAgent({ outputBudgetBytes })`), and the planners do
 * not know it. Errors are bounded by the default budget: the planners' own error observations (invalid arguments, a
 * call beyond the parallel limit) quote the model's text and reach the model through here only.
 */

/** Bytes of the artifact list, beside the output's budget. */
const MAX_ARTIFACT_LIST_BYTES = 4_096;

const OUTPUT_MARKER: TruncateTextOptions = {
  what: 'output',
  hint: 'ask for a narrower result to see more',
  redact: 'registered',
};

/** The output as text within the budget: a string as is, anything else as JSON, cut with a marker. */
function outputText(output: unknown, budget: number): string {
  if (typeof output === 'string') {
    return truncateText(output, budget, OUTPUT_MARKER);
  }
  // An observation from `executeAction` is within the budget already: one bounded stringify, no second walk. Anything
  // else (an observation built elsewhere, a shared or huge value) goes through the bounded serialiser.
  const quick = stringifyWithin(output, 2 * Math.min(budget, DEFAULT_OUTPUT_BUDGET_BYTES * 20) + 1_024);
  if (quick !== undefined && quick.length <= budget) return truncateText(quick, budget, OUTPUT_MARKER);
  const serialized = serializeOutput(output, budget).output;
  return typeof serialized === 'string' ? serialized : JSON.stringify(serialized);
}

/**
 * The content of the tool message a model sees for an observation: the output (a string as is, anything else as
 * JSON), or for a failure the error code and its message, plus a one-line reference per artifact. Whatever built
 * the observation, the text is bounded: the output or the error within `budgetBytes` (see its defaults), the
 * artifact list within 4 096 bytes, each cut with a marker (`[output truncated: ...]`, `[error message truncated:
 * ...]`) by `truncateText` of `@org/core`. Registered secrets are redacted from the output, and secrets of any
 * shape from the error, as `executeAction` does: this is the last step before the model sees the text.
 *
 * @example
 * formatObservationForModel(observation); // '{"temperature":21}' or 'Error (timeout): Tool ...'
 */
export function formatObservationForModel(
  observation: ToolObservation,
  options: FormatObservationOptions = {},
): string {
  const budget = options.budgetBytes ?? DEFAULT_OUTPUT_BUDGET_BYTES;
  const outputBudget = options.budgetBytes ?? MAX_SERIALIZED_BYTES;
  let text: string;
  if (observation.status === 'success') {
    const output = observation.output;
    if (output === undefined || output === null) text = 'The tool finished without output.';
    else text = outputText(output, outputBudget);
  } else {
    const error = observation.error;
    const label =
      observation.status === 'error'
        ? 'Error'
        : `${String(observation.status).charAt(0).toUpperCase()}${String(observation.status).slice(1)}`;
    text = truncateText(
      error === undefined
        ? `${label}: the call did not complete.`
        : `${label} (${String(error.code)}): ${String(error.message)}`,
      budget,
      { what: 'error message', redact: 'all' },
    );
  }
  if (observation.artifacts !== undefined && observation.artifacts.length > 0) {
    const lines = observation.artifacts.map(
      (artifact) =>
        `- ${artifact.name ?? artifact.url} (${artifact.mimeType}, ${artifact.size} bytes, sha256 ${artifact.sha256}): ${artifact.url}`,
    );
    text += truncateText(`\nArtifacts:\n${lines.join('\n')}`, MAX_ARTIFACT_LIST_BYTES, {
      what: 'artifact list',
    });
  }
  return text;
}

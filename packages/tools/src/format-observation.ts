import type { ToolObservation } from './execute-action.js';

/**
 * The content of the tool message a model sees for an observation: the output (a string as is, anything else as
 * JSON), or for a failure the error code and its message, plus a one-line reference per artifact.
 *
 * @example
 * formatObservationForModel(observation); // '{"temperature":21}' or 'Error (timeout): Tool ...'
 */
export function formatObservationForModel(observation: ToolObservation): string {
  let text: string;
  if (observation.status === 'success') {
    const output = observation.output;
    if (output === undefined || output === null) text = 'The tool finished without output.';
    else text = typeof output === 'string' ? output : JSON.stringify(output);
  } else {
    const error = observation.error;
    const label =
      observation.status === 'error'
        ? 'Error'
        : `${observation.status.charAt(0).toUpperCase()}${observation.status.slice(1)}`;
    text =
      error === undefined
        ? `${label}: the call did not complete.`
        : `${label} (${error.code}): ${error.message}`;
  }
  if (observation.artifacts !== undefined && observation.artifacts.length > 0) {
    const lines = observation.artifacts.map(
      (artifact) =>
        `- ${artifact.name ?? artifact.url} (${artifact.mimeType}, ${artifact.size} bytes, sha256 ${artifact.sha256}): ${artifact.url}`,
    );
    text += `\nArtifacts:\n${lines.join('\n')}`;
  }
  return text;
}

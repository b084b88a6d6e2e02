import { isObservationStatus, type JsonSchema, readStrictJson } from '@org/core';
import type { ToolObservation } from '@org/tools';
import { InvalidRemoteToolResponseError, quoteForeign } from './errors.js';
import { utf8Text } from './strict-json-serde.js';

/** One tool as a tool service describes it (`describe` handler). */
export interface RemoteToolDescription {
  readonly name: string;
  readonly description: string;
  readonly inputSchema: JsonSchema;
  readonly outputSchema?: JsonSchema;
  /** A predicate cannot travel: a tool whose approval depends on its arguments is described as always needing it. */
  readonly needsApproval: boolean;
  readonly terminal: boolean;
}

/** What a tool service's `describe` handler answers. */
export interface ToolServiceDescription {
  readonly version: 1;
  readonly tools: readonly RemoteToolDescription[];
}

/** What the agent sends a tool service's `execute` handler: one call. */
export interface RemoteToolRequest {
  /** The call's id in the agent's run (shown to the tool as `context.toolCallId`). */
  readonly actionId: string;
  /** The tool's name on the service (without the source's prefix). */
  readonly toolName: string;
  readonly args: Readonly<Record<string, unknown>>;
  /** The run's per-call deadline (`toolTimeoutMs`), kept by the service; the tool's own applies too. */
  readonly timeoutMs?: number;
  /** Bytes of output the agent's model sees (`outputBudgetBytes`). */
  readonly outputBudgetBytes?: number;
}

/** Largest description a tool service may answer with. */
const MAX_DESCRIPTION_BYTES = 4 * 1024 * 1024;
/** Largest observation a tool service may answer with. */
const MAX_OBSERVATION_BYTES = 16 * 1024 * 1024;
const MAX_TOOLS = 1_000;

type JsonRecord = Record<string, unknown>;

const isRecord = (value: unknown): value is JsonRecord =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const own = (record: JsonRecord, key: string): unknown =>
  Object.hasOwn(record, key) ? record[key] : undefined;

/** The JSON of a tool service's answer, or `InvalidRemoteToolResponseError`. */
function readAnswer(service: string, bytes: Uint8Array, maxBytes: number, field: string): unknown {
  let text: string;
  try {
    text = utf8Text(bytes);
  } catch {
    throw new InvalidRemoteToolResponseError({ service, field, problem: 'it is not UTF-8 text' });
  }
  const read = readStrictJson(text, { maxBytes, maxDepth: 64 });
  if (!read.ok) throw new InvalidRemoteToolResponseError({ service, field, problem: read.reason });
  return read.value;
}

/** A tool service's description, checked field by field. */
export function readToolServiceDescription(service: string, bytes: Uint8Array): ToolServiceDescription {
  const value = readAnswer(service, bytes, MAX_DESCRIPTION_BYTES, 'description');
  const invalid = (field: string, problem: string): never => {
    throw new InvalidRemoteToolResponseError({ service, field, problem });
  };
  if (!isRecord(value)) invalid('description', 'it is not an object');
  const record = value as JsonRecord;
  if (own(record, 'version') !== 1) {
    invalid('description.version', `expected 1, got ${quoteForeign(JSON.stringify(own(record, 'version')))}`);
  }
  const tools = own(record, 'tools');
  if (!Array.isArray(tools)) return invalid('description.tools', 'it is not an array');
  if (tools.length > MAX_TOOLS)
    invalid('description.tools', `it lists ${tools.length} tools, more than ${MAX_TOOLS}`);
  return {
    version: 1,
    tools: tools.map((tool, index): RemoteToolDescription => {
      const field = `tools[${index}]`;
      if (!isRecord(tool)) return invalid(field, 'it is not an object');
      const name = own(tool, 'name');
      const description = own(tool, 'description');
      const inputSchema = own(tool, 'inputSchema');
      const outputSchema = own(tool, 'outputSchema');
      const needsApproval = own(tool, 'needsApproval');
      const terminal = own(tool, 'terminal');
      if (typeof name !== 'string') invalid(`${field}.name`, 'it is not a string');
      if (typeof description !== 'string') invalid(`${field}.description`, 'it is not a string');
      if (!isRecord(inputSchema)) invalid(`${field}.inputSchema`, 'it is not an object');
      if (outputSchema !== undefined && !isRecord(outputSchema))
        invalid(`${field}.outputSchema`, 'it is not an object');
      if (typeof needsApproval !== 'boolean') invalid(`${field}.needsApproval`, 'it is not a boolean');
      if (typeof terminal !== 'boolean') invalid(`${field}.terminal`, 'it is not a boolean');
      return {
        name: name as string,
        description: description as string,
        inputSchema: inputSchema as JsonSchema,
        ...(outputSchema === undefined ? {} : { outputSchema: outputSchema as JsonSchema }),
        needsApproval: needsApproval as boolean,
        terminal: terminal as boolean,
      };
    }),
  };
}

/** A tool service's observation of one call, checked; `toolName` and `actionId` must be the call's. */
export function readRemoteObservation(
  service: string,
  request: RemoteToolRequest,
  bytes: Uint8Array,
): ToolObservation {
  const value = readAnswer(service, bytes, MAX_OBSERVATION_BYTES, 'observation');
  const invalid = (field: string, problem: string): never => {
    throw new InvalidRemoteToolResponseError({ service, field: `observation.${field}`, problem });
  };
  if (!isRecord(value)) return invalid('', 'it is not an object');
  if (own(value, 'actionId') !== request.actionId)
    invalid('actionId', `it is not the call's id '${request.actionId}'`);
  if (own(value, 'toolName') !== request.toolName) invalid('toolName', `it is not '${request.toolName}'`);
  const status = own(value, 'status');
  if (!isObservationStatus(status))
    invalid('status', `${quoteForeign(String(status))} is not an observation status`);
  const durationMs = own(value, 'durationMs');
  if (typeof durationMs !== 'number' || !(durationMs >= 0))
    invalid('durationMs', 'it is not a number from 0');
  const error = own(value, 'error');
  if (error !== undefined) {
    if (!isRecord(error)) invalid('error', 'it is not an object');
    const record = error as JsonRecord;
    if (typeof own(record, 'code') !== 'string') invalid('error.code', 'it is not a string');
    if (typeof own(record, 'message') !== 'string') invalid('error.message', 'it is not a string');
  } else if (status !== 'success') {
    invalid('error', `it is missing, for status ${String(status)}`);
  }
  return value as unknown as ToolObservation;
}

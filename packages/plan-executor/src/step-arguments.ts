import type { ObservationError } from '@org/core';
import { type Tool, validateToolArguments } from '@org/tools';

/** The outcome of checking a step's filled-in arguments against its tool's input schema. */
export type StepArgumentsCheck =
  | { readonly ok: true; readonly value: Record<string, unknown> }
  | { readonly ok: false; readonly error: ObservationError };

/** Validates and coerces a step's arguments once its references are filled, with `@org/tools`. */
export function checkStepArguments(tool: Tool, args: Record<string, unknown>): StepArgumentsCheck {
  const checked = validateToolArguments(tool, args, { coerce: true });
  if (checked.ok) return { ok: true, value: checked.value as Record<string, unknown> };
  const error = checked.error;
  return {
    ok: false,
    error: {
      code: error.code,
      message: error.message,
      ...('issues' in error ? { details: { issues: error.issues } } : {}),
    },
  };
}

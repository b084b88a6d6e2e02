import type { ObservationError } from '@org/core';
import { type Tool, validateToolArguments } from '@org/tools';

/** The outcome of checking a step's filled-in arguments against its tool's input schema. */
export type StepArgumentsCheck =
  | { readonly ok: true; readonly value: Record<string, unknown> }
  | { readonly ok: false; readonly error: ObservationError };

const COERCE = Object.freeze({ coerce: true });

/** Validates and coerces a step's arguments once its references are filled, with `@org/tools`. */
export function checkStepArguments(tool: Tool, args: Record<string, unknown>): StepArgumentsCheck {
  const checked = validateToolArguments(tool, args, COERCE);
  // Passed on as it is (its `coercions` ride along unread): this runs once per step, and a copy is one more object.
  if (checked.ok) return checked as { readonly ok: true; readonly value: Record<string, unknown> };
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

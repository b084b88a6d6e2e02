import type { Part } from '@google/genai';

/**
 * The signature Google documents for a function call Gemini 3 did not sign: a call of another provider's history, one
 * written by the application, or one stored without its reasoning. Gemini 3 refuses a function-calling turn whose
 * first call carries no `thoughtSignature` (400 "Function call is missing a thought_signature"); with this value in its
 * place the turn is taken, without the reasoning a real signature would have restored.
 */
export const SKIP_THOUGHT_SIGNATURE = 'skip_thought_signature_validator';

/**
 * Puts `SKIP_THOUGHT_SIGNATURE` on the first function call of a model turn when that call is unsigned (Gemini signs
 * the first call of a turn; a turn it produced keeps its own signature, untouched). Returns whether it did.
 */
export function signUnsignedCallTurn(parts: readonly Part[]): boolean {
  const first = parts.find((part) => part.functionCall !== undefined);
  if (first === undefined || first.thoughtSignature !== undefined) return false;
  first.thoughtSignature = SKIP_THOUGHT_SIGNATURE;
  return true;
}

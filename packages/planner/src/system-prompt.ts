/** Default cut of the strategic plan block, in characters of its JSON text. */
export const DEFAULT_MAX_STRATEGIC_PLAN_CHARACTERS = 4_000;

/**
 * The system prompt of a request: the base prompt, then, when the run holds a strategic plan, a block with its
 * JSON cut to `maxCharacters`. A cut is marked in the text (never silent), so the model knows it sees a prefix.
 *
 * @example
 * buildSystemPrompt('You are a travel agent.', { goal: 'compare weather', steps: ['Paris', 'Rome'] }, 4000);
 */
export function buildSystemPrompt(
  basePrompt: string | undefined,
  strategicPlan: unknown,
  maxCharacters: number = DEFAULT_MAX_STRATEGIC_PLAN_CHARACTERS,
): string | undefined {
  if (strategicPlan === undefined) return basePrompt;
  const json =
    typeof strategicPlan === 'string' ? strategicPlan : (JSON.stringify(strategicPlan, null, 2) ?? '');
  const cut = json.length > maxCharacters;
  const block =
    `Strategic plan (JSON${cut ? `, cut to its first ${maxCharacters} of ${json.length} characters` : ''}):\n` +
    (cut ? `${json.slice(0, maxCharacters)}\n[... plan cut ...]` : json);
  return basePrompt === undefined || basePrompt === '' ? block : `${basePrompt}\n\n${block}`;
}

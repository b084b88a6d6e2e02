import type { z } from 'zod';

/**
 * A task's typed final answer: the zod object schema the run is given as `runAgent({ output })`, so that it ends
 * with `result.output` parsed and validated, and how the demo says that answer in one sentence.
 */
export interface TaskOutput {
  /** The schema's name in the report (`OrdersReport`). */
  readonly name: string;
  /** The final answer's shape; its field descriptions reach the model. */
  readonly schema: z.ZodObject;
  /**
   * The answer in one sentence, from a run's validated `result.output` (the live report and the comparison table
   * show it). A value that does not match the schema is said to be so, never guessed at.
   */
  summarize(output: unknown): string;
}

/**
 * A typed final answer for a task, with `summarize` typed by the schema.
 *
 * @example
 * const output = defineTaskOutput('Warmest', z.object({ city: z.string() }), ({ city }) => `${city} is warmest.`);
 * await runAgent({ model, tools, task, output: output.schema });
 */
export function defineTaskOutput<Schema extends z.ZodObject>(
  name: string,
  schema: Schema,
  summarize: (output: z.output<Schema>) => string,
): TaskOutput {
  return {
    name,
    schema,
    summarize: (output) => {
      const parsed = schema.safeParse(output);
      return parsed.success
        ? summarize(parsed.data)
        : `(an answer that does not match ${name}: ${parsed.error.issues.map((issue) => issue.message).join('; ')})`;
    },
  };
}

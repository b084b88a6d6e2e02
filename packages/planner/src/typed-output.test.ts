import { contentText } from '@org/core';
import { createScriptedModel } from '@org/provider-scripted';
import { describe, expect, expectTypeOf, it } from 'vitest';
import { z } from 'zod';
import { PARIS, TASK, weatherTools } from './__fixtures__/weather-task.js';
import {
  createReActPlanner,
  InvalidAgentOptionsError,
  runAgent,
  StructuredOutputError,
  streamAgent,
} from './index.js';

const Answer = z.object({ warmer: z.string(), temperatureC: z.number() });

const native = (script: Parameters<typeof createScriptedModel>[0]['script']) =>
  createScriptedModel({ script, capabilities: { structuredOutput: true } });

describe('runAgent({ output }): a typed final answer', () => {
  it('asks natively where the model has structured output, and infers the type of the result', async () => {
    const model = native([
      { toolCalls: [{ id: 'p', toolName: 'get_weather', arguments: { city: 'Paris' } }] },
      { text: '{"warmer":"Paris","temperatureC":"18"}' },
    ]);
    const result = await runAgent({ model, tools: weatherTools(), task: TASK, output: Answer });
    expectTypeOf(result.output).toEqualTypeOf<{ warmer: string; temperatureC: number } | undefined>();
    expect(result.finishReason).toBe('final-answer');
    // Coerced exactly as tool arguments are ("18" for a number).
    expect(result.output).toEqual({ warmer: 'Paris', temperatureC: 18 });
    expect(model.requests[0]?.responseFormat).toMatchObject({ type: 'json', name: 'final_answer' });
    expect(model.requests[0]?.responseFormat?.schema).toMatchObject({
      type: 'object',
      required: ['warmer', 'temperatureC'],
    });
    expect(model.requests[0]?.tools?.map((tool) => tool.name)).toEqual([
      'get_weather',
      'compare_temperatures',
    ]);
  });

  it("streamAgent infers the type of the result's output as runAgent does (issue 27)", async () => {
    const stream = streamAgent({
      model: native([{ text: '{"warmer":"Paris","temperatureC":18}' }]),
      tools: weatherTools(),
      task: TASK,
      output: Answer,
    });
    for await (const _event of stream) {
      // Read to the end.
    }
    const result = await stream.result;
    expectTypeOf(result.output).toEqualTypeOf<{ warmer: string; temperatureC: number } | undefined>();
    expect(result.output?.temperatureC).toBe(18);
    // Without `output`, the result's output stays unknown.
    const untyped = streamAgent({ model: native([{ text: 'Paris.' }]), tools: weatherTools(), task: TASK });
    expectTypeOf((await untyped.result).output).toEqualTypeOf<unknown>();
  });

  it('sends the strict dialect to a model that enforces schemas, and reads its nulls for optional fields', async () => {
    const model = createScriptedModel({
      script: [{ text: '{"warmer":"Paris","temperatureC":18,"note":null}' }],
      capabilities: { structuredOutput: true, strictSchemas: true },
    });
    const result = await runAgent({
      model,
      tools: weatherTools(),
      task: TASK,
      output: Answer.extend({ note: z.string().optional() }),
    });
    expect(model.requests[0]?.responseFormat?.schema).toMatchObject({
      additionalProperties: false,
      required: ['warmer', 'temperatureC', 'note'],
    });
    expect(result.output).toEqual({ warmer: 'Paris', temperatureC: 18 });
  });

  it('repairs once: the model is told what was wrong and answers again', async () => {
    const model = native([
      { text: '{"warmer":"Paris"}' },
      { text: '```json\n{"warmer":"Paris","temperatureC":18}\n```' },
    ]);
    const result = await runAgent({ model, tools: weatherTools(), task: TASK, output: Answer });
    expect(result.output).toEqual({ warmer: 'Paris', temperatureC: 18 });
    const repair = model.requests[1]?.messages.at(-1);
    expect(repair?.role).toBe('user');
    expect(contentText(repair?.content ?? '')).toMatch(
      /does not match the required JSON schema: [\s\S]*temperatureC/,
    );
    expect(result.roundTrips).toBe(2);
  });

  it('ends with StructuredOutputError after the one repair', async () => {
    const model = native([{ text: 'Paris, I think.' }, { text: '{"warmer": 3}' }, { text: 'never asked' }]);
    const result = await runAgent({ model, tools: weatherTools(), task: TASK, output: Answer });
    expect(result.finishReason).toBe('error');
    expect(StructuredOutputError.isInstance(result.error)).toBe(true);
    expect(result.error).toMatchObject({ code: 'structured_output_failed', text: '{"warmer": 3}' });
    expect(model.requests).toHaveLength(2);
    expect(result.output).toBeUndefined();
  });

  it('with no step left for the repair, ends with StructuredOutputError rather than max-steps', async () => {
    const model = native([{ text: 'Paris, I think.' }, { text: 'never asked' }]);
    const result = await runAgent({ model, tools: weatherTools(), task: TASK, output: Answer, maxSteps: 1 });
    expect(result.finishReason).toBe('error');
    expect(StructuredOutputError.isInstance(result.error)).toBe(true);
    expect(result.error).toMatchObject({ text: 'Paris, I think.' });
  });

  it('uses a terminal final_answer tool where the model has no native structured output', async () => {
    const model = createScriptedModel({
      script: [
        { toolCalls: [{ id: 'p', toolName: 'get_weather', arguments: { city: 'Paris' } }] },
        {
          toolCalls: [
            {
              id: 'f',
              toolName: 'final_answer',
              arguments: { warmer: 'Paris', temperatureC: PARIS.temperatureC },
            },
          ],
        },
      ],
    });
    const result = await runAgent({ model, tools: weatherTools(), task: TASK, output: Answer });
    expect(result).toMatchObject({
      finishReason: 'final-answer',
      output: { warmer: 'Paris', temperatureC: 18 },
    });
    expect(model.requests[0]?.responseFormat).toBeUndefined();
    expect(model.requests[0]?.tools?.map((tool) => tool.name)).toEqual([
      'get_weather',
      'compare_temperatures',
      'final_answer',
    ]);
  });

  it('on a text answer without the tool, forces the final_answer tool for the repair round trip', async () => {
    const model = createScriptedModel({
      script: [
        { text: 'Paris is 18°C.' },
        {
          toolCalls: [
            { id: 'f', toolName: 'final_answer', arguments: { warmer: 'Paris', temperatureC: 18 } },
          ],
        },
      ],
    });
    const result = await runAgent({ model, tools: weatherTools(), task: TASK, output: Answer });
    expect(result.output).toEqual({ warmer: 'Paris', temperatureC: 18 });
    expect(model.requests[1]?.toolChoice).toEqual({ type: 'tool', toolName: 'final_answer' });
  });

  it('invalid final_answer arguments twice end the run with StructuredOutputError', async () => {
    const bad = (id: string) => ({ toolCalls: [{ id, toolName: 'final_answer', arguments: { warmer: 1 } }] });
    const model = createScriptedModel({ script: [bad('a'), bad('b'), { text: 'never' }] });
    const result = await runAgent({ model, tools: weatherTools(), task: TASK, output: Answer });
    expect(StructuredOutputError.isInstance(result.error)).toBe(true);
    expect(model.requests).toHaveLength(2);
    expect(model.requests[1]?.toolChoice).toEqual({ type: 'tool', toolName: 'final_answer' });
  });

  it('ReAct: asks for the JSON in the prompt and reads the final answer', async () => {
    const model = createScriptedModel({
      capabilities: { toolCalls: false },
      script: [{ text: 'Thought: I know it.\nFinal Answer: {"warmer":"Rome","temperatureC":24}' }],
    });
    const result = await runAgent({
      model,
      tools: weatherTools(),
      planner: createReActPlanner(),
      task: TASK,
      output: Answer,
    });
    expect(result.output).toEqual({ warmer: 'Rome', temperatureC: 24 });
    expect(contentText(model.requests[0]?.messages[0]?.content ?? '')).toContain(
      'must be only a JSON object matching this JSON Schema',
    );
  });

  it('refuses a schema that is not a zod object before any model call', async () => {
    await expect(
      runAgent({ model: native([]), tools: weatherTools(), task: TASK, output: z.array(z.string()) }),
    ).rejects.toSatisfy(
      (error: unknown) =>
        InvalidAgentOptionsError.isInstance(error) && /zod object schema/.test((error as Error).message),
    );
  });
});

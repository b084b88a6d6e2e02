import { contentText, type Message, type ModelRequest } from '@org/core';
import type { ScriptedTurn, ScriptFunction } from '@org/provider-scripted';
import { defineTool, ToolRegistry } from '@org/tools';
import { z } from 'zod';

/** The shared task of the planner tests: two lookups in parallel (depth 1), then a comparison (depth 2). */
export const TASK = 'Is it warmer in Paris or in Rome right now?';
export const SYSTEM_PROMPT = 'You are a concise weather assistant.';

const TEMPERATURES: Readonly<Record<string, number>> = { Paris: 18, Rome: 24, Oslo: 4 };

export function weatherTools(executions: string[] = []): ToolRegistry {
  const getWeather = defineTool({
    name: 'get_weather',
    description: 'Current temperature of a city, in degrees Celsius.',
    input: z.object({ city: z.string().describe('City name, e.g. Paris') }),
    execute: ({ city }) => {
      executions.push(`get_weather(${city})`);
      const temperatureC = TEMPERATURES[city];
      if (temperatureC === undefined) throw new Error(`No weather station in ${city}.`);
      return { city, temperatureC };
    },
  });
  const reading = z.object({ city: z.string(), temperatureC: z.number() });
  const compare = defineTool({
    name: 'compare_temperatures',
    description: 'Compares two temperature readings and says which city is warmer.',
    input: z.object({ first: reading, second: reading }),
    execute: ({ first, second }) => {
      executions.push(`compare_temperatures(${first.city}, ${second.city})`);
      const [warm, cold] = first.temperatureC >= second.temperatureC ? [first, second] : [second, first];
      return `${warm.city} is warmer than ${cold.city} (${warm.temperatureC}°C vs ${cold.temperatureC}°C).`;
    },
  });
  return new ToolRegistry([getWeather, compare]);
}

export const PARIS = { city: 'Paris', temperatureC: 18 };
export const ROME = { city: 'Rome', temperatureC: 24 };
export const EXPECTED_ANSWER = 'Rome is warmer than Paris (24°C vs 18°C).';

/** The final turn of every mode: the answer read from the comparison the tools produced, not scripted. */
export const answerFromLastObservation: ScriptFunction = (request: ModelRequest): ScriptedTurn => {
  const last: Message | undefined = request.messages.at(-1);
  const sentence = /([A-Z][a-z]+ is warmer than [A-Z][a-z]+ \(\d+°C vs \d+°C\)\.)/.exec(
    contentText(last?.content ?? ''),
  );
  return { text: sentence?.[1] ?? `No comparison found in: ${contentText(last?.content ?? '(nothing)')}` };
};

/** ReAct decisions as JSON text. */
export function reactCall(tool: string, args: unknown, thought = `I call ${tool}.`): ScriptedTurn {
  return { text: JSON.stringify({ thought, type: 'call_tool', tool, args }) };
}

export const reactAnswerFromLastObservation: ScriptFunction = (request, context) => {
  const answer = answerFromLastObservation(request, context) as ScriptedTurn;
  return {
    text: JSON.stringify({ thought: 'I have the comparison.', type: 'final_answer', answer: answer.text }),
  };
};

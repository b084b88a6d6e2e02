import { InvalidRequestError, type ModelRequest, type ResponseFormat } from '@org/core';
import { expect } from 'vitest';
import { type ConformanceCase, missingHarnessCapability, registerCases } from './conformance-case.js';
import { HISTORY_WITHOUT_TOOL_CALLS } from './conformance-fixtures.js';
import { type CallMode, callModel, errorOfCall } from './drive-model.js';
import type { ConformanceHarness } from './harness.js';
import { withFixture } from './with-fixture.js';

const CALL_MODES: readonly CallMode[] = ['generate', 'stream'];

const WEATHER_REPORT: ResponseFormat = {
  type: 'json',
  name: 'weather_report',
  description: 'The weather in one city.',
  schema: {
    type: 'object',
    properties: {
      city: { type: 'string' },
      temperatureC: { type: 'number' },
      sky: { type: 'string', enum: ['sunny', 'cloudy', 'rain'] },
    },
    required: ['city', 'temperatureC', 'sky'],
    additionalProperties: false,
  },
};

const REQUEST: ModelRequest = { messages: HISTORY_WITHOUT_TOOL_CALLS, responseFormat: WEATHER_REPORT };
const ANSWER = { city: 'Paris', temperatureC: 18, sky: 'sunny' };

/**
 * The structured-output cases: a model declaring `capabilities.structuredOutput` sends `responseFormat` on the wire
 * (with the schema's property names) and returns the JSON text; a model without it refuses the request with
 * `InvalidRequestError` before sending. The first needs `capabilities.structuredOutput` of the harness.
 */
export function structuredOutputCases(harness: ConformanceHarness): ConformanceCase[] {
  return CALL_MODES.map((callMode) => ({
    name: `responseFormat: on the wire and the JSON back where structuredOutput is declared, else InvalidRequestError before sending · ${callMode}`,
    run: async () => {
      await withFixture(harness, async (fixture) => {
        if (fixture.model.capabilities.structuredOutput !== true) {
          const error = await errorOfCall(fixture.model, REQUEST, callMode);
          expect(InvalidRequestError.isInstance(error), `InvalidRequestError, got ${String(error)}`).toBe(
            true,
          );
          expect(fixture.requests(), 'nothing sent').toHaveLength(0);
          return;
        }
        if (harness.capabilities?.structuredOutput !== true) {
          throw missingHarnessCapability(
            harness,
            'structuredOutput',
            'the model declares capabilities.structuredOutput, so the projection must fill WireRequest.responseFormat',
          );
        }
        fixture.enqueue({
          type: 'response',
          text: JSON.stringify(ANSWER),
          usage: { inputTokens: 30, outputTokens: 12 },
        });
        const response = await callModel(fixture.model, REQUEST, callMode);
        expect(() => JSON.parse(response.text), 'the answer is JSON').not.toThrow();
        expect(JSON.parse(response.text), 'the JSON answer').toEqual(ANSWER);
        expect(response.finishReason).toBe('stop');
        const requests = fixture.requests();
        expect(requests, 'one request on the wire').toHaveLength(1);
        const format = requests[0]?.responseFormat;
        expect(format, 'a response format on the wire (WireRequest.responseFormat)').toBeDefined();
        if (format === undefined) return;
        if (format.name !== undefined)
          expect(format.name, 'the format name on the wire').toBe(WEATHER_REPORT.name);
        expect(
          Object.keys(format.schema.properties ?? {}).sort(),
          'the property names of the schema sent',
        ).toEqual(Object.keys(WEATHER_REPORT.schema.properties ?? {}).sort());
      });
    },
  }));
}

/** Registers the structured-output cases. */
export function registerStructuredOutputCases(harness: ConformanceHarness): void {
  registerCases('structured output', structuredOutputCases(harness));
}

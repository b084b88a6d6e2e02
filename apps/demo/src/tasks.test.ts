import { createVirtualClock } from '@org/provider-scripted';
import { executeAction, ToolRegistry } from '@org/tools';
import { describe, expect, it } from 'vitest';
import { createWeatherTool, fillAnswerTemplate } from './index.js';

describe('demo tools and answers: model-chosen names are looked up as own entries', () => {
  it('a city named like an Object.prototype member is unknown, never an inherited value', async () => {
    const registry = new ToolRegistry([createWeatherTool(createVirtualClock())]);
    for (const city of ['constructor', '__proto__', 'toString', 'hasOwnProperty', 'valueOf']) {
      const observation = await executeAction(registry, {
        id: city,
        toolName: 'get_weather',
        args: { city },
      });
      expect(observation.status).toBe('error');
      expect(observation.error?.message).toContain('No weather station');
    }
  });

  it('fills a template from own outputs only', () => {
    const observed = { outputs: { paris: { temperatureC: 18 } }, errors: {} };
    expect(
      fillAnswerTemplate(
        '{constructor} {toString.name} {paris.constructor} {hasOwnProperty.error}',
        observed,
      ),
    ).toBe('unknown unknown unknown none');
    expect(fillAnswerTemplate('{paris.temperatureC}', observed)).toBe('18');
  });
});

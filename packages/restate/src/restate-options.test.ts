import { createScriptedModel } from '@org/provider-scripted';
import { defineTool } from '@org/tools';
import { describe, expect, it } from 'vitest';
import {
  createRestateAgent,
  createRestateToolService,
  InvalidRestateAgentOptionError,
  type RestateAgentOptions,
  restateToolSource,
} from './index.js';

const model = createScriptedModel({ script: [{ text: 'hi' }] });
const echo = defineTool({
  name: 'echo',
  description: 'Echoes.',
  input: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
  execute: ({ text }) => text,
});

function optionError(make: () => unknown): InvalidRestateAgentOptionError {
  try {
    make();
  } catch (error) {
    if (InvalidRestateAgentOptionError.isInstance(error)) return error;
    throw error;
  }
  throw new Error('no error was thrown');
}

describe('options are checked where the workflow or service is made', () => {
  it('makes a workflow named as asked, with run, approve and status', () => {
    const agent = createRestateAgent({ name: 'support-agent', agent: { model, tools: [echo], plan: true } });
    expect(agent.name).toBe('support-agent');
    expect(createRestateAgent({ agent: () => ({ model }) }).name).toBe('agent');
  });

  it.each([
    ['a name with a space', { name: 'my agent', agent: { model } }, 'name'],
    ['no agent', { agent: undefined }, 'agent'],
    ['an agent without a model', { agent: {} }, 'agent'],
    [
      'a retry policy of 0 attempts',
      { agent: { model }, modelRetry: { maxAttempts: 0 } },
      'modelRetry.maxAttempts',
    ],
    ['a negative retention', { agent: { model }, retentionMs: -1 }, 'retentionMs'],
  ])('refuses %s', (_name, options, option) => {
    expect(optionError(() => createRestateAgent(options as unknown as RestateAgentOptions)).option).toBe(
      option,
    );
  });

  it('makes a tool service, private to the ingress by default', () => {
    const service = createRestateToolService({ name: 'echo-tools', tools: [echo] });
    expect(service.name).toBe('echo-tools');
    expect(optionError(() => createRestateToolService({ name: '', tools: [echo] })).option).toBe('name');
    expect(optionError(() => createRestateToolService({ name: 'x', tools: 7 as never })).option).toBe(
      'tools',
    );
  });

  it('names tool sources by their service', () => {
    expect(restateToolSource('weather-tools', { prefix: 'weather_' })).toEqual({
      service: 'weather-tools',
      prefix: 'weather_',
    });
    expect(optionError(() => restateToolSource('../admin')).message).toContain(
      'a tool source names a Restate service',
    );
  });
});

import * as path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  EndpointProcess,
  http,
  readLedger,
  registerDeployment,
  restateServer,
  scratchDirectory,
  uniqueSuffix,
} from './__fixtures__/restate-test-kit.js';
import type { DurableAgentResult } from './index.js';

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

describe('model calls of a durable run fail as the engine journals them (real restate-server on 127.0.0.1)', () => {
  it("retries a retryable provider error, and ends the run on a final one, naming the provider's code", async () => {
    const { ingressUrl } = restateServer();
    const scratch = scratchDirectory();
    cleanups.push(() => scratch.remove());
    const suffix = uniqueSuffix().replaceAll('-', '_');
    const env = {
      LEDGER_FILE: path.join(scratch.path, 'ledger.txt'),
      FLAKY_AGENT_NAME: `flaky_agent_${suffix}`,
      REFUSING_AGENT_NAME: `refusing_agent_${suffix}`,
      THROTTLED_AGENT_NAME: `throttled_agent_${suffix}`,
    };
    const endpoint = await EndpointProcess.start('flaky-model-agent.endpoint.mjs', env);
    cleanups.push(() => endpoint.kill());
    await registerDeployment(endpoint);

    const flaky = await http('POST', `${ingressUrl}/${env.FLAKY_AGENT_NAME}/flaky-1/run`, { task: 'Hello?' });
    expect(flaky.status, flaky.text).toBe(200);
    expect(flaky.json).toMatchObject({
      finishReason: 'final-answer',
      text: 'Answered after a retry.',
      roundTrips: 1,
    });

    const refused = await http('POST', `${ingressUrl}/${env.REFUSING_AGENT_NAME}/refused-1/run`, {
      task: 'Hello?',
    });
    expect(refused.status, refused.text).toBe(200);
    const result = refused.json as DurableAgentResult;
    expect(result.finishReason).toBe('error');
    expect(result.error).toEqual({
      name: 'DurableModelCallError',
      code: 'durable_model_call_failed',
      causeCode: 'invalid_request',
      message: 'The model call of step 0 failed (invalid_request, HTTP 400): The prompt is too odd.',
    });

    // Retried by the engine until the policy gives up: the journaled failure still names the provider's code.
    const throttled = await http('POST', `${ingressUrl}/${env.THROTTLED_AGENT_NAME}/throttled-1/run`, {
      task: 'Hello?',
    });
    expect(throttled.status, throttled.text).toBe(200);
    expect((throttled.json as DurableAgentResult).error).toEqual({
      name: 'DurableModelCallError',
      code: 'durable_model_call_failed',
      causeCode: 'rate_limited',
      message: 'The model call of step 0 failed (rate_limited, HTTP 429): Slow down.',
    });
    const entries = readLedger(env.LEDGER_FILE).map(({ entry }) => entry);
    expect(entries).toEqual([
      'model attempt 0',
      'model attempt 1',
      'model refused',
      'model throttled',
      'model throttled',
    ]);
  });

  it('names the code of an OpenAI API that answers 400, and 429 past the retries (the real adapter and SDK)', async () => {
    const { ingressUrl } = restateServer();
    const scratch = scratchDirectory();
    cleanups.push(() => scratch.remove());
    const suffix = uniqueSuffix().replaceAll('-', '_');
    const env = {
      LEDGER_FILE: path.join(scratch.path, 'ledger.txt'),
      REFUSED_AGENT_NAME: `openai_refused_${suffix}`,
      THROTTLED_AGENT_NAME: `openai_throttled_${suffix}`,
    };
    const endpoint = await EndpointProcess.start('openai-failure-agent.endpoint.mjs', env);
    cleanups.push(() => endpoint.kill());
    await registerDeployment(endpoint);

    const refused = await http('POST', `${ingressUrl}/${env.REFUSED_AGENT_NAME}/refused-1/run`, {
      task: 'Hi',
    });
    expect(refused.status, refused.text).toBe(200);
    expect((refused.json as DurableAgentResult).error).toEqual({
      name: 'DurableModelCallError',
      code: 'durable_model_call_failed',
      causeCode: 'invalid_request',
      message: expect.stringMatching(
        /^The model call of step 0 failed \(invalid_request, HTTP 400\): .*string too long/,
      ),
    });
    const throttled = await http('POST', `${ingressUrl}/${env.THROTTLED_AGENT_NAME}/throttled-1/run`, {
      task: 'Hi',
    });
    expect(throttled.status, throttled.text).toBe(200);
    expect((throttled.json as DurableAgentResult).error).toEqual({
      name: 'DurableModelCallError',
      code: 'durable_model_call_failed',
      causeCode: 'rate_limited',
      message: expect.stringMatching(
        /^The model call of step 0 failed \(rate_limited, HTTP 429\): .*Rate limit reached/,
      ),
    });
    // The 400 is sent once; the 429 once per attempt of the retry policy (2).
    expect(readLedger(env.LEDGER_FILE).map(({ entry }) => entry)).toEqual([
      'openai refused POST /refused/v1/responses',
      'openai throttled POST /throttled/v1/responses',
      'openai throttled POST /throttled/v1/responses',
    ]);
  });
});

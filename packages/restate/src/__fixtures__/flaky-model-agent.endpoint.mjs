// The model-failure test's agents: one whose model is rate limited once, then answers; one whose model refuses the
// request (not retryable); one whose model is rate limited on every attempt, past the retry policy.
import { InvalidRequestError, RateLimitError } from '@org/core';
import { createScriptedModel } from '@org/provider-scripted';
import { createRestateAgent } from '@org/restate';
import { record, serveEndpoint } from './endpoint-support.mjs';

let rateLimited = 0;
const flaky = createScriptedModel({
  script: () => {
    record(`model attempt ${rateLimited}`);
    if (rateLimited++ === 0) {
      return {
        error: new RateLimitError({ message: 'Too many requests.', provider: 'scripted', statusCode: 429 }),
      };
    }
    return { text: 'Answered after a retry.' };
  },
});
const refusing = createScriptedModel({
  script: () => {
    record('model refused');
    return {
      error: new InvalidRequestError({
        message: 'The prompt is too odd.',
        provider: 'scripted',
        statusCode: 400,
      }),
    };
  },
});

const throttled = createScriptedModel({
  script: () => {
    record('model throttled');
    return {
      error: new RateLimitError({ message: 'Slow down.', provider: 'scripted', statusCode: 429 }),
    };
  },
});

const retry = { initialIntervalMs: 50, maxIntervalMs: 100 };
await serveEndpoint([
  createRestateAgent({ name: process.env.FLAKY_AGENT_NAME, agent: { model: flaky }, modelRetry: retry }),
  createRestateAgent({
    name: process.env.REFUSING_AGENT_NAME,
    agent: { model: refusing },
    modelRetry: retry,
  }),
  createRestateAgent({
    name: process.env.THROTTLED_AGENT_NAME,
    agent: { model: throttled },
    modelRetry: { ...retry, maxAttempts: 2 },
  }),
]);

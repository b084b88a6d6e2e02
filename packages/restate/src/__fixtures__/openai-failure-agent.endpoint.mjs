// The provider-failure test's agents: OpenAI models (the real adapter over the real `openai` SDK) whose API, a fake
// server on 127.0.0.1 in this process, refuses every request as the OpenAI API does: 400 `invalid_request_error`
// for one agent, 429 `rate_limit_exceeded` for the other. The adapter's own retries are off: the engine retries.
import { createServer } from 'node:http';
import { createOpenAI } from '@org/provider-openai';
import { createRestateAgent } from '@org/restate';
import { record, serveEndpoint } from './endpoint-support.mjs';

const answers = {
  refused: {
    status: 400,
    headers: {},
    body: {
      error: {
        message: "Invalid 'input[0].content': string too long.",
        type: 'invalid_request_error',
        param: 'input[0].content',
        code: 'string_above_max_length',
      },
    },
  },
  throttled: {
    status: 429,
    headers: { 'retry-after-ms': '10' },
    body: {
      error: {
        message: 'Rate limit reached for requests per min. Please try again in 10ms.',
        type: 'requests',
        param: null,
        code: 'rate_limit_exceeded',
      },
    },
  },
};

const api = createServer((request, response) => {
  request.resume();
  request.on('end', () => {
    const kind = request.url?.split('/')[1];
    const answer = Object.hasOwn(answers, kind) ? answers[kind] : undefined;
    record(`openai ${kind} ${request.method} ${request.url}`);
    if (answer === undefined) {
      response.writeHead(404).end();
      return;
    }
    response
      .writeHead(answer.status, { 'content-type': 'application/json', ...answer.headers })
      .end(JSON.stringify(answer.body));
  });
});
await new Promise((resolve) => api.listen(0, '127.0.0.1', resolve));
const apiUrl = `http://127.0.0.1:${api.address().port}`;

const model = (kind) =>
  createOpenAI({ apiKey: 'sk-test', baseURL: `${apiUrl}/${kind}/v1`, maxRetries: 0 })('gpt-4.1-mini');
const modelRetry = { maxAttempts: 2, initialIntervalMs: 50, maxIntervalMs: 100 };
await serveEndpoint([
  createRestateAgent({
    name: process.env.REFUSED_AGENT_NAME,
    agent: { model: model('refused') },
    modelRetry,
  }),
  createRestateAgent({
    name: process.env.THROTTLED_AGENT_NAME,
    agent: { model: model('throttled') },
    modelRetry,
  }),
]);

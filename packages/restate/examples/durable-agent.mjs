// A durable agent endpoint, for the guide (docs/durable-runs.md): an offline scripted model plans four steps of an
// order (reserve and charge in parallel, then ship, then e-mail); each tool takes a second or two and says when it
// runs and in which process. Serves the workflow `orders` on PORT (default 9080).
//
//   PORT=9080 node packages/restate/examples/durable-agent.mjs
//
// Build the packages first (`pnpm build`).

import { createScriptedModel } from '@org/provider-scripted';
import { createRestateAgent } from '@org/restate';
import { defineTool } from '@org/tools';
import * as restate from '@restatedev/restate-sdk';

const say = (text) => console.log(`[pid ${process.pid}] ${text}`);
const work = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

// Its answer is a function of the request (the tool results so far): a replay in a new process picks up where the
// journal ends.
const model = createScriptedModel({
  script: (request) => {
    const results = request.messages.filter((message) => message.role === 'tool');
    say(`model call (${results.length} tool result(s) so far)`);
    if (results.length > 0) return { text: `Order o-42 is on its way. ${results[0].content.slice(0, 200)}` };
    return {
      toolCalls: [
        {
          toolName: 'execute_tool_plan',
          arguments: {
            steps: [
              { id: 'reserve', tool: 'reserve_stock', arguments: { order: 'o-42' } },
              { id: 'charge', tool: 'charge_card', arguments: { order: 'o-42', cents: 4200 } },
              {
                id: 'ship',
                tool: 'ship_order',
                arguments: { order: '$ref:charge.order', after: '$ref:reserve.slot' },
              },
              { id: 'mail', tool: 'send_email', arguments: { tracking: '$ref:ship.tracking' } },
            ],
          },
        },
      ],
    };
  },
});

const tool = (name, description, properties, ms, result) =>
  defineTool({
    name,
    description,
    input: { type: 'object', properties, required: Object.keys(properties) },
    execute: async (args) => {
      say(`${name} started`);
      await work(ms);
      say(`${name} done`);
      return result(args);
    },
  });

const tools = [
  tool('reserve_stock', 'Reserves the stock of an order.', { order: { type: 'string' } }, 1_000, () => ({
    slot: 'A7',
  })),
  tool(
    'charge_card',
    'Charges the card of an order.',
    { order: { type: 'string' }, cents: { type: 'integer' } },
    800,
    ({ order }) => ({ order }),
  ),
  tool(
    'ship_order',
    'Ships an order.',
    { order: { type: 'string' }, after: { type: 'string' } },
    3_000,
    ({ order }) => ({ tracking: `T-${order}` }),
  ),
  tool('send_email', 'E-mails the tracking number.', { tracking: { type: 'string' } }, 500, () => ({
    sent: true,
  })),
];

const orders = createRestateAgent({ name: 'orders', agent: { model, tools, plan: true } });
const port = await restate.serve({ services: [orders], port: Number(process.env.PORT ?? 9080) });
say(`serving the workflow 'orders' on port ${port}`);

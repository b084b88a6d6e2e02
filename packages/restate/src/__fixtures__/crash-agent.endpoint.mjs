// The crash test's agent: plan mode over side-effecting tools. With HANG_SHIP=1, `ship_order` starts and never
// finishes, so the test can kill this process after `charge_card` ran and before the plan completes.

import { createScriptedModel } from '@org/provider-scripted';
import { createRestateAgent } from '@org/restate';
import { defineTool } from '@org/tools';
import { record, serveEndpoint, toolResults } from './endpoint-support.mjs';

const hangShip = process.env.HANG_SHIP === '1';

// An answer is a function of the request, so a model in a new process answers a replayed run where it left off.
const model = createScriptedModel({
  script: (request) => {
    const results = toolResults(request);
    record(`model call after ${results.length} tool result(s)`);
    if (results.length === 0) {
      return {
        toolCalls: [
          {
            id: 'plan-1',
            toolName: 'execute_tool_plan',
            arguments: {
              steps: [
                { id: 'charge', tool: 'charge_card', arguments: { order: 'o-7', cents: 1250 } },
                { id: 'audit', tool: 'audit_log', arguments: { entry: 'order o-7 placed' } },
                { id: 'ship', tool: 'ship_order', arguments: { order: '$ref:charge.order' } },
                { id: 'notify', tool: 'notify_customer', arguments: { tracking: '$ref:ship.tracking' } },
              ],
            },
          },
        ],
      };
    }
    return { text: `Order o-7 is charged and shipped. ${results[0].content.slice(0, 300)}` };
  },
});

const chargeCard = defineTool({
  name: 'charge_card',
  description: 'Charges the card of an order.',
  input: {
    type: 'object',
    properties: { order: { type: 'string' }, cents: { type: 'integer' } },
    required: ['order', 'cents'],
  },
  execute: ({ order, cents }) => {
    record(`charge ${order} ${cents}`);
    return { order, charged: cents };
  },
});
const auditLog = defineTool({
  name: 'audit_log',
  description: 'Writes an audit entry.',
  input: { type: 'object', properties: { entry: { type: 'string' } }, required: ['entry'] },
  execute: ({ entry }) => {
    record(`audit ${entry}`);
    return { logged: true };
  },
});
const shipOrder = defineTool({
  name: 'ship_order',
  description: 'Ships an order.',
  input: { type: 'object', properties: { order: { type: 'string' } }, required: ['order'] },
  execute: async ({ order }) => {
    if (hangShip) {
      record(`ship started ${order}`);
      await new Promise(() => {});
    }
    record(`ship ${order}`);
    return { order, tracking: `T-${order}` };
  },
});
const notifyCustomer = defineTool({
  name: 'notify_customer',
  description: 'Tells the customer the tracking number.',
  input: { type: 'object', properties: { tracking: { type: 'string' } }, required: ['tracking'] },
  execute: ({ tracking }) => {
    record(`notify ${tracking}`);
    return { sent: true };
  },
});

const agent = createRestateAgent({
  name: process.env.AGENT_NAME,
  agent: { model, tools: [chargeCard, auditLog, shipOrder, notifyCustomer], plan: true },
});
await serveEndpoint([agent]);

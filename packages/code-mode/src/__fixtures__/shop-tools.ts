import { defineTool, type Tool } from '@org/tools';
import { z } from 'zod';

/** Orders of a small shop: what the code-mode tests call. Deterministic, in memory. */
export const ORDERS: Readonly<Record<string, { id: string; total: number; paid: boolean }>> = {
  o1: { id: 'o1', total: 10, paid: true },
  o2: { id: 'o2', total: 25.5, paid: false },
  o3: { id: 'o3', total: 17, paid: false },
};

export const listOrders = defineTool({
  name: 'list_orders',
  description: 'Ids of all orders.',
  input: z.object({}),
  output: z.array(z.object({ id: z.string() })),
  eager: true,
  execute: async () => Object.keys(ORDERS).map((id) => ({ id })),
});

export const getOrder = defineTool({
  name: 'get_order',
  description: 'One order by id.',
  input: z.object({ id: z.string() }),
  output: z.object({ id: z.string(), total: z.number(), paid: z.boolean() }),
  eager: true,
  execute: async ({ id }) => {
    const order = ORDERS[id];
    if (order === undefined) throw new Error(`No order ${id}`);
    return order;
  },
});

export const add = defineTool({
  name: 'add',
  description: 'Adds two numbers.',
  input: z.object({ a: z.number(), b: z.number() }),
  eager: true,
  execute: async ({ a, b }) => a + b,
});

export const refund = defineTool({
  name: 'refund_order',
  description: 'Refunds an order (needs approval).',
  input: z.object({ id: z.string() }),
  needsApproval: true,
  execute: async ({ id }) => ({ refunded: id }),
});

export const shopTools: Tool[] = [listOrders, getOrder, add, refund] as Tool[];

import type { TaskOutputs } from '@org/provider-scripted';
import { defineTool, type Tool, ToolRegistry } from '@org/tools';
import { z } from 'zod';
import type { DemoTask, ToolClock } from './demo-task.js';
import { memoryTask } from './memory-task.js';
import { defineTaskOutput } from './task-output.js';

/**
 * A table entry by a name the model chose: own entries only, so a city, order id or topic such as `constructor` or
 * `__proto__` is unknown, never a value inherited from `Object.prototype`.
 */
function entryOf<Entry>(table: Readonly<Record<string, Entry>>, name: string): Entry | undefined {
  return Object.hasOwn(table, name) ? table[name] : undefined;
}

const CONCISE =
  'You are a precise assistant. Use the tools for every fact; never invent numbers. Answer in one or two sentences.';

// Every tool of these tasks only reads (a lookup, a search) or computes from its arguments: none has a side effect a
// discarded answer would regret, so each is `eager` and may start the moment its call is complete in the model's
// stream. (The MCP task's tools are not: two of them write, and see memory-task.ts for the reads.)

// ---------------------------------------------------------------------------------------------------------------
// Weather across cities: four independent lookups, then one comparison (n = 5, depth 2).

/**
 * The weather service's answers (degrees Celsius) and how long it takes for each city (milliseconds).
 *
 * @example
 * WEATHER.Rome.temperatureC; // 24
 */
export const WEATHER: Readonly<
  Record<string, { temperatureC: number; conditions: string; latencyMs: number }>
> = {
  Paris: { temperatureC: 18, conditions: 'light rain', latencyMs: 420 },
  Rome: { temperatureC: 24, conditions: 'sunny', latencyMs: 380 },
  Oslo: { temperatureC: 7, conditions: 'overcast', latencyMs: 690 },
  Madrid: { temperatureC: 27, conditions: 'clear', latencyMs: 310 },
};

const reading = z.object({ city: z.string(), temperatureC: z.number(), conditions: z.string() });

/**
 * `get_weather` on the demo's weather table, spending the city's latency on `clock`.
 *
 * @example
 * const tools = new ToolRegistry([createWeatherTool(createVirtualClock())]);
 */
export function createWeatherTool(
  clock: ToolClock,
): Tool<{ city: string }, { city: string; temperatureC: number; conditions: string }> {
  return defineTool({
    name: 'get_weather',
    description: 'Current weather of a city: temperature in degrees Celsius and conditions.',
    input: z.object({ city: z.string().describe('City name, e.g. Paris') }),
    output: reading,
    eager: true,
    execute: async ({ city }, context) => {
      const entry = entryOf(WEATHER, city);
      await clock.sleep(entry?.latencyMs ?? 500, context.signal);
      if (entry === undefined) throw new Error(`No weather station for '${city}'.`);
      return { city, temperatureC: entry.temperatureC, conditions: entry.conditions };
    },
  });
}

function weatherTools(clock: ToolClock): ToolRegistry {
  return new ToolRegistry([
    createWeatherTool(clock),
    defineTool({
      name: 'compare_temperatures',
      description: 'Ranks weather readings from warmest to coldest and gives the spread in degrees Celsius.',
      input: z.object({ readings: z.array(reading).min(2) }),
      eager: true,
      execute: async ({ readings }, context) => {
        await clock.sleep(60, context.signal);
        const ranking = [...readings].sort((a, b) => b.temperatureC - a.temperatureC);
        const warmest = ranking[0];
        const coldest = ranking.at(-1);
        return {
          ranking: ranking.map(({ city, temperatureC }) => ({ city, temperatureC })),
          warmest: warmest?.city,
          coldest: coldest?.city,
          spreadC: (warmest?.temperatureC ?? 0) - (coldest?.temperatureC ?? 0),
        };
      },
    }),
  ]);
}

interface Ranking {
  ranking: { city: string; temperatureC: number }[];
  warmest: string;
  coldest: string;
  spreadC: number;
}

function weatherAnswer({ outputs, errors }: TaskOutputs): string {
  const compare = outputs.compare as Ranking | undefined;
  if (compare === undefined) {
    return `I could not compare the cities: ${Object.keys(errors).join(', ') || 'no result'} failed.`;
  }
  const temperature = (city: string): string =>
    `${compare.ranking.find((entry) => entry.city === city)?.temperatureC ?? '?'}°C`;
  const others = compare.ranking
    .filter((entry) => entry.city !== compare.warmest && entry.city !== compare.coldest)
    .map((entry) => `${entry.city} ${entry.temperatureC}°C`)
    .join(', ');
  return (
    `${compare.warmest} is the warmest at ${temperature(compare.warmest)} and ${compare.coldest} the coldest at ` +
    `${temperature(compare.coldest)} (${others}), a spread of ${compare.spreadC}°C.`
  );
}

/**
 * The weather comparison: four cities looked up in parallel, then ranked.
 *
 * @example
 * const scripts = createTaskScripts({ calls: weatherTask.calls, answer: weatherTask.answer });
 */
export const weatherTask: DemoTask = {
  id: 'weather',
  title: 'Weather across four cities',
  summary: 'four independent lookups, then one comparison (n = 5 calls, depth 2)',
  systemPrompt: CONCISE,
  prompt: 'Which of Paris, Rome, Oslo and Madrid is the warmest right now, and which the coldest?',
  createTools: weatherTools,
  calls: [
    ...Object.keys(WEATHER).map((city) => ({
      id: city.toLowerCase(),
      toolName: 'get_weather',
      arguments: { city },
    })),
    {
      id: 'compare',
      toolName: 'compare_temperatures',
      arguments: { readings: Object.keys(WEATHER).map((city) => `$ref:${city.toLowerCase()}`) },
    },
  ],
  answer: weatherAnswer,
};

// ---------------------------------------------------------------------------------------------------------------
// Data analysis: a search, the details of each record it found, then an analysis (n = 5, depth 3).

/**
 * The order database of the data-analysis task.
 *
 * @example
 * Object.keys(ORDERS); // ['A-1042', 'A-1057', 'A-1063']
 */
export const ORDERS: Readonly<
  Record<string, { amountEUR: number; daysLate: number; carrier: string; latencyMs: number }>
> = {
  'A-1042': { amountEUR: 1280, daysLate: 6, carrier: 'Rapid Freight', latencyMs: 260 },
  'A-1057': { amountEUR: 540, daysLate: 2, carrier: 'Nordic Post', latencyMs: 480 },
  'A-1063': { amountEUR: 2310, daysLate: 9, carrier: 'Rapid Freight', latencyMs: 350 },
};

const order = z.object({
  id: z.string(),
  customer: z.string(),
  amountEUR: z.number(),
  daysLate: z.number(),
  carrier: z.string(),
});

function ordersTools(clock: ToolClock): ToolRegistry {
  return new ToolRegistry([
    defineTool({
      name: 'search_orders',
      description: 'Searches orders by customer and status; returns matching order ids, newest first.',
      input: z.object({ customer: z.string(), status: z.enum(['open', 'delayed', 'delivered']) }),
      eager: true,
      execute: async ({ customer, status }, context) => {
        await clock.sleep(550, context.signal);
        const ids = status === 'delayed' && customer.toLowerCase() === 'acme' ? Object.keys(ORDERS) : [];
        return { customer, status, total: ids.length, orders: ids.map((id) => ({ id })) };
      },
    }),
    defineTool({
      name: 'get_order',
      description: 'Details of one order: amount in euros, days late, carrier.',
      input: z.object({ id: z.string().describe('Order id, e.g. A-1042') }),
      output: order,
      eager: true,
      execute: async ({ id }, context) => {
        const entry = entryOf(ORDERS, id);
        await clock.sleep(entry?.latencyMs ?? 300, context.signal);
        if (entry === undefined) throw new Error(`No order '${id}'.`);
        return {
          id,
          customer: 'ACME',
          amountEUR: entry.amountEUR,
          daysLate: entry.daysLate,
          carrier: entry.carrier,
        };
      },
    }),
    defineTool({
      name: 'analyse_orders',
      description:
        'Statistics over orders: total value, average delay, and the carrier with the most late days.',
      input: z.object({ orders: z.array(order).min(1) }),
      eager: true,
      execute: async ({ orders }, context) => {
        await clock.sleep(120, context.signal);
        const lateDaysByCarrier = new Map<string, number>();
        for (const entry of orders) {
          lateDaysByCarrier.set(entry.carrier, (lateDaysByCarrier.get(entry.carrier) ?? 0) + entry.daysLate);
        }
        const [worstCarrier, worstCarrierLateDays] = [...lateDaysByCarrier].sort(
          (a, b) => b[1] - a[1],
        )[0] ?? ['none', 0];
        return {
          count: orders.length,
          totalAmountEUR: orders.reduce((sum, entry) => sum + entry.amountEUR, 0),
          averageDaysLate:
            Math.round((orders.reduce((sum, entry) => sum + entry.daysLate, 0) / orders.length) * 10) / 10,
          worstCarrier,
          worstCarrierLateDays,
        };
      },
    }),
  ]);
}

interface OrderAnalysis {
  count: number;
  totalAmountEUR: number;
  averageDaysLate: number;
  worstCarrier: string;
  worstCarrierLateDays: number;
}

/**
 * The typed answer of the data-analysis task: what a dashboard or a ticket would take from it, validated.
 *
 * @example
 * const result = await runAgent({ model, tools, task: ordersTask.prompt, output: OrdersReport });
 * result.output?.worstCarrier.name; // 'Rapid Freight', typed
 */
export const OrdersReport = z.object({
  customer: z.string().describe('The customer, as searched'),
  orderIds: z.array(z.string()).describe('The delayed orders, newest first'),
  delayedOrders: z.number().int().describe('How many orders are delayed'),
  totalAmountEUR: z.number().describe('Their total value in euros'),
  averageDaysLate: z.number().describe('Average days late, one decimal'),
  worstCarrier: z
    .object({ name: z.string(), lateDays: z.number().int() })
    .describe('The carrier with the most late days, and how many'),
});

/** The report the informed model writes from what it observed, or `undefined` when the analysis failed. */
function ordersReport({ outputs }: TaskOutputs): z.output<typeof OrdersReport> | undefined {
  const analysis = outputs.analysis as OrderAnalysis | undefined;
  const search = outputs.search as { customer?: string; orders?: { id: string }[] } | undefined;
  if (analysis === undefined || search === undefined) return undefined;
  return {
    customer: search.customer ?? 'unknown',
    orderIds: (search.orders ?? []).map((entry) => entry.id),
    delayedOrders: analysis.count,
    totalAmountEUR: analysis.totalAmountEUR,
    averageDaysLate: analysis.averageDaysLate,
    worstCarrier: { name: analysis.worstCarrier, lateDays: analysis.worstCarrierLateDays },
  };
}

/**
 * The data analysis: search, then each record's details, then an analysis over them, answered as a typed
 * {@link OrdersReport} (`runAgent({ output })`).
 *
 * @example
 * const run = await runTaskInMode(ordersTask, 'plan', { model, clock }); // search → 3 × get_order → analyse_orders
 * run.result.output; // { customer: 'ACME', delayedOrders: 3, ... }, validated against OrdersReport
 */
export const ordersTask: DemoTask = {
  id: 'orders',
  title: 'Delayed orders analysis',
  summary:
    'a search, the details of each record found, then an analysis, answered as a typed OrdersReport (n = 5 calls, depth 3)',
  systemPrompt: CONCISE,
  prompt:
    "How much is tied up in ACME's delayed orders, how late are they on average, and which carrier is to blame?",
  createTools: ordersTools,
  calls: [
    { id: 'search', toolName: 'search_orders', arguments: { customer: 'ACME', status: 'delayed' } },
    ...[0, 1, 2].map((index) => ({
      id: `order${index + 1}`,
      toolName: 'get_order',
      arguments: { id: `$ref:search.orders.${index}.id` },
    })),
    {
      id: 'analysis',
      toolName: 'analyse_orders',
      arguments: { orders: ['$ref:order1', '$ref:order2', '$ref:order3'] },
    },
  ],
  // The report quotes the search (customer, order ids) as well as the analysis: a plan returns both.
  outputSteps: ['search', 'analysis'],
  // The informed model answers with the report's JSON; without an analysis it can only say what failed, which the
  // run then refuses as not matching the schema (StructuredOutputError after one repair round trip).
  answer: (observed) => {
    const report = ordersReport(observed);
    if (report === undefined)
      return `I could not analyse the orders: ${Object.keys(observed.errors).join(', ')} failed.`;
    return JSON.stringify(report);
  },
  output: defineTaskOutput(
    'OrdersReport',
    OrdersReport,
    (report) =>
      `${report.customer} has ${report.delayedOrders} delayed orders worth €${report.totalAmountEUR}, ` +
      `${report.averageDaysLate} days late on average; ${report.worstCarrier.name} accounts for the most late days ` +
      `(${report.worstCarrier.lateDays}).`,
  ),
};

// ---------------------------------------------------------------------------------------------------------------
// Fan-out research: six searches at once, then a synthesis (n = 7, depth 2).

/**
 * The literature index of the research task.
 *
 * @example
 * PAPERS.quantization.papers; // 88
 */
export const PAPERS: Readonly<
  Record<string, { papers: number; top: string; year: number; latencyMs: number }>
> = {
  'speculative decoding': {
    papers: 41,
    top: 'Fast Inference via Speculative Decoding',
    year: 2023,
    latencyMs: 640,
  },
  'kv cache compression': { papers: 27, top: 'H2O: Heavy-Hitter Oracle', year: 2023, latencyMs: 520 },
  'mixture of experts': { papers: 63, top: 'Switch Transformers', year: 2022, latencyMs: 880 },
  quantization: { papers: 88, top: 'GPTQ: Accurate Post-Training Quantization', year: 2023, latencyMs: 450 },
  'flash attention': { papers: 35, top: 'FlashAttention-2', year: 2023, latencyMs: 300 },
  'state space models': {
    papers: 52,
    top: 'Mamba: Linear-Time Sequence Modeling',
    year: 2024,
    latencyMs: 760,
  },
};

const finding = z.object({ topic: z.string(), papers: z.number(), top: z.string(), year: z.number() });

function researchTools(clock: ToolClock): ToolRegistry {
  return new ToolRegistry([
    defineTool({
      name: 'search_papers',
      description:
        'Searches the literature index for a topic: number of papers this year and the most cited one.',
      input: z.object({ topic: z.string() }),
      output: finding,
      eager: true,
      execute: async ({ topic }, context) => {
        const entry = entryOf(PAPERS, topic.toLowerCase());
        await clock.sleep(entry?.latencyMs ?? 500, context.signal);
        return { topic, papers: entry?.papers ?? 0, top: entry?.top ?? 'none', year: entry?.year ?? 0 };
      },
    }),
    defineTool({
      name: 'synthesize',
      description: 'Ranks research findings by activity and names the busiest and quietest topics.',
      input: z.object({ findings: z.array(finding).min(1) }),
      eager: true,
      execute: async ({ findings }, context) => {
        await clock.sleep(200, context.signal);
        const ranked = [...findings].sort((a, b) => b.papers - a.papers);
        return {
          totalPapers: findings.reduce((sum, entry) => sum + entry.papers, 0),
          busiest: ranked[0],
          quietest: ranked.at(-1),
        };
      },
    }),
  ]);
}

interface Synthesis {
  totalPapers: number;
  busiest: { topic: string; papers: number; top: string };
  quietest: { topic: string; papers: number; top: string };
}

/**
 * The fan-out research task: six independent searches, then a synthesis.
 *
 * @example
 * researchTask.calls.length; // 7: six searches and a synthesis
 */
export const researchTask: DemoTask = {
  id: 'research',
  title: 'Fan-out research on inference techniques',
  summary: 'six independent searches, then one synthesis (n = 7 calls, depth 2)',
  systemPrompt: CONCISE,
  prompt: `Survey this year's papers on ${Object.keys(PAPERS).join(', ')}: which topic is busiest, which quietest?`,
  createTools: researchTools,
  calls: [
    ...Object.keys(PAPERS).map((topic) => ({
      id: topic.replaceAll(' ', '_'),
      toolName: 'search_papers',
      arguments: { topic },
    })),
    {
      id: 'synthesis',
      toolName: 'synthesize',
      arguments: { findings: Object.keys(PAPERS).map((topic) => `$ref:${topic.replaceAll(' ', '_')}`) },
    },
  ],
  answer: ({ outputs, errors }) => {
    const synthesis = outputs.synthesis as Synthesis | undefined;
    if (synthesis === undefined) return `I could not synthesise: ${Object.keys(errors).join(', ')} failed.`;
    return (
      `${synthesis.totalPapers} papers in all: ${synthesis.busiest.topic} is busiest (${synthesis.busiest.papers}, ` +
      `led by "${synthesis.busiest.top}"), ${synthesis.quietest.topic} quietest (${synthesis.quietest.papers}).`
    );
  },
};

// ---------------------------------------------------------------------------------------------------------------
// One tool fails: three price lookups (one shop's API is down) and a conversion that needs the failed one.

/**
 * The shops of the failing-tool task; `globex` answers with an HTTP 503.
 *
 * @example
 * SHOPS.globex.currency; // 'USD'
 */
export const SHOPS: Readonly<Record<string, { price: number; currency: 'EUR' | 'USD'; latencyMs: number }>> =
  {
    northwind: { price: 329, currency: 'EUR', latencyMs: 410 },
    contoso: { price: 315, currency: 'EUR', latencyMs: 530 },
    globex: { price: 339, currency: 'USD', latencyMs: 280 },
  };

/**
 * The shop whose price API fails in the failing-tool task.
 *
 * @example
 * pricesTask.calls.find((call) => call.id === FAILING_SHOP); // the call whose tool throws
 */
export const FAILING_SHOP = 'globex';

function priceTools(clock: ToolClock): ToolRegistry {
  return new ToolRegistry([
    defineTool({
      name: 'get_price',
      description: "A shop's current price for a product, in the shop's currency.",
      input: z.object({ shop: z.enum(['northwind', 'contoso', 'globex']), product: z.string() }),
      eager: true,
      execute: async ({ shop, product }, context) => {
        const entry = entryOf(SHOPS, shop);
        await clock.sleep(entry?.latencyMs ?? 400, context.signal);
        if (shop === FAILING_SHOP) throw new Error(`${shop} price API answered 503 Service Unavailable`);
        return { shop, product, price: entry?.price ?? 0, currency: entry?.currency ?? 'EUR' };
      },
    }),
    defineTool({
      name: 'convert_currency',
      description: 'Converts an amount between currencies at today’s rate.',
      input: z.object({ amount: z.number(), from: z.enum(['EUR', 'USD']), to: z.enum(['EUR', 'USD']) }),
      eager: true,
      execute: async ({ amount, from, to }, context) => {
        await clock.sleep(150, context.signal);
        const rate = from === to ? 1 : from === 'USD' ? 0.92 : 1.087;
        return { amount: Math.round(amount * rate * 100) / 100, currency: to };
      },
    }),
  ]);
}

interface Price {
  shop: string;
  price: number;
  currency: string;
}

/**
 * The failing-tool task: one shop's API is down; the answer says so instead of guessing.
 *
 * @example
 * const run = await runTaskInMode(pricesTask, 'plan', { model, clock }); // globex fails, convert is skipped
 */
export const pricesTask: DemoTask = {
  id: 'prices',
  title: 'Price check with one shop down',
  summary: "three lookups, one of which fails, and a conversion that needs the failed one's result",
  systemPrompt: CONCISE,
  prompt:
    'Where is the Aeron chair cheapest in euros: Northwind, Contoso or Globex (which prices in dollars)?',
  createTools: priceTools,
  calls: [
    { id: 'northwind', toolName: 'get_price', arguments: { shop: 'northwind', product: 'Aeron chair' } },
    { id: 'contoso', toolName: 'get_price', arguments: { shop: 'contoso', product: 'Aeron chair' } },
    { id: 'globex', toolName: 'get_price', arguments: { shop: 'globex', product: 'Aeron chair' } },
    {
      id: 'convert',
      toolName: 'convert_currency',
      arguments: { amount: '$ref:globex.price', from: 'USD', to: 'EUR' },
    },
  ],
  answer: ({ outputs, errors }) => {
    const prices = ['northwind', 'contoso']
      .map((id) => outputs[id] as Price | undefined)
      .filter((price): price is Price => price !== undefined)
      .sort((a, b) => a.price - b.price);
    const best = prices[0];
    const failed =
      errors.globex === undefined ? '' : ' Globex could not be checked: its price service failed.';
    if (best === undefined) return `No shop answered.${failed}`;
    const rest = prices
      .slice(1)
      .map((price) => `${price.shop} €${price.price}`)
      .join(', ');
    return `Cheapest that answered: ${best.shop} at €${best.price}${rest === '' ? '' : ` (${rest})`}.${failed}`;
  },
};

// ---------------------------------------------------------------------------------------------------------------
// Unpaid invoices: a list, then each item, then an aggregate. The number of fetches is known only once the list is,
// so no plan can hold them all: native and plan mode need a model call per level, code mode one program.

/**
 * The invoices of the unpaid-invoices task, by id, and how long the billing API takes for each.
 *
 * @example
 * INVOICES['INV-7']?.paid; // false
 */
export const INVOICES: Readonly<
  Record<string, { amountEUR: number; paid: boolean; dueDate: string; latencyMs: number }>
> = {
  'INV-3': { amountEUR: 1200, paid: true, dueDate: '2026-09-30', latencyMs: 240 },
  'INV-5': { amountEUR: 860, paid: false, dueDate: '2026-10-15', latencyMs: 310 },
  'INV-6': { amountEUR: 2450, paid: true, dueDate: '2026-10-31', latencyMs: 280 },
  'INV-7': { amountEUR: 1575, paid: false, dueDate: '2026-11-15', latencyMs: 350 },
  'INV-9': { amountEUR: 430, paid: false, dueDate: '2026-11-30', latencyMs: 220 },
};

const invoice = z.object({ id: z.string(), amountEUR: z.number(), paid: z.boolean(), dueDate: z.string() });

function invoiceTools(clock: ToolClock): ToolRegistry {
  return new ToolRegistry([
    defineTool({
      name: 'list_invoices',
      description: "Ids of a customer's invoices this year.",
      input: z.object({ customer: z.string() }),
      output: z.object({ ids: z.array(z.string()) }),
      eager: true,
      execute: async ({ customer }, context) => {
        await clock.sleep(400, context.signal);
        return { ids: customer.toLowerCase() === 'acme' ? Object.keys(INVOICES) : [] };
      },
    }),
    defineTool({
      name: 'get_invoice',
      description: 'One invoice: amount in euros, whether it is paid, due date.',
      input: z.object({ id: z.string().describe('Invoice id, e.g. INV-3') }),
      output: invoice,
      eager: true,
      execute: async ({ id }, context) => {
        const entry = entryOf(INVOICES, id);
        await clock.sleep(entry?.latencyMs ?? 300, context.signal);
        if (entry === undefined) throw new Error(`No invoice '${id}'.`);
        return { id, amountEUR: entry.amountEUR, paid: entry.paid, dueDate: entry.dueDate };
      },
    }),
  ]);
}

/**
 * The unpaid-invoices task: list a customer's invoices, fetch each, total the unpaid ones. The fetches are a fan-out
 * over the list (`forEach`), the total an aggregate: code mode does it all in one program.
 *
 * @example
 * const run = await runTaskInMode(invoicesTask, 'code', { model, clock }); // 2 model calls
 */
export const invoicesTask: DemoTask = {
  id: 'invoices',
  title: 'Unpaid invoices',
  summary: 'list the invoices, fetch each, total the unpaid ones (a fan-out over a list, then an aggregate)',
  systemPrompt: CONCISE,
  prompt: 'How much does ACME still owe us on its invoices this year, and which invoices are unpaid?',
  createTools: invoiceTools,
  calls: [
    { id: 'list', toolName: 'list_invoices', arguments: { customer: 'ACME' } },
    { id: 'invoice', toolName: 'get_invoice', forEach: '$ref:list.ids', arguments: { id: '$item' } },
  ],
  aggregates: [
    { id: 'unpaid', of: '$ref:invoice', where: { paid: false }, reduce: 'items' },
    { id: 'owed', of: '$ref:unpaid', reduce: { sum: 'amountEUR' } },
  ],
  outputSteps: ['unpaid', 'owed'],
  // ReAct makes one call per invoice: the list, five fetches and the answer.
  maxSteps: 10,
  answer: ({ outputs, errors }) => {
    const unpaid = outputs.unpaid as { id: string; amountEUR: number }[] | undefined;
    if (unpaid === undefined || typeof outputs.owed !== 'number')
      return `I could not total the invoices: ${Object.keys(errors).join(', ') || 'no result'} failed.`;
    return `ACME owes €${outputs.owed} on ${unpaid.length} unpaid invoices: ${unpaid
      .map((entry) => `${entry.id} (€${entry.amountEUR})`)
      .join(', ')}.`;
  },
};

/**
 * Every task of the demo, in the order it runs them.
 *
 * @example
 * for (const task of DEMO_TASKS) console.log(task.id, task.summary);
 */
export const DEMO_TASKS: readonly DemoTask[] = [
  weatherTask,
  ordersTask,
  researchTask,
  pricesTask,
  invoicesTask,
  memoryTask,
];

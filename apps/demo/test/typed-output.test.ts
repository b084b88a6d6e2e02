import { createVirtualClock, LATENCY_PROFILES } from '@org/provider-scripted';
import { describe, expect, it } from 'vitest';
import {
  createOfflineModel,
  formatTypedOutput,
  MODES,
  type Mode,
  OrdersReport,
  ordersTask,
  runTaskInMode,
} from '../src/index.js';

const EXPECTED_REPORT = {
  customer: 'ACME',
  orderIds: ['A-1042', 'A-1057', 'A-1063'],
  delayedOrders: 3,
  totalAmountEUR: 4130,
  averageDaysLate: 5.7,
  worstCarrier: { name: 'Rapid Freight', lateDays: 15 },
};
const EXPECTED_ANSWER =
  'ACME has 3 delayed orders worth €4130, 5.7 days late on average; Rapid Freight accounts for the most late days (15).';

async function runOrders(mode: Mode, structuredOutput: boolean) {
  const clock = createVirtualClock();
  const model = createOfflineModel(ordersTask, mode, {
    clock,
    latency: LATENCY_PROFILES.typical,
    structuredOutput,
  });
  const run = await runTaskInMode(ordersTask, mode, { model, clock });
  return { run, model };
}

describe('the typed task (orders → OrdersReport), offline', () => {
  it.each(MODES)(
    'in %s mode, on a model without native structured output (the final_answer tool; ReAct: JSON in its answer)',
    async (mode) => {
      const { run, model } = await runOrders(mode, false);
      expect(run.result.finishReason).toBe('final-answer');
      expect(OrdersReport.parse(run.result.output)).toEqual(EXPECTED_REPORT);
      expect(run.typedOutput).toEqual({
        name: 'OrdersReport',
        value: EXPECTED_REPORT,
        route: mode === 'react' ? 'ReAct prompt' : 'final_answer tool',
      });
      expect(run.answer).toBe(EXPECTED_ANSWER);
      // The analytic round trips: the typed answer takes the place of the text answer.
      expect(run.result.roundTrips).toBe({ react: 6, native: 4, plan: 2, code: 2 }[mode]);
      expect(model.requests.every((request) => request.responseFormat === undefined)).toBe(true);
      if (mode !== 'react') {
        expect(model.requests[0]?.tools?.map((tool) => tool.name)).toContain('final_answer');
        expect(run.result.steps.at(-1)?.toolCalls.map((call) => call.toolName)).toEqual(['final_answer']);
      }
    },
  );

  it.each(['native', 'plan'] as const)(
    'in %s mode, as native structured output (a model that declares it)',
    async (mode) => {
      const { run, model } = await runOrders(mode, true);
      expect(run.result.output).toEqual(EXPECTED_REPORT);
      expect(run.typedOutput?.route).toBe('native structured output');
      expect(run.answer).toBe(EXPECTED_ANSWER);
      expect(run.result.roundTrips).toBe({ native: 4, plan: 2 }[mode]);
      for (const request of model.requests) {
        expect(request.responseFormat).toMatchObject({ type: 'json', name: 'final_answer' });
        expect(request.tools?.map((tool) => tool.name)).not.toContain('final_answer');
      }
      // The answer is JSON text, read and validated by the loop.
      expect(JSON.parse(run.result.text)).toEqual(EXPECTED_REPORT);
    },
  );

  it('prints the typed answer field by field, naming its schema and route', async () => {
    const { run } = await runOrders('plan', false);
    expect(run.typedOutput).toBeDefined();
    expect(formatTypedOutput(run.typedOutput as NonNullable<typeof run.typedOutput>)).toEqual([
      'typed answer (OrdersReport, through the final_answer tool), validated:',
      '  customer         "ACME"',
      '  orderIds         ["A-1042","A-1057","A-1063"]',
      '  delayedOrders    3',
      '  totalAmountEUR   4130',
      '  averageDaysLate  5.7',
      '  worstCarrier     {"name":"Rapid Freight","lateDays":15}',
    ]);
  });

  it('says so when a value does not match the schema, instead of guessing', () => {
    expect(ordersTask.output?.summarize({ customer: 'ACME' })).toMatch(
      /^\(an answer that does not match OrdersReport: .+\)$/,
    );
  });
});

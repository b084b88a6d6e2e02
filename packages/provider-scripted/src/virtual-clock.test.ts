import { AbortedError, type Clock as CoreClock } from '@org/core';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createVirtualClock, InvalidDurationError, realClock } from './index.js';

describe('createVirtualClock', () => {
  it('wakes concurrent sleeps in time order and ends at the latest wake-up, in no real time', async () => {
    const clock = createVirtualClock();
    const order: string[] = [];
    const realStart = Date.now();
    await Promise.all([
      clock.sleep(900_000).then(() => order.push(`slow@${clock.now()}`)),
      clock.sleep(100).then(() => order.push(`fast@${clock.now()}`)),
      clock.sleep(500).then(() => order.push(`mid@${clock.now()}`)),
    ]);
    expect(order).toEqual(['fast@100', 'mid@500', 'slow@900000']);
    expect(clock.now()).toBe(900_000);
    expect(Date.now() - realStart).toBeLessThan(60_000);
  });

  it('lets a woken task start an earlier sleep before later ones are considered (skew: A1 900 → A2 100, B1 100 → B2 900)', async () => {
    const clock = createVirtualClock();
    const finished: Record<string, number> = {};
    const chain = async (name: string, first: number, second: number): Promise<void> => {
      await clock.sleep(first);
      await clock.sleep(second);
      finished[name] = clock.now();
    };
    await Promise.all([chain('A', 900, 100), chain('B', 100, 900)]);
    expect(finished).toEqual({ A: 1000, B: 1000 });
  });

  it('starts at the given time, advances by hand, and counts pending sleeps', async () => {
    const clock = createVirtualClock({ startAt: 1_000 });
    expect(clock.now()).toBe(1_000);
    clock.advanceBy(50);
    expect(clock.now()).toBe(1_050);
    const sleeping = clock.sleep(10);
    expect(clock.pendingSleeps()).toBe(1);
    await sleeping;
    expect(clock.pendingSleeps()).toBe(0);
    expect(clock.now()).toBe(1_060);
  });

  it('rejects an aborted sleep with AbortedError and leaves the other sleeps untouched', async () => {
    const clock = createVirtualClock();
    const controller = new AbortController();
    const aborted = clock.sleep(1_000, controller.signal);
    const other = clock.sleep(2_000);
    controller.abort(new Error('user cancelled'));
    await expect(aborted).rejects.toSatisfy((error) => AbortedError.isInstance(error));
    await other;
    expect(clock.now()).toBe(2_000);
    await expect(clock.sleep(5, controller.signal)).rejects.toSatisfy((error) =>
      AbortedError.isInstance(error),
    );
  });

  it('rejects negative, infinite and non-numeric durations with InvalidDurationError', () => {
    const clock = createVirtualClock();
    for (const bad of [-1, Number.POSITIVE_INFINITY, Number.NaN, '10' as unknown as number]) {
      expect(() => clock.sleep(bad)).toThrow(InvalidDurationError);
    }
    expect(() => createVirtualClock({ startAt: -5 })).toThrow(InvalidDurationError);
  });

  it('sleeps until a time exactly (no rounding of time - now), and not at all into the past', async () => {
    const clock = createVirtualClock({ startAt: 0.7 });
    const target = 3.3000000000000003;
    expect(clock.now() + (target - clock.now())).not.toBe(target);
    await clock.sleepUntil(target);
    expect(clock.now()).toBe(target);
    const order: string[] = [];
    await Promise.all([
      clock.sleep(1).then(() => order.push('later')),
      clock.sleepUntil(0.5).then(() => order.push(`past@${clock.now()}`)),
    ]);
    expect(order).toEqual([`past@${target}`, 'later']);
    const controller = new AbortController();
    const aborted = clock.sleepUntil(5_000, controller.signal);
    controller.abort();
    await expect(aborted).rejects.toSatisfy((error) => AbortedError.isInstance(error));
    expect(clock.pendingSleeps()).toBe(0);
    expect(() => clock.sleepUntil(Number.NaN)).toThrow(InvalidDurationError);
  });

  it('property: chains of sleeps finish at the sum of their durations, and every wake-up is in time order', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.array(fc.integer({ min: 0, max: 10_000 }), { minLength: 1, maxLength: 5 }), {
          minLength: 1,
          maxLength: 6,
        }),
        async (chains) => {
          const clock = createVirtualClock();
          const wakeTimes: number[] = [];
          const ends = await Promise.all(
            chains.map(async (durations) => {
              for (const duration of durations) {
                await clock.sleep(duration);
                wakeTimes.push(clock.now());
              }
              return clock.now();
            }),
          );
          expect(ends).toEqual(chains.map((durations) => durations.reduce((sum, value) => sum + value, 0)));
          expect(wakeTimes).toEqual([...wakeTimes].sort((left, right) => left - right));
        },
      ),
      { numRuns: 60 },
    );
  });
});

describe('realClock', () => {
  it('sleeps on real timers and aborts with AbortedError', async () => {
    expect(realClock.kind).toBe('real');
    await realClock.sleep(1);
    const controller = new AbortController();
    const sleeping = realClock.sleep(60_000, controller.signal);
    controller.abort();
    await expect(sleeping).rejects.toSatisfy((error) => AbortedError.isInstance(error));
    expect(() => realClock.sleep(-1)).toThrow(InvalidDurationError);
  });
});

describe('Clock', () => {
  it("is core's Clock plus kind: a scripted clock can be passed wherever core's Clock is expected", async () => {
    const clocks: CoreClock[] = [createVirtualClock({ startAt: 1_000 }), realClock];
    const [virtual] = clocks;
    await virtual?.sleep(250);
    expect(virtual?.now()).toBe(1_250);
    expect(clocks.map((clock) => (clock as { kind?: string }).kind)).toEqual(['virtual', 'real']);
  });
});

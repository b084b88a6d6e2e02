import { describe, expect, it } from 'vitest';
import { ownWorkDeadline } from './index.js';

describe('ownWorkDeadline', () => {
  it("ends a tool's own work 2% before its call's deadline, 5 to 100 ms, counted from the call's timer", () => {
    expect(ownWorkDeadline({ timeoutMs: 500, deadlineAt: 1000 })).toEqual({ timeoutMs: 490, endsAt: 990 });
    expect(ownWorkDeadline({ timeoutMs: 60_000, deadlineAt: 1000 })).toEqual({
      timeoutMs: 59_900,
      endsAt: 900,
    });
    expect(ownWorkDeadline({ timeoutMs: 100, deadlineAt: 1000 })).toEqual({ timeoutMs: 95, endsAt: 995 });
    // Shorter than twice the least lead: half of it.
    expect(ownWorkDeadline({ timeoutMs: 8, deadlineAt: 1000 })).toEqual({ timeoutMs: 4, endsAt: 996 });
  });

  it('has no end without a deadline, and counts from now for a hand-built context without deadlineAt', () => {
    expect(ownWorkDeadline({})).toBeUndefined();
    expect(ownWorkDeadline({ timeoutMs: Number.POSITIVE_INFINITY })).toBeUndefined();
    expect(ownWorkDeadline({ timeoutMs: 500 })).toEqual({ timeoutMs: 490, endsAt: undefined });
  });
});

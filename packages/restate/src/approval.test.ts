import { describe, expect, it } from 'vitest';
import { approvalPromiseName, checkApproval, type PendingApproval } from './index.js';

const pending: PendingApproval = {
  round: 2,
  actions: [
    { id: 'd1', toolName: 'delete_file', args: { path: 'a' } },
    { id: 'd2', toolName: 'delete_file', args: { path: 'b' } },
  ],
};

describe('checkApproval: an approval body against what the run waits for', () => {
  it('accepts a decision for every pending action, as plain data', () => {
    const input = JSON.parse(
      '{"round": 2, "decisions": {"d1": true, "d2": {"approved": false, "reason": "keep b"}}}',
    );
    expect(checkApproval(input, pending, 'run-1')).toEqual({
      round: 2,
      decisions: { d1: true, d2: { approved: false, reason: 'keep b' } },
    });
    expect(approvalPromiseName(2)).toBe('approval-2');
  });

  it.each([
    ['not an object', [true], 'the body is not a JSON object'],
    ['an unknown field', { decisions: {}, approve: true }, 'unknown field "approve"'],
    ['a missing decision', { decisions: { d1: true } }, "no decision for 'd2'"],
    ['a decision for another call', { decisions: { d1: true, d2: true, d3: true } }, "'d3' is not waiting"],
    ['a decision of the wrong shape', { decisions: { d1: 'yes', d2: true } }, "the decision for 'd1' is not"],
    [
      'a decision without approved',
      { decisions: { d1: { reason: 'x' }, d2: true } },
      "has no boolean 'approved'",
    ],
    [
      'a reason too long',
      { decisions: { d1: { approved: true, reason: 'x'.repeat(2001) }, d2: true } },
      'at most 2000',
    ],
    ['a round that is not a number', { round: 'two', decisions: {} }, 'round is not a whole number'],
  ])('refuses %s with 400', (_name, input, message) => {
    expect(() => checkApproval(input, pending, 'run-1')).toThrow(message);
    try {
      checkApproval(input, pending, 'run-1');
    } catch (error) {
      expect(error).toMatchObject({ code: 400 });
    }
  });

  it('refuses an approval of an earlier round as already decided (409), and of a later one (409)', () => {
    expect(() => checkApproval({ round: 1, decisions: { d1: true, d2: true } }, pending, 'run-1')).toThrow(
      "The approval of round 1 of run 'run-1' was already decided",
    );
    expect(() => checkApproval({ round: 3, decisions: { d1: true, d2: true } }, pending, 'run-1')).toThrow(
      "Run 'run-1' waits for round 2, not round 3",
    );
  });
});

import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineTool, unattendedApprovalRefusal } from './index.js';

const remove = defineTool({
  name: 'delete_file',
  description: 'Deletes a file.',
  input: z.object({ path: z.string(), force: z.boolean().optional() }),
  needsApproval: ({ force }) => force === true,
  execute: () => 'deleted',
});
const action = (args: Record<string, unknown>) => ({ id: 'call_1', toolName: 'delete_file', args });
const plan = { subject: "Step 'rm'", container: 'plan', details: { stepId: 'rm' } } as const;

describe('unattendedApprovalRefusal', () => {
  it('lets a call run when its arguments need no approval', async () => {
    expect(await unattendedApprovalRefusal(remove, action({ path: 'a' }), plan)).toBeUndefined();
  });

  it('refuses a call that needs approval, with the advice to call the tool directly', async () => {
    expect(await unattendedApprovalRefusal(remove, action({ path: 'a', force: true }), plan)).toEqual({
      code: 'approval_required',
      message:
        "Step 'rm' was not run: tool 'delete_file' needs approval, which a plan cannot ask for. Call 'delete_file' directly instead.",
      details: { stepId: 'rm', toolName: 'delete_file' },
    });
    const program = { subject: "Call to 'delete_file'", container: 'program', toolName: 'fs_delete' };
    expect(
      (await unattendedApprovalRefusal(remove, action({ path: 'a', force: true }), program))?.message,
    ).toBe(
      "Call to 'delete_file' was not run: tool 'fs_delete' needs approval, which a program cannot ask for. Call 'fs_delete' directly instead.",
    );
  });

  it('runs a call its approve callback approves, and refuses one it declines', async () => {
    const seen: unknown[] = [];
    const approve = (call: { args: unknown }) => {
      seen.push(call.args);
      return (call.args as { path: string }).path === 'tmp/x';
    };
    expect(
      await unattendedApprovalRefusal(remove, action({ path: 'tmp/x', force: true }), { ...plan, approve }),
    ).toBeUndefined();
    expect(
      (await unattendedApprovalRefusal(remove, action({ path: 'etc', force: true }), { ...plan, approve }))
        ?.code,
    ).toBe('approval_required');
    expect(seen).toEqual([
      { path: 'tmp/x', force: true },
      { path: 'etc', force: true },
    ]);
  });

  it('fails closed, saying why, when the approve callback throws', async () => {
    const approve = async () => {
      throw new Error('approval service down');
    };
    expect(
      await unattendedApprovalRefusal(remove, action({ path: 'a', force: true }), { ...plan, approve }),
    ).toEqual({
      code: 'approval_required',
      message:
        "Step 'rm' was not run: deciding whether tool 'delete_file' needs approval failed (approval service down).",
      details: { stepId: 'rm', toolName: 'delete_file' },
    });
  });

  it('treats a rule that throws as needing approval (refused without an approve callback)', async () => {
    const fragile = defineTool({
      name: 'fragile',
      description: 'A tool whose approval rule throws.',
      input: z.object({}),
      needsApproval: () => {
        throw new Error('rule bug');
      },
      execute: () => 'ran',
    });
    const refusal = await unattendedApprovalRefusal(
      fragile,
      { id: 'c', toolName: 'fragile', args: {} },
      plan,
    );
    expect(refusal?.message).toContain('needs approval, which a plan cannot ask for');
  });
});

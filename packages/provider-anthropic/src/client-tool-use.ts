/**
 * Whether a `tool_use` block is one the client must run: no `caller`, or the model calling it directly. A call made
 * by server-side code execution (`caller: {type: 'code_execution_...'}`) runs on Anthropic's side and is no client
 * call, whatever its name.
 */
export function isClientToolUse(block: { readonly type?: unknown; readonly caller?: unknown }): boolean {
  if (block.type !== 'tool_use') return false;
  const caller = block.caller as { readonly type?: unknown } | null | undefined;
  return caller === undefined || caller === null || caller.type === 'direct';
}

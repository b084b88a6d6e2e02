import type { Adjustment } from '@org/core';

// Converse's ToolSpecification.name: "^[a-zA-Z0-9_-]{1,64}$"; a dotted BFCL name (`math.factorial`) is rejected.
const BEDROCK_TOOL_NAME = /^[a-zA-Z0-9_-]{1,64}$/;
const MAX_LENGTH = 64;

/** A two-way map between the caller's tool names and the names sent to Bedrock. */
export interface ToolNameMap {
  /** The wire name of a caller's tool name (itself when valid). */
  toWire(name: string): string;
  /** The caller's name of a wire name (itself when it was not mapped). */
  fromWire(name: string): string;
  /** The `tool-names-mapped` Adjustment, when any name was changed. */
  readonly adjustment: Adjustment | undefined;
}

/**
 * Builds the name map for one request. Names Bedrock accepts are kept; others get invalid characters replaced by
 * `_`, are cut to 64 characters and made unique with a numeric suffix. Names that occur only in the history (a
 * tool no longer offered) are mapped the same way.
 *
 * @example
 * const names = createToolNameMap(['math.factorial', 'search']);
 * names.toWire('math.factorial'); // 'math_factorial'
 */
export function createToolNameMap(names: Iterable<string>): ToolNameMap {
  const toWire = new Map<string, string>();
  const fromWire = new Map<string, string>();
  const unique = [...new Set(names)];
  for (const name of unique) {
    if (BEDROCK_TOOL_NAME.test(name)) {
      toWire.set(name, name);
      fromWire.set(name, name);
    }
  }
  const mapped: Record<string, string> = {};
  for (const name of unique) {
    if (toWire.has(name)) continue;
    const base = (name.replace(/[^a-zA-Z0-9_-]/g, '_') || 'tool').slice(0, MAX_LENGTH);
    let candidate = base;
    for (let suffix = 2; fromWire.has(candidate); suffix++) {
      const tail = `_${suffix}`;
      candidate = base.slice(0, MAX_LENGTH - tail.length) + tail;
    }
    toWire.set(name, candidate);
    fromWire.set(candidate, name);
    mapped[name] = candidate;
  }
  const mappedNames = Object.keys(mapped);
  return {
    toWire: (name) => toWire.get(name) ?? name,
    fromWire: (name) => fromWire.get(name) ?? name,
    adjustment:
      mappedNames.length === 0
        ? undefined
        : {
            kind: 'tool-names-mapped',
            message:
              `Bedrock accepts tool names matching ${BEDROCK_TOOL_NAME.source}; ` +
              `${mappedNames.map((name) => `'${name}' was sent as '${mapped[name]}'`).join(', ')} and mapped back in the answer.`,
            details: { mapping: mapped },
          },
  };
}

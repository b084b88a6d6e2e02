import type { ToolChoice, ToolSpec } from '@org/core';

/**
 * The instructions a ReAct planner appends to the system prompt: each tool with the JSON Schema of its
 * arguments, the decision format, and what the step's tool choice demands.
 *
 * @example
 * renderReActInstructions(registry.specs(), ToolChoice.auto(), 'json');
 */
export function renderReActInstructions(
  tools: readonly ToolSpec[],
  toolChoice: ToolChoice,
  decisionFormat: 'json' | 'text' = 'json',
): string {
  const toolList =
    tools.length === 0
      ? 'No tools are available.'
      : tools
          .map(
            (tool) =>
              `- ${tool.name}: ${tool.description}\n  Arguments (JSON Schema): ${JSON.stringify(tool.inputSchema)}`,
          )
          .join('\n');
  const format =
    decisionFormat === 'json'
      ? [
          'Work one step at a time. Answer with exactly one JSON object and nothing else, either',
          '{"thought": "<your reasoning>", "type": "call_tool", "tool": "<tool name>", "args": {<arguments>}}',
          'to call one tool, or',
          '{"thought": "<your reasoning>", "type": "final_answer", "answer": "<the answer for the user>"}',
          'when you can answer.',
        ]
      : [
          'Work one step at a time. Answer in exactly this form, either',
          'Thought: <your reasoning>\nAction: <tool name>\nAction Input: <the arguments as one JSON object>',
          'to call one tool, or',
          'Thought: <your reasoning>\nFinal Answer: <the answer for the user>',
          'when you can answer.',
        ];
  return [
    'You can use these tools:',
    toolList,
    '',
    ...format,
    'After a tool call you receive "Observation: <result>".',
    ...toolChoiceRule(toolChoice),
  ].join('\n');
}

function toolChoiceRule(toolChoice: ToolChoice): string[] {
  switch (toolChoice.type) {
    case 'none':
      return ['Do not call a tool now: give your final answer.'];
    case 'required':
      return ['You must call a tool now.'];
    case 'tool':
      return [`You must call the tool '${toolChoice.toolName}' now.`];
    default:
      return [];
  }
}

/** The reason a decision breaks the step's tool choice, or `undefined` when it honours it. */
export function toolChoiceViolation(
  toolChoice: ToolChoice,
  decision: { type: 'call_tool'; tool: string } | { type: 'final_answer' },
): string | undefined {
  if (toolChoice.type === 'none' && decision.type === 'call_tool') {
    return 'Tools may not be called now; give your final answer with "type": "final_answer".';
  }
  if (toolChoice.type === 'required' && decision.type === 'final_answer') {
    return 'You must call a tool now with "type": "call_tool".';
  }
  if (
    toolChoice.type === 'tool' &&
    (decision.type !== 'call_tool' || decision.tool !== toolChoice.toolName)
  ) {
    return `You must call the tool '${toolChoice.toolName}' now.`;
  }
  return undefined;
}

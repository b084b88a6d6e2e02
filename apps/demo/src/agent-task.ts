import { ToolRegistry, toolFromDescription } from '@org/tools';
import { type AgentConfig, fillAnswerTemplate } from './agent-config.js';
import type { DemoTask, ToolClock } from './demo-task.js';
import { WEATHER } from './tasks.js';

/**
 * The task an agent file describes. Its tools are config-only (`toolFromDescription` of `@org/tools`): a tool
 * named `get_weather` answers from the demo's weather table; any other returns its arguments, as
 * `toolFromDescription` does without an implementation. Each spends 100 to 700 simulated milliseconds.
 *
 * @example
 * const task = agentConfigToTask(parseAgentConfig(text, { file: 'agent.yaml', environment: process.env }));
 */
export function agentConfigToTask(config: AgentConfig): DemoTask {
  return {
    id: config.name,
    title: config.name,
    summary: `an agent described in YAML (${config.tools.length} tools)`,
    systemPrompt: config.systemPrompt,
    prompt: config.task,
    createTools: (clock: ToolClock) =>
      new ToolRegistry(
        config.tools.map((tool) =>
          toolFromDescription(tool, async (args, context) => {
            if (tool.name === 'get_weather') {
              const entry = WEATHER[args.city ?? ''];
              await clock.sleep(entry?.latencyMs ?? 500, context.signal);
              if (entry === undefined) throw new Error(`No weather station for '${args.city ?? ''}'.`);
              return { city: args.city, temperatureC: entry.temperatureC, conditions: entry.conditions };
            }
            await clock.sleep(100, context.signal);
            return { ...args };
          }),
        ),
      ),
    calls: config.offline?.calls ?? [],
    // The answer template may quote any call, so a plan returns every step's result.
    outputSteps: (config.offline?.calls ?? []).map((call) => call.id),
    answer: (observed) => fillAnswerTemplate(config.offline?.answer ?? '', observed),
  };
}

import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { AgentConfigError, fillAnswerTemplate, parseAgentConfig, runDemo } from '../src/index.js';

const EXAMPLE = new URL('../examples/agent.yaml', import.meta.url);
const exampleText = readFileSync(EXAMPLE, 'utf8');
const directory = mkdtempSync(join(tmpdir(), 'org-demo-config-'));
afterAll(() => rmSync(directory, { recursive: true, force: true }));

function problemsOf(text: string, environment: Record<string, string> = {}): string[] {
  try {
    parseAgentConfig(text, { file: 'agent.yaml', environment });
  } catch (error) {
    if (!AgentConfigError.isInstance(error)) throw error;
    expect(error.code).toBe('invalid_agent_config');
    return error.message.split('\n').slice(1);
  }
  throw new Error('expected the agent file to be rejected');
}

const MINIMAL = `name: minimal
task: Weather in Paris?
tools:
  - name: get_weather
    description: Current weather of a city.
    args: [city]
`;

describe('parseAgentConfig', () => {
  it('reads the shipped example', () => {
    const config = parseAgentConfig(exampleText, { file: 'agent.yaml', environment: {} });
    expect(config).toMatchObject({
      name: 'trip-weather',
      mode: 'plan',
      maxParallelToolCalls: 4,
      maxSteps: 6,
      toolChoice: { type: 'auto' },
      toolChoiceSource: 'tool_choice.default (OPENAI_TOOL_CHOICE is not set)',
    });
    expect(config.tools.map((tool) => tool.name)).toEqual(['get_weather', 'send_message']);
    expect(config.offline?.calls.map((call) => call.id)).toEqual(['oslo', 'rome', 'message']);
  });

  it('takes the tool choice from the environment variable the file names', () => {
    const required = parseAgentConfig(exampleText, {
      file: 'a',
      environment: { OPENAI_TOOL_CHOICE: 'Required' },
    });
    expect([required.toolChoice, required.toolChoiceSource]).toEqual([
      { type: 'required' },
      'OPENAI_TOOL_CHOICE=Required',
    ]);
    const named = parseAgentConfig(exampleText, {
      file: 'a',
      environment: { OPENAI_TOOL_CHOICE: 'get_weather' },
    });
    expect(named.toolChoice).toEqual({ type: 'tool', toolName: 'get_weather' });
    expect(problemsOf(exampleText, { OPENAI_TOOL_CHOICE: 'get_wether' })).toEqual([
      `- agent.yaml:17:13: tool_choice.from_env: The value of OPENAI_TOOL_CHOICE must be auto, required, any, none, a tool name or { tool: <name> }; got "get_wether"; did you mean 'get_weather'?`,
    ]);
  });

  it('maps planner and use_function_calling to the three modes', () => {
    expect(parseAgentConfig(MINIMAL, { file: 'a', environment: {} }).mode).toBe('native');
    expect(
      parseAgentConfig(`${MINIMAL}use_function_calling: false\n`, { file: 'a', environment: {} }).mode,
    ).toBe('react');
    expect(parseAgentConfig(`${MINIMAL}planner: plan\n`, { file: 'a', environment: {} }).mode).toBe('plan');
  });

  it('lists every problem at once, each with its key path, line and column', () => {
    const text = `name: broken
task: Weather?
planner: plann
use_function_calling: "yes"
max_parallel_tool_calls: "4"
tool_choise: auto
tools:
  - name: get_weather
    descripton: Current weather.
    args: { city: 12 }
  - name: get weather
    description: ""
`;
    expect(problemsOf(text)).toEqual([
      "- agent.yaml:6:1: tool_choise: unknown key; did you mean 'tool_choice'? Known keys: name, system_prompt, task, planner, use_function_calling, max_parallel_tool_calls, tool_choice, max_steps, tools, offline.",
      `- agent.yaml:3:10: planner: must be 'react' (one step per model call) or 'plan' (the model writes a whole plan), got "plann"; did you mean 'plan'?`,
      '- agent.yaml:4:23: use_function_calling: must be true or false, got "yes".',
      '- agent.yaml:5:26: max_parallel_tool_calls: must be a positive integer, got "4".',
      "- agent.yaml:9:5: tools[0].descripton: unknown key; did you mean 'description'? Known keys: name, description, args.",
      '- agent.yaml:8:5: tools[0].description: is required (a non-empty string).',
      '- agent.yaml:10:19: tools[0].args.city: an argument description must be a string.',
      "- agent.yaml:11:11: tools[1].name: 'get weather' is not a tool name: 1 to 64 letters, digits, _ or -.",
      '- agent.yaml:12:18: tools[1].description: must be a non-empty string, got "".',
    ]);
  });

  it('checks the combinations and the names between sections', () => {
    expect(
      problemsOf(`${MINIMAL}planner: plan\nuse_function_calling: false\nmax_parallel_tool_calls: 2\n`),
    ).toEqual([
      '- agent.yaml:8:23: use_function_calling: must be true with planner: plan (the plan is sent as a call of the execute_tool_plan tool).',
      '- agent.yaml:9:26: max_parallel_tool_calls: applies to native function calling only; with use_function_calling: false the model makes one call per turn.',
    ]);
    expect(problemsOf(`${MINIMAL}tool_choice: { tool: get_wether }\n`)).toEqual([
      "- agent.yaml:7:22: tool_choice.tool: names no tool of this agent; did you mean 'get_weather'? Tools: get_weather.",
    ]);
    const offline = `${MINIMAL}offline:
  calls:
    - { id: a, tool: get_weather, arguments: { city: $ref:b.city } }
    - { id: b, tool: search, arguments: { q: x } }
  answer: "{a.temperatureC}"
`;
    expect(problemsOf(offline)).toEqual([
      '- agent.yaml:10:22: offline.calls[1].tool: names no tool of this agent. Tools: get_weather.',
    ]);
    const forward = offline.replace(
      'tool: search, arguments: { q: x }',
      'tool: get_weather, arguments: { city: x }',
    );
    expect(problemsOf(forward)).toEqual([
      "- agent.yaml:9:46: offline.calls[0].arguments: references 'b', which is not an earlier call. List calls after the calls they reference.",
    ]);
  });

  it('reports YAML syntax errors and a document that is not a mapping with their line', () => {
    expect(problemsOf('name: x\ntask: [unclosed\n')[0]).toMatch(/^- agent\.yaml:\d+:\d+: /);
    expect(problemsOf('name: a\nname: b\n')[0]).toMatch(/^- agent\.yaml:2:1: .*unique/i);
    expect(problemsOf('- just\n- a list\n')).toEqual([
      '- agent.yaml:1:1: the file must be a YAML mapping (name, task, tools, ...).',
    ]);
    expect(problemsOf('name: x\n')).toEqual([
      '- agent.yaml:1:1: task: is required (a non-empty string).',
      '- agent.yaml:1:1: tools: is required: a list of tools, each with name, description and args.',
    ]);
  });
});

describe('fillAnswerTemplate', () => {
  it('fills paths into outputs and marks what it cannot find', () => {
    const observed = {
      outputs: { a: { t: 18, list: [{ id: 'x' }] }, s: 'text' },
      errors: { f: 'Error (x): boom' },
    };
    expect(fillAnswerTemplate('{a.t}°C {a.list.0.id} {s} {f} {f.error} {a.error} {nope.x}', observed)).toBe(
      '18°C x text unknown failed none unknown',
    );
  });

  it('leaves text without placeholders as it is', () => {
    fc.assert(
      fc.property(
        fc.string().filter((text) => !/[{}]/.test(text)),
        (text) => {
          expect(fillAnswerTemplate(text, { outputs: {}, errors: {} })).toBe(text);
        },
      ),
    );
  });
});

describe('--config', () => {
  async function demo(argv: readonly string[], environment: Record<string, string> = {}) {
    let stdout = '';
    let stderr = '';
    const outcome = await runDemo(argv, {
      stdout: (text) => {
        stdout += text;
      },
      stderr: (text) => {
        stderr += text;
      },
      environment,
      cwd: directory,
    });
    return { ...outcome, stdout, stderr };
  }

  it('runs the example agent offline, answering from the real tool outputs', async () => {
    const outcome = await demo(['--config', EXAMPLE.pathname, '--out', join(directory, 'out')]);
    expect(outcome.stderr).toBe('');
    expect(outcome.exitCode).toBe(0);
    expect(outcome.stdout).toContain("Agent 'trip-weather'");
    expect(outcome.runs).toHaveLength(1);
    expect(outcome.runs[0]?.mode).toBe('plan');
    expect(outcome.runs[0]?.result.roundTrips).toBe(2);
    expect(outcome.runs[0]?.result.text).toBe(
      'Rome is 24°C and sunny against 7°C in Oslo; I told your travel buddy: "sunny".',
    );
    expect(outcome.timelines).toHaveLength(1);
  });

  it('exits with code 2 and points at the offending key', async () => {
    const file = join(directory, 'bad.yaml');
    writeFileSync(file, exampleText.replace('planner: plan', 'planer: plan'));
    const outcome = await demo(['--config', 'bad.yaml']);
    expect(outcome.exitCode).toBe(2);
    expect(outcome.stderr).toBe(
      "org-demo: bad.yaml is not a valid agent (1 problem):\n- bad.yaml:10:1: planer: unknown key; did you mean 'planner'? Known keys: name, system_prompt, task, planner, use_function_calling, max_parallel_tool_calls, tool_choice, max_steps, tools, offline.\n",
    );
    const missing = await demo(['--config', 'missing.yaml']);
    expect(missing.stderr).toBe('org-demo: cannot read missing.yaml: ENOENT.\n');
    const noOffline = join(directory, 'no-offline.yaml');
    writeFileSync(noOffline, MINIMAL);
    expect((await demo(['--config', 'no-offline.yaml'])).stderr).toContain("has no 'offline' section");
    expect((await demo(['--config', 'no-offline.yaml', '--mode', 'plan'])).stderr).toContain(
      'drop --task and --mode',
    );
  });
});

describe('parseAgentConfig: seed 000 layout (read by @org/planner)', () => {
  const SEED = readFileSync(new URL('../examples/seed-agent.yaml', import.meta.url), 'utf8');

  it('reads spec.planner and the gateway through agentOptionsFromConfig, OPENAI_TOOL_CHOICE included', () => {
    const config = parseAgentConfig(SEED, { file: 'seed-agent.yaml', environment: {} });
    expect(config).toMatchObject({
      name: 'trip-weather-seed',
      mode: 'native',
      maxParallelToolCalls: 2,
      maxSteps: 6,
      toolChoice: { type: 'auto' },
      toolChoiceSource: 'default (auto; OPENAI_TOOL_CHOICE is not set)',
      tools: [{ name: 'get_weather', args: { city: '' } }],
    });
    expect(config.systemPrompt).toContain('You help travellers pack.');
    const required = parseAgentConfig(SEED, { file: 'a', environment: { OPENAI_TOOL_CHOICE: 'required' } });
    expect([required.toolChoice, required.toolChoiceSource]).toEqual([
      { type: 'required' },
      'OPENAI_TOOL_CHOICE=required',
    ]);
    const fromGateway = parseAgentConfig(
      `${SEED.replace('model: gpt-4o-mini', 'model: gpt-4o-mini\n        tool_choice: none')}`,
      {
        file: 'a',
        environment: { OPENAI_TOOL_CHOICE: 'required' },
      },
    );
    expect(fromGateway.toolChoice).toEqual({ type: 'none' });
  });

  it("locates the library's problems in the file", () => {
    expect(problemsOf(SEED.replace('use_function_calling: true', 'use_function_calls: true'))).toEqual([
      expect.stringMatching(
        /^- agent\.yaml:\d+:7: spec\.planner\.config\.use_function_calls: unknown key; did you mean 'use_function_calling'\?/,
      ),
      expect.stringMatching(/max_parallel_tool_calls: applies to function calling only/),
    ]);
  });

  it('runs offline like any agent file', async () => {
    let stdout = '';
    let stderr = '';
    const outcome = await runDemo(
      [
        '--config',
        new URL('../examples/seed-agent.yaml', import.meta.url).pathname,
        '--out',
        join(directory, 'seed-out'),
      ],
      {
        stdout: (text) => {
          stdout += text;
        },
        stderr: (text) => {
          stderr += text;
        },
        environment: {},
        cwd: directory,
      },
    );
    expect(stderr).toBe('');
    expect(outcome.exitCode).toBe(0);
    expect(stdout).toContain("Agent 'trip-weather-seed'");
    expect(outcome.runs[0]?.mode).toBe('native');
    expect(outcome.runs[0]?.result.text).toBe('Rome is 24°C and sunny against 7°C in Oslo.');
  });
});

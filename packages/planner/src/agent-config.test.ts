import { createScriptedModel } from '@org/provider-scripted';
import { defineTool } from '@org/tools';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  agentOptionsFromConfig,
  InvalidAgentConfigError,
  InvalidAgentOptionsError,
  runAgent,
  TOOL_CHOICE_ENVIRONMENT_VARIABLE,
} from './index.js';

/** Seed 000's agent configuration, as its YAML parses. */
function seedConfig(gatewayConfig: Record<string, unknown> = { model: 'gpt-4o-mini', tool_choice: 'auto' }) {
  return {
    spec: {
      planner: {
        type: 'ReActPlanner',
        config: {
          tool_descriptions: [
            {
              name: 'search_database',
              description: 'Search the database for records matching a query.',
              args: ['query', 'limit'],
            },
            {
              name: 'get_record_details',
              description: 'Get detailed information about a specific record by ID.',
              args: ['record_id'],
            },
            {
              name: 'analyze_data',
              description: 'Analyze data and return statistical summary.',
              args: ['data', 'analysis_type'],
            },
          ],
          system_prompt: 'You are a data analysis specialist. Your role is to analyze and query data.\n',
          use_function_calling: true,
          max_parallel_tool_calls: 3,
        },
      },
    },
    resources: {
      inference_gateways: [{ name: 'openai-llm', type: 'OpenAIGateway', config: gatewayConfig }],
    },
  };
}

function problemsOf(config: unknown, environment: Record<string, string> = {}): string[] {
  try {
    agentOptionsFromConfig(config, { environment });
  } catch (error) {
    if (!InvalidAgentConfigError.isInstance(error)) throw error;
    expect(error.code).toBe('invalid_agent_config');
    return error.problems.map((problem) => `${problem.path}: ${problem.message}`);
  }
  throw new Error('expected the configuration to be rejected');
}

const search = (query: string, id: string) => ({
  id,
  toolName: 'search_database',
  arguments: { query, limit: '10' },
});

describe('agentOptionsFromConfig: seed 000 configuration', () => {
  it('loads the seed configuration as written and runs it: planner, tools, system prompt, parallel limit, tool choice', async () => {
    const searched: string[] = [];
    const agent = agentOptionsFromConfig(seedConfig({ model: 'gpt-4o-mini', tool_choice: 'required' }), {
      environment: {},
      implementations: {
        search_database: ({ query }) => {
          searched.push(query ?? '');
          return { records: [`${query}-1`] };
        },
      },
    });
    expect(agent).toMatchObject({
      plannerKind: 'function-calling',
      maxParallelToolCalls: 3,
      gateway: { name: 'openai-llm', type: 'OpenAIGateway', model: 'gpt-4o-mini' },
      toolChoiceSource: 'gateway',
      options: { toolChoice: { type: 'required' } },
    });
    const model = createScriptedModel({
      script: [
        { toolCalls: [search('a', '1'), search('b', '2'), search('c', '3'), search('d', '4')] },
        { text: 'Found four.' },
      ],
    });
    const result = await runAgent({ model, ...agent.options, task: 'Find active users' });
    expect(result.finishReason).toBe('final-answer');
    // max_parallel_tool_calls: the fourth call is answered, not run.
    expect(searched).toEqual(['a', 'b', 'c']);
    expect(result.steps[0]?.rejectedToolCalls).toEqual([{ toolCallId: '4', reason: 'parallel-limit' }]);
    const request = model.requests[0];
    expect(request?.toolChoice).toEqual({ type: 'required' });
    expect(request?.messages[0]).toEqual({
      role: 'system',
      content: 'You are a data analysis specialist. Your role is to analyze and query data.\n',
    });
    expect(request?.tools?.map((tool) => [tool.name, tool.inputSchema.required])).toEqual([
      ['search_database', ['query', 'limit']],
      ['get_record_details', ['record_id']],
      ['analyze_data', ['data', 'analysis_type']],
    ]);
  });

  it('reads OPENAI_TOOL_CHOICE when no gateway sets tool_choice; a gateway tool_choice wins', () => {
    const withoutChoice = seedConfig({ model: 'gpt-4o-mini' });
    expect(
      agentOptionsFromConfig(withoutChoice, { environment: { OPENAI_TOOL_CHOICE: 'Required' } }),
    ).toMatchObject({ toolChoiceSource: 'environment', options: { toolChoice: { type: 'required' } } });
    expect(
      agentOptionsFromConfig(withoutChoice, { environment: { OPENAI_TOOL_CHOICE: 'analyze_data' } }).options
        .toolChoice,
    ).toEqual({ type: 'tool', toolName: 'analyze_data' });
    const unset = agentOptionsFromConfig(withoutChoice, { environment: {} });
    expect(unset.toolChoiceSource).toBe('default');
    expect(unset.options.toolChoice).toBeUndefined();
    expect(
      agentOptionsFromConfig(seedConfig({ tool_choice: 'none' }), {
        environment: { OPENAI_TOOL_CHOICE: 'required' },
      }).options.toolChoice,
    ).toEqual({ type: 'none' });
    expect(problemsOf(withoutChoice, { OPENAI_TOOL_CHOICE: 'analyse_data' })).toEqual([
      `$OPENAI_TOOL_CHOICE: must be auto, required, any, none or a described tool's name, got "analyse_data"; did you mean 'analyze_data'?`,
    ]);
  });

  describe('with process.env', () => {
    const saved = process.env[TOOL_CHOICE_ENVIRONMENT_VARIABLE];
    afterEach(() => {
      if (saved === undefined) delete process.env[TOOL_CHOICE_ENVIRONMENT_VARIABLE];
      else process.env[TOOL_CHOICE_ENVIRONMENT_VARIABLE] = saved;
    });

    it('reads process.env by default, where the seed reads it', async () => {
      process.env[TOOL_CHOICE_ENVIRONMENT_VARIABLE] = 'none';
      const agent = agentOptionsFromConfig(seedConfig({ model: 'gpt-4o-mini' }));
      expect(agent.toolChoiceSource).toBe('environment');
      const model = createScriptedModel({ script: [{ text: 'No tools needed.' }] });
      await runAgent({ model, ...agent.options, task: 'Hello' });
      expect(model.requests[0]?.toolChoice).toEqual({ type: 'none' });
    });
  });

  it("takes the gateway's tool choice in OpenAI's form and as a tool name", () => {
    expect(
      agentOptionsFromConfig(
        seedConfig({ tool_choice: { type: 'function', function: { name: 'get_record_details' } } }),
        { environment: {} },
      ).options.toolChoice,
    ).toEqual({ type: 'tool', toolName: 'get_record_details' });
    expect(
      agentOptionsFromConfig(seedConfig({ tool_choice: 'search_database' }), { environment: {} }).options
        .toolChoice,
    ).toEqual({ type: 'tool', toolName: 'search_database' });
  });

  it('picks the ReAct prompt when use_function_calling is false or unset, as the seed does', async () => {
    const config = seedConfig();
    const plannerConfig = config.spec.planner.config as Record<string, unknown>;
    delete plannerConfig.max_parallel_tool_calls;
    delete plannerConfig.use_function_calling;
    const agent = agentOptionsFromConfig(config, { environment: {} });
    expect(agent.plannerKind).toBe('react');
    const model = createScriptedModel({
      script: [{ text: JSON.stringify({ thought: 'Easy.', type: 'final_answer', answer: 'Done.' }) }],
    });
    const result = await runAgent({ model, ...agent.options, task: 'Hello' });
    expect(result).toMatchObject({ finishReason: 'final-answer', text: 'Done.' });
    expect(model.requests[0]?.tools).toBeUndefined();
  });

  it('uses a given tool for its schema and implementation, with the described description', async () => {
    const details = defineTool({
      name: 'get_record_details',
      description: 'Original description.',
      input: z.object({ record_id: z.number().int() }),
      execute: ({ record_id }) => ({ id: record_id, name: 'Alice' }),
    });
    const agent = agentOptionsFromConfig(seedConfig(), { environment: {}, tools: [details] });
    const tool = agent.options.tools.get('get_record_details');
    expect(tool?.description).toBe('Get detailed information about a specific record by ID.');
    expect(tool?.inputSchema.properties).toMatchObject({ record_id: { type: 'integer' } });
    const model = createScriptedModel({
      script: [
        { toolCalls: [{ toolName: 'get_record_details', arguments: { record_id: 7 } }] },
        { text: 'Alice.' },
      ],
    });
    const result = await runAgent({ model, ...agent.options, task: 'Who is 7?' });
    expect(result.observations[0]).toMatchObject({ status: 'success', output: { id: 7, name: 'Alice' } });

    const mismatch = seedConfig();
    mismatch.spec.planner.config.tool_descriptions[1] = {
      name: 'get_record_details',
      description: 'Details.',
      args: ['record_id', 'verbose'],
    };
    expect(() => agentOptionsFromConfig(mismatch, { environment: {}, tools: [details] })).toThrow(
      /tool_descriptions\[1\]\.args: names 'verbose', which tool 'get_record_details' does not take/,
    );
  });

  it('lists every unknown key and invalid value with its path; nothing is dropped silently', () => {
    const config = {
      spec: {
        planner: {
          type: 'ReActPlaner',
          config: {
            tool_descriptions: [
              { name: 'search_database', description: 'Search.', args: ['query'], returns: 'rows' },
              { name: 'search_database', description: 'Again.' },
              { name: 'bad name!', description: 'x' },
            ],
            system_promt: 'Hi',
            use_function_calling: 'yes',
            max_parallel_tool_calls: 0,
          },
        },
        memory: true,
      },
      resources: {
        inference_gateways: [
          {
            name: 'openai-llm',
            type: 'OpenAIGateway',
            config: { tool_choice: 'serch_database', api_key: 'sk' },
          },
        ],
      },
      metadata: { name: 'x' },
    };
    expect(problemsOf(config)).toEqual([
      'metadata: unknown key. Known keys: spec, resources.',
      'spec.memory: unknown key. Known keys: planner.',
      'spec.planner.type: must be ReActPlanner, got "ReActPlaner"; did you mean \'ReActPlanner\'?',
      "spec.planner.config.system_promt: unknown key; did you mean 'system_prompt'? Known keys: tool_descriptions, system_prompt, use_function_calling, max_parallel_tool_calls.",
      'spec.planner.config.use_function_calling: must be true or false, got "yes".',
      'spec.planner.config.max_parallel_tool_calls: must be an integer >= 1, got 0.',
      'spec.planner.config.tool_descriptions[0].returns: unknown key. Known keys: name, description, args.',
      "spec.planner.config.tool_descriptions[1].name: 'search_database' is already the name of an earlier tool.",
      expect.stringMatching(/^spec\.planner\.config\.tool_descriptions\[2\]: .*bad name!/),
      'resources.inference_gateways[0].config.api_key: unknown key. Known keys: model, tool_choice, temperature, max_tokens.',
      `resources.inference_gateways[0].config.tool_choice: must be auto, required, any, none or a described tool's name, got "serch_database"; did you mean 'search_database'?`,
    ]);
  });

  it('reads only own keys: hostile names from a parsed config find nothing inherited', () => {
    const hostile = JSON.parse(
      '{"spec": {"planner": {"type": "ReActPlanner", "config": {"tool_descriptions": [{"name": "constructor", "description": "Hostile.", "args": ["x"]}]}}}, "__proto__": {"polluted": true}}',
    );
    expect(problemsOf(hostile)).toEqual(['__proto__: unknown key. Known keys: spec, resources.']);
    Reflect.deleteProperty(hostile, '__proto__');
    const agent = agentOptionsFromConfig(hostile, { environment: {}, implementations: {} });
    // No implementation named `constructor`: the config-only tool returns its arguments.
    expect(agent.options.tools.names()).toEqual(['constructor']);
    expect(() =>
      agentOptionsFromConfig(hostile, { environment: {}, implementations: { constructr: () => 1 } }),
    ).toThrow(InvalidAgentOptionsError);
  });

  it('selects a gateway by name when several are declared, and says so when none is named', () => {
    const config = seedConfig();
    config.resources.inference_gateways.push({
      name: 'strict-llm',
      type: 'OpenAIGateway',
      config: { tool_choice: 'required' },
    });
    expect(problemsOf(config)).toEqual([
      "resources.inference_gateways: declares 2 gateways; name the agent's with the gateway option (openai-llm, strict-llm).",
    ]);
    expect(
      agentOptionsFromConfig(config, { environment: {}, gateway: 'strict-llm' }).options.toolChoice,
    ).toEqual({
      type: 'required',
    });
  });
});

import { closestMatch } from '@org/core';
import { LATENCY_PROFILES } from '@org/provider-scripted';
import { DemoUsageError } from './errors.js';
import {
  OPENAI_APIS,
  type OpenAIApi,
  REAL_PROVIDERS,
  type RealProvider,
  STRUCTURED_OUTPUT_ROUTES,
  type StructuredOutputRoute,
} from './providers.js';
import { MODES, type Mode } from './run-mode.js';

/** The demo's command line, parsed. */
export interface DemoArguments {
  readonly tasks: readonly string[];
  readonly modes: readonly Mode[];
  readonly latency: keyof typeof LATENCY_PROFILES;
  readonly realTime: boolean;
  readonly outDir?: string;
  readonly provider?: RealProvider;
  readonly model?: string;
  /** With `--provider openai`: the API to speak, `responses` (default) or `chat` (Chat Completions). */
  readonly api?: OpenAIApi;
  /** With `--provider openai`: the server to call (an OpenAI-compatible server or a proxy), an http(s) URL. */
  readonly baseUrl?: string;
  readonly config?: string;
  /**
   * How a model is asked for a typed answer: `native` declares native structured output, `tool` declares none (the
   * `final_answer` tool). Default: what the model declares (the scripted model: none; the adapters: native).
   */
  readonly structuredOutput?: StructuredOutputRoute;
  readonly quiet: boolean;
  /** Start `eager` tools while the model is still writing (`--no-eager` turns it off, for comparison). */
  readonly eager: boolean;
  /** Print each run's trace tree (OpenTelemetry spans, GenAI conventions). */
  readonly trace: boolean;
  /** Record the runs and serve the run viewer (`@org/devtools`) until Ctrl-C. */
  readonly ui: boolean;
  /** With `--ui`: the viewer's port (0 picks a free one). Default 4319. */
  readonly uiPort?: number;
  readonly help: boolean;
}

/**
 * The usage text of `org-demo --help`.
 *
 * @example
 * if (argv.includes('--help')) process.stdout.write(USAGE);
 */
export const USAGE = `Usage: org-demo [options]

Runs realistic tasks in ReAct, native function calling, plan mode and code mode, prints each step live (the model's text
as it streams, the tools that start while it is still writing) and a comparison table, and writes an SVG
timeline of every function-calling, plan and code run. Offline by default (scripted model, simulated latency).

Options:
  --task <ids>        Tasks to run, comma-separated (default: all): weather, orders, research, prices,
                      invoices, memory
  --mode <modes>      Modes to run, comma-separated (default: all): react, native, plan, code
  --latency <name>    Simulated model latency: fast, typical (default), slow
  --real-time         Spend simulated latency on real timers instead of the virtual clock
  --out <dir>         Where to write the run timelines (default: apps/demo/out)
  --no-eager          Wait for each whole model answer before starting any tool (default: eager tools
                      start as soon as their call is complete in the stream)
  --structured-output <route>
                      How a typed answer is asked for: native (responseFormat) or tool (a final_answer
                      tool call); default: what the model declares (offline: tool)
  --provider <name>   Run on a real provider: openai (OPENAI_API_KEY), anthropic (ANTHROPIC_API_KEY),
                      bedrock (AWS_ACCESS_KEY_ID + AWS_SECRET_ACCESS_KEY or AWS_PROFILE, and AWS_REGION),
                      mistral (MISTRAL_API_KEY; MISTRAL_SERVER_URL for another server),
                      google (GOOGLE_API_KEY or GEMINI_API_KEY; the Gemini API)
  --model <id>        The provider's model id (required with --provider)
  --api <name>        With --provider openai: responses (default) or chat (Chat Completions, which local
                      OpenAI-compatible servers speak: LM Studio, Ollama, vLLM, llama.cpp)
  --base-url <url>    With --provider openai: the server to call, e.g. http://localhost:1234/v1 (default:
                      OPENAI_BASE_URL, else api.openai.com); OPENAI_API_KEY is then optional
  --config <file>     Run an agent described in YAML (see examples/agent.yaml)
  --quiet             Print only the table and the timeline paths
  --trace             Print the trace tree of each run (OpenTelemetry spans, GenAI conventions)
  --ui                Record the runs into .org-devtools/ and show them live in the run viewer
                      (@org/devtools) on 127.0.0.1; it keeps serving after the runs until Ctrl-C (or
                      SIGTERM: \`kill <pid>\` ends a non-interactive run)
  --ui-port <port>    With --ui: the viewer's port (default 4319; 0 picks a free one)
  --help              Show this text
`;

function list<T extends string>(flag: string, value: string, allowed: readonly T[]): T[] {
  const items = value
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item !== '');
  if (items.length === 0)
    throw new DemoUsageError({ flag, message: `${flag} needs a value: ${allowed.join(', ')}.` });
  for (const item of items) {
    if (!(allowed as readonly string[]).includes(item)) {
      const suggestion = closestMatch(item, allowed);
      throw new DemoUsageError({
        flag,
        message: `${flag}: unknown value '${item}'${suggestion === undefined ? '' : ` (did you mean '${suggestion}'?)`}; expected ${allowed.join(', ')}.`,
      });
    }
  }
  return [...new Set(items)] as T[];
}

/** An absolute http(s) URL, or a `DemoUsageError` naming the flag. */
function httpUrl(flag: string, value: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new DemoUsageError({
      flag,
      message: `${flag}: '${value}' is not a URL; expected e.g. http://localhost:1234/v1.`,
    });
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new DemoUsageError({
      flag,
      message: `${flag}: '${value}' must be an http:// or https:// URL, e.g. http://localhost:1234/v1.`,
    });
  }
  return value;
}

/** `--ui-port`'s value: a port number, given only with `--ui`. */
function uiPortOf(value: string | undefined, ui: boolean): { uiPort?: number } {
  if (value === undefined) return {};
  if (!ui) throw new DemoUsageError({ flag: '--ui-port', message: '--ui-port applies to --ui: add --ui.' });
  const port = /^\d{1,5}$/.test(value) ? Number(value) : Number.NaN;
  if (!(port <= 65_535)) {
    throw new DemoUsageError({
      flag: '--ui-port',
      message: `--ui-port: '${value}' is not a port (0 to 65535).`,
    });
  }
  return { uiPort: port };
}

const FLAGS = [
  '--task',
  '--mode',
  '--latency',
  '--real-time',
  '--out',
  '--provider',
  '--model',
  '--api',
  '--base-url',
  '--config',
  '--structured-output',
  '--quiet',
  '--no-eager',
  '--trace',
  '--ui',
  '--ui-port',
  '--help',
];

/**
 * Parses the demo's command line (`--flag value` or `--flag=value`); a bad flag or value is a `DemoUsageError`.
 *
 * @example
 * parseDemoArguments(['--task', 'weather', '--mode=plan'], ['weather', 'orders']);
 */
export function parseDemoArguments(argv: readonly string[], taskIds: readonly string[]): DemoArguments {
  const values = new Map<string, string>();
  const flags = new Set<string>();
  for (let index = 0; index < argv.length; index += 1) {
    const argument = argv[index] ?? '';
    // `pnpm demo -- --task weather` forwards the separator itself.
    if (argument === '--') continue;
    const [flag = '', inline] = argument.startsWith('--') ? argument.split(/=(.*)/s, 2) : [argument];
    if (!FLAGS.includes(flag)) {
      const suggestion = closestMatch(flag, FLAGS);
      throw new DemoUsageError({
        flag,
        message: `unknown argument '${argument}'${suggestion === undefined ? '' : ` (did you mean '${suggestion}'?)`}. See --help.`,
      });
    }
    if (
      flag === '--real-time' ||
      flag === '--quiet' ||
      flag === '--no-eager' ||
      flag === '--trace' ||
      flag === '--ui' ||
      flag === '--help'
    ) {
      flags.add(flag);
      continue;
    }
    const value = inline ?? argv[index + 1];
    if (inline === undefined) index += 1;
    if (value === undefined || value.startsWith('--')) {
      throw new DemoUsageError({ flag, message: `${flag} needs a value. See --help.` });
    }
    values.set(
      flag,
      flag === '--task' || flag === '--mode' ? [values.get(flag), value].filter(Boolean).join(',') : value,
    );
  }
  const provider = values.get('--provider');
  const latency = values.get('--latency') ?? 'typical';
  const outDir = values.get('--out');
  const model = values.get('--model');
  const api = values.get('--api');
  const baseUrl = values.get('--base-url');
  const config = values.get('--config');
  const structuredOutput = values.get('--structured-output');
  const parsed: DemoArguments = {
    tasks: values.has('--task') ? list('--task', values.get('--task') ?? '', taskIds) : [...taskIds],
    modes: values.has('--mode') ? list('--mode', values.get('--mode') ?? '', MODES) : [...MODES],
    latency:
      list('--latency', latency, Object.keys(LATENCY_PROFILES) as (keyof typeof LATENCY_PROFILES)[])[0] ??
      'typical',
    realTime: flags.has('--real-time'),
    quiet: flags.has('--quiet'),
    eager: !flags.has('--no-eager'),
    trace: flags.has('--trace'),
    ui: flags.has('--ui'),
    ...uiPortOf(values.get('--ui-port'), flags.has('--ui')),
    help: flags.has('--help'),
    ...(outDir === undefined ? {} : { outDir }),
    ...(provider === undefined
      ? {}
      : { provider: list('--provider', provider, REAL_PROVIDERS)[0] as RealProvider }),
    ...(model === undefined ? {} : { model }),
    ...(api === undefined ? {} : { api: list('--api', api, OPENAI_APIS)[0] as OpenAIApi }),
    ...(baseUrl === undefined ? {} : { baseUrl: httpUrl('--base-url', baseUrl) }),
    ...(config === undefined ? {} : { config }),
    ...(structuredOutput === undefined
      ? {}
      : {
          structuredOutput: list(
            '--structured-output',
            structuredOutput,
            STRUCTURED_OUTPUT_ROUTES,
          )[0] as StructuredOutputRoute,
        }),
  };
  for (const flag of ['--api', '--base-url'] as const) {
    if (values.has(flag) && parsed.provider !== 'openai') {
      throw new DemoUsageError({
        flag,
        message: `${flag} applies to --provider openai (and OpenAI-compatible servers)${parsed.provider === undefined ? ': add --provider openai' : `, not --provider ${parsed.provider}`}.`,
      });
    }
  }
  if (parsed.provider !== undefined && parsed.model === undefined) {
    throw new DemoUsageError({
      flag: '--model',
      message: `--provider ${parsed.provider} needs --model <id> (the provider's model id).`,
    });
  }
  if (parsed.model !== undefined && parsed.provider === undefined) {
    throw new DemoUsageError({
      flag: '--model',
      message: '--model applies to a real provider: add --provider.',
    });
  }
  if (parsed.config !== undefined && (values.has('--task') || values.has('--mode'))) {
    throw new DemoUsageError({
      flag: '--config',
      message: '--config runs the agent the file describes (its task and planner); drop --task and --mode.',
    });
  }
  return parsed;
}

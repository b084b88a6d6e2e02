import { brandError, OrgError } from '@org/core';

/**
 * A command-line argument the demo cannot use (`--mode fast`, a missing `--model`).
 *
 * @example
 * if (DemoUsageError.isInstance(error)) console.error(error.flag, error.message);
 */
export class DemoUsageError extends OrgError {
  /** The flag concerned, e.g. `--mode`. */
  readonly flag: string;

  constructor(options: { flag: string; message: string }) {
    super('demo_usage', { message: options.message });
    this.flag = options.flag;
  }
}
brandError(DemoUsageError, 'DemoUsageError');

/**
 * A real provider was asked for, but an environment variable it needs is not set.
 *
 * @example
 * if (MissingCredentialsError.isInstance(error)) console.error(`set ${error.missing.join(', ')}`);
 */
export class MissingCredentialsError extends OrgError {
  /** `openai`, `anthropic`, `bedrock`, `google` or `mistral`. */
  readonly provider: string;
  /** The variables that are missing (any one of a group of alternatives is written `A or B`). */
  readonly missing: readonly string[];

  constructor(options: { provider: string; missing: readonly string[]; message: string }) {
    super('missing_credentials', { message: options.message });
    this.provider = options.provider;
    this.missing = options.missing;
  }
}
brandError(MissingCredentialsError, 'MissingCredentialsError');

/** One problem in an agent file, located by its key path and, when known, its line and column. */
export interface AgentConfigProblem {
  /** The key path, e.g. `tools[1].description`; `''` for the whole document. */
  readonly path: string;
  readonly message: string;
  /** 1-based, when the YAML source locates it. */
  readonly line?: number;
  readonly column?: number;
}

/**
 * An agent file (`--config agent.yaml`) that is not valid YAML or does not describe an agent; lists every problem.
 *
 * @example
 * if (AgentConfigError.isInstance(error)) for (const problem of error.problems) console.error(problem.line, problem.path);
 */
export class AgentConfigError extends OrgError {
  /** The file, as given. */
  readonly file: string;
  readonly problems: readonly AgentConfigProblem[];

  constructor(options: { file: string; problems: readonly AgentConfigProblem[] }) {
    const lines = options.problems.map((problem) => `- ${formatProblem(options.file, problem)}`);
    super('invalid_agent_config', {
      message: `${options.file} is not a valid agent (${options.problems.length} problem${
        options.problems.length === 1 ? '' : 's'
      }):\n${lines.join('\n')}`,
    });
    this.file = options.file;
    this.problems = options.problems;
  }
}
brandError(AgentConfigError, 'AgentConfigError');

function formatProblem(file: string, problem: AgentConfigProblem): string {
  const where = problem.line === undefined ? file : `${file}:${problem.line}:${problem.column ?? 1}`;
  return problem.path === ''
    ? `${where}: ${problem.message}`
    : `${where}: ${problem.path}: ${problem.message}`;
}

import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import type { PlopTypes } from '@turbo/gen';

/**
 * `pnpm turbo gen provider --args <name>` scaffolds `packages/provider-<name>` in the one adapter layout every
 * provider shares (docs/providers.md): a working adapter for an example JSON + SSE wire protocol (reasoning, images
 * and files, structured output), built on @org/core's shared logger, retry options and tool-call policy; its fake
 * server (refusing what a real API refuses) and tests under `test/`, a BFCL describe test; and the provider
 * conformance suite wired to it, passing from the first run. The fetch path is the default; `src/client.ts` marks the
 * seam where a vendor SDK's client goes instead. CONTRIBUTING.md says what to replace, step by step. A second argument places the package elsewhere (a directory
 * one level below the repository root, such as `.tmp`, outside the workspace).
 */
export default function generator(plop: PlopTypes.NodePlopAPI): void {
  plop.setGenerator('provider', {
    description: 'A LanguageModel provider adapter, wired to the provider conformance suite',
    prompts: [
      {
        type: 'input',
        name: 'name',
        message: 'Provider name, kebab-case (e.g. mistral, local-llm):',
        validate: (input: string) =>
          /^[a-z][a-z0-9]*(-[a-z0-9]+)*$/.test(input) ||
          'Use lower-case letters, digits and single dashes, starting with a letter (e.g. mistral).',
      },
      {
        type: 'input',
        name: 'directory',
        message: 'Directory for the package, relative to the repository root:',
        default: 'packages',
      },
    ],
    actions: [
      {
        type: 'addMany',
        destination: '{{ turbo.paths.root }}/{{ directory }}/provider-{{ dashCase name }}',
        base: 'templates/provider',
        templateFiles: 'templates/provider/**/*',
        stripExtensions: ['hbs'],
        globOptions: { dot: true },
      },
      {
        type: 'add',
        path: '{{ turbo.paths.root }}/.changeset/provider-{{ dashCase name }}-initial.md',
        templateFile: 'templates/provider-source/changeset.md.hbs',
        skip: (answers: { directory?: string }) =>
          answers.directory !== 'packages' ? 'not a workspace package: no changeset' : undefined,
      },
      // The templates are formatted for a typical name; a longer or shorter one moves line breaks and import order,
      // so the package is formatted once with the repository's Biome (the ignore file is bypassed for `.tmp`).
      (answers) => {
        const root = plop.renderString('{{ turbo.paths.root }}', answers);
        const directory = plop.renderString(
          '{{ turbo.paths.root }}/{{ directory }}/provider-{{ dashCase name }}',
          answers,
        );
        execFileSync(
          join(root, 'node_modules', '.bin', 'biome'),
          ['check', '--write', '--vcs-use-ignore-file=false', directory],
          { cwd: root, stdio: 'pipe' },
        );
        return `formatted ${directory} with Biome`;
      },
    ],
  });
}

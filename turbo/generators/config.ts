import type { PlopTypes } from '@turbo/gen';

/**
 * `pnpm turbo gen provider --args <name>` scaffolds `packages/provider-<name>`: a working adapter for an example
 * JSON + SSE wire protocol, its fake server, and the provider conformance suite wired to it, passing from the
 * first run. CONTRIBUTING.md says what to replace, step by step. A second argument places the package elsewhere
 * (the generator's own check uses `.tmp`, outside the workspace).
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
        path: '{{ turbo.paths.root }}/{{ directory }}/provider-{{ dashCase name }}/src/{{ dashCase name }}-provider.ts',
        templateFile: 'templates/provider-source/provider.ts.hbs',
      },
      {
        type: 'add',
        path: '{{ turbo.paths.root }}/.changeset/provider-{{ dashCase name }}-initial.md',
        templateFile: 'templates/provider-source/changeset.md.hbs',
        skip: (answers: { directory?: string }) =>
          answers.directory !== 'packages' ? 'not a workspace package: no changeset' : undefined,
      },
    ],
  });
}

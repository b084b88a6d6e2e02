import { CodeSandboxError, CodeSyntaxError } from './errors.js';

/**
 * What {@link stripTypes} gives: the program as JavaScript, or why it does not parse (or, when the type stripper
 * itself cannot be loaded, that the sandbox cannot run anything).
 */
export type StrippedProgram =
  | { readonly ok: true; readonly javascript: string }
  | { readonly ok: false; readonly error: CodeSyntaxError | CodeSandboxError };

type Transform = typeof import('sucrase').transform;

let loading: Promise<Transform> | undefined;
let warmed = false;

/**
 * sucrase, loaded when a program first needs it rather than when this package is imported (about 40 ms on a small
 * machine): a process that never runs a program, or whose first program is announced by a streaming code call, does
 * not wait for it at startup.
 */
function loadTransform(): Promise<Transform> {
  loading ??= import('sucrase').then(
    (sucrase) => sucrase.transform,
    (error: unknown) => {
      // Not cached: a later program tries again (a package installed meanwhile, a transient file-system error).
      loading = undefined;
      throw error;
    },
  );
  return loading;
}

/**
 * Loads sucrase and strips a small program once (once per process): its first run is several times slower than the
 * next ones (its code is not compiled yet), and a program on its way should not pay for that.
 */
export function warmTypeStripper(): void {
  if (warmed) return;
  warmed = true;
  void stripTypes(
    'const items: { id: string }[] = await list({});\nreturn items.map((item) => item.id as string);',
  ).catch(() => {});
}

/**
 * The model's TypeScript (or JavaScript) as JavaScript: types removed by sucrase, which keeps every line where it
 * was, so QuickJS's line numbers are the model's. Modern syntax is left as is (QuickJS runs ES2023); imports are not
 * rewritten (a program has none to import). A parse failure is a `CodeSyntaxError` with its line and column.
 */
export async function stripTypes(source: string): Promise<StrippedProgram> {
  let transform: Transform;
  try {
    transform = await loadTransform();
  } catch (error) {
    // Loaded lazily (see loadTransform), so a broken install shows here: a typed result, as for any sandbox failure.
    const reason = error instanceof Error ? error.message : String(error);
    return {
      ok: false,
      error: new CodeSandboxError({
        reason: `the type stripper (sucrase) could not be loaded: ${reason}`,
        cause: error,
      }),
    };
  }
  try {
    const { code } = transform(source, { transforms: ['typescript'], disableESTransforms: true });
    return { ok: true, javascript: code };
  } catch (error) {
    const loc = (error as { loc?: { line?: unknown; column?: unknown } }).loc;
    const line = typeof loc?.line === 'number' ? loc.line : undefined;
    const column = typeof loc?.column === 'number' ? loc.column : undefined;
    const message = error instanceof Error ? error.message : String(error);
    return {
      ok: false,
      error: new CodeSyntaxError({
        // Sucrase appends "(line:column)"; the error carries them as fields and in its own words.
        reason: message.replace(/\s*\(\d+:\d+\)$/, ''),
        ...(line === undefined ? {} : { line }),
        ...(column === undefined ? {} : { column }),
      }),
    };
  }
}

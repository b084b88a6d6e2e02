import { InvalidArtifactError } from './errors.js';

/** A file or blob a tool produced, delivered beside its text output (the model sees a reference, not the bytes). */
export interface Artifact {
  readonly url: string;
  readonly mimeType: string;
  /** Lower-case hex SHA-256 of the content. */
  readonly sha256: string;
  /** Size in bytes. */
  readonly size: number;
  /** A display name, e.g. `report.pdf`. */
  readonly name?: string;
}

const ARTIFACTS = Symbol.for('org.tools.withArtifacts');

/** A tool result carrying artifacts; created by `withArtifacts`. */
export interface ToolOutputWithArtifacts<Output = unknown> {
  readonly [ARTIFACTS]: true;
  readonly output: Output;
  readonly artifacts: readonly Artifact[];
}

/**
 * Checks and freezes an artifact: an absolute URL, a `type/subtype` mime type, 64 hex digits of SHA-256, a
 * non-negative integer size. Throws `InvalidArtifactError`.
 *
 * @example
 * createArtifact({ url: 's3://bucket/report.pdf', mimeType: 'application/pdf', sha256, size: 52_311 });
 */
export function createArtifact(artifact: Artifact): Artifact {
  try {
    new URL(artifact.url);
  } catch {
    throw new InvalidArtifactError({
      field: 'url',
      reason: `${JSON.stringify(artifact.url)} is not an absolute URL`,
    });
  }
  if (typeof artifact.mimeType !== 'string' || !/^[\w.+-]+\/[\w.+-]+(?:\s*;.*)?$/.test(artifact.mimeType)) {
    throw new InvalidArtifactError({
      field: 'mimeType',
      reason: `${JSON.stringify(artifact.mimeType)} is not a type/subtype mime type`,
    });
  }
  if (typeof artifact.sha256 !== 'string' || !/^[0-9a-fA-F]{64}$/.test(artifact.sha256)) {
    throw new InvalidArtifactError({ field: 'sha256', reason: 'must be 64 hexadecimal digits' });
  }
  if (!Number.isSafeInteger(artifact.size) || artifact.size < 0) {
    throw new InvalidArtifactError({
      field: 'size',
      reason: `must be a non-negative whole number of bytes, got ${String(artifact.size)}`,
    });
  }
  return Object.freeze({
    url: artifact.url,
    mimeType: artifact.mimeType,
    sha256: artifact.sha256.toLowerCase(),
    size: artifact.size,
    ...(artifact.name === undefined ? {} : { name: artifact.name }),
  });
}

/**
 * Describes bytes as an artifact stored at `url`, computing the SHA-256 and the size.
 *
 * @example
 * const artifact = await artifactFromBytes(pdfBytes, { url: 'https://files.example.com/r.pdf', mimeType: 'application/pdf' });
 */
export async function artifactFromBytes(
  bytes: Uint8Array,
  options: { url: string; mimeType: string; name?: string },
): Promise<Artifact> {
  const digest = new Uint8Array(await globalThis.crypto.subtle.digest('SHA-256', bytes));
  const sha256 = Array.from(digest, (byte) => byte.toString(16).padStart(2, '0')).join('');
  return createArtifact({ ...options, sha256, size: bytes.byteLength });
}

/**
 * Returns a tool result with artifacts: the model sees `output` plus a short reference to each artifact, and the
 * caller gets the artifacts on the observation.
 *
 * @example
 * execute: async ({ month }) => withArtifacts({ summary: 'Revenue up 4%' }, [artifact]),
 */
export function withArtifacts<Output>(
  output: Output,
  artifacts: readonly Artifact[],
): ToolOutputWithArtifacts<Output> {
  return { [ARTIFACTS]: true, output, artifacts: artifacts.map(createArtifact) };
}

/** True for a value made by `withArtifacts`. */
export function hasArtifacts(value: unknown): value is ToolOutputWithArtifacts {
  return (
    typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[ARTIFACTS] === true
  );
}

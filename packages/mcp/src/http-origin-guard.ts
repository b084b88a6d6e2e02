import { InvalidMcpOptionError } from './errors.js';

/** Hostnames of this machine: a page served from one of them is a local page, as trusted as the server. */
const LOOPBACK_HOSTNAMES: ReadonlySet<string> = new Set(['localhost', '127.0.0.1', '[::1]']);

/** Why a request's `Host` or `Origin` is refused, for the 403 answer; `undefined` when both are acceptable. */
export type HeaderRefusal = 'Invalid Host header' | 'Invalid Origin header';

/**
 * Checks the `Host` and `Origin` headers of requests to an MCP endpoint over HTTP, the transport security MCP asks
 * for (spec 2025-11-25: a server MUST validate `Origin` and answer 403 to an invalid one; checking `Host` stops DNS
 * rebinding). `Host` is checked against a list when there is one. A present `Origin` must be a loopback origin
 * (`http://localhost:5173`, any port) or, when `allowedOrigins` is given, one of those instead; a request without
 * `Origin` (not from a browser) passes.
 */
export class HttpOriginGuard {
  readonly #hosts: ReadonlySet<string> | undefined;
  readonly #origins: ReadonlySet<string> | undefined;

  constructor(options: {
    readonly allowedHosts?: readonly string[];
    readonly allowedOrigins?: readonly string[];
  }) {
    this.#hosts =
      options.allowedHosts === undefined
        ? undefined
        : new Set(options.allowedHosts.map((host) => host.toLowerCase()));
    this.#origins =
      options.allowedOrigins === undefined
        ? undefined
        : new Set(options.allowedOrigins.map((origin) => normalizedOrigin(origin)));
  }

  /** The refusal for these headers, or `undefined`. A repeated header is refused: it has no single meaning. */
  refusal(headers: { readonly host?: unknown; readonly origin?: unknown }): HeaderRefusal | undefined {
    if (this.#hosts !== undefined) {
      if (typeof headers.host !== 'string' || !this.#hosts.has(headers.host.toLowerCase()))
        return 'Invalid Host header';
    }
    if (headers.origin === undefined) return undefined;
    if (typeof headers.origin !== 'string') return 'Invalid Origin header';
    let origin: URL;
    try {
      origin = new URL(headers.origin);
    } catch {
      return 'Invalid Origin header';
    }
    // An `Origin` is scheme, host and port only; anything else (a path, `null`) is not an origin a browser sends.
    if (origin.origin === 'null' || origin.origin !== headers.origin.toLowerCase())
      return 'Invalid Origin header';
    const allowed =
      this.#origins === undefined
        ? (origin.protocol === 'http:' || origin.protocol === 'https:') &&
          LOOPBACK_HOSTNAMES.has(origin.hostname)
        : this.#origins.has(origin.origin);
    return allowed ? undefined : 'Invalid Origin header';
  }
}

/** An `allowedOrigins` entry in the form browsers send: `https://app.example.com` (default ports omitted). */
function normalizedOrigin(value: string): string {
  let origin: string | undefined;
  try {
    origin = new URL(value).origin;
  } catch {
    origin = undefined;
  }
  if (origin === undefined || origin === 'null' || origin !== value.toLowerCase().replace(/\/$/, '')) {
    throw new InvalidMcpOptionError({
      option: 'allowedOrigins',
      reason: `${JSON.stringify(value.slice(0, 200))} is not an origin (scheme://host[:port], e.g. "https://app.example.com")`,
    });
  }
  return origin;
}

/** The server version the tests and the benchmark run. */
export declare const RESTATE_SERVER_VERSION: string;

/** The path of the restate-server binary, installed with npm on first use (see the script's header). */
export declare function ensureRestateServerBinary(options?: { log?: (message: string) => void }): string;

/** A free TCP port of 127.0.0.1. */
export declare function freePort(): Promise<number>;

/** A restate-server started by `startLocalRestateServer`. */
export interface LocalRestateServer {
  readonly adminUrl: string;
  readonly ingressUrl: string;
  readonly ports: { readonly admin: number; readonly ingress: number; readonly fabric: number };
  readonly pid: number;
  /** Registers the endpoint at `uri` through the admin API (force: re-registers a changed endpoint). */
  registerDeployment(uri: string, options?: { force?: boolean }): Promise<unknown>;
  /** Ends the server (SIGTERM, then SIGKILL after 10 s) and removes its data (unless `dataDirectory` was given). */
  stop(): Promise<void>;
  /** Ends the server at once (SIGKILL), keeping its data, as a lost machine would. */
  kill(): Promise<void>;
  /** The tail of the server's output, for a failure message. */
  output(): string;
}

/** Starts restate-server on free ports of 127.0.0.1, its data in a fresh temp directory. */
export declare function startLocalRestateServer(options?: {
  ports?: { admin: number; ingress: number; fabric: number };
  retry?: { initialInterval: string; maxInterval: string };
  /** The server's base directory, kept by `stop()`; default a fresh temp directory, removed by `stop()`. */
  dataDirectory?: string;
  /** More settings of the server, e.g. a cluster node's `RESTATE_*` variables. */
  environment?: Record<string, string>;
  log?: (message: string) => void;
}): Promise<LocalRestateServer>;

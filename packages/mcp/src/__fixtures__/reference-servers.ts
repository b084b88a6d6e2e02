import { fileURLToPath } from 'node:url';
import { type ConnectMcpCommandOptions, connectMcp, type McpConnection } from '../index.js';

/** The entry script of a reference server installed as a devDependency. */
export function serverScript(name: 'everything' | 'filesystem' | 'memory'): string {
  return fileURLToPath(
    new URL(`../../node_modules/@modelcontextprotocol/server-${name}/dist/index.js`, import.meta.url),
  );
}

/** Starts a reference server over stdio with this Node, its stderr silenced. */
export function connectReferenceServer(
  name: 'everything' | 'filesystem' | 'memory',
  options: Omit<Partial<ConnectMcpCommandOptions>, 'command'> = {},
): Promise<McpConnection> {
  return connectMcp({
    ...options,
    command: process.execPath,
    args: [serverScript(name), ...(options.args ?? [])],
    env: { PATH: process.env.PATH ?? '', ...options.env },
    stderr: 'ignore',
  });
}

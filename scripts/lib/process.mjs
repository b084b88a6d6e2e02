// Child processes and temporary directories for the repository scripts, with one cleanup path that runs on
// success, on failure and on SIGINT / SIGTERM / SIGHUP, so a script never leaves a server or a temp dir behind.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

/** A command that exited non-zero, timed out or could not start; the message carries the output's tail. */
export class CommandError extends Error {
  constructor(message, { command, exitCode, stdout, stderr }) {
    super(message);
    this.name = 'CommandError';
    this.command = command;
    this.exitCode = exitCode;
    this.stdout = stdout;
    this.stderr = stderr;
  }
}

const cleanups = new Set();
let signalHandlersInstalled = false;

/**
 * Registers a synchronous cleanup step; it runs once, from `runCleanups()` or when the process exits or is
 * interrupted. Returns a function that runs the step now and unregisters it.
 */
export function onCleanup(step) {
  installSignalHandlers();
  let done = false;
  const once = () => {
    if (done) return;
    done = true;
    cleanups.delete(once);
    try {
      step();
    } catch (error) {
      console.error(`cleanup step failed: ${error instanceof Error ? error.message : String(error)}`);
    }
  };
  cleanups.add(once);
  return once;
}

/** Runs every registered cleanup step, newest first. */
export function runCleanups() {
  for (const step of [...cleanups].reverse()) step();
}

function installSignalHandlers() {
  if (signalHandlersInstalled) return;
  signalHandlersInstalled = true;
  process.on('exit', runCleanups);
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
    process.on(signal, () => {
      console.error(`\nreceived ${signal}: stopping what this script started`);
      runCleanups();
      process.exit(signal === 'SIGINT' ? 130 : 143);
    });
  }
}

/** Creates a temp directory under the OS temp dir (outside the repo, so no parent node_modules leaks in). */
export function makeTempDir(prefix) {
  const dir = mkdtempSync(path.join(tmpdir(), `${prefix}-`));
  onCleanup(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

function tail(text, lines = 40) {
  const all = text.trimEnd().split('\n');
  return all.length > lines ? ['…', ...all.slice(-lines)].join('\n') : all.join('\n');
}

/**
 * Runs a command to completion, capturing its output. Rejects with a CommandError (exit code and the tail of
 * stdout/stderr in the message) when it exits non-zero, is killed, or exceeds `timeoutMs`.
 */
export function run(command, args, { cwd, env, timeoutMs = 300_000 } = {}) {
  const printable = [command, ...args].join(' ');
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, {
      cwd,
      env: env ?? process.env,
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    const stopChild = onCleanup(() => killTree(child));
    let stdout = '';
    let stderr = '';
    let timedOut = false;
    child.stdout.on('data', (chunk) => {
      stdout += chunk;
    });
    child.stderr.on('data', (chunk) => {
      stderr += chunk;
    });
    const timer = setTimeout(() => {
      timedOut = true;
      killTree(child);
    }, timeoutMs);
    child.on('error', (error) => {
      clearTimeout(timer);
      stopChild();
      reject(
        new CommandError(`could not start \`${printable}\`: ${error.message}`, {
          command: printable,
          exitCode: null,
          stdout,
          stderr,
        }),
      );
    });
    child.on('close', (exitCode, signal) => {
      clearTimeout(timer);
      stopChild();
      if (exitCode === 0) {
        resolve({ stdout, stderr });
        return;
      }
      const why = timedOut
        ? `timed out after ${Math.round(timeoutMs / 1000)} s`
        : signal
          ? `was killed by ${signal}`
          : `exited with code ${exitCode}`;
      const output = tail([stdout, stderr].filter((part) => part.trim() !== '').join('\n'));
      reject(
        new CommandError(
          `\`${printable}\` ${why}${cwd ? ` (in ${cwd})` : ''}${output ? `\n${output}` : ''}`,
          {
            command: printable,
            exitCode,
            stdout,
            stderr,
          },
        ),
      );
    });
  });
}

/**
 * Starts a long-running process (a server) in its own process group, its output appended to `logFd`.
 * Returns the child and an async `stop()` that terminates the whole group (SIGTERM, then SIGKILL after 5 s)
 * and waits for it to exit. A synchronous kill is registered as a cleanup step for crashes and signals.
 */
export function startBackground(command, args, { cwd, env, logFd } = {}) {
  const child = spawn(command, args, {
    cwd,
    env: env ?? process.env,
    stdio: ['ignore', logFd ?? 'ignore', logFd ?? 'ignore'],
    detached: true,
  });
  const exited = new Promise((resolve) => child.once('exit', resolve));
  const forget = onCleanup(() => killTree(child));
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      signalGroup(child, 'SIGTERM');
      const timer = setTimeout(() => signalGroup(child, 'SIGKILL'), 5000);
      await exited;
      clearTimeout(timer);
    }
    forget();
  };
  return { child, exited, stop };
}

function signalGroup(child, signal) {
  try {
    process.kill(-child.pid, signal);
  } catch {
    // the group is already gone
  }
}

/**
 * Kills a detached child's whole process group synchronously (for exit and signal handlers, where nothing
 * can be awaited): SIGTERM, up to 3 s of grace, then SIGKILL.
 */
export function killTree(child) {
  if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return;
  const group = -child.pid;
  try {
    process.kill(group, 'SIGTERM');
  } catch {
    return;
  }
  for (let waited = 0; waited < 3000; waited += 100) {
    if (!isAlive(group)) return;
    spawnSync('sleep', ['0.1']);
  }
  try {
    process.kill(group, 'SIGKILL');
  } catch {
    // already gone
  }
}

/**
 * Whether a process group still has a running member. On Linux, /proc tells zombies apart (our own child stays
 * a zombie until the event loop reaps it, which cannot happen inside a synchronous handler); elsewhere a
 * signal-0 probe is the best available answer.
 */
function isAlive(group) {
  if (existsSync('/proc/self/stat')) {
    for (const entry of readdirSync('/proc')) {
      if (!/^\d+$/.test(entry)) continue;
      let stat;
      try {
        stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      } catch {
        continue;
      }
      // pid (comm) state ppid pgrp ...; comm may contain spaces and parentheses, so split after the last ')'
      const [state, , pgrp] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (Number(pgrp) === -group && state !== 'Z' && state !== 'X') return true;
    }
    return false;
  }
  try {
    process.kill(group, 0);
    return true;
  } catch {
    return false;
  }
}

/** Formats a duration in ms as seconds with one decimal. */
export function seconds(ms) {
  return `${(ms / 1000).toFixed(1)} s`;
}

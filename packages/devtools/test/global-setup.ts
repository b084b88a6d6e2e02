import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/** Installs Debian's chromium for the browser tests when it is missing (as root, from apt; never from npm). */
export default function setup(): void {
  execFileSync('bash', [fileURLToPath(new URL('../../../scripts/ensure-chromium.sh', import.meta.url))], {
    stdio: 'inherit',
  });
}

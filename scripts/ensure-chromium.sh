#!/usr/bin/env bash
# Makes sure Debian's chromium is at /usr/bin/chromium for the browser tests of @org/devtools (driven by
# playwright-core, which downloads nothing). Installed from apt when missing and we are root; never from npm.
set -euo pipefail
CHROMIUM=/usr/bin/chromium
if [ -x "$CHROMIUM" ]; then exit 0; fi
if [ "$(id -u)" != "0" ]; then
  echo "ensure-chromium: $CHROMIUM is missing and this is not root; install it with: sudo apt-get install -y chromium" >&2
  exit 1
fi
echo "ensure-chromium: installing Debian's chromium with apt-get" >&2
export DEBIAN_FRONTEND=noninteractive
if ! apt-get install -y --no-install-recommends chromium >&2; then
  apt-get update >&2
  apt-get install -y --no-install-recommends chromium >&2
fi
test -x "$CHROMIUM"

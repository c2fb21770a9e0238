#!/usr/bin/env bash
# Debian's Chromium for the browser check (tools/browser_check.py drives /usr/bin/chromium through
# Playwright; Playwright's own browser download is not used). Installs it with apt-get when it is
# missing, as root; says what to do otherwise. Run by `make browser-check` and by .ci/run.
# Usage: bash tools/install_chromium.sh
set -uo pipefail
export DEBIAN_FRONTEND=noninteractive

if [ -x /usr/bin/chromium ]; then
    echo "chromium present: $(/usr/bin/chromium --version 2>/dev/null)"
    exit 0
fi
if [ "$(id -u)" -ne 0 ]; then
    echo "no /usr/bin/chromium and not root: run apt-get install -y chromium as root" >&2
    exit 1
fi
log=$(mktemp)
trap 'rm -f "$log"' EXIT
echo "installing Debian's chromium (apt-get; about a minute and 500 MB) ..."
if ! { apt-get update -q && apt-get install -y -q chromium; } >"$log" 2>&1; then
    tail -30 "$log" >&2
    exit 1
fi
echo "installed: $(/usr/bin/chromium --version 2>/dev/null)"

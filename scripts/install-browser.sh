#!/usr/bin/env bash
# Installs headless Chromium and its WebDriver for the web chat's browser test
# (tests/api/test_web_chat.py): Debian's chromium and chromium-driver packages,
# /usr/bin/chromium and /usr/bin/chromedriver. Does nothing when both are there.
set -euo pipefail

if [ -x /usr/bin/chromium ] && [ -x /usr/bin/chromedriver ]; then
  exit 0
fi

if [ "$(id -u)" -eq 0 ]; then
  run=()
elif command -v sudo >/dev/null 2>&1; then
  run=(sudo)
else
  echo "install-browser.sh: Chromium is missing and installing it needs root." >&2
  echo "Run this script as root, or: apt-get install chromium chromium-driver" >&2
  exit 1
fi

if ! command -v apt-get >/dev/null 2>&1; then
  echo "install-browser.sh: apt-get not found; install chromium and chromium-driver" \
    "(/usr/bin/chromium, /usr/bin/chromedriver) with this system's package manager." >&2
  exit 1
fi

echo "Installing chromium and chromium-driver…"
export DEBIAN_FRONTEND=noninteractive
"${run[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update -qq >/dev/null
"${run[@]}" env DEBIAN_FRONTEND=noninteractive \
  apt-get install -y -qq --no-install-recommends chromium chromium-driver >/dev/null

for binary in /usr/bin/chromium /usr/bin/chromedriver; do
  if [ ! -x "$binary" ]; then
    echo "install-browser.sh: $binary is still missing after the install." >&2
    exit 1
  fi
done
echo "Installed: $(/usr/bin/chromium --version 2>/dev/null || echo chromium)"

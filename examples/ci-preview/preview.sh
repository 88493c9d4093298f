#!/usr/bin/env bash
# Runs `pulumi preview` for a Pulumi program the way a CI job does, without buying anything.
#
# Against the real API when PROXY_API_BASE_URL and PROXY_API_KEY are set (store the key as a CI secret);
# otherwise against a local sandbox started for this job and stopped when it ends.
#
# Usage: PULUMI_STACK=<stack> preview.sh [program-dir]
set -euo pipefail
program=${1:-.}
: "${PULUMI_STACK:?set PULUMI_STACK to the stack to preview}"

if [ -z "${PROXY_API_BASE_URL:-}" ]; then
  url_file=$(mktemp)
  npx --no-install pulumi-proxy-sandbox --port 0 >"$url_file" 2>/dev/null &
  sandbox_pid=$!
  trap 'kill "$sandbox_pid" 2>/dev/null || true; rm -f "$url_file"' EXIT
  for _ in $(seq 1 50); do
    [ -s "$url_file" ] && break
    sleep 0.2
  done
  [ -s "$url_file" ] || { echo "preview.sh: the sandbox did not start" >&2; exit 1; }
  export PROXY_API_BASE_URL
  PROXY_API_BASE_URL=$(head -n 1 "$url_file")
  export PROXY_API_KEY=sk_sandbox_0123456789abcdef
  echo "preview.sh: previewing against the local sandbox at $PROXY_API_BASE_URL"
fi

pulumi preview --cwd "$program" --stack "$PULUMI_STACK" --non-interactive --diff

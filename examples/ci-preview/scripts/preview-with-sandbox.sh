#!/usr/bin/env bash
# Runs `pulumi preview` of a program against a local sandbox of the Proxy Provisioning API, for CI jobs without the
# API's credentials (pull requests from forks). Run it from the repository root, as the workflow does:
#
#   PULUMI_STACK=dev scripts/preview-with-sandbox.sh infra [more pulumi preview flags]
#
# It starts the sandbox installed with the program (node_modules/.bin/pulumi-proxy-sandbox), waits until it listens,
# fails with the sandbox's own output if it does not, and stops it however the script ends. Without
# PULUMI_ACCESS_TOKEN or PULUMI_BACKEND_URL it previews in a throwaway local backend.
set -euo pipefail
program=${1:?usage: PULUMI_STACK=<stack> scripts/preview-with-sandbox.sh <program-dir> [pulumi preview flags]}
shift
: "${PULUMI_STACK:?set PULUMI_STACK to the stack to preview}"
say() { echo "preview-with-sandbox: $*" >&2; }

sandbox_bin="$program/node_modules/.bin/pulumi-proxy-sandbox"
[ -x "$sandbox_bin" ] || { say "$sandbox_bin not found: run npm ci in $program first"; exit 1; }

work=$(mktemp -d)
sandbox_pid=
stop() {
  if [ -n "$sandbox_pid" ]; then
    kill "$sandbox_pid" 2>/dev/null || true
    wait "$sandbox_pid" 2>/dev/null || true
  fi
  rm -rf "$work"
}
trap stop EXIT

"$sandbox_bin" --port 0 >"$work/url" 2>"$work/sandbox.log" &
sandbox_pid=$!
for _ in $(seq 1 100); do
  [ -s "$work/url" ] && break
  if ! kill -0 "$sandbox_pid" 2>/dev/null; then
    say "the sandbox exited before it was ready. Its output:"
    cat "$work/sandbox.log" >&2
    exit 1
  fi
  sleep 0.1
done
if [ ! -s "$work/url" ]; then
  say "the sandbox did not report its address within 10 s. Its output:"
  cat "$work/sandbox.log" >&2
  exit 1
fi
PROXY_API_BASE_URL=$(head -n 1 "$work/url")
export PROXY_API_BASE_URL PROXY_API_KEY=sk_sandbox_0123456789abcdef
say "previewing against the local sandbox at $PROXY_API_BASE_URL"

if [ -z "${PULUMI_ACCESS_TOKEN:-}" ] && [ -z "${PULUMI_BACKEND_URL:-}" ]; then
  mkdir -p "$work/backend"
  export PULUMI_BACKEND_URL="file://$work/backend" PULUMI_CONFIG_PASSPHRASE="${PULUMI_CONFIG_PASSPHRASE:-}"
  pulumi stack select --create "$PULUMI_STACK" --cwd "$program" --non-interactive >/dev/null
fi

# The stack's config wins over the environment: a committed proxy:baseUrl would silently send this preview elsewhere.
if configured=$(pulumi config get proxy:baseUrl --cwd "$program" --stack "$PULUMI_STACK" 2>/dev/null); then
  say "the stack's config sets proxy:baseUrl ($configured), which would win over the sandbox."
  say "remove it from Pulumi.$PULUMI_STACK.yaml (set PROXY_API_BASE_URL in CI instead), or preview without this script."
  exit 1
fi

pulumi preview --cwd "$program" --stack "$PULUMI_STACK" --non-interactive --diff "$@"

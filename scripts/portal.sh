#!/usr/bin/env bash
# The CLI (`npm run --silent portal -- COMMAND`): builds first if needed, all of it on stderr, so
# stdout carries only what the command prints (admin-code prints only the code).
set -euo pipefail
source "$(dirname "$0")/lib/prepare.sh"
require_node
{
  ensure_npm_dependencies
  ensure_build
} 1>&2
exec node "$ROOT_DIR/apps/server/dist/cli.js" "$@"

#!/usr/bin/env bash
# The dev loop: the server rebuilt and restarted on every save (tsc --watch, node --watch) on
# https://portal.localhost:8443, and the web app on Vite's dev server with hot reload
# (http://localhost:5173, which forwards /api and /ca to the server). Ctrl-C stops all of it.
# Settings come from the environment as for `npm start` (PORTAL_*; data in ./data).
set -euo pipefail
source "$(dirname "$0")/lib/prepare.sh"
cd "$ROOT_DIR"

require_node
ensure_debian_packages openssl ca-certificates
ensure_npm_dependencies
ensure_build

watchers=()
stop_watchers() {
  local pid
  for pid in "${watchers[@]}"; do
    kill "$pid" 2>/dev/null || true
  done
  wait 2>/dev/null || true
}
trap stop_watchers EXIT
trap 'exit 130' INT TERM

# The server runs the compiled files (dist/), as in production: keep the contract's and the
# server's builds current, and restart the server when a file it loaded changes.
node_modules/.bin/tsc -p packages/contract/tsconfig.build.json --watch --preserveWatchOutput &
watchers+=("$!")
node_modules/.bin/tsc -p apps/server/tsconfig.build.json --watch --preserveWatchOutput &
watchers+=("$!")
node --watch apps/server/dist/main.js &
watchers+=("$!")

npm run --silent dev -w apps/web

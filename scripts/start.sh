#!/usr/bin/env bash
# Quick start: installs and builds whatever is missing, then runs the portal on its embedded
# default (SQLite, built-in CA, built-in TLS on https://portal.localhost:8443).
set -euo pipefail
source "$(dirname "$0")/lib/prepare.sh"
cd "$ROOT_DIR"

require_node
ensure_debian_packages openssl ca-certificates
ensure_npm_dependencies
ensure_build
exec node apps/server/dist/main.js "$@"

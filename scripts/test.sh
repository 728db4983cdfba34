#!/usr/bin/env bash
# Every test: formatting, lint, types, then the unit and API tests on SQLite and on a real
# PostgreSQL that this script starts and stops. Installs what a bare machine lacks first.
set -euo pipefail
source "$(dirname "$0")/lib/prepare.sh"
cd "$ROOT_DIR"

require_node
# openssl and curl verify what the CA and the TLS faces produce; postgresql is the second engine;
# chromium runs the browser journeys; unzip and xmllint check the TAK packages; nginx fronts two
# instances in the production tests (apps/server/test/production); a JRE (keytool, java) loads the
# TAK packages as TAK Server's JVM does; systemd-analyze verifies the units in deploy/; poppler
# (pdftotext, pdftoppm) and zbar read back the bulk slips Chromium printed to PDF; prometheus's
# promtool checks the alert rules in deploy/prometheus and runs their unit tests.
ensure_debian_packages openssl curl ca-certificates postgresql chromium libnss3-tools libxml2-utils \
  unzip nginx-light default-jre-headless systemd poppler-utils zbar-tools prometheus slapd ldap-utils
ensure_npm_dependencies

# The fast loop first, before anything is built: `npm run test:fast` must pass on a bare clone
# (README, "The dev loop"), so it runs here with no build of the contract package in the way.
say "Fast tests on the sources alone (npm run test:fast, nothing built)"
rm -rf packages/contract/dist
npm run --silent test:fast

ensure_build

# Each stage's wall time (bash's SECONDS counts from this script's start), and the machine's load
# at the end: what the README's gate figure needs.
stage_started=0
took() {
  say "$1: $((SECONDS - stage_started)) s"
  stage_started=$SECONDS
}
took "Setup (packages, npm, build)"

say "Formatting (prettier)"
npx prettier --check --log-level warn .
took "Formatting"
say "Lint (eslint, type-checked)"
npx eslint --max-warnings 0 .
took "Lint"
say "Types (tsc)"
npm run --silent typecheck
took "Types"

say "Tests (vitest, SQLite and PostgreSQL)"
mkdir -p test-results
status=0
PORTAL_REQUIRE_POSTGRES=1 bash scripts/with-postgres.sh \
  npx vitest run --reporter=default --reporter=json --outputFile.json=test-results/vitest.json ||
  status=$?
took "Tests"

# One closing line that any reader of the log can count: "N passed, N failed".
if [ -f test-results/vitest.json ]; then
  node -e '
    const r = JSON.parse(require("fs").readFileSync("test-results/vitest.json", "utf8"));
    console.log(`tests: ${r.numPassedTests} passed, ${r.numFailedTests} failed, ${r.numPendingTests + r.numTodoTests} skipped`);'
fi
say "Gate: ${SECONDS} s; load average $(cut -d ' ' -f 1-3 /proc/loadavg) on $(nproc) cores"
exit "$status"

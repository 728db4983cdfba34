#!/usr/bin/env bash
# The portal's performance figures (issue 9), in one command from the repository root:
#
#   bash bench/run.sh [--quick] [--only=issuance,api,web,growth,isolation,bulk,enroll,burst,connections,ocsp,directory,members,guesses] [--record] [--own-build]
#   npm run bench -- --quick
#
# Installs bench/'s own dependencies (autocannon, lighthouse) on demand, outside the root
# workspaces; runs the sections against the built server (apps/server/dist, or with --own-build a
# private build in apps/server/.bench/dist); starts a throw-away PostgreSQL for the sections that
# measure both engines when Debian's server binaries are there. Writes bench/results/latest.{md,json};
# --record also puts the figures into bench/RESULTS.md. Measurements only: nothing here is a test.
set -euo pipefail

bench_dir="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo_dir="$(dirname "$bench_dir")"
cd "$repo_dir"

own_build=0
wants_postgres=1
args=()
for arg in "$@"; do
  case "$arg" in
    --own-build) own_build=1 ;;
    --only=*)
      [[ "${arg#--only=}" =~ api|growth|isolation|bulk|burst|members|enroll|ocsp|directory ]] || wants_postgres=0
      args+=("$arg")
      ;;
    --quick | --record) args+=("$arg") ;;
    -h | --help) sed -n '2,11p' "${BASH_SOURCE[0]}"; exit 0 ;;
    *) echo "bench: unknown option $arg" >&2; exit 2 ;;
  esac
done

for tool in node npm openssl; do
  command -v "$tool" >/dev/null || { echo "bench: $tool is required" >&2; exit 1; }
done
command -v cfssl >/dev/null || echo "bench: cfssl not found (apt-get install golang-cfssl): CFSSL is skipped" >&2

# bench/'s own packages, reinstalled when its lock file changed.
stamp="$bench_dir/node_modules/.bench-installed"
if [ ! -f "$stamp" ] || [ "$bench_dir/package-lock.json" -nt "$stamp" ]; then
  echo "bench: installing bench/ dependencies (npm ci --prefix bench)" >&2
  # A dependency of lighthouse asks for third-party-web@latest, which can leave the lock behind
  # the registry; then a plain install (still inside bench/ only) does.
  npm ci --prefix "$bench_dir" --no-audit --no-fund --loglevel=error >&2 ||
    npm install --prefix "$bench_dir" --no-audit --no-fund --loglevel=error >&2
  touch "$stamp"
fi

if [ ! -f node_modules/fastify/package.json ]; then
  echo "bench: the workspace dependencies are missing; run npm test or npm start once first" >&2
  exit 1
fi
if [ "$own_build" -eq 1 ]; then
  echo "bench: building the server into apps/server/.bench/dist" >&2
  [ -f packages/contract/dist/index.js ] || npm run build -w packages/contract >&2
  npx tsc -p apps/server/tsconfig.build.json --outDir apps/server/.bench/dist >&2
  # The build finds its branding sets beside dist, as apps/server/dist does.
  ln -sfn ../branding apps/server/.bench/branding
  export BENCH_SERVER_DIST=apps/server/.bench/dist
elif [ ! -f apps/server/dist/server.js ]; then
  echo "bench: apps/server/dist is missing: npm run build -w packages/contract && npm run build -w apps/server (or --own-build)" >&2
  exit 1
fi

if [ "$wants_postgres" -eq 1 ] && [ -z "${PORTAL_TEST_POSTGRES_URL:-}" ] &&
  ls /usr/lib/postgresql/*/bin/pg_ctl >/dev/null 2>&1; then
  exec bash scripts/with-postgres.sh node "$bench_dir/run.mjs" "${args[@]}"
fi
exec node "$bench_dir/run.mjs" "${args[@]}"

# Shared by start.sh and test.sh: make a bare machine able to run the portal. Sourced, not run.
# Each step does nothing when its result is already there, so the commands stay fast.

ROOT_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"

say() { printf '\033[1m==> %s\033[0m\n' "$*" >&2; }
die() { printf 'error: %s\n' "$*" >&2; exit 1; }

require_node() {
  command -v node >/dev/null 2>&1 || die "Node.js 20.19 or newer is needed (https://nodejs.org)."
  node -e '
    const [major, minor] = process.versions.node.split(".").map(Number);
    if (major < 20 || (major === 20 && minor < 19)) {
      console.error(`Node.js ${process.versions.node} is too old: 20.19 or newer is needed.`);
      process.exit(1);
    }' || exit 1
}

APT_UPDATED=0
# Installs the Debian packages that are not installed yet (needs root; says what to do otherwise).
ensure_debian_packages() {
  local missing=()
  local package
  for package in "$@"; do
    dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q 'install ok installed' ||
      missing+=("$package")
  done
  [ "${#missing[@]}" -eq 0 ] && return 0
  command -v apt-get >/dev/null 2>&1 ||
    die "missing system packages: ${missing[*]} (install them with your package manager)"
  local sudo=()
  if [ "$(id -u)" -ne 0 ]; then
    command -v sudo >/dev/null 2>&1 || die "missing Debian packages: ${missing[*]} (run as root)"
    sudo=(sudo)
  fi
  say "Installing Debian packages: ${missing[*]}"
  if [ "$APT_UPDATED" -eq 0 ]; then
    "${sudo[@]}" apt-get update -qq
    APT_UPDATED=1
  fi
  DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -qq --no-install-recommends \
    "${missing[@]}" >/dev/null
}

# Installs the npm dependencies when node_modules is missing or older than the lock file: `npm ci`
# on a fresh clone, an incremental `npm install` otherwise (it never wipes a working tree).
ensure_npm_dependencies() {
  local stamp="$ROOT_DIR/node_modules/.callsign-lock-hash"
  local lock_hash
  lock_hash="$(sha256sum "$ROOT_DIR/package-lock.json" | cut -d' ' -f1)"
  if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$lock_hash" ]; then
    return 0
  fi
  # better-sqlite3 compiles from source on Node 20: it needs a C++ tool chain and python3.
  ensure_debian_packages python3 make g++
  if [ -d "$ROOT_DIR/node_modules" ]; then
    say "Bringing npm dependencies up to date with package-lock.json"
    (cd "$ROOT_DIR" && npm install --no-audit --no-fund --loglevel=error)
  else
    say "Installing npm dependencies (the first time takes a few minutes)"
    (cd "$ROOT_DIR" && npm ci --no-audit --no-fund --loglevel=error)
  fi
  echo "$lock_hash" >"$stamp"
}

# Builds the contract, the server and the web app when any source is newer than the last build
# or a build is missing (test.sh removes the contract's before its fast tests).
ensure_build() {
  local stamp="$ROOT_DIR/node_modules/.callsign-build-stamp"
  if [ -f "$stamp" ] && [ -f "$ROOT_DIR/apps/server/dist/main.js" ] &&
    [ -f "$ROOT_DIR/apps/web/dist/index.html" ] &&
    [ -f "$ROOT_DIR/packages/contract/dist/index.js" ] &&
    [ -z "$(find "$ROOT_DIR/apps" "$ROOT_DIR/packages" \
      \( -name node_modules -o -name dist \) -prune -o -type f -newer "$stamp" -print -quit)" ]; then
    return 0
  fi
  say "Building the portal"
  (cd "$ROOT_DIR" && npm run --silent build) || die "the build failed"
  touch "$stamp"
}

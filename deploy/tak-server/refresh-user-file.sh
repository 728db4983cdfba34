#!/usr/bin/env bash
# Keeps TAK Server's UserAuthenticationFile.xml in step with the portal (docs/tak.md, "Groups
# without a directory"), for a TAK Server that uses its file authenticator instead of LDAP:
# every active member by callsign and the fingerprint of their newest key, with their groups.
# Run it on the portal's machine (it reads the portal's database through its CLI) from cron or a
# systemd timer, like refresh-crl.sh. It writes the file with `npm run portal -- tak user-file`,
# and only when it differs from the copy installed: installs it atomically (TARGET on this
# machine, or copied with INSTALL_COMMAND) and runs RELOAD_COMMAND.
#
# Settings, from the environment:
#   PORTAL_DIR        the portal's repository, built (default /opt/callsign-portal); the portal's
#                     PORTAL_* settings come from its .env or the environment, as for the service
#   TARGET            where TAK Server reads it (default /opt/tak/UserAuthenticationFile.xml)
#   INSTALL_COMMAND   how to install a new file instead of copying it to TARGET on this machine,
#                     given the new file as $1 (e.g. 'scp "$1" tak.example.org:/opt/tak/UserAuthenticationFile.xml')
#   RELOAD_COMMAND    how TAK Server rereads it (default: systemctl restart takserver; empty: none)
#
# Exit status: 0 installed or unchanged; 1 the portal could not write it (nothing installed);
# 2 installed but RELOAD_COMMAND failed.
set -uo pipefail

PORTAL_DIR=${PORTAL_DIR:-/opt/callsign-portal}
TARGET=${TARGET:-/opt/tak/UserAuthenticationFile.xml}
INSTALL_COMMAND=${INSTALL_COMMAND:-}
RELOAD_COMMAND=${RELOAD_COMMAND-systemctl restart takserver}

say() { echo "UserAuthenticationFile: $*"; }

work=$(mktemp -d) || exit 1
trap 'rm -rf "$work"' EXIT
fresh="$work/UserAuthenticationFile.xml"

if ! (cd "$PORTAL_DIR" && node apps/server/dist/cli.js tak user-file --out "$fresh") >"$work/log" 2>&1; then
  cat "$work/log" >&2
  say "the portal could not write it; $TARGET left as it was" >&2
  exit 1
fi
if [ -n "$INSTALL_COMMAND" ]; then
  last="${TARGET##*/}"
  state="${XDG_STATE_HOME:-/var/lib}/tak-user-file"
  mkdir -p "$state" 2>/dev/null || state="$work"
  if [ -f "$state/$last" ] && cmp -s "$fresh" "$state/$last"; then
    say "unchanged"
    exit 0
  fi
  if ! bash -c "$INSTALL_COMMAND" _ "$fresh"; then
    say "INSTALL_COMMAND failed; nothing installed" >&2
    exit 1
  fi
  cp "$fresh" "$state/$last"
else
  if [ -f "$TARGET" ] && cmp -s "$fresh" "$TARGET"; then
    say "unchanged"
    exit 0
  fi
  staged="$TARGET.new.$$"
  if ! { cp "$fresh" "$staged" && chmod 0644 "$staged" && mv -f "$staged" "$TARGET"; }; then
    rm -f "$staged"
    say "could not install $TARGET" >&2
    exit 1
  fi
fi
say "installed ($(grep -c '<User ' "$fresh") users)"
if [ -n "$RELOAD_COMMAND" ] && ! bash -c "$RELOAD_COMMAND"; then
  say "installed, but RELOAD_COMMAND failed: $RELOAD_COMMAND" >&2
  exit 2
fi
exit 0

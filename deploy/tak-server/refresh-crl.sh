#!/usr/bin/env bash
# Keeps TAK Server's copy of the portal's CRL current (docs/tak.md).
#
# TAK Server reads the CRL file named in CoreConfig.xml (<crl crlFile=...>) only when it starts,
# and once that copy is past its nextUpdate it refuses every client. This script fetches the
# portal's CRL and, only when the list of revoked certificates changed or the installed copy has
# less than RENEW_DAYS left, installs it and runs RELOAD_COMMAND (a TAK Server restart by
# default), so TAK Server is not restarted for nothing. Run it from the systemd timer next to it
# (tak-crl-refresh.timer) or from cron.
#
# Settings, from the environment (the systemd unit reads /etc/default/tak-crl-refresh):
#   CRL_URL         the portal's CRL, e.g. https://portal.example.org/ca/crl.pem (required)
#   CRL_FILE        where TAK Server reads it (default /opt/tak/certs/files/portal-crl.pem)
#   CA_FILE         the portal's CA chain (PEM, /ca/ca.pem): the CRL must be signed by it, and an
#                   https CRL_URL is checked against it too (recommended)
#   RENEW_DAYS      install a fresh copy when the installed one has fewer days left (default 7)
#   RELOAD_COMMAND  run after installing (default: systemctl restart takserver)
#
# Exit status: 0 installed or unchanged; 1 nothing installed (fetch failed, not a valid CRL, bad
# signature, already expired; the installed copy is left as it was); 2 installed but
# RELOAD_COMMAND failed; 64 bad settings.
set -uo pipefail

CRL_URL=${CRL_URL:-}
CRL_FILE=${CRL_FILE:-/opt/tak/certs/files/portal-crl.pem}
CA_FILE=${CA_FILE:-}
RENEW_DAYS=${RENEW_DAYS:-7}
RELOAD_COMMAND=${RELOAD_COMMAND:-systemctl restart takserver}

say() { echo "portal CRL: $*"; }
give_up() {
  say "$1; $CRL_FILE left as it was" >&2
  exit 1
}

[ -n "$CRL_URL" ] || { echo "refresh-crl.sh: set CRL_URL (e.g. https://portal.example.org/ca/crl.pem)" >&2; exit 64; }
[[ "$RENEW_DAYS" =~ ^[0-9]+$ ]] || { echo "refresh-crl.sh: RENEW_DAYS must be a whole number of days" >&2; exit 64; }
[ -z "$CA_FILE" ] || [ -r "$CA_FILE" ] || { echo "refresh-crl.sh: cannot read CA_FILE $CA_FILE" >&2; exit 64; }

work=$(mktemp -d) || exit 1
trap 'rm -rf "$work"' EXIT
fetched="$work/crl.pem"

curl_args=(--fail --silent --show-error --location --max-time 60 --output "$fetched")
[ -z "$CA_FILE" ] || curl_args+=(--cacert "$CA_FILE")
curl "${curl_args[@]}" "$CRL_URL" || give_up "could not fetch $CRL_URL"

openssl crl -in "$fetched" -noout 2>/dev/null || give_up "$CRL_URL did not answer a PEM CRL"
if [ -n "$CA_FILE" ]; then
  openssl crl -in "$fetched" -noout -CAfile "$CA_FILE" >/dev/null 2>&1 ||
    give_up "the CRL from $CRL_URL is not signed by the CA in $CA_FILE"
fi

# Seconds since the epoch of a CRL's nextUpdate (GNU date reads OpenSSL's "Mon DD HH:MM:SS YYYY GMT").
next_update() {
  local line
  line=$(openssl crl -in "$1" -noout -nextupdate 2>/dev/null) || return 1
  date -d "${line#nextUpdate=}" +%s 2>/dev/null
}
# The issuer and the sorted serials of the revoked certificates: what TAK Server acts on.
revoked_list() {
  openssl crl -in "$1" -noout -hash || return 1
  openssl crl -in "$1" -noout -text | sed -n 's/^ *Serial Number: *//p' | tr 'a-f' 'A-F' | sort
}

now=$(date +%s)
fetched_next=$(next_update "$fetched") || give_up "the CRL from $CRL_URL has no readable nextUpdate"
[ "$fetched_next" -gt "$now" ] || give_up "the CRL from $CRL_URL is already past its nextUpdate"
fetched_count=$(revoked_list "$fetched" | tail -n +2 | grep -c .)

reason=""
if [ ! -s "$CRL_FILE" ]; then
  reason="none installed yet"
elif ! installed_next=$(next_update "$CRL_FILE") || ! installed_list=$(revoked_list "$CRL_FILE" 2>/dev/null); then
  reason="the installed copy is not a readable CRL"
elif [ "$installed_list" != "$(revoked_list "$fetched")" ]; then
  reason="the revoked list changed ($(($(echo "$installed_list" | grep -c .) - 1)) -> $fetched_count entries)"
elif [ $((installed_next - now)) -lt $((RENEW_DAYS * 86400)) ]; then
  reason="the installed copy expires $(date -u -d "@$installed_next" '+%Y-%m-%d %H:%M UTC')"
fi

if [ -z "$reason" ]; then
  say "unchanged ($fetched_count revoked; installed copy valid until $(date -u -d "@$installed_next" '+%Y-%m-%d %H:%M UTC'))"
  exit 0
fi

# Same directory, then rename: TAK Server never sees a half-written file.
staged="$CRL_FILE.new.$$"
cp "$fetched" "$staged" && chmod 0644 "$staged" && mv -f "$staged" "$CRL_FILE" || {
  rm -f "$staged"
  give_up "could not write $CRL_FILE"
}
say "installed $CRL_FILE: $reason; valid until $(date -u -d "@$fetched_next" '+%Y-%m-%d %H:%M UTC')"
if ! bash -c "$RELOAD_COMMAND"; then
  say "installed, but \"$RELOAD_COMMAND\" failed: TAK Server still uses its old copy" >&2
  exit 2
fi
say "ran: $RELOAD_COMMAND"

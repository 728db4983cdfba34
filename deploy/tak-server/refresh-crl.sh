#!/usr/bin/env bash
# Keeps TAK Server's CRL bundle current (docs/tak.md): the portal's CRL plus the CRL of every
# other CA TAK Server trusts (ALSO_CRLS, e.g. TAK Server's own CA), in one PEM file.
#
# TAK Server reads its CRL files only when it starts (SSLConfig.initTrust for the streaming
# inputs, ServerConfiguration for the Tomcat web connectors, TAK Server 5.7), and once a copy it
# loaded is past its nextUpdate, Java refuses every client of that CA. So this script installs a
# fresh bundle (atomically) when a revoked list changed or the installed copy has less than
# RENEW_DAYS left, and runs RELOAD_COMMAND (a TAK Server restart, which drops every connection):
#   - when TAK Server has loaded no copy yet, or the copy it loaded has less than RENEW_DAYS left;
#   - when a revoked list changed, only with RESTART_ON_CHANGE=yes. With enableOCSP="true" on
#     TAK Server's <tls> (docs/tak.md) the streaming input asks the portal's OCSP responder on
#     every connection and refuses a revoked key at once, so the default is no restart: the new
#     bundle is installed and read by the next restart. Set RESTART_ON_CHANGE=yes when a
#     connector that reads only the file must refuse a revoked key at once (no OCSP on the
#     streaming input, or the web connectors on 8443): each revocation then restarts TAK Server.
# Run it from the systemd timer next to it (tak-crl-refresh.timer) or from cron.
#
# Settings, from the environment (the systemd unit reads /etc/default/tak-crl-refresh):
#   CRL_URL            the portal's CRL, e.g. http://portal.example.org/ca/crl.pem (required)
#   CRL_FILE           the bundle TAK Server reads (default /opt/tak/certs/files/crl-bundle.pem)
#   ALSO_CRLS          the other CAs' CRL files to bundle, PEM or DER, separated by spaces
#   CA_FILE            the portal's CA chain (PEM, /ca/ca.pem): the portal's CRL must be signed by
#                      it, and an https CRL_URL is checked against it too (recommended)
#   RENEW_DAYS         renew a copy with fewer days left than this (default 7)
#   RESTART_ON_CHANGE  yes: also restart when a revoked list changed; no (default): see above
#   RELOAD_COMMAND     how TAK Server rereads the files (default: systemctl restart takserver)
#   LOADED_FILE        where the script keeps a copy of what TAK Server loaded at its last
#                      restart, to know when that copy lapses (default: CRL_FILE.loaded)
#
# Exit status: 0 installed or unchanged; 1 nothing installed (fetch failed, not a valid CRL, bad
# signature, already expired, an ALSO_CRLS file missing or bad; the installed copy is left as it
# was); 2 installed but RELOAD_COMMAND failed; 64 bad settings.
set -uo pipefail

CRL_URL=${CRL_URL:-}
CRL_FILE=${CRL_FILE:-/opt/tak/certs/files/crl-bundle.pem}
ALSO_CRLS=${ALSO_CRLS:-}
CA_FILE=${CA_FILE:-}
RENEW_DAYS=${RENEW_DAYS:-7}
RESTART_ON_CHANGE=${RESTART_ON_CHANGE:-no}
RELOAD_COMMAND=${RELOAD_COMMAND:-systemctl restart takserver}
LOADED_FILE=${LOADED_FILE:-$CRL_FILE.loaded}

say() { echo "CRL bundle: $*"; }
give_up() {
  say "$1; $CRL_FILE left as it was" >&2
  exit 1
}

[ -n "$CRL_URL" ] || { echo "refresh-crl.sh: set CRL_URL (e.g. http://portal.example.org/ca/crl.pem)" >&2; exit 64; }
[[ "$RENEW_DAYS" =~ ^[0-9]+$ ]] || { echo "refresh-crl.sh: RENEW_DAYS must be a whole number of days" >&2; exit 64; }
[[ "$RESTART_ON_CHANGE" =~ ^(yes|no)$ ]] || { echo "refresh-crl.sh: RESTART_ON_CHANGE must be yes or no" >&2; exit 64; }
[ -z "$CA_FILE" ] || [ -r "$CA_FILE" ] || { echo "refresh-crl.sh: cannot read CA_FILE $CA_FILE" >&2; exit 64; }

work=$(mktemp -d) || exit 1
trap 'rm -rf "$work"' EXIT
fetched="$work/crl.pem"
bundle="$work/bundle.pem"

# Each CRL of a file (PEM, one or more, or DER) as PEM files $2.1, $2.2, ...; fails on anything else.
split_crls() {
  local n=0 part
  if grep -q -- '-----BEGIN X509 CRL-----' "$1" 2>/dev/null; then
    while IFS= read -r part; do
      n=$((n + 1))
      printf '%s\n' "$part" | tr '|' '\n' >"$2.$n"
      openssl crl -in "$2.$n" -noout 2>/dev/null || return 1
    done < <(awk '/-----BEGIN X509 CRL-----/{b=""; on=1} on{b=b $0 "|"} /-----END X509 CRL-----/{on=0; sub(/\|$/, "", b); print b}' "$1")
  else
    n=1
    openssl crl -in "$1" -inform DER -outform PEM -out "$2.1" 2>/dev/null || return 1
  fi
  [ "$n" -gt 0 ]
}
# Seconds since the epoch of a CRL's nextUpdate (GNU date reads OpenSSL's "Mon DD HH:MM:SS YYYY GMT").
next_update() {
  local line
  line=$(openssl crl -in "$1" -noout -nextupdate 2>/dev/null) || return 1
  date -d "${line#nextUpdate=}" +%s 2>/dev/null
}
# Per CRL of a bundle: its issuer's hash, then the sorted serials it revokes: what TAK Server acts on.
revoked_list() {
  local part
  split_crls "$1" "$work/list" || return 1
  for part in "$work"/list.*; do
    echo "CRL $(openssl crl -in "$part" -noout -hash)" || return 1
    openssl crl -in "$part" -noout -text | sed -n 's/^ *Serial Number: *//p' | tr 'a-f' 'A-F' | sort
  done
  rm -f "$work"/list.*
}
# The earliest nextUpdate of the CRLs in a bundle: when TAK Server starts refusing someone.
first_lapse() {
  local part next first=""
  split_crls "$1" "$work/lapse" || return 1
  for part in "$work"/lapse.*; do
    next=$(next_update "$part") || return 1
    [ -n "$first" ] && [ "$first" -le "$next" ] || first=$next
  done
  rm -f "$work"/lapse.*
  echo "$first"
}
count() { grep -vc '^CRL '; }
when() { date -u -d "@$1" '+%Y-%m-%d %H:%M UTC'; }

curl_args=(--fail --silent --show-error --location --max-time 60 --output "$fetched")
[ -z "$CA_FILE" ] || curl_args+=(--cacert "$CA_FILE")
curl "${curl_args[@]}" "$CRL_URL" || give_up "could not fetch $CRL_URL"

openssl crl -in "$fetched" -noout 2>/dev/null || give_up "$CRL_URL did not answer a PEM CRL"
if [ -n "$CA_FILE" ]; then
  openssl crl -in "$fetched" -noout -CAfile "$CA_FILE" >/dev/null 2>&1 ||
    give_up "the CRL from $CRL_URL is not signed by the CA in $CA_FILE"
fi

now=$(date +%s)
fetched_next=$(next_update "$fetched") || give_up "the CRL from $CRL_URL has no readable nextUpdate"
[ "$fetched_next" -gt "$now" ] || give_up "the CRL from $CRL_URL is already past its nextUpdate"

# The portal's CRL first, then each other CA's, each checked as the portal's is.
openssl crl -in "$fetched" -outform PEM >"$bundle" 2>/dev/null || give_up "could not read the CRL from $CRL_URL"
for also in $ALSO_CRLS; do
  [ -r "$also" ] || give_up "cannot read $also (ALSO_CRLS)"
  split_crls "$also" "$work/also" || give_up "$also (ALSO_CRLS) is not a CRL (PEM or DER)"
  for part in "$work"/also.*; do
    next=$(next_update "$part") || give_up "$also (ALSO_CRLS) has no readable nextUpdate"
    [ "$next" -gt "$now" ] ||
      give_up "$also (ALSO_CRLS) is past its nextUpdate ($(when "$next")): every client of its CA would be refused; renew it"
    cat "$part" >>"$bundle"
  done
  rm -f "$work"/also.*
done
bundle_list=$(revoked_list "$bundle") || give_up "could not read the bundle"
bundle_count=$(echo "$bundle_list" | count)
bundle_next=$(first_lapse "$bundle") || give_up "could not read the bundle's nextUpdate"

reason=""
restart=""
if [ ! -s "$CRL_FILE" ]; then
  reason="none installed yet"
  restart=yes
elif ! installed_next=$(first_lapse "$CRL_FILE") || ! installed_list=$(revoked_list "$CRL_FILE"); then
  reason="the installed copy is not a readable CRL"
  restart=yes
elif [ "$installed_list" != "$bundle_list" ]; then
  reason="the revoked list changed ($(echo "$installed_list" | count) -> $bundle_count entries)"
  [ "$RESTART_ON_CHANGE" = no ] || restart=yes
elif [ $((installed_next - now)) -lt $((RENEW_DAYS * 86400)) ]; then
  reason="the installed copy expires $(when "$installed_next")"
fi
# TAK Server holds what it loaded at its last restart (the installed copy if this script has not
# restarted it yet): renew that before it lapses, whatever the installed file says.
loaded="$LOADED_FILE"
[ -s "$loaded" ] || loaded="$CRL_FILE"
if [ -z "$restart" ] && [ -s "$loaded" ]; then
  if ! loaded_next=$(first_lapse "$loaded"); then
    restart=yes
  elif [ $((loaded_next - now)) -lt $((RENEW_DAYS * 86400)) ]; then
    restart=yes
    [ -n "$reason" ] || reason="the copy TAK Server loaded expires $(when "$loaded_next")"
  fi
fi

if [ -z "$reason" ] && [ -z "$restart" ]; then
  say "unchanged ($bundle_count revoked; installed copy valid until $(when "$installed_next"))"
  exit 0
fi

# Same directory, then rename: TAK Server never sees a half-written file.
staged="$CRL_FILE.new.$$"
cp "$bundle" "$staged" && chmod 0644 "$staged" && mv -f "$staged" "$CRL_FILE" || {
  rm -f "$staged"
  give_up "could not write $CRL_FILE"
}
say "installed $CRL_FILE: $reason; valid until $(when "$bundle_next")"
if [ -z "$restart" ]; then
  say "no restart (RESTART_ON_CHANGE=no): OCSP refuses a revoked key on the streaming input; TAK Server reads this file at its next restart"
  exit 0
fi
if ! bash -c "$RELOAD_COMMAND"; then
  say "installed, but \"$RELOAD_COMMAND\" failed: TAK Server still uses its old copy" >&2
  exit 2
fi
cp "$CRL_FILE" "$LOADED_FILE" 2>/dev/null || say "could not write $LOADED_FILE" >&2
say "ran: $RELOAD_COMMAND"

#!/usr/bin/env bash
# Usage: scripts/with-slapd.sh COMMAND [ARG...]
#        scripts/with-slapd.sh --start DIR     (start, or start again, the instance in DIR)
#        scripts/with-slapd.sh --stop DIR      (stop it; DIR and its data stay)
#
# A throw-away OpenLDAP server (Debian's slapd) on 127.0.0.1 and a free port, run as the current
# user, with the directory a TAK unit would have (docs/directory.md):
#   dc=unit,dc=example                      the suffix (root: cn=admin, password "admin-secret")
#   cn=portal,dc=unit,dc=example            the portal's account: writes ou=callsign-portal only
#   cn=takserver,dc=unit,dc=example         TAK Server's service account: reads
#   ou=callsign-portal,dc=unit,dc=example   the portal's subtree (empty)
#   ou=other,dc=unit,dc=example             someone else's entries, with cn=Outsider in it
# The memberof overlay keeps each user's memberOf, which TAK Server's LDAP authenticator reads.
#
# With COMMAND: exports PORTAL_TEST_LDAP_URL, _SUFFIX, _BASE_DN, _ROOT_DN, _ROOT_PASSWORD,
# _PORTAL_DN, _PORTAL_PASSWORD, _TAK_DN, _TAK_PASSWORD, runs COMMAND, then always stops the
# server and removes its files; exits with COMMAND's status. --start prints the same variables as
# NAME=VALUE lines (the tests' helper, test/support/slapd.ts, stops and starts a directory this
# way). For tests only: fixed passwords, no TLS, no fsync.
set -euo pipefail

fail() {
  echo "with-slapd: $*" >&2
  exit 1
}

slapd_bin=/usr/sbin/slapd
[ -x "$slapd_bin" ] && command -v ldapadd >/dev/null 2>&1 ||
  fail "slapd or ldapadd not found. Install them (Debian/Ubuntu: apt-get install slapd ldap-utils) and try again."

suffix='dc=unit,dc=example'
root_dn="cn=admin,$suffix"
root_password='admin-secret'
portal_dn="cn=portal,$suffix"
portal_password='portal-secret'
tak_dn="cn=takserver,$suffix"
tak_password='takserver-secret'
base_dn="ou=callsign-portal,$suffix"

free_port() {
  node -e "const s = require('node:net').createServer();
s.listen(0, '127.0.0.1', () => { console.log(s.address().port); s.close(); });"
}

write_config() {
  local dir=$1
  mkdir -p "$dir/data"
  local portal_hash tak_hash
  portal_hash="$(slappasswd -s "$portal_password")"
  tak_hash="$(slappasswd -s "$tak_password")"
  cat >"$dir/slapd.conf" <<CONF
include /etc/ldap/schema/core.schema
include /etc/ldap/schema/cosine.schema
include /etc/ldap/schema/inetorgperson.schema
modulepath /usr/lib/ldap
moduleload back_mdb
moduleload memberof
pidfile $dir/slapd.pid
argsfile $dir/slapd.args

database mdb
maxsize 104857600
suffix "$suffix"
rootdn "$root_dn"
rootpw $root_password
directory $dir/data
dbnosync
index objectClass eq
index cn eq
index member eq

overlay memberof

# The portal reads its whole subtree back at each sync: no size limit for its account (slapd's
# default, 500 entries, binds paged searches too, in total).
limits dn.exact="$portal_dn" size=unlimited

access to attrs=userPassword
  by anonymous auth
  by * none
access to dn.subtree="$base_dn"
  by dn.exact="$portal_dn" write
  by dn.exact="$tak_dn" read
  by * none
access to *
  by dn.exact="$portal_dn" read
  by dn.exact="$tak_dn" read
  by * none
CONF
  cat >"$dir/seed.ldif" <<LDIF
dn: $suffix
objectClass: dcObject
objectClass: organization
dc: unit
o: unit

dn: $portal_dn
objectClass: organizationalRole
objectClass: simpleSecurityObject
cn: portal
userPassword: $portal_hash

dn: $tak_dn
objectClass: organizationalRole
objectClass: simpleSecurityObject
cn: takserver
userPassword: $tak_hash

dn: $base_dn
objectClass: organizationalUnit
ou: callsign-portal

dn: ou=other,$suffix
objectClass: organizationalUnit
ou: other

dn: cn=Outsider,ou=other,$suffix
objectClass: inetOrgPerson
cn: Outsider
sn: Outsider
LDIF
}

start_instance() {
  local dir=$1
  local fresh=0
  if [ ! -f "$dir/slapd.conf" ]; then
    write_config "$dir"
    free_port >"$dir/port"
    fresh=1
  fi
  local port url
  port="$(cat "$dir/port")"
  url="ldap://127.0.0.1:$port"
  "$slapd_bin" -f "$dir/slapd.conf" -h "$url/" >"$dir/slapd.log" 2>&1 ||
    { cat "$dir/slapd.log" >&2; fail "slapd did not start (port $port)"; }
  local tries=0
  until ldapsearch -x -H "$url" -b '' -s base >/dev/null 2>&1; do
    tries=$((tries + 1))
    [ "$tries" -lt 100 ] || fail "slapd on $url did not answer"
    sleep 0.05
  done
  if [ "$fresh" -eq 1 ]; then
    ldapadd -x -H "$url" -D "$root_dn" -w "$root_password" -f "$dir/seed.ldif" >/dev/null
  fi
  cat <<ENV
PORTAL_TEST_LDAP_URL=$url
PORTAL_TEST_LDAP_SUFFIX=$suffix
PORTAL_TEST_LDAP_BASE_DN=$base_dn
PORTAL_TEST_LDAP_ROOT_DN=$root_dn
PORTAL_TEST_LDAP_ROOT_PASSWORD=$root_password
PORTAL_TEST_LDAP_PORTAL_DN=$portal_dn
PORTAL_TEST_LDAP_PORTAL_PASSWORD=$portal_password
PORTAL_TEST_LDAP_TAK_DN=$tak_dn
PORTAL_TEST_LDAP_TAK_PASSWORD=$tak_password
ENV
}

stop_instance() {
  local dir=$1
  [ -f "$dir/slapd.pid" ] || return 0
  local pid
  pid="$(cat "$dir/slapd.pid")"
  kill "$pid" 2>/dev/null || true
  local tries=0
  while kill -0 "$pid" 2>/dev/null; do
    tries=$((tries + 1))
    [ "$tries" -lt 200 ] || { kill -9 "$pid" 2>/dev/null || true; break; }
    sleep 0.05
  done
  rm -f "$dir/slapd.pid"
}

case "${1:-}" in
  --start)
    [ "$#" -eq 2 ] || fail "usage: $0 --start DIR"
    mkdir -p "$2"
    start_instance "$2"
    exit 0
    ;;
  --stop)
    [ "$#" -eq 2 ] || fail "usage: $0 --stop DIR"
    stop_instance "$2"
    exit 0
    ;;
  '')
    echo "usage: $0 COMMAND [ARG...] | --start DIR | --stop DIR" >&2
    exit 2
    ;;
esac

work_dir="$(mktemp -d "${TMPDIR:-/tmp}/portal-slapd.XXXXXX")"
cleanup() {
  local status=$?
  trap - EXIT INT TERM
  stop_instance "$work_dir"
  rm -rf -- "$work_dir"
  exit "$status"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

env_lines="$(start_instance "$work_dir")"
while IFS='=' read -r name value; do
  export "$name=$value"
done <<<"$env_lines"
"$@"

#!/usr/bin/env bash
# Usage: deploy/ldap/setup.sh DIR SUFFIX
#   e.g. sudo deploy/ldap/setup.sh /var/lib/callsign-ldap dc=unit,dc=example
#
# Makes a directory for a unit that has none (docs/directory.md): DIR/slapd.conf from
# slapd.conf.template, the database under DIR/data holding SUFFIX, the portal's account
# (cn=portal,SUFFIX, writes ou=callsign-portal,SUFFIX), TAK Server's account
# (cn=takserver,SUFFIX, reads) and the portal's subtree; fresh random passwords in
# DIR/portal-password and DIR/takserver-password (mode 0600). Put the server certificate and its
# key in DIR/tls/cert.pem and DIR/tls/key.pem first, e.g. from the portal's CA:
#   npm run --silent portal -- server-cert ldap.unit.example --out DIR/tls
#   mv DIR/tls/ldap.unit.example.crt.pem DIR/tls/cert.pem; mv DIR/tls/ldap.unit.example.key.pem DIR/tls/key.pem
# Then start it with callsign-ldap.service, or by hand:
#   slapd -f DIR/slapd.conf -h "ldaps:/// ldapi:///"
# Refuses to touch a DIR that already has a database.
set -euo pipefail

fail() {
  echo "setup.sh: $*" >&2
  exit 1
}

[ "$#" -eq 2 ] || fail "usage: $0 DIR SUFFIX (e.g. /var/lib/callsign-ldap dc=unit,dc=example)"
dir="$(realpath -m "$1")"
suffix="$2"
[[ "$suffix" =~ ^dc=[A-Za-z0-9-]+(,dc=[A-Za-z0-9-]+)*$ ]] ||
  fail "SUFFIX must be dc=...,dc=..., such as dc=unit,dc=example"
command -v slapadd >/dev/null && command -v slappasswd >/dev/null ||
  fail "slapd not installed (Debian/Ubuntu: apt-get install slapd ldap-utils)"
[ -f "$dir/tls/cert.pem" ] && [ -f "$dir/tls/key.pem" ] ||
  fail "put the server certificate and key in $dir/tls/cert.pem and $dir/tls/key.pem first"
[ ! -e "$dir/data" ] || fail "$dir/data exists: this directory is set up already"

here="$(dirname "$(realpath "$0")")"
umask 077
mkdir -p "$dir/data" "$dir/run"
portal_password="$(openssl rand -base64 24)"
tak_password="$(openssl rand -base64 24)"
printf '%s\n' "$portal_password" >"$dir/portal-password"
printf '%s\n' "$tak_password" >"$dir/takserver-password"

sed -e "s#@DIR@#$dir#g" -e "s#@SUFFIX@#$suffix#g" "$here/slapd.conf.template" >"$dir/slapd.conf"
first="$(echo "$suffix" | sed -e 's/^dc=//' -e 's/,.*//')"
slapadd -q -f "$dir/slapd.conf" <<LDIF
dn: $suffix
objectClass: dcObject
objectClass: organization
dc: $first
o: $first

dn: cn=portal,$suffix
objectClass: organizationalRole
objectClass: simpleSecurityObject
cn: portal
description: Callsign Portal: writes ou=callsign-portal
userPassword: $(slappasswd -h '{SSHA}' -s "$portal_password")

dn: cn=takserver,$suffix
objectClass: organizationalRole
objectClass: simpleSecurityObject
cn: takserver
description: TAK Server: reads users and groups
userPassword: $(slappasswd -h '{SSHA}' -s "$tak_password")

dn: ou=callsign-portal,$suffix
objectClass: organizationalUnit
ou: callsign-portal
LDIF

if id openldap >/dev/null 2>&1 && [ "$(id -u)" -eq 0 ]; then
  chown -R openldap:openldap "$dir"
fi
cat <<TEXT
Directory $suffix set up in $dir.
  Portal:     PORTAL_LDAP_URL=ldaps://<this host>
              PORTAL_LDAP_BIND_DN=cn=portal,$suffix
              PORTAL_LDAP_BIND_PASSWORD_FILE=$dir/portal-password (copy it where the portal reads it)
              PORTAL_LDAP_BASE_DN=ou=callsign-portal,$suffix
  TAK Server: serviceAccountDN="cn=takserver,$suffix", its password in $dir/takserver-password
              (docs/tak.md, "Groups from the directory")
TEXT

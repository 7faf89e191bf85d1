#!/bin/sh
# Regenerates the recorded JDK DIGEST-MD5 exchanges (needs a JDK 11+ java).
# Arguments: user password server-password authzid|- server-qop|- client-qop|-
set -e
cd "$(dirname "$0")"
r() { out=$1; shift; java DigestRecorder.java "$@" > "$out.txt"; }
r auth-authzid bob bobsecret bobsecret bob - -
r auth-no-authzid bob bobsecret bobsecret - - -
r wrong-password bob wrong bobsecret bob - -
r auth-int bob bobsecret bobsecret - auth-conf,auth-int,auth auth-int
r unicode 'jörg' 'pässwörd€' 'pässwörd€' 'jörg' - -
r no-common-qop bob bobsecret bobsecret bob - auth-int
r quotes 'a"b\c' 'p"w' 'p"w' - - -

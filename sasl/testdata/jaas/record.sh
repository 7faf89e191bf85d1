#!/bin/sh
# Regenerates the .golden files: what the JDK's ConfigFile makes of each
# .conf file here (needs a JDK 11+ java).
set -e
cd "$(dirname "$0")"
for f in *.conf; do
  java -Dpw=p -Dhome=/home/zk -Dx=X -Dempty= JaasRecorder.java "$f" Server Client "Quoted Name" Empty S T > "${f%.conf}.golden"
done

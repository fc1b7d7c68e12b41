#!/usr/bin/env bash
# Resolves the Apache Kafka broker jars (KRaft) from Maven Central with Maven, once.
# The jars are copied to $KAFKA_LIBS (default: <repo>/.cache/kafka-<ver>/libs) and stay in ~/.m2.
# Installs Java 17 and Maven from Debian's packages when missing. Prints the libs dir on stdout.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
ver=${KAFKA_VERSION:-3.9.1}
libs=${KAFKA_LIBS:-${TRIBUTARY_CACHE_DIR:-$root/.cache}/kafka-$ver/libs}

if [ -f "$libs/kafka_2.13-$ver.jar" ] && [ -f "$libs/.complete" ]; then
  echo "$libs"
  exit 0
fi

need=()
command -v java >/dev/null || need+=(openjdk-17-jre-headless)
command -v mvn >/dev/null || need+=(maven)
if [ "${#need[@]}" -gt 0 ]; then
  echo "[kafka] installing ${need[*]}" >&2
  DEBIAN_FRONTEND=noninteractive apt-get update -qq >&2
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${need[@]}" >&2
fi

case "$ver" in 4.*) profile=kafka4 ;; *) profile=kafka3 ;; esac
# Fill a temp dir and rename, so an interrupted fetch never looks complete.
tmp="$libs.tmp.$$"
rm -rf "$tmp"
mkdir -p "$tmp"
echo "[kafka] resolving kafka_2.13 $ver jars with Maven into $libs" >&2
# Maven 3.8 prints colour codes even in batch mode: strip them.
mvn -B -q -Dstyle.color=never -f "$here/pom.xml" -P"$profile" -Dkafka.version="$ver" -Dkafka.libs.dir="$tmp" \
  dependency:copy-dependencies 2>&1 | sed -e 's/\x1b\[[0-9;]*m//g' >&2
[ -f "$tmp/kafka_2.13-$ver.jar" ] || { echo "[kafka] Maven did not produce kafka_2.13-$ver.jar" >&2; exit 1; }
touch "$tmp/.complete"
rm -rf "$libs"
mv "$tmp" "$libs"
echo "$libs"

#!/usr/bin/env bash
# Runs a benchmark command with what it needs, as the test command does: the pinned dependencies and
# the real servers (the ones set through DATABASE_URL / REDIS_URL / KAFKA_BROKERS / RPC_URL as given,
# the others started by infra/local). Used by every package's `bench` script:
#   bash ../../infra/bench/with-servers.sh node --import tsx bench/runBenches.ts
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
. "$root/infra/lib/ensure-deps.sh"
. "$root/infra/lib/ensure-servers.sh"
ensure_deps "$root" >&2
ensure_servers "$root"
export CHAIN_ID=${CHAIN_ID:-31337}
exec "$@"

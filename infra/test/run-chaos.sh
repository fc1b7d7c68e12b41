#!/usr/bin/env bash
# The chaos command (`pnpm chaos` / `npm run chaos`): installs what is missing, then runs
# packages/e2e/chaos/chaos.ts, which starts PostgreSQL, Redis and Kafka of its own (infra/local,
# in a temporary data dir, on free ports), a private anvil and the five services, drives the
# events, SIGKILLs apps and servers, and reports. Arguments go to it (--events, --kills, ...).
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
. infra/lib/ensure-deps.sh
ensure_deps "$root"
exec pnpm --filter @tributary/e2e chaos "$@"

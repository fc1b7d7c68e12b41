#!/usr/bin/env bash
# The soak command (`pnpm soak` / `npm run soak -- --minutes 60`): installs what is missing, then
# runs packages/e2e/soak/soak.ts, which starts PostgreSQL, Redis and Kafka of its own (the chaos
# command's: infra/local, in a temporary data dir, on free ports), a private anvil and the five
# services, drives a sustained load, samples every minute and reports growth per hour and the
# 30-day disk. Arguments go to it (--minutes, --streams, ...).
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
. infra/lib/ensure-deps.sh
ensure_deps "$root"
[ "${1:-}" = -- ] && shift # npm run soak -- --minutes 5
exec pnpm --filter @tributary/e2e soak "$@"

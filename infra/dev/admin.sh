#!/usr/bin/env bash
# The admin command (`pnpm admin <command>` / `npm run admin -- <command>`): streams across
# accounts, one stream in detail, a delivery replayed. The servers' addresses are the ones
# infra/local uses (kept ports included) unless DATABASE_URL or REDIS_URL are set. Exits 0 when
# done, 1 when the command failed (not found, a server down), 2 on bad usage.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
. infra/lib/ensure-deps.sh
ensure_deps "$root" >&2
. infra/lib/ensure-servers.sh
use_local_addresses "$root" pg redis
[ "${1:-}" = -- ] && shift # npm run admin -- streams list
exec pnpm --silent --filter @tributary/admin admin "$@"

#!/usr/bin/env bash
# The status command (`pnpm status` / `npm run status`): is every chain at the head, is anything
# stuck? Looks at the deployment twice, 5 s apart (--window SECONDS; --json). The servers' addresses
# are the ones infra/local uses (kept ports included) unless DATABASE_URL, REDIS_URL, KAFKA_BROKERS
# or RPC_URL are set. Exits 0 when nothing is stuck, 1 when something is, 2 on bad usage.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
. infra/lib/ensure-deps.sh
ensure_deps "$root" >&2
while IFS= read -r line; do
  var=${line%%=*}
  [ -n "${!var:-}" ] || export "${line?}"
done < <(bash -c '. infra/local/lib.sh; print_env pg redis kafka anvil')
[ "${1:-}" = -- ] && shift # npm run status -- --json
exec pnpm --silent --filter @tributary/admin status "$@"

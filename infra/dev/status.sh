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
. infra/lib/ensure-servers.sh
use_local_addresses "$root" pg redis kafka anvil
# npm start's second devnet (devnet2, chain 31338 on 58546, its follower on ops port 9105), when it runs.
if [ -z "${EXTRA_RPC_URLS:-}" ] && [ "${DEVNET2:-on}" != off ] &&
  curl -s -m 2 -H 'content-type: application/json' -d '{"jsonrpc":"2.0","id":1,"method":"eth_chainId","params":[]}' \
    http://127.0.0.1:58546 2>/dev/null | grep -q '"0x7a6a"'; then
  export EXTRA_RPC_URLS=31338=http://127.0.0.1:58546
  export STATUS_SERVICES=${STATUS_SERVICES:-chain-follower=http://127.0.0.1:9101,chain-follower-devnet2=http://127.0.0.1:9105,projector=http://127.0.0.1:9102,stream-matcher=http://127.0.0.1:9103,webhook-sender=http://127.0.0.1:9104,gateway=http://127.0.0.1:9106}
fi
[ "${1:-}" = -- ] && shift # npm run status -- --json
exec pnpm --silent --filter @tributary/admin status "$@"

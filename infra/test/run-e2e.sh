#!/usr/bin/env bash
# A command of packages/e2e run from the root on a fresh clone (`npm run test:compose`,
# `npm run failover`): installs what is missing first, as `npm start` and `npm test` do, then runs
# `pnpm --filter @tributary/e2e <script>` with the remaining arguments.
#   bash infra/test/run-e2e.sh <script> [-- args...]
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
. infra/lib/ensure-deps.sh
ensure_deps "$root"
script=$1
shift
[ "${1:-}" = -- ] && shift # npm run failover -- --messages 3000
exec pnpm --filter @tributary/e2e "$script" "$@"

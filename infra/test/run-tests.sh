#!/usr/bin/env bash
# The test command (`pnpm test`): dependencies, real servers, migrations, every vitest project, then
# typecheck and lint. Servers named by DATABASE_URL / REDIS_URL / KAFKA_BROKERS / RPC_URL are used as
# given; the missing ones are started (or found running) by infra/local/up.sh and left running.
# Extra arguments go to vitest (e.g. a file filter). Exits non-zero when any step fails.
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
say() { printf '\n[test] %s\n' "$*" >&2; }

# 1) dependencies: the pinned pnpm, and node_modules in step with the lockfile.
. infra/lib/ensure-deps.sh
ensure_deps "$root" || { say "FAILED: dependencies: $DEPS_ERROR ($DEPS_FIX)"; exit 1; }

# 2) servers: the env vars that are set win; up.sh starts the rest (idempotent, default ports).
. infra/lib/ensure-servers.sh
ensure_servers "$root" || { say "FAILED: starting the local servers: $SERVERS_ERROR"; exit 1; }
export CHAIN_ID=${CHAIN_ID:-31337}
say "DATABASE_URL=$DATABASE_URL REDIS_URL=$REDIS_URL KAFKA_BROKERS=$KAFKA_BROKERS RPC_URL=$RPC_URL"

failed=()

# 3) migrations on the main database (the testkit applies them again to its per-run template).
say "migrations (pnpm migrate)"
pnpm migrate || failed+=(migrate)

# 4) tests: one vitest run over every project, with the testkit's global setup.
mkdir -p .cache
results=.cache/vitest-results.json
rm -f "$results"
say "tests (vitest run)"
vitest_rc=0
pnpm exec vitest run --reporter=default --reporter=json --outputFile.json="$results" "$@" || vitest_rc=$?
# vitest also exits 1 on unhandled errors outside any test (they are listed in its output).
[ "$vitest_rc" = 0 ] || failed+=("vitest(exit $vitest_rc)")

# 5) static checks.
say "typecheck (pnpm typecheck)"
pnpm typecheck || failed+=(typecheck)
say "lint (pnpm lint)"
pnpm lint || failed+=(lint)
say "dead code and unused dependencies (pnpm knip)"
pnpm knip || failed+=(knip)

echo
if [ -f "$results" ]; then
  node -e '
    const r = JSON.parse(require("node:fs").readFileSync(process.argv[1], "utf8"));
    const skipped = r.numPendingTests + r.numTodoTests;
    const files = r.testResults.length;
    const failedFiles = r.testResults.filter((f) => f.status !== "passed").length;
    console.log(`vitest test files: ${files - failedFiles} of ${files} passed`);
    console.log(`vitest: ${r.numPassedTests} passed, ${r.numFailedTests} failed, ${skipped} skipped`);
    // The failures again at the end, where a CI log cut to its tail still shows them.
    for (const file of r.testResults.filter((f) => f.status !== "passed")) {
      console.log(`  failed file: ${file.name}${file.message ? ` (${file.message.split("\n")[0]})` : ""}`);
      for (const test of file.assertionResults.filter((t) => t.status === "failed")) {
        console.log(`    ${test.fullName}: ${(test.failureMessages[0] ?? "").split("\n")[0].slice(0, 300)}`);
      }
    }
  ' "$results"
else
  echo "vitest: no results written (see its output above)"
fi
if [ "${#failed[@]}" -gt 0 ]; then
  echo "FAILED: ${failed[*]}"
  exit 1
fi
echo "OK: migrate, vitest, typecheck, lint"

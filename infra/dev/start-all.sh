#!/usr/bin/env bash
# The main job on the local devnets (`npm start`): installs what is missing, starts PostgreSQL, Redis,
# Kafka and anvil (chain devnet, 31337), starts a second anvil (chain devnet2, 31338: DEVNET2_CHAIN_ID,
# DEVNET2_PORT; DEVNET2=off follows the first devnet alone), applies migrations, keeps the indexed data when anvil kept its chain or starts it
# afresh when a devnet is new (and says which), creates the dev API key, deploys demo tokens and
# keeps making activity on each devnet, runs the five services (one chain-follower per devnet), and
# creates a demo stream on both chains whose signed webhooks a
# local receiver verifies and prints. Each service runs under infra/dev/supervise.mjs, which starts it
# again when it exits (with backoff) and says which one exited and why. Ctrl-C stops the services
# (the servers keep running: npm run infra:down) and returns once every process it started is gone:
# within the services' shutdown deadline (SHUTDOWN_DEADLINE_MS, 10 s) and a second, however it is
# stopped (SIGINT, SIGTERM, SIGHUP, npm killed) and whatever was restarted meanwhile. Servers named
# by DATABASE_URL / REDIS_URL / KAFKA_BROKERS / RPC_URL are used as given; the others are started.
# Every way it can fail ends with two lines, after what it started is stopped: `[start] ERROR: <the
# cause>` and `[start] what to do: <...>`, and exit code 1.
set -Eeuo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
say() { printf '[start] %s\n' "$*" >&2; }

# fail CAUSE WHAT-TO-DO: ends npm start; on_exit stops what was started, then says both, last.
error_cause=
error_todo=
fail() {
  error_cause=$1
  error_todo=$2
  exit 1
}
# A command that fails where no fail names the cause: the exit says which one.
failed_at=
trap 'failed_at="line $LINENO: $BASH_COMMAND (exit code $?)"' ERR
# Set when it stops because it was asked to (a signal, or what started it gone): not an error.
asked_to_stop=
scratch=$(mktemp -d)

pids=()
devnet2_pid=
sleeper=
run_dir=
# wait_gone PID: returns once the child is gone. A signal that arrives meanwhile makes `wait` return
# early; the process may still be running then.
wait_gone() { while kill -0 "$1" 2>/dev/null; do wait "$1" 2>/dev/null || true; done; }
stop_all() {
  # Ctrl-C reaches this shell twice (from the terminal, and forwarded by npm), and a SIGTERM may
  # follow it: none may cut the stop short, or npm returns while services are still running.
  trap '' INT TERM HUP
  [ "${#pids[@]}" -gt 0 ] || [ -n "$devnet2_pid" ] || [ -n "$run_dir" ] || return 0
  say "stopping services"
  [ -z "$sleeper" ] || kill "$sleeper" 2>/dev/null || true
  for pid in "${pids[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
  for pid in "${pids[@]}"; do wait_gone "$pid"; done
  # The second devnet last: its demo activity and follower stop while it still answers, and a
  # clean stop writes its state file.
  if [ -n "$devnet2_pid" ]; then
    kill -TERM "$devnet2_pid" 2>/dev/null || true
    wait_gone "$devnet2_pid"
  fi
  if [ -n "$run_dir" ]; then
    # Each supervisor has stopped its service's group before exiting; a group still recorded is one
    # whose supervisor was killed (its guard is stopping it): it is gone before this returns.
    bash infra/dev/stop-groups.sh "$run_dir"/* || true
    rm -rf "$run_dir"
  fi
  say "stopped"
}
on_exit() {
  local rc=$?
  stopping=1
  stop_all
  rm -rf "$scratch"
  if [ -n "$error_cause" ]; then
    say "ERROR: $error_cause"
    say "what to do: $error_todo"
  elif [ "$rc" != 0 ] && [ -z "$asked_to_stop" ]; then
    say "ERROR: npm start failed at infra/dev/start-all.sh ${failed_at:-(exit code $rc)}"
    say "what to do: the lines above say what failed; once it is fixed, run npm start again (should they not say why, report it with this output)"
  fi
}
trap on_exit EXIT
# A stop signal exits once: one that arrives after (the second Ctrl-C, a SIGTERM) while on_exit
# stops everything must not exit again from inside it, which would end the shell with the stop
# half done and npm returning while services still run. Bash may run such a trap even after
# stop_all's `trap ''`, when the signal came while the first trap was running.
stopping=
on_stop_signal() {
  asked_to_stop=1
  [ -z "$stopping" ] || return 0
  stopping=1
  exit "$1"
}
trap 'on_stop_signal 130' INT TERM
trap 'on_stop_signal 129' HUP

# shown URL: the URL without its password.
shown() { printf '%s' "$1" | sed -E 's#(://[^:/@]*):[^@/]*@#\1:***@#'; }
# last_line FILE: its last line that is not blank.
last_line() { grep -v '^[[:space:]]*$' "$1" | tail -n1 | cut -c1-500; }

. infra/lib/ensure-deps.sh
ensure_deps "$root" || fail "dependencies: $DEPS_ERROR" "$DEPS_FIX"

# Servers: the ones the environment names are used as given (as by the test command); up.sh starts
# the others.
. infra/lib/ensure-servers.sh
ensure_servers "$root" || fail "a local server did not start: $SERVERS_ERROR" \
  "the [infra] lines above say why (each server's log is in ${TRIBUTARY_DATA_DIR:-.data}/<server>/); the servers that did start keep running (npm run infra:down stops them). Servers of your own can be named with DATABASE_URL, REDIS_URL, KAFKA_BROKERS and RPC_URL"
export CHAIN_ID=${CHAIN_ID:-31337}
export NODE_ENV=${NODE_ENV:-development}
# The demo receiver listens on loopback, which production refuses.
export ALLOW_PRIVATE_WEBHOOK_URLS=${ALLOW_PRIVATE_WEBHOOK_URLS:-true}
# Service ports: one set through its env var is used as given, and must be free; a default that
# another program holds moves to the next free port (said below, and in the summary at the end).
. infra/lib/ports.sh
pick_port() { # NAME VAR DEFAULT
  local name=$1 var=$2 default=$3 given=0
  [ -z "${!var:-}" ] || given=1
  choose_port "$name" "$var" "${!var:-$default}" "$given" ||
    fail "$PORT_ERROR" "stop the program that holds it, or set $var to a free port"
  [ -z "$PORT_MOVED" ] || say "$PORT_MOVED"
}
pick_port gateway HTTP_PORT 8080
pick_port 'demo receiver' RECEIVER_PORT 8099
pick_port 'chain-follower ops' FOLLOWER_OPS_PORT 9101
pick_port 'projector ops' PROJECTOR_OPS_PORT 9102
pick_port 'stream-matcher ops' MATCHER_OPS_PORT 9103
pick_port 'webhook-sender ops' SENDER_OPS_PORT 9104
pick_port 'gateway ops' GATEWAY_OPS_PORT 9106
# The second devnet: its own anvil, follower and demo activity; queryable as devnet2 and its hex id.
if [ "${DEVNET2:-on}" != off ]; then
  DEVNET2_CHAIN_ID=${DEVNET2_CHAIN_ID:-31338}
  [[ "$DEVNET2_CHAIN_ID" =~ ^[1-9][0-9]{0,15}$ ]] && [ "$DEVNET2_CHAIN_ID" != "$CHAIN_ID" ] ||
    fail "DEVNET2_CHAIN_ID=$DEVNET2_CHAIN_ID is not a chain id other than the first devnet's ($CHAIN_ID)" \
      "set DEVNET2_CHAIN_ID to another number (31338 by default), or DEVNET2=off to follow the first devnet alone"
  DEVNET2_HEX=$(printf '0x%x' "$DEVNET2_CHAIN_ID")
  pick_port devnet2 DEVNET2_PORT 58546
  pick_port 'devnet2 chain-follower ops' FOLLOWER2_OPS_PORT 9105
  DEVNET2_RPC_URL=http://127.0.0.1:$DEVNET2_PORT
  # Name, hex id, confirmations, block time (ms): what the followers and the gateway know it by.
  export EXTRA_CHAINS=${EXTRA_CHAINS:-devnet2:$DEVNET2_HEX:2:1000}
  # The matcher reads trigger results and native balances of each chain from its own node.
  export EXTRA_RPC_URLS=${EXTRA_RPC_URLS:-$DEVNET2_CHAIN_ID=$DEVNET2_RPC_URL}
fi
logs=${TRIBUTARY_DATA_DIR:-$root/.data}/logs
mkdir -p "$logs"
# The supervisors record each process group they start here (<service>/<pgid>) while it lives.
run_dir=${TRIBUTARY_DATA_DIR:-$root/.data}/run/$$
rm -rf "$run_dir"
mkdir -p "$run_dir"
export TRIBUTARY_RUN_DIR=$run_dir

run_bg() { # name, command...: supervised (restarted when it exits)
  local name=$1; shift
  : >"$logs/$name.log"
  rm -f "$logs/$name.exit"
  node infra/dev/supervise.mjs "$name" "$logs/$name.log" "$@" &
  pids+=($!)
  say "$name started (supervisor pid $!, log $logs/$name.log)"
}
# exited NAME: how the service's last run ended ("exited (code 1) after 0.2 s; last log line: ..."),
# empty while it has not exited.
exited() { cat "$logs/$1.exit" 2>/dev/null || true; }

rpc_chain_id() { # url: the node's eth_chainId, empty when it does not answer
  curl -sf -m 2 -H 'content-type: application/json' \
    -d '{"jsonrpc":"2.0","id":1,"method":"eth_chainId","params":[]}' "$1" |
    sed -n 's/.*"result":"\(0x[0-9a-f]*\)".*/\1/p'
}

devnets="$CHAIN_ID=$RPC_URL"
if [ "${DEVNET2:-on}" != off ]; then
  # Runs with the services (Ctrl-C stops it); its chain is kept in its own state file, as the first
  # anvil's is (infra/local/services/anvil.sh), so a restart keeps the same chain.
  devnet2_dir=${TRIBUTARY_DATA_DIR:-$root/.data}/anvil-devnet2
  mkdir -p "$devnet2_dir"
  [ -s "$devnet2_dir/state.json" ] && devnet2_state="chain loaded from $devnet2_dir/state.json" ||
    devnet2_state="new chain from genesis, kept in $devnet2_dir/state.json"
  # ANVIL_BIN: another anvil binary, as for infra/local's.
  anvil_bin=${ANVIL_BIN:-$(node infra/local/anvil-bin.mjs)} ||
    fail "devnet2: the anvil binary of @foundry-rs/anvil is missing" "run pnpm install (or set ANVIL_BIN), or DEVNET2=off"
  say "devnet2: anvil on 127.0.0.1:$DEVNET2_PORT (chain id $DEVNET2_CHAIN_ID; $devnet2_state)"
  run_bg anvil-devnet2 "$anvil_bin" --host 127.0.0.1 --port "$DEVNET2_PORT" \
    --chain-id "$DEVNET2_CHAIN_ID" --mnemonic 'test test test test test test test test test test test junk' \
    --block-time "${ANVIL_BLOCK_TIME:-1}" --state "$devnet2_dir/state.json" --state-interval 10
  devnet2_pid=${pids[-1]}
  unset 'pids[-1]'
  devnet2_fix="its log is $logs/anvil-devnet2.log; DEVNET2_PORT moves it, DEVNET2=off starts without it"
  for _ in $(seq 1 60); do
    [ "$(rpc_chain_id "$DEVNET2_RPC_URL")" = "$DEVNET2_HEX" ] && break
    # An anvil that exits at its start (a bad binary, a state file it cannot load) does the same again.
    if [ -n "$(exited anvil-devnet2)" ]; then
      tail -n 20 "$logs/anvil-devnet2.log" >&2
      fail "devnet2's anvil $(exited anvil-devnet2)" "$devnet2_fix"
    fi
    sleep 0.5
  done
  if [ "$(rpc_chain_id "$DEVNET2_RPC_URL")" != "$DEVNET2_HEX" ]; then
    tail -n 20 "$logs/anvil-devnet2.log" >&2
    fail "devnet2 does not answer chain id $DEVNET2_HEX at $DEVNET2_RPC_URL (answer: $(rpc_chain_id "$DEVNET2_RPC_URL" || true))" "$devnet2_fix"
  fi
  devnets+=",$DEVNET2_CHAIN_ID=$DEVNET2_RPC_URL"
fi

# The migrations and the keys command run as the services do, straight from node (pnpm's script
# layers cost seconds on a busy machine).
migrate() {
  say "migrations"
  node --import tsx packages/db/src/migrateCli.ts >"$scratch/migrate.out" 2>&1 || {
    cat "$scratch/migrate.out" >&2
    fail "migrations failed: $(last_line "$scratch/migrate.out")" \
      "check that DATABASE_URL ($(shown "$DATABASE_URL")) names a PostgreSQL server that accepts connections, with its database (npm run infra:up starts the local one), then run npm start again"
  }
  cat "$scratch/migrate.out" >&2
}
migrate

# anvil keeps its chain in .data/anvil/state.json (the second devnet in .data/anvil-devnet2); without
# it (or with another one) a devnet is a new chain, and what PostgreSQL, Kafka and the webhook queue
# hold belongs partly to one that no longer exists.
devnet=$(DEVNETS=$devnets node infra/dev/devnet-data.mjs 2>"$scratch/devnet-data.err") || {
  cat "$scratch/devnet-data.err" >&2
  fail "could not compare the devnets with the indexed data: $(last_line "$scratch/devnet-data.err" | sed 's/^\[start\] devnet data: //')" \
    "check that each devnet's node answers ($devnets) and that DATABASE_URL and KAFKA_BROKERS name servers that answer, then run npm start again"
}
cat "$scratch/devnet-data.err" >&2
if [ "$devnet" = reset ]; then
  redis-cli --no-auth-warning -u "$REDIS_URL" --scan --pattern "${WEBHOOK_QUEUE_PREFIX:-tributary}:*" 2>"$scratch/redis.err" |
    xargs -r redis-cli --no-auth-warning -u "$REDIS_URL" unlink >/dev/null 2>>"$scratch/redis.err" || {
    cat "$scratch/redis.err" >&2
    fail "could not clear the webhook queue of the new devnet in Redis at $(shown "$REDIS_URL"): $(last_line "$scratch/redis.err")" \
      "check that REDIS_URL names a Redis server that answers (npm run infra:up starts the local one), then run npm start again"
  }
  say "devnet: webhook queue cleared; migrations on the new database"
  migrate
fi

# The dev key is shown once at creation, so it is kept in .data for the next start; one the database
# does not hold as active (a new database, a revoked key) is made again.
keys() { node --import tsx apps/admin/src/cli/keys.ts "$@"; }
key_file=${TRIBUTARY_DATA_DIR:-$root/.data}/dev-api-key
key_active() {
  local prefix listed
  prefix=$(cut -c1-12 "$key_file") && listed=$(keys list 2>/dev/null) || return 1
  awk -F '\t' -v prefix="$prefix" 'index($1, prefix) == 1 && $NF == "active" { found = 1 } END { exit !found }' <<<"$listed"
}
if [ ! -s "$key_file" ] || ! key_active; then
  say "creating the dev API key"
  keys create --account dev --label "local devnet" >"$scratch/keys.out" 2>&1 || {
    cat "$scratch/keys.out" >&2
    fail "the dev API key could not be created: $(last_line "$scratch/keys.out")" \
      "check that DATABASE_URL ($(shown "$DATABASE_URL")) accepts writes, then run npm start again (pnpm --filter @tributary/admin keys create --account dev makes one by hand)"
  }
  key=$(sed -n 's/^api key .*: //p' "$scratch/keys.out")
  [ -n "$key" ] || fail "the keys command printed no key: $(last_line "$scratch/keys.out")" \
    "run pnpm --filter @tributary/admin keys create --account dev yourself to see why"
  (umask 077 && printf '%s\n' "$key" >"$key_file")
fi
API_KEY=$(cat "$key_file")

# Each service is waited for until READY_TIMEOUT (60 s) from now. One that is not ready by then is
# said with its /readyz answer (the reason, e.g. the follower halted on another chain) and keeps
# running under its supervisor; the demo needs only the gateway, which must be ready.
ready_timeout=${READY_TIMEOUT:-60}
[[ "$ready_timeout" =~ ^[1-9][0-9]*$ ]] || fail "READY_TIMEOUT=$ready_timeout is not a number of seconds" "unset it (60 s) or set it to a whole number of seconds"
# readyz_says BODY: the checks a /readyz answer fails ("fails redis: connect ECONNREFUSED ..."), else
# the answer itself.
readyz_says() {
  node -e '
    const body = process.argv[1];
    let failing = [];
    try {
      const checks = Object.entries(JSON.parse(body).checks ?? {});
      failing = checks.filter(([, c]) => !c.ok).map(([name, c]) => `${name}: ${c.error ?? "failed"}`);
    } catch {}
    process.stdout.write(failing.length > 0 ? `fails ${failing.join("; ")}` : body);' "$1" | cut -c1-400
}
wait_ready() { # name=url ...
  local deadline=$((SECONDS + ready_timeout)) entry name url readyz waiting=("$@") left gateway_not_ready=
  while [ "${#waiting[@]}" -gt 0 ] && [ "$SECONDS" -lt "$deadline" ]; do
    left=()
    for entry in "${waiting[@]}"; do
      if curl -sf -m 2 "${entry#*=}" >/dev/null; then say "${entry%%=*} ready"; else left+=("$entry"); fi
    done
    waiting=("${left[@]}")
    [ "${#waiting[@]}" = 0 ] || sleep 0.5
  done
  for entry in "${waiting[@]}"; do
    name=${entry%%=*}
    url=${entry#*=}
    readyz=$(curl -s -m 5 "$url" || true)
    if [ -n "$readyz" ]; then readyz="its /readyz $(readyz_says "$readyz")"; else readyz="its /readyz does not answer"; fi
    readyz+=$(exited "$name" | sed 's/^/; it /')
    say "$name not ready at $url after ${ready_timeout} s: $readyz; last log lines:"
    tail -n 20 "$logs/$name.log" >&2
    [ "$name" != gateway ] || gateway_not_ready=$readyz
  done
  [ -z "$gateway_not_ready" ] ||
    fail "the gateway is not ready after ${ready_timeout} s: $gateway_not_ready" \
      "the check that fails names what to fix (postgres: DATABASE_URL, redis: REDIS_URL); the gateway's log is $logs/gateway.log; READY_TIMEOUT gives it longer"
}

# From here on every process (the services, the demo receiver and activity) runs on jemalloc,
# which gives back what it freed (infra/lib/jemalloc.sh; TRIBUTARY_MALLOC=glibc runs them without).
. infra/lib/jemalloc.sh
LD_PRELOAD=$(jemalloc_preload)
export LD_PRELOAD
case $LD_PRELOAD in
  *libjemalloc*) say "the services' memory allocator: jemalloc (LD_PRELOAD=$LD_PRELOAD)" ;;
  *) say "the services' memory allocator: glibc malloc (TRIBUTARY_MALLOC=glibc, or no libjemalloc.so.2 found)" ;;
esac
OPS_PORT=$FOLLOWER_OPS_PORT run_bg chain-follower node --max-semi-space-size=64 --import tsx apps/chain-follower/src/main.ts
if [ "${DEVNET2:-on}" != off ]; then
  CHAIN_ID=$DEVNET2_CHAIN_ID RPC_URL=$DEVNET2_RPC_URL OPS_PORT=$FOLLOWER2_OPS_PORT \
    run_bg chain-follower-devnet2 node --max-semi-space-size=64 --import tsx apps/chain-follower/src/main.ts
fi
OPS_PORT=$PROJECTOR_OPS_PORT run_bg projector node --max-semi-space-size=64 --import tsx apps/projector/src/main.ts
OPS_PORT=$MATCHER_OPS_PORT run_bg stream-matcher node --max-semi-space-size=64 --import tsx apps/stream-matcher/src/main.ts
OPS_PORT=$SENDER_OPS_PORT run_bg webhook-sender node --max-semi-space-size=64 --import tsx apps/webhook-sender/src/main.ts
HTTP_PORT=$HTTP_PORT OPS_PORT=$GATEWAY_OPS_PORT run_bg gateway node --import tsx apps/gateway/src/main.ts
# The gateway's ops port: its /readyz says which dependency is missing (the public one says only "fail").
services_ready=(
  "chain-follower=http://127.0.0.1:$FOLLOWER_OPS_PORT/readyz"
  "projector=http://127.0.0.1:$PROJECTOR_OPS_PORT/readyz"
  "stream-matcher=http://127.0.0.1:$MATCHER_OPS_PORT/readyz"
  "webhook-sender=http://127.0.0.1:$SENDER_OPS_PORT/readyz"
  "gateway=http://127.0.0.1:$GATEWAY_OPS_PORT/readyz"
)
[ "${DEVNET2:-on}" = off ] || services_ready+=("chain-follower-devnet2=http://127.0.0.1:$FOLLOWER2_OPS_PORT/readyz")
wait_ready "${services_ready[@]}"

api() { curl -sf -H "x-api-key: $API_KEY" -H 'content-type: application/json' "$@"; }
gateway_fix="the gateway's log is $logs/gateway.log"
SECRET=$(api "http://127.0.0.1:$HTTP_PORT/settings" | node -e 'process.stdin.on("data",d=>process.stdout.write(JSON.parse(d).secretKey))') ||
  fail "the gateway did not give the dev account's webhook secret (GET /settings)" "$gateway_fix"
run_bg demo-receiver node --import tsx packages/devnet/src/demoReceiverCli.ts "$RECEIVER_PORT" "$SECRET"
for _ in $(seq 1 60); do grep -q "listening" "$logs/demo-receiver.log" && break; sleep 0.5; done
grep -q "listening" "$logs/demo-receiver.log" ||
  say "the demo receiver is not listening yet on $RECEIVER_PORT (its log: $logs/demo-receiver.log); webhooks to it are retried"

# Demo activity: deploys the demo tokens, then transfers and events every second (on each devnet).
run_bg demo-activity node --import tsx packages/devnet/src/demoCli.ts
if [ "${DEVNET2:-on}" != off ]; then
  CHAIN_ID=$DEVNET2_CHAIN_ID RPC_URL=$DEVNET2_RPC_URL run_bg demo-activity-devnet2 node --import tsx packages/devnet/src/demoCli.ts
fi
demo_tokens() { # log file: the contract addresses its "deployed demo contracts" line names, as JSON
  for _ in $(seq 1 120); do grep -q 'deployed demo contracts' "$1" && break; sleep 0.5; done
  node -e '
    const line = require("fs").readFileSync(process.argv[1], "utf8").split("\n").find((l) => l.includes("deployed demo contracts"));
    if (!line) process.exit(1);
    const d = JSON.parse(line);
    process.stdout.write(JSON.stringify(Object.values(d).filter((v) => typeof v === "string" && /^0x[0-9a-fA-F]{40}$/.test(v))));' "$1"
}
TOKENS=$(demo_tokens "$logs/demo-activity.log") ||
  fail "the demo contracts were not deployed on devnet within 60 s" "the demo's log is $logs/demo-activity.log"
TOKEN=$(node -e 'process.stdout.write(JSON.parse(process.argv[1])[0])' "$TOKENS")
STREAM_CHAINS='"0x7a69"'
if [ "${DEVNET2:-on}" != off ]; then
  TOKENS2=$(demo_tokens "$logs/demo-activity-devnet2.log") ||
    fail "the demo contracts were not deployed on devnet2 within 60 s" "the demo's log is $logs/demo-activity-devnet2.log"
  TOKEN2=$(node -e 'process.stdout.write(JSON.parse(process.argv[1])[0])' "$TOKENS2")
  # One address list for the stream: the demo contracts of both devnets (often the same addresses).
  TOKENS=$(node -e 'process.stdout.write(JSON.stringify([...new Set([...JSON.parse(process.argv[1]), ...JSON.parse(process.argv[2])])]))' "$TOKENS" "$TOKENS2")
  STREAM_CHAINS+=",\"$DEVNET2_HEX\""
fi
WALLET=0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266

# One demo stream at a time: the one a previous start created watches that start's tokens.
old_streams=$(api "http://127.0.0.1:$HTTP_PORT/streams/evm?limit=100" |
  node -e 'let d="";process.stdin.on("data",c=>d+=c).on("end",()=>{for(const s of JSON.parse(d).result)if(s.tag==="demo")console.log(s.id)})') ||
  fail "the gateway did not list the streams (GET /streams/evm)" "$gateway_fix"
for old in $old_streams; do
  api -X DELETE "http://127.0.0.1:$HTTP_PORT/streams/evm/$old" -d '{}' >/dev/null ||
    fail "the gateway did not delete the previous demo stream $old" "$gateway_fix"
done
say "creating the demo stream (ERC20 transfers of the demo contracts, chains [$STREAM_CHAINS])"
STREAM=$(api -X PUT "http://127.0.0.1:$HTTP_PORT/streams/evm" -d @- <<JSON
{"webhookUrl":"http://127.0.0.1:$RECEIVER_PORT/webhook","description":"demo: ERC20 transfers","tag":"demo",
 "chainIds":[$STREAM_CHAINS],"includeContractLogs":true,"topic0":["Transfer(address,address,uint256)"],
 "abi":[{"type":"event","name":"Transfer","anonymous":false,"inputs":[{"name":"from","type":"address","indexed":true},{"name":"to","type":"address","indexed":true},{"name":"value","type":"uint256","indexed":false}]}]}
JSON
) || fail "the gateway did not create the demo stream (PUT /streams/evm)" "$gateway_fix"
STREAM_ID=$(node -e 'process.stdout.write(JSON.parse(process.argv[1]).id)' "$STREAM")
api -X POST "http://127.0.0.1:$HTTP_PORT/streams/evm/$STREAM_ID/address" -d "{\"address\":$TOKENS}" >/dev/null ||
  fail "the gateway did not add the demo contracts to the demo stream $STREAM_ID" "$gateway_fix"

cat <<TXT

Tributary is running on the local devnets.
  chains:       devnet = 0x7a69 ($RPC_URL)${DEVNET2_RPC_URL:+, devnet2 = $DEVNET2_HEX ($DEVNET2_RPC_URL)}
  dev API key:  $API_KEY
  gateway:      http://127.0.0.1:$HTTP_PORT
  ops ports:    follower $FOLLOWER_OPS_PORT${FOLLOWER2_OPS_PORT:+ (devnet2: $FOLLOWER2_OPS_PORT)}, projector $PROJECTOR_OPS_PORT, matcher $MATCHER_OPS_PORT, sender $SENDER_OPS_PORT, gateway $GATEWAY_OPS_PORT (/healthz /readyz /metrics)
  demo stream:  $STREAM_ID ([$STREAM_CHAINS]) -> http://127.0.0.1:$RECEIVER_PORT/webhook
  logs:         $logs/*.log

Try:
  curl -H "X-API-Key: $API_KEY" "http://127.0.0.1:$HTTP_PORT/api/v2.2/$WALLET/erc20/transfers?chain=devnet&limit=5"
  curl -H "X-API-Key: $API_KEY" "http://127.0.0.1:$HTTP_PORT/api/v2.2/erc20/$TOKEN/owners?chain=0x7a69"
  curl -H "X-API-Key: $API_KEY" "http://127.0.0.1:$HTTP_PORT/api/v2.2/$TOKEN/logs?chain=devnet&topic0=0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef&limit=3"
TXT
if [ "${DEVNET2:-on}" != off ]; then
  cat <<TXT
  curl -H "X-API-Key: $API_KEY" "http://127.0.0.1:$HTTP_PORT/api/v2.2/$WALLET/erc20/transfers?chain=devnet2&limit=5"
  curl -H "X-API-Key: $API_KEY" "http://127.0.0.1:$HTTP_PORT/api/v2.2/erc20/$TOKEN2/owners?chain=$DEVNET2_HEX"
TXT
fi
cat <<TXT

Webhooks the demo receiver verified (Ctrl-C stops):
TXT
tail -n +1 -f "$logs/demo-receiver.log" &
pids+=($!)
# Waits for Ctrl-C (the traps above), or for whatever started this to go without a word (npm
# SIGKILLed): this shell is then another process's child.
launcher=$PPID
parent_pid() { local stat; read -r -a stat <"/proc/$$/stat" && printf '%s' "${stat[3]}"; }
while [ "$(parent_pid)" = "$launcher" ]; do
  sleep 1 &
  sleeper=$!
  wait "$sleeper" || true
done
say "the command that started this is gone"
asked_to_stop=1
exit 129

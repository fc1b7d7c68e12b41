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
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
say() { printf '[start] %s\n' "$*" >&2; }

. infra/lib/ensure-deps.sh
ensure_deps "$root"

# Servers: the ones the environment names are used as given (as by the test command); up.sh starts
# the others.
. infra/lib/ensure-servers.sh
ensure_servers "$root" || { say "ERROR: the local servers could not be started"; exit 1; }
export CHAIN_ID=${CHAIN_ID:-31337}
export NODE_ENV=${NODE_ENV:-development}
# The demo receiver listens on loopback, which production refuses.
export ALLOW_PRIVATE_WEBHOOK_URLS=${ALLOW_PRIVATE_WEBHOOK_URLS:-true}
# Service ports: one set through its env var is used as given; a default that another program holds
# moves to the next free port (said below, and in the summary at the end).
. infra/lib/ports.sh
pick_port() { # VAR DEFAULT
  local var=$1 default=$2 p
  if [ -n "${!var:-}" ]; then
    TAKEN_PORTS+="${!var} "
    return 0
  fi
  p=$(free_port_from "$default") || { say "ERROR: no free port from $default; set $var"; exit 1; }
  [ "$p" = "$default" ] || say "port $default is taken; $var=$p"
  TAKEN_PORTS+="$p "
  printf -v "$var" '%s' "$p"
}
pick_port HTTP_PORT 8080
pick_port RECEIVER_PORT 8099
pick_port FOLLOWER_OPS_PORT 9101
pick_port PROJECTOR_OPS_PORT 9102
pick_port MATCHER_OPS_PORT 9103
pick_port SENDER_OPS_PORT 9104
pick_port GATEWAY_OPS_PORT 9106
# The second devnet: its own anvil, follower and demo activity; queryable as devnet2 and its hex id.
if [ "${DEVNET2:-on}" != off ]; then
  DEVNET2_CHAIN_ID=${DEVNET2_CHAIN_ID:-31338}
  DEVNET2_HEX=$(printf '0x%x' "$DEVNET2_CHAIN_ID")
  pick_port DEVNET2_PORT 58546
  pick_port FOLLOWER2_OPS_PORT 9105
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

pids=()
devnet2_pid=
sleeper=
stop_all() {
  # Ctrl-C reaches this shell twice (from the terminal, and forwarded by npm), and a SIGTERM may
  # follow it: none may cut the stop short, or npm returns while services are still running.
  trap '' INT TERM HUP
  say "stopping services"
  [ -z "$sleeper" ] || kill "$sleeper" 2>/dev/null || true
  for pid in "${pids[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
  for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
  # The second devnet last: its demo activity and follower stop while it still answers, and a
  # clean stop writes its state file.
  if [ -n "$devnet2_pid" ]; then
    kill -TERM "$devnet2_pid" 2>/dev/null || true
    wait "$devnet2_pid" 2>/dev/null || true
  fi
  # Each supervisor has stopped its service's group before exiting; a group still recorded is one
  # whose supervisor was killed (its guard is stopping it): it is gone before this returns.
  bash infra/dev/stop-groups.sh "$run_dir"/* || true
  rm -rf "$run_dir"
  say "stopped"
}
trap stop_all EXIT
trap 'exit 130' INT TERM
trap 'exit 129' HUP

run_bg() { # name, command...: supervised (restarted when it exits)
  local name=$1; shift
  : >"$logs/$name.log"
  node infra/dev/supervise.mjs "$name" "$logs/$name.log" "$@" &
  pids+=($!)
  say "$name started (supervisor pid $!, log $logs/$name.log)"
}

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
  say "devnet2: anvil on 127.0.0.1:$DEVNET2_PORT (chain id $DEVNET2_CHAIN_ID; $devnet2_state)"
  run_bg anvil-devnet2 "$(node infra/local/anvil-bin.mjs)" --host 127.0.0.1 --port "$DEVNET2_PORT" \
    --chain-id "$DEVNET2_CHAIN_ID" --mnemonic 'test test test test test test test test test test test junk' \
    --block-time "${ANVIL_BLOCK_TIME:-1}" --state "$devnet2_dir/state.json" --state-interval 10
  devnet2_pid=${pids[-1]}
  unset 'pids[-1]'
  for _ in $(seq 1 60); do [ "$(rpc_chain_id "$DEVNET2_RPC_URL")" = "$DEVNET2_HEX" ] && break; sleep 0.5; done
  [ "$(rpc_chain_id "$DEVNET2_RPC_URL")" = "$DEVNET2_HEX" ] ||
    { say "ERROR: devnet2 does not answer chain id $DEVNET2_HEX at $DEVNET2_RPC_URL"; exit 1; }
  devnets+=",$DEVNET2_CHAIN_ID=$DEVNET2_RPC_URL"
fi

say "migrations"
pnpm -s migrate >&2

# anvil keeps its chain in .data/anvil/state.json (the second devnet in .data/anvil-devnet2); without
# it (or with another one) a devnet is a new chain, and what PostgreSQL, Kafka and the webhook queue
# hold belongs partly to one that no longer exists.
devnet=$(DEVNETS=$devnets node infra/dev/devnet-data.mjs) ||
  { say "ERROR: could not compare the devnets with the indexed data"; exit 1; }
if [ "$devnet" = reset ]; then
  redis-cli -u "$REDIS_URL" --scan --pattern "${WEBHOOK_QUEUE_PREFIX:-tributary}:*" |
    xargs -r redis-cli -u "$REDIS_URL" unlink >/dev/null
  say "devnet: webhook queue cleared; migrations on the new database"
  pnpm -s migrate >&2
fi

# The dev key is shown once at creation, so it is kept in .data for the next start.
key_file=${TRIBUTARY_DATA_DIR:-$root/.data}/dev-api-key
if [ ! -s "$key_file" ] || ! pnpm -s --filter @tributary/gateway keys list 2>/dev/null | grep -q "$(cut -c1-12 "$key_file")"; then
  say "creating the dev API key"
  pnpm -s --filter @tributary/gateway keys create --account dev --label "local devnet" |
    sed -n 's/^api key .*: //p' >"$key_file"
fi
API_KEY=$(cat "$key_file")
[ -n "$API_KEY" ] || { say "ERROR: no dev API key"; exit 1; }

# A service that is not ready in a minute is said with its /readyz answer (the reason, e.g. the follower
# halted on another chain); it keeps running under its supervisor. The demo needs only the gateway.
wait_ready() { # name url [required]
  for _ in $(seq 1 120); do
    curl -sf -m 2 "$2" >/dev/null && { say "$1 ready"; return 0; }
    sleep 0.5
  done
  say "${3:+ERROR: }$1 not ready at $2: $(curl -s -m 2 "$2" || echo 'no answer'); last log lines:"
  tail -n 20 "$logs/$1.log" >&2
  [ -z "${3:-}" ] || exit 1
}

OPS_PORT=$FOLLOWER_OPS_PORT run_bg chain-follower node --max-semi-space-size=64 --import tsx apps/chain-follower/src/main.ts
if [ "${DEVNET2:-on}" != off ]; then
  CHAIN_ID=$DEVNET2_CHAIN_ID RPC_URL=$DEVNET2_RPC_URL OPS_PORT=$FOLLOWER2_OPS_PORT \
    run_bg chain-follower-devnet2 node --max-semi-space-size=64 --import tsx apps/chain-follower/src/main.ts
fi
OPS_PORT=$PROJECTOR_OPS_PORT run_bg projector node --max-semi-space-size=64 --import tsx apps/projector/src/main.ts
OPS_PORT=$MATCHER_OPS_PORT run_bg stream-matcher node --max-semi-space-size=64 --import tsx apps/stream-matcher/src/main.ts
OPS_PORT=$SENDER_OPS_PORT run_bg webhook-sender node --max-semi-space-size=64 --import tsx apps/webhook-sender/src/main.ts
HTTP_PORT=$HTTP_PORT OPS_PORT=$GATEWAY_OPS_PORT run_bg gateway node --import tsx apps/gateway/src/main.ts
wait_ready chain-follower "http://127.0.0.1:$FOLLOWER_OPS_PORT/readyz"
[ "${DEVNET2:-on}" = off ] || wait_ready chain-follower-devnet2 "http://127.0.0.1:$FOLLOWER2_OPS_PORT/readyz"
wait_ready projector "http://127.0.0.1:$PROJECTOR_OPS_PORT/readyz"
wait_ready stream-matcher "http://127.0.0.1:$MATCHER_OPS_PORT/readyz"
wait_ready webhook-sender "http://127.0.0.1:$SENDER_OPS_PORT/readyz"
# The ops port: its /readyz says which dependency is missing (the public one says only "fail").
wait_ready gateway "http://127.0.0.1:$GATEWAY_OPS_PORT/readyz" required

api() { curl -sf -H "x-api-key: $API_KEY" -H 'content-type: application/json' "$@"; }
SECRET=$(api "http://127.0.0.1:$HTTP_PORT/settings" | node -e 'process.stdin.on("data",d=>process.stdout.write(JSON.parse(d).secretKey))')
run_bg demo-receiver node --import tsx packages/devnet/src/demoReceiverCli.ts "$RECEIVER_PORT" "$SECRET"
for _ in $(seq 1 60); do grep -q "listening" "$logs/demo-receiver.log" && break; sleep 0.5; done

# Demo activity: deploys the demo tokens, then transfers and events every second (on each devnet).
run_bg demo-activity node --import tsx packages/devnet/src/demoCli.ts
if [ "${DEVNET2:-on}" != off ]; then
  CHAIN_ID=$DEVNET2_CHAIN_ID RPC_URL=$DEVNET2_RPC_URL run_bg demo-activity-devnet2 node --import tsx packages/devnet/src/demoCli.ts
fi
demo_tokens() { # log file: the contract addresses its "deployed demo contracts" line names, as JSON
  for _ in $(seq 1 120); do grep -q 'deployed demo contracts' "$1" && break; sleep 0.5; done
  node -e '
    const line = require("fs").readFileSync(process.argv[1], "utf8").split("\n").find((l) => l.includes("deployed demo contracts"));
    const d = JSON.parse(line);
    process.stdout.write(JSON.stringify(Object.values(d).filter((v) => typeof v === "string" && /^0x[0-9a-fA-F]{40}$/.test(v))));' "$1"
}
TOKENS=$(demo_tokens "$logs/demo-activity.log")
TOKEN=$(node -e 'process.stdout.write(JSON.parse(process.argv[1])[0])' "$TOKENS")
STREAM_CHAINS='"0x7a69"'
if [ "${DEVNET2:-on}" != off ]; then
  TOKENS2=$(demo_tokens "$logs/demo-activity-devnet2.log")
  TOKEN2=$(node -e 'process.stdout.write(JSON.parse(process.argv[1])[0])' "$TOKENS2")
  # One address list for the stream: the demo contracts of both devnets (often the same addresses).
  TOKENS=$(node -e 'process.stdout.write(JSON.stringify([...new Set([...JSON.parse(process.argv[1]), ...JSON.parse(process.argv[2])])]))' "$TOKENS" "$TOKENS2")
  STREAM_CHAINS+=",\"$DEVNET2_HEX\""
fi
WALLET=0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266

# One demo stream at a time: the one a previous start created watches that start's tokens.
api "http://127.0.0.1:$HTTP_PORT/streams/evm?limit=100" |
  node -e 'let d="";process.stdin.on("data",c=>d+=c).on("end",()=>{for(const s of JSON.parse(d).result)if(s.tag==="demo")console.log(s.id)})' |
  while read -r old; do api -X DELETE "http://127.0.0.1:$HTTP_PORT/streams/evm/$old" -d '{}' >/dev/null; done
say "creating the demo stream (ERC20 transfers of the demo contracts, chains [$STREAM_CHAINS])"
STREAM=$(api -X PUT "http://127.0.0.1:$HTTP_PORT/streams/evm" -d @- <<JSON
{"webhookUrl":"http://127.0.0.1:$RECEIVER_PORT/webhook","description":"demo: ERC20 transfers","tag":"demo",
 "chainIds":[$STREAM_CHAINS],"includeContractLogs":true,"topic0":["Transfer(address,address,uint256)"],
 "abi":[{"type":"event","name":"Transfer","anonymous":false,"inputs":[{"name":"from","type":"address","indexed":true},{"name":"to","type":"address","indexed":true},{"name":"value","type":"uint256","indexed":false}]}]}
JSON
)
STREAM_ID=$(node -e 'process.stdout.write(JSON.parse(process.argv[1]).id)' "$STREAM")
api -X POST "http://127.0.0.1:$HTTP_PORT/streams/evm/$STREAM_ID/address" -d "{\"address\":$TOKENS}" >/dev/null

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
exit 129

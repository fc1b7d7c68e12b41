#!/usr/bin/env bash
# Sourced by infra/local/lib.sh and infra/dev/start-all.sh: finding a free loopback port when a
# default one is taken by another program (a CI runner, a second checkout, another dev server).

# port_open PORT: something listens on 127.0.0.1:PORT. A connection that neither opens nor is refused
# within 2 s (a listener whose backlog is full drops the handshake) counts as taken.
port_open() {
  timeout 2 bash -c "exec 3<>/dev/tcp/127.0.0.1/$1" 2>/dev/null
  local rc=$?
  [ "$rc" = 0 ] || [ "$rc" = 124 ]
}

# Ports handed out by free_port_from in this shell (not listening yet, but spoken for).
TAKEN_PORTS=" "

# free_port_from PORT: prints PORT, or the first port above it (within 200) that nothing listens
# on and that this shell has not handed out; fails when there is none.
free_port_from() {
  local p
  for ((p = $1; p <= $1 + 200 && p <= 65535; p++)); do
    if ! port_open "$p" && [[ "$TAKEN_PORTS" != *" $p "* ]]; then
      TAKEN_PORTS+="$p "
      printf '%s' "$p"
      return 0
    fi
  done
  return 1
}

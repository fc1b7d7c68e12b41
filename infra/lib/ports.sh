#!/usr/bin/env bash
# Sourced by infra/local/lib.sh and infra/dev/start-all.sh: the port each server or service listens
# on. A port set through its variable is used as given and must be free; a default one that another
# program holds (a CI runner, a second checkout, another dev server) moves to the next free port.

# port_open PORT: something listens on 127.0.0.1:PORT. A connection that neither opens nor is refused
# within 2 s (a listener whose backlog is full drops the handshake) counts as taken.
port_open() {
  timeout 2 bash -c "exec 3<>/dev/tcp/127.0.0.1/$1" 2>/dev/null
  local rc=$?
  [ "$rc" = 0 ] || [ "$rc" = 124 ]
}

# Ports handed out in this shell (not listening yet, but spoken for).
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

# choose_port NAME VAR PORT GIVEN: sets VAR to the port NAME is to listen on and hands it out. GIVEN=1
# (the caller set VAR): PORT itself, which must be a free port; else PORT or the first free one
# within 200 above it (PORT_MOVED then says so). Returns 1 with PORT_ERROR, which says what is wrong
# and what to do, when there is none.
choose_port() {
  local name=$1 var=$2 port=$3 given=$4 p
  PORT_ERROR=
  PORT_MOVED=
  if ! [[ "$port" =~ ^[0-9]{1,5}$ ]] || ((10#$port < 1 || 10#$port > 65535)); then
    PORT_ERROR="$name: $var=$port is not a port number; set $var to a free port (1-65535)"
    return 1
  fi
  port=$((10#$port))
  if [ "$given" = 1 ]; then
    if port_open "$port" || [[ "$TAKEN_PORTS" == *" $port "* ]]; then
      PORT_ERROR="$name: port $port is in use by another program; pick another with $var"
      return 1
    fi
    p=$port
  else
    p=$(free_port_from "$port") ||
      { PORT_ERROR="$name: port $port and the 200 above it are in use; pick a free one with $var"; return 1; }
    [ "$p" = "$port" ] || PORT_MOVED="$name: port $port is taken; using $p instead (set $var to choose)"
  fi
  TAKEN_PORTS+="$p "
  printf -v "$var" '%s' "$p"
}

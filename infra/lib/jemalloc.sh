# The memory allocator our Node services run on, in one place for `npm start` (infra/dev/start-all.sh)
# and for the tests, benches, chaos and soak commands (@tributary/testkit's launchApp).
#
# glibc's malloc keeps what a Node process freed outside the V8 heap (Kafka fetches, PostgreSQL
# rows, Buffers) in its arenas, fragmented, and seldom gives it back: a consumer's RSS creeps up for
# hours with its heap flat (Node's own documentation of process.memoryUsage() says the same, and
# points at jemalloc). jemalloc returns freed pages to the system on a timer. Debian's redis-server,
# which infra/local installs, depends on libjemalloc2, so the library is there wherever the servers
# are; the image installs it too (infra/docker/Dockerfile).
#
# jemalloc_preload [PRELOAD]: prints the LD_PRELOAD a service gets: jemalloc first, then PRELOAD
# (default: this shell's LD_PRELOAD); just PRELOAD when jemalloc is missing or TRIBUTARY_MALLOC=glibc
# (to compare the two).
jemalloc_preload() {
  local lib='' dir own=${1-${LD_PRELOAD:-}}
  if [ "${TRIBUTARY_MALLOC:-jemalloc}" != glibc ]; then
    for dir in /usr/local/lib /usr/lib/x86_64-linux-gnu /usr/lib/aarch64-linux-gnu /usr/lib64 /usr/lib; do
      if [ -f "$dir/libjemalloc.so.2" ]; then
        lib=$dir/libjemalloc.so.2
        break
      fi
    done
  fi
  # LD_PRELOAD's entries are separated by colons or spaces.
  case " ${own//:/ } " in
    *" $lib "*) lib='' ;; # already there
  esac
  printf '%s\n' "${lib}${lib:+${own:+:}}${own}"
}

# Run directly (`bash jemalloc.sh [PRELOAD]`): prints it, for callers that are not shells; they pass
# their LD_PRELOAD as the argument, so that this shell does not load it.
if [ "${BASH_SOURCE[0]}" = "$0" ]; then
  jemalloc_preload "$@"
fi

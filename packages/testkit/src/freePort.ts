import { type Socket as UdpSocket, createSocket } from 'node:dgram';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';

/**
 * A TCP port on 127.0.0.1 that was free a moment ago, for a server started on it later (or
 * restarted on it after a kill). It is chosen below the kernel's ephemeral range: a port of that
 * range, what `listen(0)` hands out, can meanwhile become the local port of any outgoing
 * connection of any process (a pool's, a Kafka client's), and the server's bind then fails with
 * EADDRINUSE, as a service started by a test, or restarted on its port, did now and then. Below the
 * range only another listener can take it, and ports are drawn at random so that parallel test
 * processes rarely draw the same one.
 *
 * Rarely is not never: two test processes could draw the same free port, and the first server to
 * start took it while the other's readiness poll got its answer from the wrong process. So a port
 * handed out stays reserved for the life of this process, by a UDP socket bound to the same
 * number (TCP and UDP ports are separate spaces: the server's TCP bind is unaffected). Every
 * process that draws through freePort skips a port whose UDP twin is bound, and the kernel
 * frees the reservation when this process ends, however it ends.
 */
export async function freePort(): Promise<number> {
  const [low, high] = listenerRange();
  for (let attempt = 0; attempt < 200; attempt++) {
    const port = low + Math.floor(Math.random() * (high - low));
    const reservation = await reserve(port);
    if (!reservation) continue;
    if (await canListen(port)) {
      reservations.push(reservation);
      return port;
    }
    reservation.close();
  }
  throw new Error(`no free port found in ${low}-${high - 1}`);
}

/** UDP sockets that keep this process's ports from being drawn by another process. */
const reservations: UdpSocket[] = [];

/** A UDP socket bound to 127.0.0.1:port, or undefined when a process (this one included) holds it. */
function reserve(port: number): Promise<UdpSocket | undefined> {
  return new Promise((resolve) => {
    const socket = createSocket('udp4');
    socket.once('error', () => {
      socket.close();
      resolve(undefined);
    });
    socket.bind(port, '127.0.0.1', () => {
      socket.unref();
      resolve(socket);
    });
  });
}

/** Where freePort draws from: the 12,000 ports under the ephemeral range, none below 10,000. */
export function listenerRange(): [low: number, high: number] {
  const high = ephemeralLow();
  return [Math.max(10_000, high - 12_000), high];
}

/** The kernel's first ephemeral port (Linux: ip_local_port_range; elsewhere the IANA range's 49152). */
function ephemeralLow(): number {
  try {
    const low = Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]);
    if (Number.isInteger(low) && low > 11_000) return low;
  } catch {
    // not Linux
  }
  return 49_152;
}

function canListen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

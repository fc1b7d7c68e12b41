import { connect } from 'node:net';

/** Redis's INFO memory: used_memory (its data) and used_memory_rss (the process). */
export async function readRedisMemory(
  redisUrl: string,
): Promise<{ usedMemoryBytes: number; rssBytes: number } | null> {
  const url = new URL(redisUrl);
  const text = await new Promise<string>((resolve, reject) => {
    const socket = connect({ host: url.hostname, port: Number(url.port || 6379) });
    let buf = '';
    socket.setTimeout(5_000, () => socket.destroy(new Error('redis INFO timed out')));
    socket.on('error', reject);
    socket.on('data', (chunk) => {
      buf += chunk.toString('utf8');
      // A bulk string: $<length>\r\n<payload>\r\n
      const head = /^\$(\d+)\r\n/.exec(buf);
      if (head && Buffer.byteLength(buf) >= head[0].length + Number(head[1]) + 2) {
        socket.end();
        resolve(buf.slice(head[0].length));
      }
    });
    socket.write('INFO memory\r\n');
  }).catch(() => null);
  if (text === null) return null;
  const field = (name: string) => Number(new RegExp(`^${name}:(\\d+)`, 'm').exec(text)?.[1] ?? Number.NaN);
  return { usedMemoryBytes: field('used_memory'), rssBytes: field('used_memory_rss') };
}

import type { Redis } from 'ioredis';

// One atomic step on Redis's clock, so every sender instance shares the turns. KEYS[1]: the
// stream's next free turn (ms); KEYS[2]: the turn this delivery reserved earlier. ARGV[1]: ms
// between requests. Returns how long the delivery waits for its turn (0: send now).
const TAKE_TURN = `
if redis.call('DEL', KEYS[2]) == 1 then return 0 end
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local interval = tonumber(ARGV[1])
local nextTurn = tonumber(redis.call('GET', KEYS[1]) or '0')
if nextTurn < now then nextTurn = now end
local wait = nextTurn - now
redis.call('SET', KEYS[1], string.format('%.3f', nextTurn + interval), 'PX', math.ceil(wait + interval) + 1000)
if wait > 0 then redis.call('SET', KEYS[2], '1', 'PX', math.ceil(wait) + 60000) end
return math.ceil(wait)
`;

export interface StreamRateLimiter {
  /**
   * The delivery's turn under its stream's limit: 0 to send now; otherwise the ms until the turn
   * it now holds (the delivery sends without taking another when it comes back). Turns are spaced
   * 1000 / perSecond ms apart: any second holds at most `perSecond` requests, with no burst.
   */
  turn(streamId: string, deliveryId: string, perSecond: number): Promise<number>;
}

/** `maxRequestsPerSecond` across every sender instance, by turns kept in Redis under `prefix`. */
export function createStreamRateLimiter(redis: Redis, prefix: string): StreamRateLimiter {
  return {
    async turn(streamId, deliveryId, perSecond) {
      const wait = await redis.eval(
        TAKE_TURN,
        2,
        `${prefix}:rps:${streamId}`,
        `${prefix}:rps-turn:${deliveryId}`,
        String(1000 / perSecond),
      );
      return Number(wait);
    },
  };
}

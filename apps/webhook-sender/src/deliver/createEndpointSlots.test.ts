import { describe, expect, it } from 'vitest';
import { createEndpointSlots, endpointOf } from './createEndpointSlots.ts';

describe('endpoint slots', () => {
  it('bounds the requests in flight per endpoint, not across endpoints', () => {
    const slots = createEndpointSlots(2);
    expect([slots.tryAcquire('a'), slots.tryAcquire('a'), slots.tryAcquire('a')]).toEqual([
      true,
      true,
      false,
    ]);
    expect(slots.tryAcquire('b')).toBe(true);
    slots.release('a');
    expect(slots.tryAcquire('a')).toBe(true);
  });

  it('spaces parked jobs at the rate the endpoint frees slots, up to the cap', () => {
    const slots = createEndpointSlots(4);
    // A hanging endpoint: each request holds its slot for the whole 1,000 ms timeout.
    for (const e of ['a', 'b']) {
      expect(slots.tryAcquire(e)).toBe(true);
      slots.release(e, 1_000);
    }
    const waits = Array.from({ length: 6 }, () => slots.postponeFor('a', 1_000, 1_000, 0));
    expect(waits.slice(0, 4)).toEqual([250, 500, 750, 1_000]);
    // Past the cap, within the last window, and promising nothing further.
    for (const w of waits.slice(4)) expect(w).toBeGreaterThanOrEqual(500);
    for (const w of waits.slice(4)) expect(w).toBeLessThanOrEqual(1_000);
    // Another endpoint has its own schedule; time passing frees promises.
    expect(slots.postponeFor('b', 1_000, 1_000, 0)).toBe(250);
    expect(slots.postponeFor('a', 1_000, 1_000, 5_000)).toBe(250);
  });

  it('hands a released slot to the oldest waiter, and gives up waiting after the limit', async () => {
    const slots = createEndpointSlots(1);
    expect(await slots.acquire('a', 1_000)).toBe(true);
    const order: string[] = [];
    const first = slots.acquire('a', 60_000).then((got) => order.push(`first ${got}`));
    const second = slots.acquire('a', 60_000).then((got) => order.push(`second ${got}`));
    expect(await slots.acquire('a', 1)).toBe(false);
    slots.release('a');
    await first;
    expect(order).toEqual(['first true']);
    expect(slots.tryAcquire('a')).toBe(false); // the slot went to the waiter, not back to the pool
    slots.release('a');
    await second;
    expect(order).toEqual(['first true', 'second true']);
    slots.release('a');
    expect(slots.tryAcquire('a')).toBe(true);
  });

  it('tells a slow endpoint from a fast one by how long its requests held their slots', () => {
    const slots = createEndpointSlots(4);
    expect(slots.isSlow('new', 1_000)).toBe(false);
    slots.tryAcquire('slow');
    slots.release('slow', 2_000);
    slots.tryAcquire('fast');
    slots.release('fast', 3);
    expect(slots.isSlow('slow', 1_000)).toBe(true);
    expect(slots.isSlow('fast', 1_000)).toBe(false);
  });

  it('lets slow endpoints together hold no more than their share of the slots', () => {
    const slots = createEndpointSlots(4, { thresholdMs: 1_000, limit: 3 });
    for (const e of ['hang-a', 'hang-b']) {
      expect(slots.tryAcquire(e)).toBe(true);
      slots.release(e, 2_000);
    }
    expect([slots.tryAcquire('hang-a'), slots.tryAcquire('hang-a'), slots.tryAcquire('hang-b')]).toEqual([
      true,
      true,
      true,
    ]);
    expect(slots.tryAcquire('hang-b')).toBe(false); // three slow slots are taken
    expect([slots.isBusy('hang-b'), slots.isBusy('fast')]).toEqual([true, false]);
    expect(slots.tryAcquire('fast')).toBe(true);
    slots.release('hang-a', 2_000);
    expect(slots.tryAcquire('hang-b')).toBe(true);
  });

  it('parks jobs of a fast endpoint only briefly', () => {
    const slots = createEndpointSlots(1);
    slots.tryAcquire('fast');
    slots.release('fast', 4);
    expect(slots.postponeFor('fast', 10_000, 100_000, 0)).toBe(4);
  });

  it('counts one origin (scheme://host:port) as one endpoint, whatever its paths and queries', () => {
    const slots = createEndpointSlots(2);
    const taken = [
      'http://victim.example/a?n=1',
      'http://VICTIM.example:80/b?n=2',
      'http://victim.example./?n=3',
    ];
    expect(taken.map((url) => slots.tryAcquire(endpointOf(url)))).toEqual([true, true, false]);
    expect(new Set(taken.map(endpointOf))).toEqual(new Set(['http://victim.example:80']));
    // Another scheme or port is another origin.
    expect(endpointOf('https://victim.example/a')).toBe('https://victim.example:443');
    expect(endpointOf('http://victim.example:8080/a#x')).toBe('http://victim.example:8080');
    expect(endpointOf('http://[::1]:9000/a')).toBe('http://[::1]:9000');
  });
});

import { describe, expect, it } from 'vitest';
import { createEndpointSlots } from './createEndpointSlots.ts';

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

  it('parks jobs of a fast endpoint only briefly', () => {
    const slots = createEndpointSlots(1);
    slots.tryAcquire('fast');
    slots.release('fast', 4);
    expect(slots.postponeFor('fast', 10_000, 100_000, 0)).toBe(4);
  });
});

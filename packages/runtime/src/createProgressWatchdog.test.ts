import { describe, expect, it } from 'vitest';
import { createLogger } from './createLogger.ts';
import { createProgressWatchdog } from './createProgressWatchdog.ts';

function setup(backlog: () => Promise<number>) {
  let t = 0;
  const exits: string[] = [];
  const dog = createProgressWatchdog({
    name: 'test-consumer',
    logger: createLogger('test', 'silent'),
    stallMs: 1_000,
    exitAfterMs: 3_000,
    intervalMs: 60_000,
    backlog,
    onStalled: (reason) => exits.push(reason),
    now: () => t,
  });
  return {
    dog,
    exits,
    advance: (ms: number) => {
      t += ms;
    },
  };
}

describe('createProgressWatchdog', () => {
  it('is never stalled while nothing waits', async () => {
    const { dog, exits, advance } = setup(async () => 0);
    advance(10_000);
    await dog.tick();
    expect(() => dog.check()).not.toThrow();
    expect(exits).toEqual([]);
    dog.stop();
  });

  it('goes not ready after stallMs of waiting work without progress, then asks to exit once', async () => {
    const { dog, exits, advance } = setup(async () => 7);
    await dog.tick(); // work starts waiting now
    advance(999);
    await dog.tick();
    expect(() => dog.check()).not.toThrow();
    advance(1);
    await dog.tick();
    expect(() => dog.check()).toThrow('test-consumer stalled: 7 waiting, no progress for 1 s');
    advance(2_000);
    await dog.tick();
    await dog.tick();
    expect(exits).toEqual(['test-consumer: 7 waiting and no progress for 3 s']);
    dog.stop();
  });

  it('progress clears a stall and restarts the clock', async () => {
    const { dog, exits, advance } = setup(async () => 3);
    await dog.tick();
    advance(1_500);
    await dog.tick();
    expect(() => dog.check()).toThrow();
    dog.progress();
    expect(() => dog.check()).not.toThrow();
    advance(900);
    await dog.tick();
    expect(() => dog.check()).not.toThrow();
    expect(exits).toEqual([]);
    dog.stop();
  });

  it('while the backlog probe fails, a declared stall stays, but the clock towards the exit starts again', async () => {
    let fail = false;
    const { dog, exits, advance } = setup(async () => {
      if (fail) throw new Error('broker down');
      return 2;
    });
    await dog.tick();
    advance(1_200);
    await dog.tick();
    expect(() => dog.check()).toThrow();
    fail = true;
    advance(10_000);
    await dog.tick();
    expect(() => dog.check()).toThrow();
    fail = false;
    await dog.tick(); // the broker is back: waiting again from now
    advance(2_900);
    await dog.tick();
    expect(exits).toEqual([]);
    advance(100);
    await dog.tick();
    expect(exits).toEqual(['test-consumer: 2 waiting and no progress for 3 s']);
    dog.stop();
  });
});

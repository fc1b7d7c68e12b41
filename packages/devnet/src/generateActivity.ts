import { sleep } from '@tributary/runtime';
import { demoTokenAbi, eventEmitterAbi } from '@tributary/contracts';
import type { Address } from 'viem';
import { type DevnetClient, devnetAccount } from './createDevnetClient.ts';
import { type DemoDeployment, waitMined } from './deployDemo.ts';

export interface ActivityStep {
  step: number;
  action: 'mint' | 'transfer' | 'burn' | 'events';
  token?: Address;
  to?: Address;
  amount?: string;
  tx: `0x${string}`;
  block: string;
}

/**
 * One deterministic round of demo activity (step picks the action): mints, transfers to the
 * first ten test accounts, burns and custom events. Returns what it did, for logging.
 */
async function activityStep(client: DevnetClient, demo: DemoDeployment, step: number): Promise<ActivityStep> {
  const tokens = [demo.demo, demo.six] as const;
  // One token per round of four steps, so that its transfer and burn spend what the round minted.
  const token = tokens[Math.floor(step / 4) % tokens.length]!;
  const to = devnetAccount(1 + (step % 9)).address;
  const amount = BigInt(step + 1) * 10n ** 15n;
  let action: ActivityStep['action'];
  let hash: `0x${string}`;
  switch (step % 4) {
    case 0:
      action = 'mint';
      hash = await client.writeContract({
        address: token,
        abi: demoTokenAbi,
        functionName: 'mint',
        args: [client.account.address, amount * 10n],
      });
      break;
    case 1:
      action = 'transfer';
      hash = await client.writeContract({
        address: token,
        abi: demoTokenAbi,
        functionName: 'transfer',
        args: [to, amount],
      });
      break;
    case 2:
      action = 'burn';
      hash = await client.writeContract({
        address: token,
        abi: demoTokenAbi,
        functionName: 'burn',
        args: [amount],
      });
      break;
    default:
      action = 'events';
      hash = await client.writeContract({
        address: demo.emitter,
        abi: eventEmitterAbi,
        functionName: 'emitAll',
        args: [client.account.address, to, amount],
      });
  }
  const receipt = await waitMined(client, hash);
  return {
    step,
    action,
    token: action === 'events' ? demo.emitter : token,
    to,
    amount: amount.toString(),
    tx: hash,
    block: receipt.blockNumber.toString(),
  };
}

/** Keeps making activity every intervalMs until the signal aborts. */
export async function generateActivity(opts: {
  client: DevnetClient;
  demo: DemoDeployment;
  intervalMs: number;
  signal: AbortSignal;
  onStep?: (step: ActivityStep) => void;
}): Promise<number> {
  let step = 0;
  while (!opts.signal.aborted) {
    const done = await activityStep(opts.client, opts.demo, step);
    opts.onStep?.(done);
    step++;
    await sleep(opts.intervalMs, opts.signal);
  }
  return step;
}

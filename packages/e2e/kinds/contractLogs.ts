import { bulkTransferEmitterAbi, bulkTransferEmitterBytecode } from '@tributary/contracts';
import { TRANSFER_SIGNATURE, TRANSFER_TOPIC0, erc20TransferEventAbi } from '@tributary/evm';
import { encodeFunctionData } from 'viem';
import { abiTopicCounts, logStreamItems, logTouches } from './chainItems.ts';
import { type StreamKind, addressSet } from './streamKind.ts';

/**
 * Contract logs by topic0 and ABI, the load of a run: two bulk emitters, one stream each, and
 * `logsPerTx` ERC20 Transfer logs per block from one of them in turn. Expected: every Transfer
 * log of the stream's emitter in `logs`, and its `erc20Transfers` item.
 */
export function contractLogs(logsPerTx: number): StreamKind {
  return {
    name: 'contractLogs',
    title: 'contract logs (topic0 + ABI)',
    async deploy(setup) {
      const emitters = [
        await setup.driver.deploy(setup.deployer, bulkTransferEmitterAbi, bulkTransferEmitterBytecode, []),
        await setup.driver.deploy(setup.deployer, bulkTransferEmitterAbi, bulkTransferEmitterBytecode, []),
      ];
      const sender = setup.account(0);
      const abi = [erc20TransferEventAbi];
      const body = { includeContractLogs: true, topic0: [TRANSFER_SIGNATURE], abi };
      const topics = abiTopicCounts(abi);
      return {
        load: true,
        streams: emitters.map((address, i) => ({ label: `contractLogs-${i}`, body, addresses: [address] })),
        async act(send, round) {
          // Recipients far from any account: 0x100000 + round * 0x1000 + i.
          const first = `0x${(0x100000 + round * 0x1000).toString(16).padStart(40, '0')}` as const;
          await send({
            from: sender,
            to: emitters[round % 2],
            data: encodeFunctionData({
              abi: bulkTransferEmitterAbi,
              functionName: 'emitTransfers',
              args: [first, BigInt(logsPerTx), BigInt(round + 1)],
            }),
            gas: 100_000n + 4_000n * BigInt(logsPerTx),
          });
        },
        async expect(s, block) {
          const watched = addressSet(s.addresses);
          const logs = block.logs.filter((l) => logTouches(l, watched));
          return logStreamItems(logs, new Set([TRANSFER_TOPIC0]), topics);
        },
      };
    },
  };
}

// Diagnostic for the load run: the service time of each data query on its own (one connection,
// one query at a time, no HTTP), over the same parameter mix as loadEndpoints.ts. Tells which
// query makes an endpoint slow, apart from CPU contention. Prints percentiles per query.
// Run: node --import tsx bench/profileQueries.ts   (BENCH_SAMPLES, default 400; BENCH_PG_OPTIONS
// after the gateway's own session settings, e.g. "-c jit=on -c max_parallel_workers_per_gather=2");
// loadEndpoints.ts runs it too after the load phases and records the figures.
import { loadavg } from 'node:os';
import { type Pool, createPool } from '@tributary/db';
import {
  countWalletTransfers,
  findContractLogs,
  findTokenOwners,
  findWalletTransfers,
  walletTransferTotalAtHead,
} from '@tributary/db/queries';
import { CHAIN_ID, type SeedParams, TRANSFER_TOPIC0, benchDatabaseName } from './datasetShape.ts';
import { PATHS } from './requestMix.ts';
import { withSessionSettings } from '../src/db-settings/withSessionSettings.ts';
import { benchDatabaseUrl } from './seedDataset.ts';

export interface ServiceTimes {
  n: number;
  p50: number;
  p90: number;
  p99: number;
  max: number;
}

function summarize(ms: number[]): ServiceTimes {
  const s = [...ms].sort((a, b) => a - b);
  const at = (q: number) => Number((s[Math.min(s.length - 1, Math.floor(q * s.length))] ?? 0).toFixed(1));
  return { n: s.length, p50: at(0.5), p90: at(0.9), p99: at(0.99), max: Number((s.at(-1) ?? 0).toFixed(1)) };
}

async function time(fn: () => Promise<unknown>): Promise<number> {
  const start = performance.now();
  await fn();
  return performance.now() - start;
}

/** Service times of each data query over `samples` parameter sets from the load mix. */
export async function profileQueries(pool: Pool, p: SeedParams, samples: number) {
  const head = p.firstBlock + Math.ceil(p.rows / p.transfersPerBlock) - 1;
  const page: number[] = [];
  const pageFiltered: number[] = [];
  const rangeTotal: number[] = [];
  const headTotal: number[] = [];
  const logs: number[] = [];
  const owners: number[] = [];
  for (let i = 0; i < samples; i++) {
    const t = new URL(PATHS.transfers(p), 'http://x');
    const wallet = t.pathname.split('/')[3] as string;
    const contracts = t.searchParams.getAll('contract_addresses[]');
    const fromBlock = t.searchParams.get('from_block');
    const order = t.searchParams.get('order') === 'ASC' ? ('ASC' as const) : ('DESC' as const);
    const limit = Number(t.searchParams.get('limit') ?? 100);
    const base = { chainId: CHAIN_ID, wallet, contractAddresses: contracts, order, limit };
    // A first page as the route runs it: without a lower bound, page + pinned head + total from
    // the stored counts in one statement; with one, the page and a range count (in parallel in
    // the route, one after the other here).
    if (fromBlock === null) {
      (contracts.length > 0 ? pageFiltered : page).push(
        await time(() => findWalletTransfers(pool, { ...base, pinHead: true })),
      );
    } else {
      const filter = { ...base, fromBlock: Number(fromBlock), toBlock: head };
      (contracts.length > 0 ? pageFiltered : page).push(await time(() => findWalletTransfers(pool, filter)));
      rangeTotal.push(await time(() => countWalletTransfers(pool, filter)));
    }
    // The stored-count total alone (the part of the page statement above that replaced counting).
    headTotal.push(
      await time(() =>
        walletTransferTotalAtHead(pool, { chainId: CHAIN_ID, wallet, contractAddresses: contracts }),
      ),
    );

    const l = new URL(PATHS.logs(p), 'http://x');
    const blockNumber = l.searchParams.get('block_number');
    const logsFrom = l.searchParams.get('from_block');
    logs.push(
      await time(() =>
        findContractLogs(pool, {
          chainId: CHAIN_ID,
          address: l.pathname.split('/')[3] as string,
          topic0: l.searchParams.get('topic0') ?? TRANSFER_TOPIC0,
          fromBlock:
            blockNumber !== null ? Number(blockNumber) : logsFrom !== null ? Number(logsFrom) : undefined,
          toBlock: blockNumber !== null ? Number(blockNumber) : head,
          order: l.searchParams.get('order') === 'ASC' ? 'ASC' : 'DESC',
          limit: Number(l.searchParams.get('limit') ?? 100),
        }),
      ),
    );

    const o = new URL(PATHS.owners(p), 'http://x');
    owners.push(
      await time(() =>
        findTokenOwners(pool, {
          chainId: CHAIN_ID,
          token: o.pathname.split('/')[4] as string,
          order: o.searchParams.get('order') === 'ASC' ? 'ASC' : 'DESC',
          limit: Number(o.searchParams.get('limit') ?? 100),
        }),
      ),
    );
  }
  return {
    transfersPage: summarize(page),
    transfersPageWithContracts: summarize(pageFiltered),
    transfersTotalInRange: summarize(rangeTotal),
    transfersTotalFromCounts: summarize(headTotal),
    logsPage: summarize(logs),
    ownersPage: summarize(owners),
  };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const env = process.env;
  const url = benchDatabaseUrl(
    env['DATABASE_URL'] ?? 'postgres://tributary@127.0.0.1:55432/tributary',
    benchDatabaseName(env),
  );
  // The gateway's session settings, then BENCH_PG_OPTIONS (which win), e.g. "-c jit=on".
  const withOptions = new URL(url);
  if (env['BENCH_PG_OPTIONS']) withOptions.searchParams.set('options', env['BENCH_PG_OPTIONS']);
  const pool = createPool({
    connectionString: withSessionSettings(withOptions.toString()),
    max: 1,
    application: 'bench-profile',
  });
  try {
    const { rows } = await pool.query<{ params: SeedParams }>('SELECT params FROM bench_seed LIMIT 1');
    const params = rows[0]?.params;
    if (!params) throw new Error('the bench database is not seeded: run bench/seedDataset.ts');
    const result = await profileQueries(pool, params, Number(env['BENCH_SAMPLES'] ?? 400));
    const settings = await pool.query<{ jit: string; workers: string }>(
      `SELECT current_setting('jit') AS jit, current_setting('max_parallel_workers_per_gather') AS workers`,
    );
    console.log(
      `service times in ms, one query at a time (session: ${JSON.stringify(settings.rows[0])}, load average ${loadavg()[0]?.toFixed(2)})`,
    );
    console.table(result);
  } finally {
    await pool.end();
  }
}

import type pg from 'pg';
import { hexToBytes } from '../bytes.ts';

type Queryable = Pick<pg.Pool, 'query'>;

/** What resolveBlocks reads of a block (SegmentBlock has it). */
interface RowsBlock {
  chainId: number;
  logs: readonly { address: string }[];
  transfers: readonly { token: string; from: string; to: string }[];
}

// Ids of the given addresses of a chain, adding the ones address_ids does not hold yet. In one
// snapshot: `found` are the rows already there, `added` the ones this statement inserts. A row
// another writer committed after the snapshot is neither (its insert conflicts): the caller asks
// again. Inserted in address order, so two writers never wait for each other in a cycle.
const INTERN = `
WITH input AS (SELECT DISTINCT a AS address FROM unnest($2::bytea[]) a),
found AS (
  SELECT i.address, x.id FROM input i JOIN address_ids x ON x.chain_id = $1 AND x.address = i.address
), added AS (
  INSERT INTO address_ids (chain_id, address)
  SELECT $1, i.address FROM input i WHERE NOT EXISTS (SELECT 1 FROM found f WHERE f.address = i.address)
  ORDER BY i.address
  ON CONFLICT DO NOTHING
  RETURNING address, id
)
SELECT encode(address, 'hex') AS address, id FROM found
UNION ALL
SELECT encode(address, 'hex'), id FROM added`;

/**
 * The address ids the wallet indexes of `transfers` and the contract index of `logs` are keyed by
 * (address_ids: one integer per chain and address), cached: an id never changes and is never reused, so a cached one never goes
 * stale. Addresses are lower-case 0x hex (as block events carry them). Past `maxEntries` ids, the
 * oldest are forgotten at the next resolve (and asked for again when they come back): an id
 * resolved stays until then.
 */
export class AddressIds {
  private readonly byChain = new Map<number, Map<string, number>>();
  private size = 0;

  constructor(private readonly maxEntries = 1_000_000) {}

  /** The id of an address resolved before (resolve); throws when there is none. */
  id(chainId: number, address: string): number {
    const id = this.byChain.get(chainId)?.get(address);
    if (id === undefined) throw new Error(`address ${address} of chain ${chainId} has no id resolved`);
    return id;
  }

  /**
   * Makes sure every one of `addresses` has its id cached, adding the ones address_ids lacks.
   * Through a pool (autocommit), new ids are committed at once, and a transaction that uses them
   * later never waits for another one's uncommitted ids; through a client in a transaction they
   * are written with it.
   */
  async resolve(db: Queryable, chainId: number, addresses: Iterable<string>): Promise<void> {
    this.evict();
    let known = this.byChain.get(chainId);
    if (!known) {
      known = new Map();
      this.byChain.set(chainId, known);
    }
    const missing = new Set<string>();
    for (const a of addresses) if (!known.has(a)) missing.add(a);
    // A second round only for ids another writer committed during the first.
    for (let round = 0; missing.size > 0; round++) {
      if (round === 3)
        throw new Error(`could not resolve ids of ${missing.size} addresses of chain ${chainId}`);
      const { rows } = await db.query<{ address: string; id: number }>(INTERN, [
        chainId,
        [...missing].map(hexToBytes),
      ]);
      for (const r of rows) {
        const address = `0x${r.address}`;
        if (missing.delete(address)) this.remember(known, address, r.id);
      }
    }
  }

  /** resolve() for the contract of every log and the token and parties of every transfer of these blocks. */
  async resolveBlocks(db: Queryable, blocks: readonly RowsBlock[]): Promise<void> {
    const byChain = new Map<number, Set<string>>();
    for (const b of blocks) {
      if (b.transfers.length === 0 && b.logs.length === 0) continue;
      let set = byChain.get(b.chainId);
      if (!set) {
        set = new Set();
        byChain.set(b.chainId, set);
      }
      for (const l of b.logs) set.add(l.address);
      for (const t of b.transfers) set.add(t.token).add(t.from).add(t.to);
    }
    for (const [chainId, addresses] of byChain) await this.resolve(db, chainId, addresses);
  }

  private remember(known: Map<string, number>, address: string, id: number) {
    known.set(address, id);
    this.size++;
  }

  /** Forgets the oldest ids (Map order is insertion order) down to three quarters of the limit. */
  private evict() {
    if (this.size <= this.maxEntries) return;
    const target = Math.floor(this.maxEntries * 0.75);
    for (const known of this.byChain.values()) {
      for (const address of known.keys()) {
        if (this.size <= target) return;
        known.delete(address);
        this.size--;
      }
    }
  }
}

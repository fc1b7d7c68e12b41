import {
  type BlockContents,
  type ChainLog,
  type ChainTransaction,
  type FullBlockEvent,
  type InternalTransaction,
  type KnownToken,
  NO_CONTENTS,
  isEmptyContents,
  unionContents,
} from '@tributary/schema';
import type { CompiledStream } from './compileStream.ts';
import { type BlockMatch, type MatchCandidates, matchBlock, topicAddress } from './matchBlock.ts';

type Entry = CompiledStream | CompiledStream[];

/**
 * The streams of one matcher, indexed by watched address, so that a block costs one map lookup
 * per address it carries (log address, indexed address topics, tx and internal tx ends) instead
 * of one pass over the block per stream. Streams with `allAddresses` are evaluated on every block.
 * One entry per address holds the stream itself, or a list when several streams watch it.
 */
export class StreamIndex {
  private readonly byAddress = new Map<string, Entry>();
  private readonly wildcard = new Map<string, CompiledStream>();
  private readonly streams = new Map<string, CompiledStream>();
  /** The streams that read more of a block than its logs (usually few: scanned per incomplete block). */
  private readonly readers = new Map<string, CompiledStream>();

  get size(): number {
    return this.streams.size;
  }

  get(id: string): CompiledStream | undefined {
    return this.streams.get(id);
  }

  values(): IterableIterator<CompiledStream> {
    return this.streams.values();
  }

  upsert(stream: CompiledStream): void {
    this.remove(stream.id);
    this.streams.set(stream.id, stream);
    if (stream.config.allAddresses === true) this.wildcard.set(stream.id, stream);
    if (!isEmptyContents(stream.reads)) this.readers.set(stream.id, stream);
    for (const a of stream.addresses) {
      const e = this.byAddress.get(a);
      if (e === undefined) this.byAddress.set(a, stream);
      else if (Array.isArray(e)) e.push(stream);
      else this.byAddress.set(a, [e, stream]);
    }
  }

  remove(id: string): void {
    const old = this.streams.get(id);
    if (!old) return;
    this.streams.delete(id);
    this.wildcard.delete(id);
    this.readers.delete(id);
    for (const a of old.addresses) {
      const e = this.byAddress.get(a);
      if (e === old) this.byAddress.delete(a);
      else if (Array.isArray(e)) {
        const rest = e.filter((s) => s.id !== id);
        if (rest.length === 0) this.byAddress.delete(a);
        else this.byAddress.set(a, rest.length === 1 ? rest[0]! : rest);
      }
    }
  }

  /** What the streams of a chain that `accept` a block read of it beyond its logs. */
  readsOf(chainId: number, accept: (stream: CompiledStream) => boolean = () => true): BlockContents {
    let reads = NO_CONTENTS;
    for (const s of this.readers.values()) {
      if (s.chainIds.has(chainId) && accept(s)) reads = unionContents(reads, s.reads);
    }
    return reads;
  }

  /** Every stream with at least one item of the block touching its addresses, with those items. */
  candidates(event: FullBlockEvent): Map<CompiledStream, MatchCandidates> {
    const out = new Map<CompiledStream, MatchCandidates>();
    const slot = (s: CompiledStream) => {
      let c = out.get(s);
      if (!c) {
        c = { logs: [], txs: [], internal: [] };
        out.set(s, c);
      }
      return c;
    };
    const visit = <T>(address: string | null | undefined, item: T, pick: (c: MatchCandidates) => T[]) => {
      if (!address) return;
      const e = this.byAddress.get(address);
      if (e === undefined) return;
      for (const s of Array.isArray(e) ? e : [e]) {
        const list = pick(slot(s));
        if (list[list.length - 1] !== item) list.push(item);
      }
    };
    const logs = (c: MatchCandidates) => c.logs;
    const txs = (c: MatchCandidates) => c.txs;
    const internal = (c: MatchCandidates) => c.internal;
    for (const log of event.logs) {
      visit<ChainLog>(log.address, log, logs);
      for (let i = 1; i < log.topics.length; i++) visit<ChainLog>(topicAddress(log.topics[i]), log, logs);
    }
    for (const tx of event.transactions) {
      visit<ChainTransaction>(tx.from, tx, txs);
      visit<ChainTransaction>(tx.to, tx, txs);
      visit<ChainTransaction>(tx.receipt.contractAddress, tx, txs);
    }
    for (const t of event.internalTransactions) {
      visit<InternalTransaction>(t.from, t, internal);
      visit<InternalTransaction>(t.to, t, internal);
    }
    for (const s of this.wildcard.values()) slot(s);
    return out;
  }

  /**
   * The webhook bodies of one block event: every stream of the event's chain that `accept`s it
   * (status, creation time) and matched something. `meter` is told how long each stream took.
   */
  match(
    event: FullBlockEvent,
    tokenInfo: (address: string) => KnownToken | undefined,
    accept: (stream: CompiledStream) => boolean = () => true,
    meter?: (stream: CompiledStream, ms: number) => void,
  ): { stream: CompiledStream; match: BlockMatch }[] {
    const out: { stream: CompiledStream; match: BlockMatch }[] = [];
    for (const [stream, c] of this.candidates(event)) {
      if (!stream.chainIds.has(event.chainId) || !accept(stream)) continue;
      const started = meter ? performance.now() : 0;
      const match = matchBlock(stream, event, tokenInfo, c);
      if (meter) meter(stream, performance.now() - started);
      if (match) out.push({ stream, match });
    }
    return out;
  }
}

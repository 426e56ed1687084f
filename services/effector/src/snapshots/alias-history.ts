/**
 * Where the RAG's alias pointed, over time: a RAG whose own ingestion switches its alias to a new
 * build (a hookless RAG's blue/green) leaves no record of the build before, so the effector keeps one
 * (switch_alias_back's way back). One document per alias and target, first and last seen; written by
 * a watch every EFFECTOR_ALIAS_WATCH_SECONDS and around every switch the effector makes itself.
 */
import type { Logger } from 'pino';
import { date, keyword, type DocumentStore, type DocumentStores } from '@rag-immune/es-store';
import { EFFECTOR_INDEX_SETTINGS } from '../config.ts';
import type { AliasHistoryPort, AliasSighting } from '../actions/rag-repair-access.ts';

export class AliasHistory implements AliasHistoryPort {
  private readonly docs: DocumentStore<AliasSighting>;

  constructor(stores: DocumentStores, index: string) {
    this.docs = stores.open<AliasSighting>({
      name: index,
      refresh: true,
      settings: EFFECTOR_INDEX_SETTINGS,
      mappings: { dynamic: false, properties: { alias: keyword, collection: keyword, first_seen: date, last_seen: date } },
    });
  }

  init(): Promise<void> {
    return this.docs.ensureIndex();
  }

  async observe(alias: string, collection: string, at: Date = new Date()): Promise<void> {
    const id = `${alias}/${collection}`;
    const seen = at.toISOString();
    const existing = await this.docs.get(id);
    if (existing === null) {
      // Two replicas seeing it at once: the first create wins, the other only moves last_seen.
      if ((await this.docs.create(id, { alias, collection, first_seen: seen, last_seen: seen })) !== null) return;
    }
    await this.docs.patch(id, { last_seen: seen });
  }

  async sightings(alias: string): Promise<AliasSighting[]> {
    const hits = await this.docs.find({ where: { alias }, sort: [{ last_seen: 'desc' }], size: 100 });
    return hits.map((hit) => hit.doc);
  }
}

/**
 * Records the alias's target now and every `intervalMs` (never overlapping); a failed read is logged
 * and retried at the next tick. Returns the stop. Not an alias (a plain collection): nothing to record.
 */
export function watchAlias(
  target: (alias: string) => Promise<string | null>,
  history: AliasHistoryPort,
  alias: string,
  intervalMs: number,
  logger: Pick<Logger, 'warn'>,
): () => void {
  let running = false;
  const tick = async () => {
    if (running) return;
    running = true;
    try {
      const collection = await target(alias);
      if (collection !== null) await history.observe(alias, collection);
    } catch (error) {
      logger.warn({ alias, err: error instanceof Error ? error.message : String(error) }, 'alias watch: could not record the target');
    } finally {
      running = false;
    }
  };
  void tick();
  const timer = setInterval(() => void tick(), intervalMs);
  timer.unref();
  return () => clearInterval(timer);
}

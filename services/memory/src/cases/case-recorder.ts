import type { Logger } from 'pino';
import { healingLog, testPause } from '@rag-immune/worker-runtime';
import { applyEvent, caseEventsOf, caseIdOf, embeddingText, emptyCase, type CaseEvent, type HealingCase } from './healing-case.ts';
import { CaseVersionConflictError, type CaseStore, type StoredCase } from './case-store.ts';

/** What turns a signature text into a vector (the shared sentence embedder in production). */
export interface SignatureEmbedder {
  embed(texts: readonly string[]): Promise<Float32Array[]>;
}

export interface RecordResult {
  healingCase: HealingCase;
  /** False when the event had been applied before (a redelivery): nothing changed. */
  changed: boolean;
}

/**
 * Folds report and action events into cases. Each event is a read-modify-write of the case under
 * Elasticsearch's optimistic concurrency (a conflict re-reads and re-applies), then the case's point
 * is upserted in Qdrant from the stored state, so a redelivery after a Qdrant failure repairs it.
 * Events of one incident arrive on two topics and are recorded concurrently (and by several
 * replicas): Elasticsearch orders the writes, but the Qdrant upserts can land in any order, so after
 * its upsert a writer re-reads the document and upserts again until Qdrant holds the newest version.
 * Any store error propagates: the bus retries and, failing that, leaves the event for redelivery.
 */
export class CaseRecorder {
  constructor(
    private readonly store: CaseStore,
    private readonly embedder: SignatureEmbedder,
    private readonly environment: string,
    private readonly logger: Logger,
    private readonly onChange?: (healingCase: HealingCase) => void,
    private readonly clock: () => Date = () => new Date(),
  ) {}

  /** Records the event into its case, or into each cause's case when a report names several (the last case is returned). */
  async record(event: CaseEvent): Promise<RecordResult> {
    const results: RecordResult[] = [];
    for (const { cause, input } of caseEventsOf(event)) results.push(await this.recordInto(cause, input));
    return { healingCase: results.at(-1)!.healingCase, changed: results.some((r) => r.changed) };
  }

  private async recordInto(cause: string | null, input: CaseEvent): Promise<RecordResult> {
    const caseId = caseIdOf(this.environment, input.event.incident_id, cause);
    for (let attempt = 1; ; attempt++) {
      const stored = await this.store.get(caseId);
      const base = stored?.healingCase ?? emptyCase(input.event.incident_id, this.environment, this.clock(), cause);
      const next = applyEvent(base, input, this.clock());
      if (next === null) {
        // Already applied: make sure the vector exists too (the earlier attempt may have died after ES).
        if (stored !== null) await this.syncVector(stored);
        return { healingCase: base, changed: false };
      }
      let written: StoredCase;
      try {
        written = await this.store.write(next, stored);
      } catch (error) {
        if (error instanceof CaseVersionConflictError && attempt < 10) continue;
        throw error;
      }
      // Chaos tests kill memory here: the case is in Elasticsearch, its vector not yet in Qdrant (no-op unless armed).
      await testPause('memory.mid-write', this.logger, { incident_id: next.incident_id });
      await this.syncVector(written);
      this.log(input, next, stored === null);
      this.onChange?.(next);
      return { healingCase: next, changed: true };
    }
  }

  /**
   * Upserts the point of `version`, then re-reads: if another writer stored a newer version
   * meanwhile, its upsert may have landed before ours, so upsert again from the newest version.
   */
  private async syncVector(version: StoredCase): Promise<void> {
    let current = version;
    for (let round = 0; round < 10; round++) {
      await this.upsertVector(current.healingCase);
      const latest = await this.store.get(current.healingCase.case_id);
      if (latest === null || (latest.seqNo === current.seqNo && latest.primaryTerm === current.primaryTerm)) return;
      current = latest;
    }
    throw new Error(`case ${version.healingCase.case_id} kept changing while its vector was written`);
  }

  private async upsertVector(healingCase: HealingCase): Promise<void> {
    const [vector] = await this.embedder.embed([embeddingText(healingCase.signature)]);
    if (vector === undefined) throw new Error('embedder returned no vector');
    await this.store.upsertVector(healingCase, vector);
  }

  private log(input: CaseEvent, healingCase: HealingCase, created: boolean): void {
    const fields = {
      incident_id: healingCase.incident_id,
      case_id: healingCase.case_id,
      event_id: input.event.event_id,
      outcome: healingCase.outcome,
      intents: healingCase.intents,
    };
    if (created && input.kind === 'action') {
      healingLog(this.logger, fields, `case ${healingCase.case_id} opened by an action before its report`);
    } else if (created) {
      healingLog(this.logger, fields, `case ${healingCase.case_id} opened for ${healingCase.signature?.root_cause ?? 'unknown cause'}`);
    } else if (healingCase.outcome !== 'open') {
      healingLog(
        this.logger,
        fields,
        `case ${healingCase.case_id} ${healingCase.outcome}${healingCase.recovered_by ? ` by ${healingCase.recovered_by}` : ''}`,
      );
    } else {
      healingLog(this.logger, fields, `case ${healingCase.case_id} updated by ${input.kind} ${input.event.event_id}`);
    }
  }
}

/**
 * Remembers the vectors of recent texts: most events of an incident leave its signature unchanged,
 * and the embedder is deterministic, so re-embedding the same text is wasted CPU.
 */
export class CachedEmbedder implements SignatureEmbedder {
  private readonly cache = new Map<string, Float32Array>();

  constructor(
    private readonly inner: SignatureEmbedder & { dimension: number },
    private readonly capacity = 2000,
  ) {}

  get dimension(): number {
    return this.inner.dimension;
  }

  async embed(texts: readonly string[]): Promise<Float32Array[]> {
    const missing = [...new Set(texts.filter((t) => !this.cache.has(t)))];
    if (missing.length > 0) {
      const vectors = await this.inner.embed(missing);
      missing.forEach((text, i) => {
        const vector = vectors[i];
        if (vector === undefined) return;
        if (this.cache.size >= this.capacity) this.cache.delete(this.cache.keys().next().value as string);
        this.cache.set(text, vector);
      });
    }
    return texts.map((t) => {
      const vector = this.cache.get(t);
      if (vector === undefined) throw new Error('embedder returned fewer vectors than texts');
      // Refresh recency so the cache evicts the least recently used text.
      this.cache.delete(t);
      this.cache.set(t, vector);
      return vector;
    });
  }
}

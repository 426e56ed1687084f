import type { Client } from '@elastic/elasticsearch';
import { date, ensureIndex, isNotFound, kw } from './es.ts';

export type EffectorMode = 'observe' | 'approve' | 'auto';
export const MODES: readonly EffectorMode[] = ['observe', 'approve', 'auto'];

/** The run-time mode, persisted in Elasticsearch so every replica and a restart agree. */
export class ModeStore {
  constructor(
    private readonly es: Client,
    readonly index: string,
    private readonly initial: EffectorMode,
  ) {}

  init(): Promise<void> {
    return ensureIndex(this.es, this.index, { updated_at: date, updated_by: kw, mode: kw });
  }

  async get(): Promise<{ mode: EffectorMode; updated_at: string | null; updated_by: string | null }> {
    try {
      const r = await this.es.get<{ mode: EffectorMode; updated_at: string; updated_by: string }>({ index: this.index, id: 'mode' });
      if (r.found && r._source) return r._source;
    } catch (error) {
      if (!isNotFound(error)) throw error;
    }
    return { mode: this.initial, updated_at: null, updated_by: null };
  }

  async set(mode: EffectorMode, by: string): Promise<void> {
    await this.es.index({
      index: this.index,
      id: 'mode',
      document: { mode, updated_at: new Date().toISOString(), updated_by: by },
      refresh: true,
    });
  }
}

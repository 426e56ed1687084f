import { date, keyword, type DocumentStore, type DocumentStores } from '@rag-immune/es-store';
import { EFFECTOR_INDEX_SETTINGS } from '../config.ts';

export type EffectorMode = 'observe' | 'approve' | 'auto';
export const MODES: readonly EffectorMode[] = ['observe', 'approve', 'auto'];

interface ModeDoc {
  mode: EffectorMode;
  updated_at: string;
  updated_by: string;
}

/** The run-time mode, persisted in Elasticsearch so every replica and a restart agree. */
export class ModeStore {
  private readonly docs: DocumentStore<ModeDoc>;

  constructor(
    stores: DocumentStores,
    index: string,
    private readonly initial: EffectorMode,
  ) {
    this.docs = stores.open<ModeDoc>({
      name: index,
      refresh: true,
      settings: EFFECTOR_INDEX_SETTINGS,
      mappings: { dynamic: false, properties: { updated_at: date, updated_by: keyword, mode: keyword } },
    });
  }

  get index(): string {
    return this.docs.index;
  }

  init(): Promise<void> {
    return this.docs.ensureIndex();
  }

  async get(): Promise<{ mode: EffectorMode; updated_at: string | null; updated_by: string | null }> {
    return (await this.docs.get('mode'))?.doc ?? { mode: this.initial, updated_at: null, updated_by: null };
  }

  async set(mode: EffectorMode, by: string): Promise<void> {
    await this.docs.put('mode', { mode, updated_at: new Date().toISOString(), updated_by: by });
  }
}

import { randomUUID } from 'node:crypto';
import { date, keyword, type DocumentStore, type DocumentStores } from '@rag-immune/es-store';
import { EFFECTOR_INDEX_SETTINGS } from '../config.ts';

export interface AuditEntry {
  actor: string;
  command: string;
  target: string | null;
  outcome: 'ok' | 'refused' | 'error' | 'dry_run';
  detail?: Record<string, unknown>;
}

type AuditDoc = Omit<AuditEntry, 'detail'> & { at: string; detail: string };

/** Every manual command and grant decision, append-only in Elasticsearch (never a token). */
export class AuditLog {
  private readonly docs: DocumentStore<AuditDoc>;

  constructor(stores: DocumentStores, index: string) {
    this.docs = stores.open<AuditDoc>({
      name: index,
      refresh: true,
      settings: EFFECTOR_INDEX_SETTINGS,
      mappings: { dynamic: false, properties: { at: date, actor: keyword, command: keyword, target: keyword, outcome: keyword } },
    });
  }

  get index(): string {
    return this.docs.index;
  }

  init(): Promise<void> {
    return this.docs.ensureIndex();
  }

  async record(entry: AuditEntry): Promise<void> {
    await this.docs.put(randomUUID(), { at: new Date().toISOString(), ...entry, detail: JSON.stringify(entry.detail ?? {}) });
  }

  async list(size = 200): Promise<unknown[]> {
    return (await this.docs.find({ sort: [{ at: 'desc' }], size })).map((hit) => hit.doc);
  }
}

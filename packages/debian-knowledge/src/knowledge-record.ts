/**
 * One version of one piece of knowledge, as a source publishes it. `knowledgeId` names the evolving
 * fact (e.g. `changelog/openssl`: "the current openssl release"); each release is a new `version`
 * valid over [validFrom, validUntil). validUntil is null while no later version is known.
 */
export interface KnowledgeRecord {
  knowledgeId: string;
  /** The document the record comes from (one per package and source). */
  docId: string;
  version: string;
  source: string;
  validFrom: Date;
  validUntil: Date | null;
  /** When the source last changed this record. */
  updatedAt: Date;
  /** Named fields in display order, rendered by the parser as `Name: value.` sentences. */
  fields: [string, string][];
  /** Free text after the fields (changelog bullet points, long description). */
  body: string;
}

/** The package name a knowledge id is about: `changelog/openssl` → `openssl`. */
export function subjectOf(knowledgeId: string): string {
  return knowledgeId.slice(knowledgeId.indexOf('/') + 1);
}

/** Gives a source's full version history its validity windows: each version ends when the next begins. */
export function chainValidity(records: KnowledgeRecord[]): KnowledgeRecord[] {
  const byId = new Map<string, KnowledgeRecord[]>();
  for (const record of records) {
    const list = byId.get(record.knowledgeId) ?? [];
    list.push(record);
    byId.set(record.knowledgeId, list);
  }
  const out: KnowledgeRecord[] = [];
  for (const list of byId.values()) {
    list.sort((a, b) => a.validFrom.getTime() - b.validFrom.getTime());
    list.forEach((record, i) => out.push({ ...record, validUntil: list[i + 1]?.validFrom ?? null }));
  }
  return out;
}

/**
 * The knowledge as it had been published by time `t`: versions published later are unknown, and the
 * last version known at `t` is open-ended (nobody knew then when it would be superseded).
 */
export function publishedBy(records: KnowledgeRecord[], t: Date): KnowledgeRecord[] {
  return chainValidity(records.filter((record) => record.validFrom.getTime() <= t.getTime()));
}

/** True when the record is the valid version at time t: validFrom <= t < validUntil. */
export function validAt(record: Pick<KnowledgeRecord, 'validFrom' | 'validUntil'>, t: Date): boolean {
  return record.validFrom.getTime() <= t.getTime() && (record.validUntil === null || t.getTime() < record.validUntil.getTime());
}

import type { KnowledgeRecord } from './knowledge-record.ts';

/** Field separator in rendered text: `Name: value | Name: value | Changes: …`. */
export const FIELD_SEPARATOR = ' | ';

const MAX_BODY_CHARS = 480;

/** One record version as the text a RAG indexes: its fields in order, then its free text (cut at 480 characters). */
export function renderRecord(record: Pick<KnowledgeRecord, 'fields' | 'body' | 'source'>): string {
  const fields = record.fields.map(([name, value]) => `${name}: ${value}`);
  const body = record.body.length > MAX_BODY_CHARS ? `${record.body.slice(0, MAX_BODY_CHARS)}…` : record.body;
  return body === ''
    ? fields.join(FIELD_SEPARATOR)
    : [...fields, `${record.source === 'debian-changelog' ? 'Changes' : 'Description'}: ${body}`].join(FIELD_SEPARATOR);
}

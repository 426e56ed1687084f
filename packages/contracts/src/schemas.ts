import { readFileSync } from 'node:fs';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Topics, type TopicId } from './topics.ts';

/** avro/ at the repository root is the single source of every contract. */
export const avroDir = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..', 'avro');

export interface AvroRecordSchema {
  type: 'record';
  name: string;
  namespace?: string;
  fields: unknown[];
  [key: string]: unknown;
}

export function loadTopicSchema(topic: TopicId): AvroRecordSchema {
  const text = readFileSync(join(avroDir, Topics[topic].schemaFile), 'utf8');
  return JSON.parse(text) as AvroRecordSchema;
}

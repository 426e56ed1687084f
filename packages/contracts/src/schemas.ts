import { readFileSync } from 'node:fs';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { assembleSchema, loadSharedTypes, type SharedType } from './avro-assembly.ts';
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

let shared: Map<string, SharedType> | undefined;

/** The named types the topic schemas share (avro/common/), by full name. */
export function sharedTypes(): ReadonlyMap<string, SharedType> {
  shared ??= loadSharedTypes(join(avroDir, 'common'));
  return shared;
}

/** The topic's schema as registered: self-contained, the shared types inlined where first used. */
export function loadTopicSchema(topic: TopicId): AvroRecordSchema {
  const text = readFileSync(join(avroDir, Topics[topic].schemaFile), 'utf8');
  return assembleSchema(JSON.parse(text) as AvroRecordSchema, sharedTypes());
}

import { createHash } from 'node:crypto';

/** A chunk as indexed: the text the embedder saw plus the versioned-knowledge metadata (Qdrant payload). */
export interface KnowledgeChunk {
  chunkId: string;
  docId: string;
  knowledgeId: string;
  version: string;
  source: string;
  sourceTrust: number;
  updatedAt: Date;
  validFrom: Date;
  validUntil: Date | null;
  text: string;
}

/** Qdrant point id for a chunk: a name-based (v5-style) UUID of the chunk id, so re-ingesting is idempotent. */
export function pointIdOf(chunkId: string): string {
  const bytes = createHash('sha1').update(`rag-immune/chunk/${chunkId}`).digest().subarray(0, 16);
  bytes[6] = (bytes[6]! & 0x0f) | 0x50;
  bytes[8] = (bytes[8]! & 0x3f) | 0x80;
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** Field separator in chunk text (the knowledge renders records with it); the generator splits on it to read `Name: value` fields. */
export { FIELD_SEPARATOR } from '@rag-immune/debian-knowledge';

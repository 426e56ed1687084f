import type { AttributeValue, Attributes } from '../span-record.ts';
import { parseJsonObject } from './extensions.ts';
import type { SpanDocument } from './trace-mapper.ts';

const finite = (value: AttributeValue | undefined) => (typeof value === 'number' && Number.isFinite(value) ? value : undefined);
const idOf = (value: unknown) =>
  typeof value === 'string' && value !== '' ? value : typeof value === 'number' ? String(value) : undefined;

/** OpenInference's flattened lists: `<prefix>.<i>.document.{id,score,content,metadata}`, in index order. */
export function flattenedDocuments(attributes: Attributes, prefix: string): SpanDocument[] | undefined {
  const pattern = new RegExp(`^${prefix.replace(/\./g, '\\.')}\\.(\\d+)\\.document\\.(id|score|content|metadata)$`);
  const byIndex = new Map<number, Partial<Record<'id' | 'score' | 'content' | 'metadata', AttributeValue>>>();
  for (const [key, value] of Object.entries(attributes)) {
    const match = pattern.exec(key);
    if (!match) continue;
    const index = Number(match[1]);
    byIndex.set(index, { ...byIndex.get(index), [match[2] as 'id']: value });
  }
  if (byIndex.size === 0) return undefined;
  return [...byIndex.entries()]
    .sort(([a], [b]) => a - b)
    .map(([, doc]) => ({
      id: idOf(doc.id),
      score: finite(doc.score),
      content: typeof doc.content === 'string' ? doc.content : undefined,
      metadata: parseJsonObject(doc.metadata),
    }));
}

/** OTel GenAI's `gen_ai.retrieval.documents`: an array of `{id, score, content, metadata}` (structured or JSON). */
export function structuredDocuments(value: AttributeValue | undefined): SpanDocument[] | undefined {
  let list: unknown = value;
  if (typeof value === 'string') {
    try {
      list = JSON.parse(value);
    } catch {
      return undefined;
    }
  }
  if (!Array.isArray(list)) return undefined;
  return list.map((item: unknown) => {
    const doc = typeof item === 'object' && item !== null ? (item as Record<string, unknown>) : {};
    const score = typeof doc.score === 'number' && Number.isFinite(doc.score) ? doc.score : undefined;
    return {
      id: idOf(doc.id),
      score,
      content: typeof doc.content === 'string' ? doc.content : undefined,
      metadata: parseJsonObject(doc.metadata as AttributeValue),
    };
  });
}

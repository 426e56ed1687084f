/**
 * What no convention names but a diagnosis needs: which chunks the answer cites, the knowledge time
 * a pinned RAG answers as of, whether it abstained, the builds of its models (believed over the model
 * name a framework span records: the RAG names what its repair hooks pin). A RAG (or
 * `@rag-immune/langchain`) puts them on any span as `rag_immune.*` attributes, or as keys of
 * OpenInference's `metadata` JSON attribute (what LangChain's run metadata becomes).
 */
import type { AttributeValue, SpanRecord } from '../span-record.ts';

export const EXTENSION = {
  query: 'rag_immune.query',
  asOf: 'rag_immune.as_of',
  citations: 'rag_immune.citations',
  abstained: 'rag_immune.abstained',
  embedder: 'rag_immune.embedder',
  reranker: 'rag_immune.reranker',
  generator: 'rag_immune.generator',
} as const;

export function parseJsonObject(value: AttributeValue | undefined): Record<string, unknown> {
  if (typeof value === 'object' && value !== null && !Array.isArray(value)) return value;
  if (typeof value !== 'string') return {};
  try {
    const parsed: unknown = JSON.parse(value);
    return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

/** The extension value on the shallowest span that has it (the RAG's own span over framework spans). */
export function extension(spans: readonly SpanRecord[], key: string): unknown {
  for (const span of [...spans].sort((a, b) => a.start_ms - b.start_ms)) {
    if (span.attributes[key] !== undefined) return span.attributes[key];
    const metadata = parseJsonObject(span.attributes.metadata);
    if (metadata[key] !== undefined) return metadata[key];
  }
  return undefined;
}

export function extensionString(spans: readonly SpanRecord[], key: string): string | undefined {
  const value = extension(spans, key);
  return typeof value === 'string' && value !== '' ? value : undefined;
}

/** `rag_immune.citations`: chunk ids, as a string array or its JSON. */
export function extensionCitations(spans: readonly SpanRecord[]): string[] | undefined {
  let value = extension(spans, EXTENSION.citations);
  if (typeof value === 'string') {
    try {
      value = JSON.parse(value);
    } catch {
      return undefined;
    }
  }
  return Array.isArray(value) && value.every((id) => typeof id === 'string') ? (value as string[]) : undefined;
}

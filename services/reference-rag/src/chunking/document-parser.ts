import { renderRecord, type KnowledgeRecord } from '@rag-immune/debian-knowledge';
import { FIELD_SEPARATOR, type KnowledgeChunk } from './knowledge-chunk.ts';

/** A parser defect, as the fault injector installs it: which knowledge it hits and how. */
export interface ParserDefect {
  mode: 'merge-sections' | 'boilerplate';
  affects: (knowledgeId: string) => boolean;
}

/** Page furniture a broken HTML/PDF extractor leaves in every chunk; note its own Version/Released fields. */
export const BOILERPLATE_HEADER = [
  'Debian GNU/Linux 12 (bookworm) package documentation',
  'Version: 12.0',
  'Released: 2023-06-10',
  'Maintained by: Debian Documentation Project',
  'Navigation: Home, Packages, Security, News',
].join(FIELD_SEPARATOR);
export const BOILERPLATE_FOOTER = 'Copyright 1997-2026 Software in the Public Interest, Inc. | Page 1 of 1 | Last modified: 2026-01-01';

/**
 * Turns knowledge records into chunks: one chunk per record version, fields first (`Name: value`
 * joined by ` | `), then the free text. The real parser is one function; a defect installed by the
 * fault injector changes what it emits for the knowledge it affects, as a buggy parser release would.
 */
export class DocumentParser {
  constructor(private readonly trustOf: (source: string) => number) {}

  parse(records: KnowledgeRecord[], defect?: ParserDefect): KnowledgeChunk[] {
    // Document order: the order a parser walks sections in, used by the merge defect.
    const ordered = [...records].sort(
      (a, b) =>
        a.source.localeCompare(b.source) || a.knowledgeId.localeCompare(b.knowledgeId) || a.validFrom.getTime() - b.validFrom.getTime(),
    );
    return ordered.map((record, i) => {
      let text = renderRecord(record);
      if (defect !== undefined && defect.affects(record.knowledgeId)) {
        if (defect.mode === 'boilerplate') {
          text = [BOILERPLATE_HEADER, text, BOILERPLATE_FOOTER].join(FIELD_SEPARATOR);
        } else {
          // A section boundary is missed: the record keeps its first field (its name) but the
          // remaining sections come from the next record in the document.
          const neighbour = ordered[(i + 1) % ordered.length]!;
          const head = record.fields[0];
          text = renderRecord({ ...neighbour, fields: [...(head ? [head] : []), ...neighbour.fields.slice(1)] });
        }
      }
      return {
        chunkId: `${record.docId}@${record.version}#0`,
        docId: record.docId,
        knowledgeId: record.knowledgeId,
        version: record.version,
        source: record.source,
        sourceTrust: this.trustOf(record.source),
        updatedAt: record.updatedAt,
        validFrom: record.validFrom,
        validUntil: record.validUntil,
        text,
      };
    });
  }
}

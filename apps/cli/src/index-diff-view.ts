/**
 * The index diff a report carried (RootCauseReport.index_diff, kept with a memory case) or an
 * identifier analysis holds, as lines for `immune cases show` and `immune incidents show`: what
 * changed in the online index against the baseline's, which causes it fits, a few changed chunks.
 */

/** The parts of an index diff printed; both the report's form and the identifier's analysis form fit. */
export interface IndexDiffView {
  online_collection?: string;
  baseline_collection?: string;
  online_target?: string | null;
  online_target_before?: string | null;
  collections?: { online: string; baseline: string; online_target: string | null; online_target_before: string | null } | null;
  knowledge_ids: string[];
  online_points: number;
  baseline_points: number;
  missing: number;
  added_unexpected: number;
  added_after_pin: number;
  relabelled: number;
  payload_changed: number;
  text_changed?: number;
  vectors_moved: number;
  min_vector_cosine: number | null;
  explained_by?: string[];
  unexplained?: string[];
  examples: {
    kind: string;
    knowledge_id: string;
    point_id: string;
    chunk: string;
    field: string;
    before: string | null;
    after: string | null;
  }[];
}

export function indexDiffLines(diff: IndexDiffView, label = 'index'): string[] {
  const online = diff.online_collection ?? diff.collections?.online ?? '?';
  const baseline = diff.baseline_collection ?? diff.collections?.baseline ?? '?';
  const target = diff.online_target ?? diff.collections?.online_target ?? null;
  const before = diff.online_target_before ?? diff.collections?.online_target_before ?? null;
  const pad = ' '.repeat(label.length);
  const counts = [
    ['missing', diff.missing],
    ['added', diff.added_unexpected],
    ['relabelled', diff.relabelled],
    ['payload changed', diff.payload_changed],
    ['text changed', diff.text_changed ?? 0],
    ['vectors moved', diff.vectors_moved],
  ]
    .map(([name, n]) => `${String(n)} ${String(name)}`)
    .join(', ');
  const lines = [
    `${label} ${online}${target ? ` (-> ${target}${before ? `, was ${before}` : ''})` : ''} against ${baseline}: ${diff.online_points} vs ${diff.baseline_points} points of ${diff.knowledge_ids.join(', ')}`,
    `${pad} ${counts}; ${diff.added_after_pin} newer than the baseline's pin; min vector cosine ${diff.min_vector_cosine === null ? '-' : diff.min_vector_cosine.toFixed(3)}`,
  ];
  if (diff.explained_by !== undefined || diff.unexplained !== undefined)
    lines.push(
      `${pad} fits ${diff.explained_by?.length ? diff.explained_by.join(', ') : 'no catalogue cause'}${diff.unexplained?.length ? `; UNEXPLAINED: ${diff.unexplained.join(', ')}` : ''}`,
    );
  for (const e of diff.examples)
    lines.push(
      `${pad} ${e.kind} ${e.knowledge_id || '-'} ${e.chunk} (point ${e.point_id || '-'}) ${e.field}: ${e.before ?? '-'} -> ${e.after ?? '-'}`,
    );
  return lines;
}

import { readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import type { ProbeResult } from '@rag-immune/contracts';
import type { Trace } from '@rag-immune/rag-contract';

/** One recorded probe run (scripts/record-trace-pairs.ts): the ProbeResult and both RAGs' traces, labelled with the fault. */
export interface RecordedRun {
  kind: string;
  mode: string;
  probe: { id: string; query: string; expected_sources: string[] };
  result: ProbeResult;
  online_trace: Trace | null;
  baseline_trace: Trace | null;
}

export const TRACE_PAIRS = new URL('../fixtures/trace-pairs.jsonl.gz', import.meta.url).pathname;

export function loadRecordedRuns(path: string = TRACE_PAIRS): RecordedRun[] {
  const raw = readFileSync(path);
  const text = path.endsWith('.gz') ? gunzipSync(raw).toString('utf8') : raw.toString('utf8');
  return text
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as RecordedRun);
}

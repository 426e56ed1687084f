import { Command } from 'commander';
import { emit } from '../output.ts';
import { ExitCode } from '../exit-codes.ts';
import { callWorkerApi, withWorkerApiOptions, type WorkerApiOptions } from '../worker-api.ts';
import { indexDiffLines, type IndexDiffView } from '../index-diff-view.ts';

/**
 * `immune incidents list|show` and `immune ledger verify` against the identifier's HTTP API
 * (token from IMMUNE_API_TOKEN or --token when the identifier requires one; never printed).
 */

type ApiOptions = WorkerApiOptions;

const withApiOptions = (command: Command): Command =>
  withWorkerApiOptions(command, 'identifier', 'IMMUNE_IDENTIFIER_URL', 'http://127.0.0.1:9465');

/** GETs from the identifier; unreachable → 69, bad token → 77, not found/refused → 65, server error → 1. */
async function get<T>(options: ApiOptions, path: string): Promise<T> {
  const token = options.token ?? process.env.IMMUNE_API_TOKEN;
  return callWorkerApi<T>({ worker: 'identifier', url: options.url, method: 'GET', path, token, timeoutMs: 60_000 });
}

const time = (ms: number | null | undefined) => (ms === null || ms === undefined ? '-' : new Date(ms).toISOString());
const short = (hash: string) => `${hash.slice(0, 12)}…`;

interface Summary {
  incident_id: string;
  state: string;
  opened_at: number;
  report_revision: number;
  root_cause: string | null;
  component: string | null;
  confidence: number | null;
  probes: number;
}

function renderList(incidents: Summary[]): string {
  if (incidents.length === 0) return 'No incidents.';
  const rows = incidents.map((i) => [
    i.incident_id,
    i.state,
    time(i.opened_at),
    i.root_cause ?? '-',
    i.component ?? '-',
    i.confidence === null ? '-' : i.confidence.toFixed(2),
    String(i.report_revision),
    String(i.probes),
  ]);
  const header = ['INCIDENT', 'STATE', 'OPENED', 'CAUSE', 'COMPONENT', 'CONF', 'REV', 'PROBES'];
  const widths = header.map((h, c) => Math.max(h.length, ...rows.map((r) => r[c]!.length)));
  return [header, ...rows]
    .map((r) =>
      r
        .map((cell, c) => cell.padEnd(widths[c]!))
        .join('  ')
        .trimEnd(),
    )
    .join('\n');
}

interface EvidenceView {
  seq: number;
  record_id: string;
  prev_hash: string;
  kind: string;
  detector: string | null;
  subject: string;
  metric: string;
  observed: number;
  baseline: number | null;
  occurred_at?: number;
  /** The index_changed record's detail is the index diff (services/identifier index-evidence diffDetail). */
  detail?: Record<string, unknown>;
}

interface IncidentView {
  incident_id: string;
  state: string;
  resolution: string | null;
  opened_at: number;
  window_start: number;
  window_end: number;
  verdict: { root_cause: string; component: string; confidence: number; outcome: string } | null;
  report_revision: number;
  probes: { probe_id: string }[];
  timeline: { at: number; state: string; event: string; detail?: Record<string, unknown> }[];
  ledger_head?: { hash: string; seq: number };
}

interface Verification {
  ok: boolean;
  records: number;
  head: string | null;
  /** False when the chain is hashed without IDENTIFIER_LEDGER_KEY: tamper-evident, not tamper-proof. */
  keyed?: boolean;
  orphans: string[];
  problems: { record_id: string; seq: number | null; problem: string }[];
}

/** The incident's latest index diff (index_changed ledger record; a changed one first), as the report carries it. */
function latestIndexDiff(evidence: readonly EvidenceView[]): string[] {
  const read = evidence.filter((r) => r.metric === 'index_changed' && r.detail !== undefined).sort((a, b) => b.seq - a.seq);
  const chosen = read.find((r) => r.observed > 0) ?? read[0];
  if (chosen === undefined) return [];
  return indexDiffLines(chosen.detail as unknown as IndexDiffView, `  index (record ${short(chosen.record_id)}):`);
}

export function renderShow(body: { incident: IncidentView; evidence: EvidenceView[] }): string {
  const { incident, evidence } = body;
  const lines = [
    `Incident ${incident.incident_id}: ${incident.state}${incident.resolution ? ` (${incident.resolution})` : ''}`,
    `  opened ${time(incident.opened_at)}, anomalies ${time(incident.window_start)} … ${time(incident.window_end)}`,
    `  verdict: ${incident.verdict ? `${incident.verdict.root_cause} (${incident.verdict.component}), confidence ${Number(incident.verdict.confidence).toFixed(2)}, ${incident.verdict.outcome}` : 'none yet'}; report revision ${incident.report_revision}`,
    `  probes: ${incident.probes.map((p) => p.probe_id).join(', ')}`,
    ...latestIndexDiff(evidence),
    '',
    'Timeline:',
    ...incident.timeline.map(
      (t) =>
        `  ${time(t.at)}  ${t.state.padEnd(10)} ${t.event}${Object.keys(t.detail ?? {}).length ? `  ${JSON.stringify(t.detail)}` : ''}`,
    ),
    '',
    `Evidence chain (${evidence.length} records, head ${incident.ledger_head?.hash ? short(incident.ledger_head.hash) : '-'}):`,
    ...evidence.map(
      (r) =>
        `  #${String(r.seq).padStart(3)} ${short(r.record_id)} ← ${short(r.prev_hash)}  ${r.kind}${r.detector ? ` [${r.detector}]` : ''} ${r.subject} ${r.metric}=${r.observed}${r.baseline === null ? '' : ` (baseline ${r.baseline})`}`,
    ),
  ];
  return lines.join('\n');
}

export function incidentsCommand(): Command {
  const incidents = new Command('incidents').description("The identifier's incidents: verdicts, timelines and evidence");
  withApiOptions(incidents.command('list').description('List incidents, newest first'))
    .option('--state <state>', 'only incidents in this state')
    .action(async (options: ApiOptions & { state?: string }) => {
      const body = await get<{ incidents: Summary[] }>(
        options,
        `/incidents${options.state ? `?state=${encodeURIComponent(options.state)}` : ''}`,
      );
      emit(options.json, body.incidents, () => renderList(body.incidents));
    });
  withApiOptions(
    incidents
      .command('show')
      .description('One incident: its timeline and its evidence chain')
      .argument('<incident>', 'incident id (inc-…)'),
  ).action(async (incidentId: string, options: ApiOptions) => {
    const body = await get<{ incident: IncidentView; evidence: EvidenceView[] }>(options, `/incidents/${encodeURIComponent(incidentId)}`);
    emit(options.json, body, () => renderShow(body));
  });
  return incidents;
}

export function ledgerCommand(): Command {
  const ledger = new Command('ledger').description('The evidence ledger');
  withApiOptions(
    ledger
      .command('verify')
      .description("Check an incident's hash chain; exit 65 when it is broken")
      .argument('<incident>', 'incident id (inc-…)')
      .option(
        '--anchor <seq:hash...>',
        "a ledger head published in one of the incident's RootCauseReports (its ledger_head, kept in Kafka): a ledger cut back behind it fails",
      ),
  ).action(async (incidentId: string, options: ApiOptions & { anchor?: string[] }) => {
    const anchors = (options.anchor ?? []).map((a) => `anchor=${encodeURIComponent(a)}`).join('&');
    const result = await get<Verification>(
      options,
      `/incidents/${encodeURIComponent(incidentId)}/ledger/verify${anchors ? `?${anchors}` : ''}`,
    );
    emit(options.json, result, () =>
      result.ok
        ? `Ledger of ${incidentId}: OK, ${result.records} records chained from genesis to ${result.head ? short(result.head) : '-'}${result.keyed ? ' (keyed)' : ' (unkeyed: tamper-evident only)'}`
        : [`Ledger of ${incidentId}: BROKEN`, ...result.problems.map((p) => `  #${p.seq ?? '?'} ${short(p.record_id)}: ${p.problem}`)].join(
            '\n',
          ),
    );
    if (!result.ok) process.exitCode = ExitCode.dataError;
  });
  return ledger;
}

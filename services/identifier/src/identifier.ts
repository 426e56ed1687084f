/**
 * The identifier's behaviour, independent of Kafka and HTTP: a ProbeResult joins (or opens) an
 * incident, is analysed and ledgered; the incident's verdict is recomputed and reported when it
 * changed; RepairActions move the incident through repairing/verified/failed/escalated; clean
 * rounds close it. All incident writes use optimistic concurrency; a conflict re-reads and retries.
 *
 * The rooms: incidents/grouping.ts (which incident a result joins, closing), report/ (verdict →
 * staged report → outbox), incidents/repair-feedback.ts (RepairActions), verdict/, ledger/.
 */
import { context, type Context, type Tracer } from '@opentelemetry/api';
import type { Logger } from 'pino';
import type { ProbeResult, RepairAction, RootCauseReport } from '@rag-immune/contracts';
import type { RagClient } from '@rag-immune/rag-contract';
import { inSpan } from '@rag-immune/worker-runtime';
import { prepareAnalysis } from './analysis.ts';
import type { IdentifierMetrics } from './metrics.ts';
import { IncidentGrouping } from './incidents/grouping.ts';
import type { IncidentCaps } from './incidents/incident-caps.ts';
import { INCIDENT_STATES } from './incidents/incident-state.ts';
import { ConcurrentUpdateError, type IncidentStore } from './incidents/incident-store.ts';
import { RepairFeedback } from './incidents/repair-feedback.ts';
import type { EvidenceLedger } from './ledger/evidence-ledger.ts';
import { ReportOutbox } from './report/report-outbox.ts';
import type { TraceSource } from './trace-diff/trace-sources.ts';
import type { IndexDiffer } from './index-diff/index-evidence.ts';
import { ReportStaging } from './report/report-staging.ts';
import type { Calibration } from './verdict/calibration.ts';
import type { VerdictPolicy } from './verdict/verdict.ts';

export { IDENTIFIER_VERSION } from './config.ts';
const CONFLICT_RETRIES = 8;

export interface IdentifierOptions {
  store: IncidentStore;
  ledger: EvidenceLedger;
  rag: { online: RagClient; baseline: RagClient };
  publishReport: (report: RootCauseReport) => Promise<void>;
  calibration: Calibration;
  policy: VerdictPolicy;
  /** An anomaly later than this after the incident's last one opens a new incident (unless it is repairing). */
  groupWindowMs: number;
  /** Consecutive clean results every probe of the incident needs before it closes. */
  cleanRoundsToClose: number;
  traceTimeoutMs: number;
  /** Where each side's traces are read; default the RAGs' GET /traces. */
  traces?: { online: TraceSource; baseline: TraceSource };
  /** Reads the online and baseline indexes for the data causes' knowledge (IDENTIFIER_INDEX_DIFF); absent: no index evidence. */
  indexDiffer?: IndexDiffer;
  metrics: IdentifierMetrics;
  logger: Logger;
  tracer: Tracer;
  now?: () => number;
  /** How much of an incident its document keeps (default DEFAULT_INCIDENT_CAPS). */
  incidentCaps?: IncidentCaps;
}

export class Identifier {
  private queue: Promise<unknown> = Promise.resolve();
  private readonly grouping: IncidentGrouping;
  private readonly feedback: RepairFeedback;

  constructor(private readonly options: IdentifierOptions) {
    const now = options.now ?? Date.now;
    const staging = new ReportStaging({ ...options, now });
    const outbox = new ReportOutbox(options.store, options.publishReport, now);
    this.grouping = new IncidentGrouping({ ...options, staging, outbox, now });
    this.feedback = new RepairFeedback({ ...options, now });
  }

  /** Serialises incident mutations within this replica (other replicas are kept apart by seq_no). */
  private serial<T>(work: () => Promise<T>): Promise<T> {
    const run = this.queue.then(work, work);
    this.queue = run.catch(() => undefined);
    return run;
  }

  private async withRetries<T>(work: () => Promise<T>): Promise<T> {
    for (let attempt = 1; ; attempt += 1) {
      try {
        return await work();
      } catch (error) {
        if (!(error instanceof ConcurrentUpdateError) || attempt >= CONFLICT_RETRIES) throw error;
        this.options.logger.info({ attempt }, 'incident changed concurrently; re-reading');
      }
    }
  }

  /** Handles one ProbeResult in span `identifier.analyze`, continuing the sentinel's trace. */
  async handleProbeResult(result: ProbeResult, parent: Context = context.active()): Promise<void> {
    await inSpan(
      this.options.tracer,
      'identifier.analyze',
      { probe_id: result.probe_id, probe_event_id: result.event_id, anomaly: result.anomaly },
      parent,
      async (span) => {
        const prepared = result.anomaly
          ? await prepareAnalysis(result, this.options.rag, this.options.traceTimeoutMs, this.options.traces, this.options.indexDiffer)
          : null;
        if (prepared) this.options.metrics.traceFetches.inc({ outcome: prepared.status });
        if (prepared?.traceMismatch) {
          this.options.metrics.traceMismatches.inc(prepared.traceMismatch);
          // Ids only: the query and the answers are not logged.
          this.options.logger.warn(
            { probe_id: result.probe_id, probe_event_id: result.event_id, ...prepared.traceMismatch },
            'intake trace is not this probe call’s; not used as evidence',
          );
        }
        const incidentId = await this.serial(() => this.withRetries(() => this.grouping.apply(result, prepared)));
        if (incidentId) span.setAttribute('incident_id', incidentId);
      },
    );
  }

  /** A RepairAction lifecycle step from the effector moves the incident it names. */
  async handleRepairAction(action: RepairAction): Promise<void> {
    await this.serial(() => this.withRetries(() => this.feedback.apply(action)));
  }

  /** Incident counts by state for the gauge. */
  async refreshStateGauge(): Promise<void> {
    const incidents = await this.options.store.list({ size: 1000 });
    const counts = new Map<string, number>();
    for (const incident of incidents) counts.set(incident.state, (counts.get(incident.state) ?? 0) + 1);
    for (const state of INCIDENT_STATES) this.options.metrics.incidents.set({ state }, counts.get(state) ?? 0);
  }
}

import { Counter, Gauge, type Registry } from 'prom-client';

/** The traffic watcher's figures on /metrics (a signal's bad rate is bad / measured). */
export class TrafficMetrics {
  readonly answersRead: Counter;
  readonly skipped: Counter;
  readonly unreadable: Counter;
  readonly signalMeasured: Counter<'signal'>;
  readonly signalBad: Counter<'signal'>;
  readonly segmentsFlagged: Counter;
  readonly segmentsConfirmed: Counter;
  readonly segmentsRejected: Counter;
  readonly segmentsRelearned: Counter;
  readonly resolvedNear: Counter;
  readonly companionsLost: Counter;
  readonly replayCalls: Counter<'outcome'>;
  readonly spotChecks: Counter<'outcome' | 'trigger'>;
  readonly pollErrors: Counter;
  readonly segments: Gauge;

  constructor(registry: Registry) {
    const registers = [registry];
    this.answersRead = new Counter({
      name: 'rag_immune_traffic_answers_read_total',
      help: 'Traced user answers read and judged',
      registers,
    });
    this.skipped = new Counter({
      name: 'rag_immune_traffic_answers_skipped_total',
      help: 'Traced user answers passed over because the watcher was behind (sampled or jumped)',
      registers,
    });
    this.unreadable = new Counter({
      name: 'rag_immune_traffic_traces_unreadable_total',
      help: 'User traces whose spans make no answer to judge (no convention, query or answer)',
      registers,
    });
    this.signalMeasured = new Counter({
      name: 'rag_immune_traffic_signal_measured_total',
      help: 'Answers a per-answer signal measured',
      labelNames: ['signal'],
      registers,
    });
    this.signalBad = new Counter({
      name: 'rag_immune_traffic_signal_bad_total',
      help: 'Answers a per-answer signal found bad',
      labelNames: ['signal'],
      registers,
    });
    this.segmentsFlagged = new Counter({
      name: 'rag_immune_traffic_segments_flagged_total',
      help: 'Segment alarms of the change detector',
      registers,
    });
    this.segmentsConfirmed = new Counter({
      name: 'rag_immune_traffic_segments_confirmed_total',
      help: 'Flagged segments the shadow replay confirmed (published as anomalies)',
      registers,
    });
    this.segmentsRejected = new Counter({
      name: 'rag_immune_traffic_segments_rejected_total',
      help: 'Flagged segments the shadow replay did not confirm (nothing opened)',
      registers,
    });
    this.segmentsRelearned = new Counter({
      name: 'rag_immune_traffic_segments_relearned_total',
      help: 'Rejected segments whose clean bad rate was re-learned from their answers since the profile',
      registers,
    });
    this.resolvedNear = new Counter({
      name: 'rag_immune_traffic_answers_resolved_near_total',
      help: 'Answers to a rewording never seen healthy, put in the segment of the knowledge its words point to, which was missing from their context',
      registers,
    });
    this.companionsLost = new Counter({
      name: 'rag_immune_traffic_answers_companion_lost_total',
      help: "Answers that lost knowledge their wording's first healthy context held beside the top id (each leads a spot check of that knowledge)",
      registers,
    });
    this.replayCalls = new Counter({
      name: 'rag_immune_traffic_replay_queries_total',
      help: 'User queries replayed against the online and the baseline RAG',
      labelNames: ['outcome'],
      registers,
    });
    this.spotChecks = new Counter({
      name: 'rag_immune_traffic_spot_checks_total',
      help: 'Budgeted spot checks: a user query replayed against online and baseline (outcome agree | disagree | failed; trigger schedule | evidence)',
      labelNames: ['outcome', 'trigger'],
      registers,
    });
    this.pollErrors = new Counter({
      name: 'rag_immune_traffic_poll_errors_total',
      help: 'Polls of the user-span index that failed',
      registers,
    });
    this.segments = new Gauge({ name: 'rag_immune_traffic_segments', help: 'Segments (knowledge ids) the watcher tracks', registers });
  }
}

import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import { INCIDENT_STATES } from './incidents/incident-state.ts';

/** The identifier's Prometheus metrics: incidents by state, verdicts by cause, time to report, ledger writes. */
export class IdentifierMetrics {
  readonly incidents: Gauge<'state'>;
  readonly transitions: Counter<'to'>;
  readonly verdicts: Counter<'cause' | 'outcome'>;
  readonly timeToReport: Histogram;
  readonly ledgerWrites: Counter<'outcome'>;
  readonly traceFetches: Counter<'outcome'>;
  readonly traceMismatches: Counter<'side' | 'field'>;
  readonly reportsRefused: Counter;

  constructor(registry: Registry) {
    this.incidents = new Gauge({
      name: 'identifier_incidents',
      help: 'Incidents this replica last saw in each state',
      labelNames: ['state'],
      registers: [registry],
    });
    for (const state of INCIDENT_STATES) this.incidents.set({ state }, 0);
    this.transitions = new Counter({
      name: 'identifier_incident_transitions_total',
      help: 'Incident state transitions',
      labelNames: ['to'],
      registers: [registry],
    });
    this.verdicts = new Counter({
      name: 'identifier_verdicts_total',
      help: 'Verdicts reported, by root cause and outcome (cause, unknown)',
      labelNames: ['cause', 'outcome'],
      registers: [registry],
    });
    this.timeToReport = new Histogram({
      name: 'identifier_first_anomaly_to_report_seconds',
      help: 'From the first anomalous ProbeResult of an incident to its first report',
      buckets: [1, 2, 5, 10, 20, 30, 60, 120, 300, 600, 1200],
      registers: [registry],
    });
    this.ledgerWrites = new Counter({
      name: 'identifier_ledger_writes_total',
      help: 'Evidence ledger records written (created) or found already there (existing: a replay)',
      labelNames: ['outcome'],
      registers: [registry],
    });
    this.traceMismatches = new Counter({
      name: 'identifier_trace_mismatches_total',
      help: "Intake traces refused as evidence because their query or answer is not the ProbeResult's (forged or misfiled spans), by side and field",
      labelNames: ['side', 'field'],
      registers: [registry],
    });
    this.traceFetches = new Counter({
      name: 'identifier_trace_fetches_total',
      help: 'Trace pair fetches',
      labelNames: ['outcome'],
      registers: [registry],
    });
    this.reportsRefused = new Counter({
      name: 'identifier_reports_refused_total',
      help: 'Reports refused by the claim gate',
      registers: [registry],
    });
  }
}

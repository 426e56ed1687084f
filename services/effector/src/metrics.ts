import { Counter, Gauge, Histogram, type Registry } from 'prom-client';

/** The effector's Prometheus metrics (seed 003 §3.5: actions, recovery time, rollbacks, breaker). */
export class EffectorMetrics {
  readonly actions: Counter<'tool' | 'outcome'>;
  readonly timeToRecovery: Histogram<'tool'>;
  readonly rollbacks: Counter<'trigger'>;
  readonly breakerOpen: Gauge<'component'>;
  readonly escalations: Counter<'reason'>;
  readonly snapshotSeconds: Histogram<'operation'>;
  readonly snapshotsPruned: Counter;
  readonly snapshotBudget: Counter<'outcome'>;
  readonly reports: Counter<'outcome'>;
  readonly reportsRefused: Counter<'reason'>;
  readonly identifierUnreachable: Gauge;
  readonly repairsWaiting: Gauge;
  readonly repairBacklogRefused: Counter<'bound'>;

  constructor(registry: Registry) {
    this.actions = new Counter({
      name: 'effector_actions_total',
      help: 'Repair action lifecycle steps by tool and outcome (planned, started, succeeded, failed, rolled_back, escalated)',
      labelNames: ['tool', 'outcome'],
      registers: [registry],
    });
    this.timeToRecovery = new Histogram({
      name: 'effector_time_to_verified_recovery_seconds',
      help: 'From the report to the verified recovery of its affected probes',
      labelNames: ['tool'],
      buckets: [1, 5, 10, 30, 60, 120, 300, 600, 1800],
      registers: [registry],
    });
    this.rollbacks = new Counter({
      name: 'effector_rollbacks_total',
      help: 'Repairs undone, by trigger (verification, error, manual, recovery, breaker)',
      labelNames: ['trigger'],
      registers: [registry],
    });
    this.breakerOpen = new Gauge({
      name: 'effector_breaker_open',
      help: '1 while the circuit breaker holds repairs of a component (alert on it)',
      labelNames: ['component'],
      registers: [registry],
    });
    this.escalations = new Counter({
      name: 'effector_escalations_total',
      help: 'Incidents handed to a human, by reason',
      labelNames: ['reason'],
      registers: [registry],
    });
    this.snapshotSeconds = new Histogram({
      name: 'effector_snapshot_seconds',
      help: 'Qdrant collection snapshot create and restore time',
      labelNames: ['operation'],
      buckets: [0.1, 0.5, 1, 2, 5, 10, 15, 30, 60],
      registers: [registry],
    });
    this.snapshotsPruned = new Counter({
      name: 'effector_snapshots_pruned_total',
      help: 'Collection snapshots deleted by the retention policy (EFFECTOR_SNAPSHOT_KEEP_LAST / _KEEP_WITHIN_DAYS)',
      registers: [registry],
    });
    this.snapshotBudget = new Counter({
      name: 'effector_snapshot_budget_total',
      help: 'EFFECTOR_SNAPSHOT_BUDGET_BYTES at work: snapshots deleted to make room (pruned), repairs refused for want of room (refused)',
      labelNames: ['outcome'],
      registers: [registry],
    });
    this.reports = new Counter({
      name: 'effector_reports_total',
      help: 'RootCauseReports handled, by outcome',
      labelNames: ['outcome'],
      registers: [registry],
    });
    this.reportsRefused = new Counter({
      name: 'effector_reports_refused_total',
      help: "RootCauseReports refused before any repair, by reason (too many probes, or not the identifier's own record of the incident)",
      labelNames: ['reason'],
      registers: [registry],
    });
    this.identifierUnreachable = new Gauge({
      name: 'effector_identifier_unreachable',
      help: '1 while reports are held because the identifier could not be asked whether they are its own (page on it)',
      registers: [registry],
    });
    this.repairBacklogRefused = new Counter({
      name: 'effector_repair_backlog_refused_total',
      help: "Reports or runs refused because this process's backlog was full (waiting: slots' waiting line, incidents: incidents in hand, per_incident: runs queued for one incident); a refused report stays in Kafka",
      labelNames: ['bound'] as const,
      registers: [registry],
    });
    this.repairsWaiting = new Gauge({
      name: 'effector_repairs_waiting',
      help: 'Repairs waiting for one of the EFFECTOR_MAX_CONCURRENT_REPAIRS slots of this process',
      registers: [registry],
    });
  }
}

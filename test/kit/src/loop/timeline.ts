/**
 * The record of a loop run: every ProbeResult, RootCauseReport and RepairAction the workers published
 * (read back from Kafka with a read-only consumer group of the run's own topics) and every
 * `[HEALING]` line the workers logged, merged into one ordered timeline of healing steps. Nothing
 * here publishes: the harness only watches.
 */
import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import { EventBus, type BusConfig } from '@rag-immune/bus';
import type { ProbeResult, RepairAction, RootCauseReport } from '@rag-immune/contracts';
import type { LogRecord, ManagedProcess } from '../processes.ts';

export interface Received<T> {
  event: T;
  /** When the harness read it from Kafka (ms since epoch). */
  receivedAt: number;
  partition: number;
  offset: string;
}

/** A `[HEALING]` line one worker logged. */
export interface HealingLine {
  worker: string;
  at: number;
  incidentId: string | null;
  message: string;
  fields: Record<string, unknown>;
}

export type BusEvent =
  | { topic: 'probes'; received: Received<ProbeResult> }
  | { topic: 'reports'; received: Received<RootCauseReport> }
  | { topic: 'actions'; received: Received<RepairAction> };

export class LoopRecorder {
  readonly probes: Received<ProbeResult>[] = [];
  readonly reports: Received<RootCauseReport>[] = [];
  readonly actions: Received<RepairAction>[] = [];
  readonly healing: HealingLine[] = [];
  private readonly listeners: ((event: BusEvent) => void)[] = [];
  private readonly healingListeners: ((line: HealingLine) => void)[] = [];
  private readonly bus: EventBus;
  private readonly cursors = new Map<ManagedProcess, number>();
  private logTimer: NodeJS.Timeout | undefined;
  private readonly seen = new Set<string>();

  constructor(
    busConfig: BusConfig,
    private readonly workers: () => ManagedProcess[],
    logger?: Logger,
  ) {
    this.bus = new EventBus({ ...busConfig, clientId: `loop-recorder-${randomUUID().slice(0, 8)}` }, logger);
  }

  onEvent(listener: (event: BusEvent) => void): void {
    this.listeners.push(listener);
  }

  onHealingLine(listener: (line: HealingLine) => void): void {
    this.healingListeners.push(listener);
  }

  /** Creates the run's topics if no worker did yet and follows all three from their beginning. */
  async start(): Promise<void> {
    // Creating a run's topics can outlast kafkajs's own retries on a busy broker (metadata of a new
    // topic not yet everywhere): creation is idempotent, so try again a few times.
    for (let attempt = 1; ; attempt += 1) {
      try {
        await this.bus.start(['probes', 'reports', 'actions']);
        break;
      } catch (error) {
        if (attempt >= 5) throw error;
        await new Promise((resolve) => setTimeout(resolve, 2000 * attempt));
      }
    }
    const group = `loop-recorder-${randomUUID()}`;
    const follow = <T extends 'probes' | 'reports' | 'actions'>(topic: T, into: Received<never>[]) =>
      this.bus.subscribe({
        topic,
        groupId: `${group}-${topic}`,
        fromBeginning: true,
        // Read-only: a poison message is the workers' business, not a dead letter of ours.
        onPoison: 'skip',
        handle: async (event, delivery) => {
          // Duplicates (redelivery after a rebalance) are recorded once.
          if (this.seen.has(event.event_id)) return;
          this.seen.add(event.event_id);
          const received = { event, receivedAt: Date.now(), partition: delivery.partition, offset: delivery.offset };
          into.push(received as never);
          for (const listener of this.listeners) listener({ topic, received } as BusEvent);
        },
      });
    await follow('probes', this.probes as Received<never>[]);
    await follow('reports', this.reports as Received<never>[]);
    await follow('actions', this.actions as Received<never>[]);
    this.logTimer = setInterval(() => this.pollLogs(), 250);
  }

  /** Reads new `[HEALING]` lines from every worker's log. */
  pollLogs(): void {
    for (const worker of this.workers()) {
      worker.poll();
      const from = this.cursors.get(worker) ?? 0;
      // A restart empties `records`: start over from its beginning.
      const start = from > worker.records.length ? 0 : from;
      for (const record of worker.records.slice(start)) {
        const line = healingLine(worker.spec.name, record);
        if (line === undefined) continue;
        this.healing.push(line);
        for (const listener of this.healingListeners) listener(line);
      }
      this.cursors.set(worker, worker.records.length);
    }
  }

  async stop(): Promise<void> {
    if (this.logTimer !== undefined) clearInterval(this.logTimer);
    this.pollLogs();
    await this.bus.stop();
  }

  /** Reports and actions of one incident, in the order they happened. */
  incident(incidentId: string): { reports: RootCauseReport[]; actions: RepairAction[] } {
    return {
      reports: this.reports.map((r) => r.event).filter((r) => r.incident_id === incidentId),
      actions: this.actions.map((a) => a.event).filter((a) => a.incident_id === incidentId),
    };
  }
}

function healingLine(worker: string, record: LogRecord): HealingLine | undefined {
  const msg = record.json?.msg;
  if (typeof msg !== 'string' || !msg.startsWith('[HEALING]')) return undefined;
  const fields = record.json as Record<string, unknown>;
  const time = typeof fields.time === 'number' ? fields.time : record.readAt;
  return {
    worker,
    at: time,
    incidentId: typeof fields.incident_id === 'string' ? fields.incident_id : null,
    message: msg.replace(/^\[HEALING\]\s*/, ''),
    fields,
  };
}

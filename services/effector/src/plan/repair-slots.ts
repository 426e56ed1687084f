/** Which bound of the effector's backlog refused a repair. */
export type BacklogBound = 'waiting' | 'incidents' | 'per_incident';

/**
 * How much one effector process holds in hand (issue 40 item 11), each bound counted when it refuses
 * (effector_repair_backlog_refused_total{bound}): repairs waiting for a slot, incidents with work
 * queued or running, and runs queued behind one another for one incident (redeliveries, approvals).
 */
export interface RepairBacklogBounds {
  /** EFFECTOR_MAX_WAITING_REPAIRS */
  maxWaiting: number;
  /** EFFECTOR_MAX_INCIDENTS_IN_HAND */
  maxIncidents: number;
  /** EFFECTOR_MAX_RUNS_PER_INCIDENT */
  maxPerIncident: number;
}

export const DEFAULT_BACKLOG: RepairBacklogBounds = { maxWaiting: 64, maxIncidents: 256, maxPerIncident: 4 };

/**
 * The effector's backlog is full: the report is not taken (the Kafka delivery fails, the bus retries
 * it with backoff and then leaves it uncommitted for redelivery), nothing is lost, memory stays bounded.
 */
export class RepairBacklogFullError extends Error {
  constructor(
    readonly bound: BacklogBound,
    message: string,
  ) {
    super(`repair backlog full (${bound}): ${message}`);
    this.name = 'RepairBacklogFullError';
  }
}

/**
 * At most `limit` repairs at once in this process (EFFECTOR_MAX_CONCURRENT_REPAIRS): a burst of
 * reports must not run dozens of rebuilds, snapshots and verifications against the RAG, the CPU and
 * Qdrant's disk together. Further repairs wait for a slot in the order they asked (FIFO).
 */
export class RepairSlots {
  private running = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(
    private readonly limit: number,
    private readonly onWaiting: (count: number) => void = () => undefined,
    /** Repairs that may wait at once (EFFECTOR_MAX_WAITING_REPAIRS); one more is refused. Absent: unbounded. */
    private readonly maxWaiting = Number.POSITIVE_INFINITY,
    private readonly onRefused: () => void = () => undefined,
  ) {
    if (!Number.isInteger(limit) || limit < 1) throw new RangeError(`a repair slot limit must be a positive integer, got ${limit}`);
    if (!(maxWaiting >= 0)) throw new RangeError(`a waiting-repair bound must be non-negative, got ${maxWaiting}`);
  }

  /** Whether one more repair would have to wait with the waiting line already full. */
  get full(): boolean {
    return this.running >= this.limit && this.waiting.length >= this.maxWaiting;
  }

  /**
   * Runs `work` once a slot is free, releasing it however `work` ends. With every slot taken and the
   * waiting line full, refuses at once (RepairBacklogFullError, counted): a burst of reports must not
   * pile up waiting repairs (each holding its report and trace) without end.
   */
  async run<T>(work: () => Promise<T>): Promise<T> {
    if (this.running < this.limit) this.running += 1;
    else if (this.waiting.length >= this.maxWaiting) {
      this.onRefused();
      throw new RepairBacklogFullError('waiting', `${this.waiting.length} repairs already wait for a slot (EFFECTOR_MAX_WAITING_REPAIRS)`);
    } else {
      // The slot is handed over by the finishing repair (running stays counted), so no later caller overtakes.
      await new Promise<void>((resolve) => {
        this.waiting.push(resolve);
        this.onWaiting(this.waiting.length);
      });
    }
    try {
      return await work();
    } finally {
      const next = this.waiting.shift();
      if (next !== undefined) {
        this.onWaiting(this.waiting.length);
        next();
      } else this.running -= 1;
    }
  }

  /** Repairs running and waiting now. */
  get load(): { running: number; waiting: number } {
    return { running: this.running, waiting: this.waiting.length };
  }
}

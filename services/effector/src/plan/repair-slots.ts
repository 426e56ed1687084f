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
  ) {
    if (!Number.isInteger(limit) || limit < 1) throw new RangeError(`a repair slot limit must be a positive integer, got ${limit}`);
  }

  /** Runs `work` once a slot is free, releasing it however `work` ends. */
  async run<T>(work: () => Promise<T>): Promise<T> {
    if (this.running < this.limit) this.running += 1;
    else {
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

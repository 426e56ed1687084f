/**
 * A per-caller token bucket over spans: `rate` spans a second refill it up to `burst`. A request is
 * admitted while the bucket is not in debt and takes all its spans (the bucket may go below zero),
 * so an export larger than the burst still passes once, then waits out its debt; a refused caller
 * is told how many seconds until it is out of debt (OTLP exporters honour 429 + Retry-After).
 */
export type BucketDecision = { admitted: true } | { admitted: false; retryAfterSeconds: number };

export class SpanRateLimiter {
  private readonly buckets = new Map<string, { level: number; at: number }>();

  constructor(
    private readonly rate: number,
    private readonly burst: number,
    private readonly now: () => number = Date.now,
  ) {}

  /** `rate` 0: no limit. */
  get enabled(): boolean {
    return this.rate > 0;
  }

  take(caller: string, spans: number): BucketDecision {
    if (!this.enabled) return { admitted: true };
    const now = this.now();
    const bucket = this.buckets.get(caller) ?? { level: this.burst, at: now };
    bucket.level = Math.min(this.burst, bucket.level + ((now - bucket.at) / 1000) * this.rate);
    bucket.at = now;
    this.buckets.set(caller, bucket);
    if (bucket.level <= 0) return { admitted: false, retryAfterSeconds: Math.max(1, Math.ceil(-bucket.level / this.rate)) };
    bucket.level -= spans;
    return { admitted: true };
  }
}

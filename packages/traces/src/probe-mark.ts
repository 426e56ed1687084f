/**
 * The signed probe mark: `rag-immune=probe:<issued>:<mac>` in a probe call's W3C tracestate, where
 * `<issued>` is the issue time (unix seconds, base 36) and `<mac>` an HMAC-SHA256 (base64url,
 * 128 bits) over the trace id and that time, keyed with a secret the probe runners (sentinel,
 * effector) and the trace intake share (PROBE_MARK_KEY). A RAG continuing the context copies the
 * member onto every span, so the intake can tell a real probe's spans from a client that wrote
 * `rag-immune=probe` itself: without the key no one can make a mark that verifies for a trace id,
 * and a mark seen on one trace is worth nothing on another (the trace id is under the MAC) or, past
 * its age limit, on the same one.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { PROBE_TRACESTATE_KEY } from './traceparent.ts';

/** Shortest accepted key: 32 characters (the ledger key's floor as well). */
export const PROBE_MARK_MIN_KEY_LENGTH = 32;
const MAC_BYTES = 16;
const MEMBER_PREFIX = `${PROBE_TRACESTATE_KEY}=probe:`;
const SIGNED = /^([0-9a-z]{1,10}):([A-Za-z0-9_-]{22})$/;

function mac(key: string, traceId: string, issued: string): Buffer {
  return createHmac('sha256', key).update(`${traceId.toLowerCase()}:${issued}`).digest().subarray(0, MAC_BYTES);
}

/** Signs probe marks for new trace ids. */
export class ProbeMarkSigner {
  constructor(
    private readonly key: string,
    private readonly now: () => number = Date.now,
  ) {
    if (key.length < PROBE_MARK_MIN_KEY_LENGTH)
      throw new Error(`a probe mark key must be at least ${PROBE_MARK_MIN_KEY_LENGTH} characters`);
  }

  /** The tracestate member for a call under `traceId`. */
  member(traceId: string): string {
    const issued = Math.floor(this.now() / 1000).toString(36);
    return `${MEMBER_PREFIX}${issued}:${mac(this.key, traceId, issued).toString('base64url')}`;
  }
}

/**
 * What a span's tracestate says about the probe mark: none (a user's span), `unsigned` (the old,
 * unauthenticated `rag-immune=probe`), `verified`, `bad_mac` (forged, another trace's, or another
 * key's), `expired` (older than the age limit, or issued in the future beyond the clock skew).
 */
export type ProbeMarkCheck = 'none' | 'unsigned' | 'verified' | 'bad_mac' | 'expired';

/** The value of the `rag-immune` member of a W3C tracestate, or null when it has none. */
export function probeMarkValue(traceState: string | null | undefined): string | null {
  if (traceState === null || traceState === undefined || traceState === '') return null;
  for (const raw of traceState.split(',')) {
    const member = raw.trim();
    if (member === `${PROBE_TRACESTATE_KEY}=probe`) return 'probe';
    if (member.startsWith(MEMBER_PREFIX)) return member.slice(`${PROBE_TRACESTATE_KEY}=`.length);
  }
  return null;
}

export interface ProbeMarkVerifierOptions {
  /** The current key first, then retired ones still accepted while their marks age out. */
  keys: readonly string[];
  /** Oldest mark accepted (exporters batch, a Collector retries): default 1 hour. */
  maxAgeMs?: number;
  /** Marks issued this far in the future still verify (clock skew between sentinel and intake). */
  skewMs?: number;
  now?: () => number;
}

export class ProbeMarkVerifier {
  private readonly keys: readonly string[];
  private readonly maxAgeMs: number;
  private readonly skewMs: number;
  private readonly now: () => number;

  constructor(options: ProbeMarkVerifierOptions) {
    if (options.keys.length === 0) throw new Error('a probe mark verifier needs at least one key');
    this.keys = options.keys;
    this.maxAgeMs = options.maxAgeMs ?? 3_600_000;
    this.skewMs = options.skewMs ?? 60_000;
    this.now = options.now ?? Date.now;
  }

  check(traceState: string | null | undefined, traceId: string): ProbeMarkCheck {
    const value = probeMarkValue(traceState);
    if (value === null) return 'none';
    if (value === 'probe') return 'unsigned';
    const signed = SIGNED.exec(value.slice('probe:'.length));
    if (!signed) return 'bad_mac';
    const [, issued, presented] = signed as unknown as [string, string, string];
    const given = Buffer.from(presented, 'base64url');
    // Every key is tried (no early exit), so timing does not tell which key nearly matched.
    let verified = false;
    for (const key of this.keys) verified = timingSafeEqual(mac(key, traceId, issued), given) || verified;
    if (!verified) return 'bad_mac';
    const issuedMs = parseInt(issued, 36) * 1000;
    const age = this.now() - issuedMs;
    return age > this.maxAgeMs || age < -this.skewMs ? 'expired' : 'verified';
  }
}

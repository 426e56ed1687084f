/**
 * Why a message could not be handled decides where it goes:
 * - a poison message (undecodable, unknown schema, schema of the wrong record) can never succeed,
 *   so it goes to the dead-letter topic and the consumer carries on;
 * - anything else may be transient (registry or downstream store down), so the message is retried
 *   and, if it still fails, left uncommitted for redelivery rather than dropped.
 */
export type PoisonReason =
  | 'bad_magic_byte'
  | 'truncated_message'
  | 'unknown_schema_id'
  | 'schema_mismatch'
  | 'undecodable_payload'
  /** Decodes, but carries values no producer may send (NaN, a negative latency, a future timestamp, 10 MB strings). */
  | 'semantically_invalid'
  | 'rejected_by_handler'
  /** Signature verification is on and the message has no signature header. */
  | 'unsigned'
  /** Signed with a key id none of the verify keys has (a retired key, or a forger's). */
  | 'unknown_signing_key'
  /** The signature does not match the message bytes, topic and key (tampered, or replayed elsewhere). */
  | 'bad_signature'
  /** Validly signed, but by another worker's key than the topic's producer (e.g. a report signed by the sentinel). */
  | 'wrong_producer'
  /** Signed without a time (the v1 format) while BUS_ACCEPT_UNTIMED_SIGNATURES is off. */
  | 'untimed_signature'
  /** Signed longer ago than the topic's limit (its retention): a replay no consumer can still de-duplicate. */
  | 'expired_signature'
  /** Signed at a time ahead of the consumer's clock by more than the allowed skew. */
  | 'future_signature';

export class PoisonMessageError extends Error {
  constructor(
    readonly reason: PoisonReason,
    message: string,
  ) {
    super(message);
    this.name = 'PoisonMessageError';
  }
}

/** Handlers throw this for an event they can never process (e.g. it violates a business rule). */
export class RejectedEventError extends PoisonMessageError {
  constructor(message: string) {
    super('rejected_by_handler', message);
    this.name = 'RejectedEventError';
  }
}

export function describeError(error: unknown): string {
  if (error instanceof Error) return error.message;
  return String(error);
}

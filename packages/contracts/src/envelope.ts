import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import type { IoRagimmuneCommon } from './generated/ProbeResult.ts';

/** The fields every event starts with: identity for idempotent consumers, time, and origin. */
export interface EventEnvelope {
  event_id: string;
  occurred_at: number;
  producer: IoRagimmuneCommon.EventProducer;
}

/**
 * Which process wrote an event: host (a pod's name in Kubernetes) and process id, so two replicas
 * on one host (the scale-out test, a laptop) are told apart in an incident's evidence.
 */
export const PRODUCER_INSTANCE = `${process.env.HOSTNAME ?? hostname()}/${process.pid}`;

/** A fresh envelope for an event written now by `service`@`version`. */
export function eventEnvelope(service: string, version: string, now: Date = new Date()): EventEnvelope {
  return {
    event_id: randomUUID(),
    occurred_at: now.getTime(),
    producer: { service, version, instance: PRODUCER_INSTANCE },
  };
}

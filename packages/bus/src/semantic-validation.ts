import { loadTopicSchema, type TopicEvents, type TopicId } from '@rag-immune/contracts';
import { PoisonMessageError } from './errors.ts';

/** Bounds on what a decoded event may carry; the Avro schema alone admits NaN, -5 ms or a 10 MB string. */
export interface SemanticLimits {
  /** Longest string anywhere in an event (characters). */
  maxStringLength: number;
  /** Longest array anywhere in an event. */
  maxArrayLength: number;
  /** How far in the future a timestamp may lie (clock skew between producers). */
  maxFutureSkewMs: number;
}

export const DEFAULT_SEMANTIC_LIMITS: SemanticLimits = {
  maxStringLength: 64 * 1024,
  maxArrayLength: 10_000,
  maxFutureSkewMs: 5 * 60 * 1000,
};

/** Durations, ages, ranks, counters and versions: never negative. */
const NON_NEGATIVE = /(_ms|_days_after|_days_before|age_days|_rate|^rank|^attempt|_revision|_version|^http_status)$/;
/** Scores and probabilities defined on [0, 1]. */
const UNIT_INTERVAL =
  /^(fcs|ic|confidence|source_trust|answer_agreement|online_answer_vs_baseline_fcs|baseline_answer_vs_online_fcs|online_timeout_rate|(fcs|ic)_(before|after))$/;

/** A handler-independent check of one topic's events: throws PoisonMessageError('semantically_invalid'). */
export type EventValidator<T extends TopicId> = (event: TopicEvents[T]) => void;

/** Field names the topic's Avro schema declares as timestamp-millis, wherever they occur. */
function timestampFields(schema: unknown, found = new Set<string>()): Set<string> {
  if (Array.isArray(schema)) for (const branch of schema) timestampFields(branch, found);
  else if (typeof schema === 'object' && schema !== null) {
    const node = schema as { type?: unknown; fields?: { name: string; type: unknown }[]; items?: unknown; values?: unknown };
    for (const field of node.fields ?? []) {
      if (isTimestamp(field.type)) found.add(field.name);
      timestampFields(field.type, found);
    }
    if (node.items !== undefined) timestampFields(node.items, found);
    if (node.values !== undefined) timestampFields(node.values, found);
    if (typeof node.type === 'object') timestampFields(node.type, found);
  }
  return found;
}

function isTimestamp(type: unknown): boolean {
  if (Array.isArray(type)) return type.some(isTimestamp);
  return typeof type === 'object' && type !== null && (type as { logicalType?: string }).logicalType === 'timestamp-millis';
}

/**
 * The bus's semantic check of a decoded event: every number finite; durations, ages, ranks and
 * versions non-negative; scores in [0, 1]; timestamps between the epoch and now + skew; strings and
 * arrays bounded. A failing event is poison (dead-lettered with the field path), not a retry.
 */
export function semanticValidator<T extends TopicId>(
  topic: T,
  limits: SemanticLimits = DEFAULT_SEMANTIC_LIMITS,
  now: () => number = Date.now,
): EventValidator<T> {
  const timestamps = timestampFields(loadTopicSchema(topic));
  const reject = (path: string, why: string): never => {
    throw new PoisonMessageError('semantically_invalid', `${path}: ${why}`);
  };
  const check = (value: unknown, path: string, name: string): void => {
    if (typeof value === 'number') {
      if (!Number.isFinite(value)) reject(path, `${value} is not a finite number`);
      if (timestamps.has(name)) {
        if (value < 0) reject(path, `timestamp ${value} is before 1970`);
        if (value > now() + limits.maxFutureSkewMs) reject(path, `timestamp ${new Date(value).toISOString()} is in the future`);
      } else if (NON_NEGATIVE.test(name) && value < 0) reject(path, `${value} is negative`);
      else if (UNIT_INTERVAL.test(name) && (value < 0 || value > 1)) reject(path, `${value} is outside [0, 1]`);
    } else if (typeof value === 'bigint') {
      if (timestamps.has(name) && Number(value) > now() + limits.maxFutureSkewMs) reject(path, 'timestamp is in the future');
    } else if (typeof value === 'string') {
      if (value.length > limits.maxStringLength) reject(path, `string of ${value.length} characters exceeds ${limits.maxStringLength}`);
    } else if (value instanceof Date) {
      check(value.getTime(), path, name);
    } else if (Array.isArray(value)) {
      if (value.length > limits.maxArrayLength) reject(path, `array of ${value.length} items exceeds ${limits.maxArrayLength}`);
      value.forEach((item, index) => check(item, `${path}[${index}]`, name));
    } else if (typeof value === 'object' && value !== null && !Buffer.isBuffer(value)) {
      for (const [key, item] of Object.entries(value)) check(item, path === '' ? key : `${path}.${key}`, key);
    }
  };
  return (event) => check(event, '', '');
}

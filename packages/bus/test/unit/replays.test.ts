/**
 * Issue 40 item 9, replays: a signature carries its signing time, and a consumer refuses one older
 * than the topic's retention (a replay its processed-event store may no longer remember) or ahead of
 * its clock; untimed (v1) signatures are accepted only with BUS_ACCEPT_UNTIMED_SIGNATURES=true (a
 * rollout); production's default processed-event store is the shared one.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  busConfigFromEnv,
  busDefaults,
  EventSigner,
  EventVerifier,
  InvalidConfigError,
  InMemoryProcessedEventStore,
  parseBusConfig,
  PoisonMessageError,
  processedEventStoreKind,
  SIGNATURE_HEADER,
  verifierFor,
  type PoisonReason,
} from '../../src/index.ts';

const IDENTIFIER = { keyId: 'identifier@0.1.0', secret: 'identifier-secret-0123456789abcdef0123' };
const TOPIC = 'rag-identifiers-reports';
const KEY = 'incident-1';
const VALUE = Buffer.concat([Buffer.from([0, 0, 0, 0, 7]), Buffer.from('avro body bytes')]);
const DAY = 24 * 3600 * 1000;
const base = { ...busDefaults('development'), clientId: 't', brokers: ['h:1'], schemaRegistryUrl: 'http://h' };

function outcome(verifier: EventVerifier, signature: string): string | PoisonReason {
  try {
    return verifier.verifyFrom('reports', TOPIC, KEY, VALUE, { [SIGNATURE_HEADER]: signature });
  } catch (error) {
    assert.ok(error instanceof PoisonMessageError, String(error));
    return error.reason;
  }
}

test("by default a signature older than the topic's retention is refused (expired_signature); within it, accepted", () => {
  const config = parseBusConfig({ ...base, verifyKeys: [IDENTIFIER] });
  const verifier = verifierFor(config)!;
  const signer = new EventSigner(IDENTIFIER);
  const retention = config.topics.reports.retentionMs;
  const now = Date.now();
  assert.equal(outcome(verifier, signer.sign(TOPIC, KEY, VALUE, now - DAY)), IDENTIFIER.keyId);
  assert.equal(outcome(verifier, signer.sign(TOPIC, KEY, VALUE, now - retention + DAY)), IDENTIFIER.keyId);
  assert.equal(outcome(verifier, signer.sign(TOPIC, KEY, VALUE, now - retention - DAY)), 'expired_signature');
  // Probes keep 7 days: a probe signed 8 days ago is refused while a report of that age is not.
  const probes = 'rag-sentinel-probes';
  const sentinel = { keyId: 'sentinel@0.1.0', secret: 'sentinel-secret-0123456789abcdef01234' };
  const both = verifierFor({ ...config, verifyKeys: [IDENTIFIER, sentinel] })!;
  const eightDays = new EventSigner(sentinel).sign(probes, 'p', VALUE, now - 8 * DAY);
  assert.throws(
    () => both.verifyFrom('probes', probes, 'p', VALUE, { [SIGNATURE_HEADER]: eightDays }),
    (error: unknown) => error instanceof PoisonMessageError && error.reason === 'expired_signature',
  );
  assert.equal(outcome(both, signer.sign(TOPIC, KEY, VALUE, now - 8 * DAY)), IDENTIFIER.keyId);
});

test('BUS_SIGNATURE_MAX_AGE_MS tightens the window; a time ahead of the clock or an altered time is refused', () => {
  const now = 1_765_000_000_000;
  const verifier = new EventVerifier([IDENTIFIER], { maxAgeMs: { reports: 3_600_000 }, now: () => now });
  const signer = new EventSigner(IDENTIFIER);
  assert.equal(outcome(verifier, signer.sign(TOPIC, KEY, VALUE, now - 3_000_000)), IDENTIFIER.keyId);
  assert.equal(outcome(verifier, signer.sign(TOPIC, KEY, VALUE, now - 3_700_000)), 'expired_signature');
  assert.equal(outcome(verifier, signer.sign(TOPIC, KEY, VALUE, now + 60_000)), IDENTIFIER.keyId, 'clock skew allowed');
  assert.equal(outcome(verifier, signer.sign(TOPIC, KEY, VALUE, now + 3_600_000)), 'future_signature');
  // A replayer rewriting the time to look fresh breaks the MAC.
  const old = signer.sign(TOPIC, KEY, VALUE, now - 3_700_000);
  const refreshed = old.replace(`;${now - 3_700_000};`, `;${now - 1000};`);
  assert.notEqual(refreshed, old);
  assert.equal(outcome(verifier, refreshed), 'bad_signature');
  assert.equal(outcome(verifier, old.replace(`;${now - 3_700_000};`, ';-5;')), 'bad_signature');
  assert.equal(
    busConfigFromEnv({ KAFKA_BROKERS: 'h:1', SCHEMA_REGISTRY_URL: 'http://h', BUS_SIGNATURE_MAX_AGE_MS: '3600000' }, 'x').signatureMaxAgeMs,
    3_600_000,
  );
});

test('untimed (v1) signatures: refused by default as untimed_signature; accepted with BUS_ACCEPT_UNTIMED_SIGNATURES=true; a forged one never', () => {
  const untimed = new EventSigner(IDENTIFIER).signUntimed(TOPIC, KEY, VALUE);
  assert.match(untimed, /^v1;identifier@0\.1\.0;[A-Za-z0-9+/]{43}=$/);
  const env = { KAFKA_BROKERS: 'h:1', SCHEMA_REGISTRY_URL: 'http://h', BUS_VERIFY_KEYS: `${IDENTIFIER.keyId}:${IDENTIFIER.secret}` };
  const strict = verifierFor(busConfigFromEnv(env, 'x'))!;
  assert.equal(outcome(strict, untimed), 'untimed_signature');
  const rollout = verifierFor(busConfigFromEnv({ ...env, BUS_ACCEPT_UNTIMED_SIGNATURES: 'true' }, 'x'))!;
  assert.equal(outcome(rollout, untimed), IDENTIFIER.keyId);
  assert.equal(
    outcome(rollout, new EventSigner({ ...IDENTIFIER, secret: 'x'.repeat(40) }).signUntimed(TOPIC, KEY, VALUE)),
    'bad_signature',
  );
  // Timed signatures verify either way.
  assert.equal(outcome(rollout, new EventSigner(IDENTIFIER).sign(TOPIC, KEY, VALUE)), IDENTIFIER.keyId);
  assert.throws(
    () => busConfigFromEnv({ ...env, BUS_ACCEPT_UNTIMED_SIGNATURES: 'yes' }, 'x'),
    (error: unknown) => error instanceof InvalidConfigError && error.issues[0]?.key === 'BUS_ACCEPT_UNTIMED_SIGNATURES',
  );
});

test("production's default processed-event store is the shared (Elasticsearch) one; memory only when asked for", () => {
  const production = { profile: 'production' as const, processedEvents: undefined };
  assert.equal(processedEventStoreKind(production, {}), 'elasticsearch');
  assert.equal(processedEventStoreKind({ ...production, processedEvents: 'memory' }, {}), 'memory');
  assert.equal(processedEventStoreKind({ profile: 'development', processedEvents: undefined }, {}), 'memory');
  // A read-only tail keeps memory; a store passed in is used as given.
  assert.equal(processedEventStoreKind(production, { onPoison: 'skip' }), 'memory');
  assert.equal(processedEventStoreKind(production, { processedEvents: new InMemoryProcessedEventStore(1) }), 'given');
});

import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Kafka, Message } from 'kafkajs';
import { exampleRootCauseReport } from '@rag-immune/contracts';
import {
  EventPublisher,
  type SchemaCatalog,
  busConfigFromEnv,
  EventBus,
  EventSigner,
  EventVerifier,
  InvalidConfigError,
  PoisonMessageError,
  SIGNATURE_HEADER,
  signerFor,
  verifierFor,
  type PoisonReason,
} from '../../src/index.ts';

const OLD = { keyId: 'identifier@0.1.0', secret: 'old-secret-0123456789abcdef0123456789' };
const NEW = { keyId: 'identifier@0.2.0', secret: 'new-secret-0123456789abcdef0123456789' };
const TOPIC = 'rag-identifiers-reports';
const KEY = 'incident-1';
// Confluent wire format: magic byte, schema id 7, then the Avro body.
const VALUE = Buffer.concat([Buffer.from([0, 0, 0, 0, 7]), Buffer.from('avro body bytes')]);

function refusal(verifier: EventVerifier, headers: Record<string, string | Buffer | string[]> | undefined, overrides = {}): PoisonReason {
  const m = { topic: TOPIC, key: KEY as string | null, value: VALUE as Buffer | null, ...overrides };
  try {
    verifier.verify(m.topic, m.key, m.value, headers);
  } catch (error) {
    assert.ok(error instanceof PoisonMessageError, String(error));
    assert.ok(!error.message.includes(OLD.secret) && !error.message.includes(NEW.secret), 'a secret is quoted');
    return error.reason;
  }
  assert.fail('the message was accepted');
}

test('a signed message verifies; its header names the version, the key id and the signing time', () => {
  const signature = new EventSigner(OLD).sign(TOPIC, KEY, VALUE, 1_765_000_000_123);
  assert.match(signature, /^v2;identifier@0\.1\.0;1765000000123;[A-Za-z0-9+/]{43}=$/);
  assert.equal(new EventVerifier([OLD]).verify(TOPIC, Buffer.from(KEY), VALUE, { [SIGNATURE_HEADER]: Buffer.from(signature) }), OLD.keyId);
});

test('a flipped byte, another topic or another key breaks the signature', () => {
  const verifier = new EventVerifier([OLD]);
  const headers = { [SIGNATURE_HEADER]: new EventSigner(OLD).sign(TOPIC, KEY, VALUE) };
  for (const index of [0, 3, VALUE.length - 1]) {
    const flipped = Buffer.from(VALUE);
    flipped[index] = (flipped[index] ?? 0) ^ 0x01;
    assert.equal(refusal(verifier, headers, { value: flipped }), 'bad_signature', `byte ${index}`);
  }
  assert.equal(refusal(verifier, headers, { topic: 'rag-effectors-actions' }), 'bad_signature');
  assert.equal(refusal(verifier, headers, { topic: `run-7.${TOPIC}` }), 'bad_signature');
  assert.equal(refusal(verifier, headers, { key: 'incident-2' }), 'bad_signature');
  assert.equal(refusal(verifier, headers, { key: null }), 'bad_signature');
  assert.equal(refusal(verifier, headers, { value: null }), 'bad_signature');
  // Moving bytes between the key and the value is not the same message either.
  assert.equal(refusal(verifier, headers, { key: `${KEY}\u0000`, value: VALUE.subarray(1) }), 'bad_signature');
  // A signature by the right key id with another secret.
  const forged = new EventSigner({ keyId: OLD.keyId, secret: 'x'.repeat(40) }).sign(TOPIC, KEY, VALUE);
  assert.equal(refusal(verifier, { [SIGNATURE_HEADER]: forged }), 'bad_signature');
});

test('unsigned, unknown-key and malformed signatures are refused with their reason', () => {
  const verifier = new EventVerifier([OLD]);
  assert.equal(refusal(verifier, undefined), 'unsigned');
  assert.equal(refusal(verifier, { 'x-event-id': 'e1' }), 'unsigned');
  assert.equal(refusal(verifier, { [SIGNATURE_HEADER]: new EventSigner(NEW).sign(TOPIC, KEY, VALUE) }), 'unknown_signing_key');
  const good = new EventSigner(OLD).sign(TOPIC, KEY, VALUE);
  assert.equal(refusal(verifier, { [SIGNATURE_HEADER]: good.replace('v2;', 'v3;') }), 'bad_signature');
  assert.equal(refusal(verifier, { [SIGNATURE_HEADER]: good.replace('v2;', 'v1;') }), 'bad_signature');
  assert.equal(refusal(verifier, { [SIGNATURE_HEADER]: `${good};extra` }), 'bad_signature');
  assert.equal(refusal(verifier, { [SIGNATURE_HEADER]: `v1;${OLD.keyId};AAAA` }), 'bad_signature');
  assert.equal(refusal(verifier, { [SIGNATURE_HEADER]: [good, good] }), 'bad_signature');
});

test('rotation: consumers holding both keys accept both producers, then only the new one', () => {
  const oldSigned = { [SIGNATURE_HEADER]: new EventSigner(OLD).sign(TOPIC, KEY, VALUE) };
  const newSigned = { [SIGNATURE_HEADER]: new EventSigner(NEW).sign(TOPIC, KEY, VALUE) };
  // Step 1: the new key is added to the consumers; producers still sign with the old one.
  const during = new EventVerifier([OLD, NEW]);
  assert.equal(during.verify(TOPIC, KEY, VALUE, oldSigned), OLD.keyId);
  // Step 2: producers switch; events still in the topic from before verify too.
  assert.equal(during.verify(TOPIC, KEY, VALUE, newSigned), NEW.keyId);
  // Step 3: the old key is removed; an event still signed with it is refused.
  const after = new EventVerifier([NEW]);
  assert.equal(after.verify(TOPIC, KEY, VALUE, newSigned), NEW.keyId);
  assert.equal(refusal(after, oldSigned), 'unknown_signing_key');
});

const env = { KAFKA_BROKERS: 'broker.example:9093', SCHEMA_REGISTRY_URL: 'https://registry.example' };

/** The error's keys, checking on the way that no secret is quoted. */
function failingKeys(input: Record<string, string>): string[] {
  try {
    busConfigFromEnv({ ...env, ...input }, 'test');
  } catch (error) {
    assert.ok(error instanceof InvalidConfigError, String(error));
    for (const secret of [OLD.secret, NEW.secret, 'short']) assert.ok(!error.message.includes(secret), 'a secret is quoted');
    return error.issues.map((issue) => issue.key);
  }
  assert.fail('the configuration was accepted');
}

test('signing and verify keys from the environment; bad ones are refused naming the variable, never the secret', () => {
  const config = busConfigFromEnv(
    {
      ...env,
      BUS_SIGNING_KEY_ID: OLD.keyId,
      BUS_SIGNING_KEY: OLD.secret,
      BUS_VERIFY_KEYS: `${OLD.keyId}:${OLD.secret}, ${NEW.keyId}:${NEW.secret}`,
    },
    'test',
  );
  assert.deepEqual(config.signing, OLD);
  assert.deepEqual(config.verifyKeys, [OLD, NEW]);
  assert.equal(busConfigFromEnv(env, 'test').signing, undefined);
  assert.deepEqual(failingKeys({ BUS_SIGNING_KEY: OLD.secret }), ['BUS_SIGNING_KEY_ID']);
  assert.deepEqual(failingKeys({ BUS_SIGNING_KEY_ID: OLD.keyId }), ['BUS_SIGNING_KEY']);
  assert.deepEqual(failingKeys({ BUS_SIGNING_KEY_ID: OLD.keyId, BUS_SIGNING_KEY: 'short' }), ['BUS_SIGNING_KEY']);
  assert.deepEqual(failingKeys({ BUS_SIGNING_KEY_ID: 'has;semicolon', BUS_SIGNING_KEY: OLD.secret }), ['BUS_SIGNING_KEY_ID']);
  assert.deepEqual(failingKeys({ BUS_VERIFY_KEYS: `${OLD.keyId}:${OLD.secret},${NEW.secret}` }), ['BUS_VERIFY_KEYS (entry 2)']);
  assert.deepEqual(failingKeys({ BUS_VERIFY_KEYS: `${OLD.keyId}:short` }), ['BUS_VERIFY_KEYS (entry 1)']);
  assert.deepEqual(failingKeys({ BUS_VERIFY_KEYS: `${OLD.keyId}:${OLD.secret},${OLD.keyId}:${NEW.secret}` }), ['BUS_VERIFY_KEYS']);
});

test('development stays unsigned and unverified unless configured; production refuses to publish or consume without keys', async () => {
  const dev = busConfigFromEnv(env, 'test');
  assert.equal(signerFor(dev), undefined);
  assert.equal(verifierFor(dev), undefined);
  assert.ok(verifierFor(busConfigFromEnv({ ...env, BUS_VERIFY_KEYS: `${OLD.keyId}:${OLD.secret}` }, 'test')));
  const prod = busConfigFromEnv(
    {
      ...env,
      BUS_PROFILE: 'production',
      KAFKA_SSL: 'true',
      KAFKA_SASL_MECHANISM: 'scram-sha-512',
      KAFKA_SASL_USERNAME: 'u',
      KAFKA_SASL_PASSWORD: 'p',
    },
    'test',
  );
  const named = (key: string) => (error: unknown) => error instanceof InvalidConfigError && error.issues[0]?.key === key;
  assert.throws(() => signerFor(prod), named('BUS_SIGNING_KEY'));
  assert.throws(() => verifierFor(prod), named('BUS_VERIFY_KEYS'));
  // Through the bus, before anything connects.
  const bus = new EventBus(prod);
  await assert.rejects(bus.publisher(), named('BUS_SIGNING_KEY'));
  await assert.rejects(bus.subscribe({ topic: 'probes', groupId: 'g', handle: async () => undefined }), named('BUS_VERIFY_KEYS'));
  assert.ok(signerFor({ ...prod, signing: OLD }));
  assert.ok(verifierFor({ ...prod, verifyKeys: [OLD] }));
});

test('the publisher signs the exact bytes it sends, to the topic it sends them to; no caller header replaces the signature', async () => {
  const batches: { topic: string; messages: Message[] }[] = [];
  // A stand-in client recording the produce request (no broker: the signature is decided before sending).
  const client = {
    producer: () => ({
      sendBatch: async (request: { topicMessages: { topic: string; messages: Message[] }[] }) =>
        void batches.push(...request.topicMessages),
    }),
  } as unknown as Kafka;
  const catalog = { encode: async () => Buffer.concat([VALUE, Buffer.from(String(Math.random()))]) } as unknown as SchemaCatalog;
  const publisher = new EventPublisher(client, catalog, undefined, undefined, 'run-3.', new EventSigner(OLD));
  const report = exampleRootCauseReport();
  await publisher.publishMany('reports', [report], undefined, () => ({ [SIGNATURE_HEADER]: 'v1;forged;AAAA', traceparent: 't' }));
  const batch = batches[0]!;
  assert.equal(batch.topic, `run-3.${TOPIC}`);
  const message = batch.messages[0]!;
  assert.equal(message.headers?.traceparent, 't');
  const verifier = new EventVerifier([OLD]);
  assert.equal(verifier.verify(batch.topic, message.key as string, message.value as Buffer, message.headers), OLD.keyId);
  // Unsigned when no key is configured (development).
  await new EventPublisher(client, catalog).publish('reports', report);
  assert.equal(batches[1]?.messages[0]?.headers?.[SIGNATURE_HEADER], undefined);
});

test('BUS_TOPIC_PRODUCERS: each topic names its producing worker; a bad entry is refused naming the variable', () => {
  assert.equal(busConfigFromEnv(env, 'test').topicProducers, undefined);
  assert.deepEqual(busConfigFromEnv({ ...env, BUS_TOPIC_PRODUCERS: 'reports=identifier-eu' }, 'test').topicProducers, {
    probes: 'sentinel',
    reports: 'identifier-eu',
    actions: 'effector',
  });
  assert.deepEqual(failingKeys({ BUS_TOPIC_PRODUCERS: 'alerts=identifier' }), ['BUS_TOPIC_PRODUCERS']);
  assert.deepEqual(failingKeys({ BUS_TOPIC_PRODUCERS: 'reports=' }), ['BUS_TOPIC_PRODUCERS']);
  assert.deepEqual(failingKeys({ BUS_TOPIC_PRODUCERS: 'reports=identifier@0.1.0' }), ['BUS_TOPIC_PRODUCERS']);
});

test("verifyFrom accepts a topic's events only from its producer's keys, whatever their version", () => {
  const verifier = new EventVerifier([
    OLD,
    NEW,
    { keyId: 'sentinel@0.1.0', secret: 's'.repeat(40) },
    { keyId: 'identifier', secret: 'i'.repeat(40) },
  ]);
  const sign = (key: { keyId: string; secret: string }) => ({ [SIGNATURE_HEADER]: new EventSigner(key).sign(TOPIC, KEY, VALUE) });
  assert.equal(verifier.verifyFrom('reports', TOPIC, KEY, VALUE, sign(OLD)), OLD.keyId);
  assert.equal(verifier.verifyFrom('reports', TOPIC, KEY, VALUE, sign(NEW)), NEW.keyId);
  assert.equal(verifier.verifyFrom('reports', TOPIC, KEY, VALUE, sign({ keyId: 'identifier', secret: 'i'.repeat(40) })), 'identifier');
  const sentinelSigned = sign({ keyId: 'sentinel@0.1.0', secret: 's'.repeat(40) });
  assert.throws(
    () => verifier.verifyFrom('reports', TOPIC, KEY, VALUE, sentinelSigned),
    (error: unknown) => error instanceof PoisonMessageError && error.reason === 'wrong_producer',
  );
  // A key whose worker name merely starts like the producer's is another worker.
  const lookalike = new EventVerifier([{ keyId: 'identifier-x@1', secret: 'x'.repeat(40) }]);
  assert.throws(
    () => lookalike.verifyFrom('reports', TOPIC, KEY, VALUE, sign({ keyId: 'identifier-x@1', secret: 'x'.repeat(40) })),
    (error: unknown) => error instanceof PoisonMessageError && error.reason === 'wrong_producer',
  );
});

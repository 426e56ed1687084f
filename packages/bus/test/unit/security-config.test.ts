import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { busConfigFromEnv, kafkaSslOptions, InvalidConfigError, SchemaCatalog } from '../../src/index.ts';

const env = { KAFKA_BROKERS: 'broker.example:9093', SCHEMA_REGISTRY_URL: 'https://registry.example' };
const PASSWORD = 'pw-7c1e9b0d2a';
const dir = mkdtempSync(join(tmpdir(), 'bus-security-'));
const caFile = join(dir, 'ca.pem');
writeFileSync(caFile, '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n');

/** The error's keys, checking on the way that no credential is quoted. */
function failingKeys(input: Record<string, string>): string[] {
  try {
    busConfigFromEnv({ ...env, ...input }, 'test');
  } catch (error) {
    assert.ok(error instanceof InvalidConfigError, String(error));
    assert.ok(!error.message.includes(PASSWORD), 'a credential is quoted in the error');
    return error.issues.map((issue) => issue.key);
  }
  assert.fail('the configuration was accepted');
}

test('no security settings: plaintext, no SASL, no registry auth (the local stack)', () => {
  const config = busConfigFromEnv(env, 'test');
  assert.equal(config.ssl, undefined);
  assert.equal(config.sasl, undefined);
  assert.equal(config.schemaRegistryAuth, undefined);
});

test('TLS with a CA file and SCRAM-SHA-512, as a managed Kafka needs', () => {
  const config = busConfigFromEnv(
    {
      ...env,
      KAFKA_SSL: 'true',
      KAFKA_SSL_CA_FILE: caFile,
      KAFKA_SASL_MECHANISM: 'SCRAM-SHA-512',
      KAFKA_SASL_USERNAME: 'immune',
      KAFKA_SASL_PASSWORD: PASSWORD,
    },
    'test',
  );
  assert.deepEqual(config.ssl, { rejectUnauthorized: true, caFile });
  assert.deepEqual(config.sasl, { mechanism: 'scram-sha-512', username: 'immune', password: PASSWORD });
  assert.match(String(kafkaSslOptions(config.ssl!).ca), /BEGIN CERTIFICATE/);
  for (const mechanism of ['plain', 'scram-sha-256']) {
    const other = busConfigFromEnv(
      { ...env, KAFKA_SASL_MECHANISM: mechanism, KAFKA_SASL_USERNAME: 'u', KAFKA_SASL_PASSWORD: PASSWORD },
      'test',
    );
    assert.equal(other.sasl?.mechanism, mechanism);
  }
});

test('bad security settings are refused, naming the variable and never the credential', () => {
  assert.deepEqual(failingKeys({ KAFKA_SSL: 'yes' }), ['KAFKA_SSL']);
  assert.deepEqual(failingKeys({ KAFKA_SSL: 'true', KAFKA_SSL_CA_FILE: join(dir, 'missing.pem') }), ['KAFKA_SSL_CA_FILE']);
  assert.deepEqual(failingKeys({ KAFKA_SSL_CA_FILE: caFile }), ['KAFKA_SSL_CA_FILE']);
  assert.deepEqual(failingKeys({ KAFKA_SSL: 'true', KAFKA_SSL_CERT_FILE: caFile }), ['KAFKA_SSL_CERT_FILE']);
  assert.deepEqual(failingKeys({ KAFKA_SASL_MECHANISM: 'gssapi', KAFKA_SASL_USERNAME: 'u', KAFKA_SASL_PASSWORD: PASSWORD }), [
    'KAFKA_SASL_MECHANISM',
  ]);
  assert.deepEqual(failingKeys({ KAFKA_SASL_MECHANISM: 'scram-sha-256', KAFKA_SASL_USERNAME: 'u' }), ['KAFKA_SASL_PASSWORD']);
  assert.deepEqual(failingKeys({ KAFKA_SASL_MECHANISM: 'scram-sha-256', KAFKA_SASL_PASSWORD: PASSWORD }), ['KAFKA_SASL_USERNAME']);
  assert.deepEqual(failingKeys({ KAFKA_SASL_PASSWORD: PASSWORD }), ['KAFKA_SASL_MECHANISM']);
  assert.deepEqual(failingKeys({ SCHEMA_REGISTRY_USERNAME: 'key' }), ['SCHEMA_REGISTRY_PASSWORD']);
  assert.deepEqual(failingKeys({ SCHEMA_REGISTRY_PASSWORD: PASSWORD }), ['SCHEMA_REGISTRY_USERNAME']);
  // PLAIN sends the password as is: production must wrap it in TLS.
  assert.deepEqual(
    failingKeys({ BUS_PROFILE: 'production', KAFKA_SASL_MECHANISM: 'plain', KAFKA_SASL_USERNAME: 'u', KAFKA_SASL_PASSWORD: PASSWORD }),
    ['KAFKA_SSL'],
  );
});

test('the schema registry client sends the configured basic auth', async () => {
  const seen: (string | undefined)[] = [];
  const server = createServer((req, res) => {
    seen.push(req.headers.authorization);
    res.writeHead(404, { 'content-type': 'application/vnd.schemaregistry.v1+json' });
    res.end(JSON.stringify({ error_code: 40403, message: 'Schema not found' }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const config = busConfigFromEnv(
      { ...env, SCHEMA_REGISTRY_URL: url, SCHEMA_REGISTRY_USERNAME: 'api-key', SCHEMA_REGISTRY_PASSWORD: PASSWORD },
      'test',
    );
    const catalog = SchemaCatalog.forUrl(config.schemaRegistryUrl, undefined, config.schemaRegistryAuth);
    await assert.rejects(catalog.registry.getSchema(424242));
    assert.equal(seen[0], `Basic ${Buffer.from(`api-key:${PASSWORD}`).toString('base64')}`);
  } finally {
    server.close();
  }
});

test('production insists on TLS and on SASL or a client certificate, naming the missing key', () => {
  const sasl = { KAFKA_SASL_MECHANISM: 'scram-sha-512', KAFKA_SASL_USERNAME: 'u', KAFKA_SASL_PASSWORD: PASSWORD };
  const prod = { BUS_PROFILE: 'production' };
  // Neither: TLS is asked for first.
  assert.deepEqual(failingKeys(prod), ['KAFKA_SSL']);
  // SASL (SCRAM too) over plaintext: events and the SCRAM exchange are readable on the path.
  assert.deepEqual(failingKeys({ ...prod, ...sasl }), ['KAFKA_SSL']);
  // TLS alone encrypts but authenticates nobody.
  assert.deepEqual(failingKeys({ ...prod, KAFKA_SSL: 'true' }), ['KAFKA_SASL_MECHANISM']);
  // TLS without checking the brokers' certificates lets anyone in the middle.
  assert.deepEqual(failingKeys({ ...prod, ...sasl, KAFKA_SSL: 'true', KAFKA_SSL_REJECT_UNAUTHORIZED: 'false' }), [
    'KAFKA_SSL_REJECT_UNAUTHORIZED',
  ]);
  // Accepted: TLS + SASL, or mutual TLS (client certificate and key).
  const tlsSasl = busConfigFromEnv({ ...env, ...prod, ...sasl, KAFKA_SSL: 'true' }, 'test');
  assert.equal(tlsSasl.sasl?.mechanism, 'scram-sha-512');
  const mtls = busConfigFromEnv(
    { ...env, ...prod, KAFKA_SSL: 'true', KAFKA_SSL_CA_FILE: caFile, KAFKA_SSL_CERT_FILE: caFile, KAFKA_SSL_KEY_FILE: caFile },
    'test',
  );
  assert.equal(mtls.ssl?.certFile, caFile);
  // Development keeps the local stack's plaintext.
  assert.equal(busConfigFromEnv({ ...env, ...sasl }, 'test').ssl, undefined);
});

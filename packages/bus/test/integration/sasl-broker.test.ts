/**
 * The bus against a SASL-protected Kafka: a second, separate broker (its own temp folder and free
 * ports; the shared stack broker is untouched) started from the stack's Kafka jars with a
 * SASL_PLAINTEXT listener accepting PLAIN, SCRAM-SHA-256 and SCRAM-SHA-512. Each mechanism, set only
 * through KAFKA_SASL_* variables, carries a ProbeResult through EventBus (topics created on the SASL
 * broker, schemas in the stack's registry); a wrong password is refused.
 */
import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { exampleProbeResult } from '@rag-immune/contracts';
import { loadStackConfig, repoRoot, stackEndpoints } from '@rag-immune/stack';
import { busConfigFromEnv, EventBus } from '../../src/index.ts';
import { sleep } from '@rag-immune/test-kit';

const execFileAsync = promisify(execFile);
const stack = loadStackConfig();
const libs = join(repoRoot(), '.stack', 'kafka', `libs-${stack.kafka.version}`);
const dir = mkdtempSync(join(tmpdir(), 'sasl-broker-'));
const PASSWORD = `pw-${randomUUID()}`;
const users = { plain: 'plain-user', 'scram-sha-256': 'scram256-user', 'scram-sha-512': 'scram512-user' } as const;
let broker: ChildProcess | undefined;
let saslPort = 0;
let brokerLog = '';

const freePort = () =>
  new Promise<number>((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });

before(async () => {
  if (!existsSync(libs)) return;
  const [sasl, internal, controller] = [await freePort(), await freePort(), await freePort()];
  saslPort = sasl;
  const properties = join(dir, 'server.properties');
  writeFileSync(
    properties,
    `process.roles=broker,controller
node.id=1
controller.quorum.voters=1@127.0.0.1:${controller}
listeners=SASL_PLAINTEXT://127.0.0.1:${sasl},INTERNAL://127.0.0.1:${internal},CONTROLLER://127.0.0.1:${controller}
advertised.listeners=SASL_PLAINTEXT://127.0.0.1:${sasl},INTERNAL://127.0.0.1:${internal}
listener.security.protocol.map=SASL_PLAINTEXT:SASL_PLAINTEXT,INTERNAL:PLAINTEXT,CONTROLLER:PLAINTEXT
controller.listener.names=CONTROLLER
inter.broker.listener.name=INTERNAL
sasl.enabled.mechanisms=PLAIN,SCRAM-SHA-256,SCRAM-SHA-512
listener.name.sasl_plaintext.plain.sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required user_${users.plain}="${PASSWORD}";
listener.name.sasl_plaintext.scram-sha-256.sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required;
listener.name.sasl_plaintext.scram-sha-512.sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required;
log.dirs=${join(dir, 'data')}
num.partitions=1
default.replication.factor=1
min.insync.replicas=1
offsets.topic.replication.factor=1
offsets.topic.num.partitions=1
transaction.state.log.replication.factor=1
transaction.state.log.min.isr=1
transaction.state.log.num.partitions=1
share.coordinator.state.topic.replication.factor=1
share.coordinator.state.topic.min.isr=1
group.initial.rebalance.delay.ms=0
auto.create.topics.enable=false
num.network.threads=1
num.io.threads=2
`,
  );
  const java = process.env.JAVA_HOME ? join(process.env.JAVA_HOME, 'bin', 'java') : 'java';
  const log4j = join(dir, 'log4j2.properties');
  writeFileSync(
    log4j,
    'status = warn\nappender.console.type = Console\nappender.console.name = STDOUT\nappender.console.layout.type = PatternLayout\n' +
      'appender.console.layout.pattern = [%d] %p %m (%c)%n\nrootLogger.level = INFO\nrootLogger.appenderRef.stdout.ref = STDOUT\n',
  );
  const cp = ['-cp', `${libs}/*`, `-Dlog4j2.configurationFile=${log4j}`];
  // SCRAM credentials live in the cluster metadata: written at format time, no broker round trip.
  await execFileAsync(java, [
    '-Xmx128m',
    ...cp,
    'kafka.tools.StorageTool',
    'format',
    // The `=` form: a random base64url id may start with '-', which the parser would read as an option.
    `--cluster-id=${randomBytes(16).toString('base64url')}`,
    '--config',
    properties,
    '--add-scram',
    `SCRAM-SHA-256=[name=${users['scram-sha-256']},password=${PASSWORD}]`,
    '--add-scram',
    `SCRAM-SHA-512=[name=${users['scram-sha-512']},password=${PASSWORD}]`,
  ]);
  broker = spawn(java, ['-Xms256m', '-Xmx256m', '-XX:+UseSerialGC', ...cp, 'kafka.Kafka', properties], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  broker.stdout?.on('data', (chunk: Buffer) => (brokerLog = (brokerLog + chunk.toString()).slice(-20_000)));
  broker.stderr?.on('data', (chunk: Buffer) => (brokerLog = (brokerLog + chunk.toString()).slice(-20_000)));
  const deadline = Date.now() + 120_000;
  while (!/Kafka Server started/.test(brokerLog)) {
    if (Date.now() > deadline || broker.exitCode !== null) throw new Error(`SASL broker did not start:\n${brokerLog.slice(-3000)}`);
    await sleep(250);
  }
});

after(() => {
  broker?.kill('SIGKILL');
  rmSync(dir, { recursive: true, force: true });
});

const env = (mechanism: keyof typeof users, password = PASSWORD) => ({
  KAFKA_BROKERS: `127.0.0.1:${saslPort}`,
  SCHEMA_REGISTRY_URL: stackEndpoints(stack).schemaRegistryUrl,
  BUS_TOPIC_PREFIX: `it-sasl-${mechanism}-${randomUUID().slice(0, 8)}.`,
  BUS_PROBES_PARTITIONS: '1',
  BUS_REPORTS_PARTITIONS: '1',
  BUS_ACTIONS_PARTITIONS: '1',
  BUS_DEAD_LETTER_PARTITIONS: '1',
  KAFKA_SASL_MECHANISM: mechanism,
  KAFKA_SASL_USERNAME: users[mechanism],
  KAFKA_SASL_PASSWORD: password,
});

for (const mechanism of Object.keys(users) as (keyof typeof users)[]) {
  test(
    `SASL ${mechanism}: a ProbeResult round trip through the bus, configured only by KAFKA_SASL_*`,
    { skip: !existsSync(libs) && 'no stack Kafka jars (npm run stack -- up)' },
    async () => {
      const bus = new EventBus(busConfigFromEnv(env(mechanism), `it-sasl-${mechanism}`));
      try {
        await bus.start(['probes']);
        const event = exampleProbeResult(`sasl-${mechanism}`);
        let received: string | undefined;
        await bus.subscribe({
          topic: 'probes',
          groupId: `it-sasl-${randomUUID()}`,
          fromBeginning: true,
          handle: async (e) => {
            received = e.event_id;
          },
        });
        await (await bus.publisher()).publish('probes', event);
        const deadline = Date.now() + 60_000;
        while (received === undefined && Date.now() < deadline) await sleep(200);
        assert.equal(received, event.event_id);
      } finally {
        await bus.stop();
      }
    },
  );
}

test('a wrong SASL password is refused by the broker', { skip: !existsSync(libs) && 'no stack Kafka jars' }, async () => {
  const bus = new EventBus(busConfigFromEnv(env('scram-sha-512', 'wrong-password'), 'it-sasl-wrong'));
  const admin = bus.kafka.admin({ retry: { retries: 0 } });
  await assert.rejects(admin.connect(), /SASL|[Aa]uthentication/);
  await admin.disconnect().catch(() => undefined);
});

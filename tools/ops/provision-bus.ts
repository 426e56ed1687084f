/**
 * Provisions the event backbone for a deployment: creates the three event topics and the
 * dead-letter topic with the configured partitions, replication and min.insync.replicas (growing
 * partitions, never shrinking or deleting) and registers the Avro schemas, then reads the layout
 * back from the brokers and fails if it is not what was asked for. Run by the Terraform bus-topics
 * Job with BUS_PROFILE=production (replication 3, min ISR 2); `npm run bus:provision` locally.
 * Settings are the workers' own (packages/bus busConfigFromEnv): KAFKA_BROKERS, SCHEMA_REGISTRY_URL,
 * BUS_PROFILE, BUS_TOPIC_PREFIX, BUS_<TOPIC>_PARTITIONS/_REPLICATION/_MIN_ISR, TLS/SASL.
 */
import kafkajs from 'kafkajs';
import { EventBus, InvalidConfigError, busConfigFromEnv, plannedTopics } from '@rag-immune/bus';
import { workerLogger } from '@rag-immune/worker-runtime';

const { ConfigResourceTypes } = kafkajs; // kafkajs is CommonJS: no named ESM exports at run time
const EXIT_CONFIG = 78;
const logger = workerLogger('bus-provision', '0.1.0');

async function main(): Promise<void> {
  const config = busConfigFromEnv(process.env, 'rag-immune-bus-provision');
  const bus = new EventBus(config, logger);
  const schemaIds = await bus.start();
  const planned = plannedTopics(config);
  const admin = bus.kafka.admin();
  await admin.connect();
  try {
    const metadata = await admin.fetchTopicMetadata({ topics: planned.map((t) => t.topic) });
    const configs = await admin.describeConfigs({
      includeSynonyms: false,
      resources: planned.map((t) => ({ type: ConfigResourceTypes.TOPIC, name: t.topic, configNames: ['min.insync.replicas'] })),
    });
    const problems: string[] = [];
    const layout = planned.map((want) => {
      const topic = metadata.topics.find((t) => t.name === want.topic);
      const partitions = topic?.partitions.length ?? 0;
      const replication = Math.min(...(topic?.partitions.map((p) => p.replicas.length) ?? [0]));
      const minIsr = Number(
        configs.resources.find((r) => r.resourceName === want.topic)?.configEntries.find((e) => e.configName === 'min.insync.replicas')
          ?.configValue ?? NaN,
      );
      const wantMinIsr = Number(want.configEntries?.find((e) => e.name === 'min.insync.replicas')?.value);
      if (partitions < (want.numPartitions ?? 1)) problems.push(`${want.topic}: ${partitions} partitions, want ${want.numPartitions}`);
      if (replication < (want.replicationFactor ?? 1))
        problems.push(`${want.topic}: replication ${replication}, want ${want.replicationFactor}`);
      if (!(minIsr >= wantMinIsr)) problems.push(`${want.topic}: min.insync.replicas ${minIsr}, want ${wantMinIsr}`);
      return { topic: want.topic, partitions, replication, minInsyncReplicas: minIsr };
    });
    logger.info({ profile: config.profile, topics: layout, schemaIds: Object.fromEntries(schemaIds) }, 'bus provisioned');
    if (problems.length > 0) throw new Error(`topic layout differs from configuration: ${problems.join('; ')}`);
  } finally {
    await admin.disconnect();
    await bus.stop();
  }
}

main().catch((error: unknown) => {
  if (error instanceof InvalidConfigError) {
    logger.fatal({ issues: error.issues }, error.message);
    process.exit(EXIT_CONFIG);
  }
  logger.fatal({ err: error }, 'bus provisioning failed');
  process.exit(1);
});

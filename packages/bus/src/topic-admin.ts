import type { Admin, ITopicConfig } from 'kafkajs';
import type { Logger } from 'pino';
import { topicIds } from '@rag-immune/contracts';
import { topicNameOf, type BusConfig, type TopicSettings } from './config.ts';

function topicConfig(name: string, settings: TopicSettings): ITopicConfig {
  return {
    topic: name,
    numPartitions: settings.partitions,
    replicationFactor: settings.replicationFactor,
    configEntries: [
      { name: 'min.insync.replicas', value: String(settings.minInsyncReplicas) },
      { name: 'retention.ms', value: String(settings.retentionMs) },
    ],
  };
}

/** The three event topics and the dead-letter topic with their configured layout. */
export function plannedTopics(config: BusConfig): ITopicConfig[] {
  return [
    ...topicIds.map((id) => topicConfig(topicNameOf(config, id), config.topics[id])),
    topicConfig(topicNameOf(config, 'deadLetter'), config.topics.deadLetter),
  ];
}

/**
 * Creates missing topics and grows partition counts that are below configuration. Never shrinks
 * or deletes: Kafka cannot shrink partitions, and deleting would lose events.
 */
export async function ensureTopics(admin: Admin, config: BusConfig, logger?: Logger): Promise<void> {
  const planned = plannedTopics(config);
  const existing = new Set(await admin.listTopics());
  const missing = planned.filter((t) => !existing.has(t.topic));
  if (missing.length > 0) {
    await admin.createTopics({ topics: missing, waitForLeaders: true });
    logger?.info({ topics: missing.map((t) => t.topic) }, 'topics created');
  }
  const present = planned.filter((t) => existing.has(t.topic));
  if (present.length === 0) return;
  const metadata = await admin.fetchTopicMetadata({ topics: present.map((t) => t.topic) });
  for (const topic of metadata.topics) {
    const wanted = present.find((t) => t.topic === topic.name)?.numPartitions ?? 0;
    if (topic.partitions.length < wanted) {
      await admin.createPartitions({ topicPartitions: [{ topic: topic.name, count: wanted }] });
      logger?.warn(
        { topic: topic.name, from: topic.partitions.length, to: wanted },
        'partitions grown; keyed ordering restarts for moved keys',
      );
    } else if (topic.partitions.length > wanted) {
      logger?.warn({ topic: topic.name, actual: topic.partitions.length, wanted }, 'topic has more partitions than configured; left as is');
    }
  }
}

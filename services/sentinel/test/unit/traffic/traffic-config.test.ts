import { test } from 'node:test';
import assert from 'node:assert/strict';
import { TrafficConfigError, trafficConfigFromEnv } from '../../../src/traffic/config.ts';

test('traffic watching is off unless switched on, with the documented defaults', () => {
  const config = trafficConfigFromEnv({});
  assert.equal(config.TRAFFIC_WATCH, '0');
  assert.equal(config.TRAFFIC_ALARMS_PER_DAY, 1);
  assert.equal(config.ES_INDEX_PREFIX, 'rag-immune');
  assert.equal(config.TRAFFIC_CONTENT_PROFILE, '1');
  assert.equal(config.TRAFFIC_CONTENT_FACTS, 'auto');
  assert.equal(config.TRAFFIC_INCOMPLETE_WAIT_MS, 30_000);
  assert.equal(config.TRAFFIC_SPOT_CHECKS_PER_SEGMENT_HOUR, 1);
  assert.equal(config.TRAFFIC_SPOT_CHECKS_PER_HOUR, 30);
  assert.equal(config.TRAFFIC_LED_CHECK_INTERVAL_S, 300);
});

test('a bad value refuses to start, naming the variable', () => {
  for (const [key, value] of [
    ['TRAFFIC_FCS_SHARE', '1.5'],
    ['TRAFFIC_ALARMS_PER_DAY', '0'],
    ['TRAFFIC_WATCH', 'yes'],
    ['ES_INDEX_PREFIX', 'Bad/Prefix'],
    ['TRAFFIC_REPLAY_PER_HOUR', 'many'],
    ['TRAFFIC_CONTENT_PROFILE', 'on'],
    ['TRAFFIC_CONTENT_NOVEL_SHARE', '0'],
    ['TRAFFIC_CONTENT_FACTS', 'yes'],
    ['TRAFFIC_INCOMPLETE_WAIT_MS', '-5'],
    ['TRAFFIC_SPOT_CHECKS_PER_SEGMENT_HOUR', '-1'],
    ['TRAFFIC_SPOT_CHECKS_PER_HOUR', '2.5'],
    ['TRAFFIC_LED_CHECK_INTERVAL_S', '-300'],
  ] as const)
    assert.throws(
      () => trafficConfigFromEnv({ [key]: value }),
      (error: unknown) => error instanceof TrafficConfigError && error.issues.some((i) => i.key === key),
      key,
    );
  assert.throws(() => trafficConfigFromEnv({ ES_USERNAME: 'u' }), /ES_PASSWORD/);
});

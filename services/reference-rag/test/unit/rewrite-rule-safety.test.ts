import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { pino } from 'pino';
import { createApp, type AppDeps } from '../../src/http/app.ts';
import { createRagMetrics } from '../../src/metrics.ts';
import { RepairHooks } from '../../src/repair-hooks.ts';
import type { RagService } from '../../src/rag-service.ts';
import { QueryNormalizer } from '../../src/text/query-normalizer.ts';
import { MAX_REWRITE_RULES, unsafeRewritePattern } from '../../src/text/rewrite-rule-safety.ts';

const TOKEN = 'test-token-0123456789abcdef';

/** The rule set the effector's set_query_rewrite_rules tool sends (services/effector RULE_SETS), verbatim. */
const EFFECTOR_RULES = [
  { pattern: '[\\u200B-\\u200D\\u2060\\uFEFF]', replacement: '' },
  { pattern: '[\\u2010-\\u2015\\u2212\\uFE58\\uFE63\\uFF0D]', replacement: '-' },
  { pattern: '[\\u2024\\uFE52\\uFF0E]', replacement: '.' },
  { pattern: '[\\u2795\\uFE62\\uFF0B]', replacement: '+' },
];

test('catastrophic and polynomial backtracking patterns are refused with a reason', () => {
  for (const pattern of ['(a+)+$', '(a|a)*b', '(?:x+)*y', 'a*a*a*a*b', '(a)\\1', '\\k<n>', 'a?a?a?aaa', 'x(?=y)', 'a{1,5000}'])
    assert.ok(unsafeRewritePattern(pattern), `${pattern} is refused`);
  assert.match(unsafeRewritePattern('(a+)+$')!, /groups are not allowed/);
  assert.match(unsafeRewritePattern('a*a*b')!, /at most one variable-length quantifier/);
  assert.match(unsafeRewritePattern('x'.repeat(201))!, /longer than 200/);
  assert.match(unsafeRewritePattern('[abc')!, /unterminated/);
});

test('literal, class, escape and single-quantifier patterns are accepted', () => {
  for (const rule of EFFECTOR_RULES) assert.equal(unsafeRewritePattern(rule.pattern), undefined, rule.pattern);
  for (const pattern of [
    '\\u200d',
    '\\u2010',
    'colou?r',
    '\\s+',
    '^pkg:',
    'foo|bar',
    'v\\d{1,3}',
    '\\u{1F600}',
    '\\p{Zs}',
    '[(|)*+]',
    '\\(x\\)',
  ])
    assert.equal(unsafeRewritePattern(pattern), undefined, pattern);
});

test('a refused rule set leaves the rules in force; the effector rule set still folds look-alikes', () => {
  const normalizer = new QueryNormalizer();
  normalizer.setRules(EFFECTOR_RULES);
  assert.throws(() => normalizer.setRules([...EFFECTOR_RULES, { pattern: '(a+)+$', replacement: '' }]), /rules\[4\].*groups/);
  assert.throws(
    () => normalizer.setRules(Array.from({ length: MAX_REWRITE_RULES + 1 }, () => ({ pattern: 'x', replacement: 'y' }))),
    /at most 50 rules/,
  );
  assert.deepEqual(normalizer.currentRules, EFFECTOR_RULES);
  assert.equal(normalizer.normalize('libssl3\u200d\u2010dev 1\u2024\u200d2'), 'libssl3-dev 1.2');
});

test('PUT /repair/query-rewrite-rules answers 400 to a ReDoS pattern and 200 to the effector rule set', async () => {
  const normalizer = new QueryNormalizer();
  const service = { instance: 'online', normalizer, reranker: { availableVersions: ['v2.1'] } } as unknown as RagService;
  const repair = new RepairHooks(service, {} as never, {} as never, {
    clock: () => new Date(),
    advanceToNow: () => new Date(),
    frozen: false,
  });
  const deps = {
    service,
    repair,
    faults: { list: () => [] },
    journal: { list: () => [] },
    metrics: createRagMetrics('online'),
    logger: pino({ level: 'silent' }),
    knowledgeSources: [],
    faultsAllowed: true,
    faultInjectionEnabled: false,
    apiToken: TOKEN,
    host: '127.0.0.1',
  } as unknown as AppDeps;
  const server = createApp(deps).listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/repair/query-rewrite-rules`;
  const put = (rules: unknown) =>
    fetch(url, {
      method: 'PUT',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${TOKEN}` },
      body: JSON.stringify({ rules }),
    });
  try {
    const refused = await put([{ pattern: '(a+)+$', replacement: '' }]);
    assert.equal(refused.status, 400);
    assert.match(((await refused.json()) as { error: string }).error, /invalid rewrite rule: rules\[0\].*groups are not allowed/);
    const accepted = await put(EFFECTOR_RULES);
    assert.equal(accepted.status, 200, await accepted.clone().text());
    assert.equal(((await accepted.json()) as { changed: number }).changed, 4);
    assert.deepEqual(normalizer.currentRules, EFFECTOR_RULES);
  } finally {
    await new Promise((resolve) => server.close(resolve));
  }
});

import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Message, Producer } from 'kafkajs';
import {
  DeadLetterHeaders,
  MAX_DEAD_LETTER_DETAIL_BYTES,
  MAX_DEAD_LETTER_HEADER_BYTES,
  MAX_DEAD_LETTER_HEADERS_TOTAL_BYTES,
  MAX_DEAD_LETTER_KEY_BYTES,
  TRUNCATION_MARKER,
  sendToDeadLetter,
  type DeadLetter,
} from '../../src/index.ts';

/** What sendToDeadLetter hands the producer (no broker: the sizes are decided before sending). */
async function park(letter: Partial<DeadLetter>): Promise<Message> {
  const sent: Message[] = [];
  const producer = { send: async (record: { messages: Message[] }) => void sent.push(...record.messages) } as unknown as Producer;
  await sendToDeadLetter(producer, 'rag-immune-dead-letter', {
    reason: 'bad_signature',
    detail: 'signature does not match',
    topic: 'rag-sentinel-probes',
    partition: 2,
    offset: '41',
    group: 'g',
    key: Buffer.from('k'),
    value: Buffer.from('v'),
    headers: undefined,
    ...letter,
  });
  assert.equal(sent.length, 1);
  return sent[0]!;
}

const bytes = (value: unknown): number =>
  Array.isArray(value) ? value.reduce((sum: number, v) => sum + bytes(v), 0) : Buffer.byteLength(value as Buffer | string);

test('huge copied headers, key and detail are cut and marked so that parking cannot fail on size', async () => {
  const headers: Record<string, string | Buffer | string[]> = {
    'x-small': 'kept as is',
    'x-huge': 'h'.repeat(1024 * 1024),
    'x-huge-buffer': Buffer.alloc(200 * 1024, 1),
    'x-list': ['a', 'b'.repeat(20 * 1024)],
    // Forged dead-letter headers are replaced by the real ones.
    [DeadLetterHeaders.reason]: 'forged',
  };
  for (let i = 0; i < 40; i += 1) headers[`x-filler-${i}`] = 'f'.repeat(7 * 1024);
  headers['n'.repeat(MAX_DEAD_LETTER_HEADER_BYTES + 1)] = 'overlong name';
  const message = await park({ headers, key: Buffer.alloc(100 * 1024, 2), detail: `x${'é'.repeat(100 * 1024)}` });
  const out = message.headers ?? {};

  assert.equal(out['x-small'], 'kept as is');
  for (const name of ['x-huge', 'x-huge-buffer']) {
    const value = Buffer.from(out[name] as Buffer);
    assert.equal(value.length, MAX_DEAD_LETTER_HEADER_BYTES, name);
    assert.ok(value.toString('latin1').endsWith(TRUNCATION_MARKER), name);
  }
  const list = out['x-list'] as (string | Buffer)[];
  assert.equal(list[0], 'a');
  assert.equal(bytes(list[1]), MAX_DEAD_LETTER_HEADER_BYTES);

  // All copied headers together stay within the total; the rest are left out and counted.
  const copied = Object.entries(out).filter(([name]) => !name.startsWith('x-dead-letter-'));
  const total = copied.reduce((sum, [name, value]) => sum + Buffer.byteLength(name) + bytes(value), 0);
  assert.ok(total <= MAX_DEAD_LETTER_HEADERS_TOTAL_BYTES, `${total} bytes of copied headers`);
  assert.ok(copied.every(([name]) => name.length <= MAX_DEAD_LETTER_HEADER_BYTES));
  assert.match(String(out[DeadLetterHeaders.headersTruncated]), /^\d+ cut, \d+ left out$/);
  assert.ok(Number(/, (\d+) left out/.exec(String(out[DeadLetterHeaders.headersTruncated]))?.[1]) > 0);

  assert.equal(out[DeadLetterHeaders.reason], 'bad_signature');
  assert.equal(out[DeadLetterHeaders.originOffset], '41');
  assert.ok(bytes(out[DeadLetterHeaders.detail]) <= MAX_DEAD_LETTER_DETAIL_BYTES);
  assert.ok(!String(out[DeadLetterHeaders.detail]).includes('\ufffd'), 'a character was split');
  assert.ok(String(out[DeadLetterHeaders.detail]).endsWith(TRUNCATION_MARKER));
  assert.equal((message.key as Buffer).length, MAX_DEAD_LETTER_KEY_BYTES);
  assert.equal(out[DeadLetterHeaders.originalKeyBytes], String(100 * 1024));
});

test('ordinary headers, key and detail are copied untouched', async () => {
  const message = await park({ headers: { 'x-event-id': 'e1', traceparent: '00-abc-def-01' }, detail: 'magic byte is 7' });
  const out = message.headers ?? {};
  assert.equal(out['x-event-id'], 'e1');
  assert.equal(out.traceparent, '00-abc-def-01');
  assert.equal(out[DeadLetterHeaders.detail], 'magic byte is 7');
  assert.equal(out[DeadLetterHeaders.headersTruncated], undefined);
  assert.deepEqual(message.key, Buffer.from('k'));
});

/**
 * The default rules catch what users paste (addresses, numbers, tokens) and leave what RAG answers
 * are made of (versions, dates, scores, ids) alone; checksums keep look-alike numbers; bad settings
 * are refused naming their variable.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import {
  DEFAULT_RULES,
  defaultRedactor,
  ibanValid,
  luhnValid,
  RedactionConfigError,
  Redactor,
  redactorFromConfig,
} from '../../src/index.ts';

const redactor = defaultRedactor();

test('e-mail addresses, phone numbers, cards, IBANs, tokens and secrets become typed placeholders', () => {
  const cases: [string, string][] = [
    ['write to jane.doe+rag@example.co.uk today', 'write to [email] today'],
    ['card 4111 1111 1111 1111, also 4012888888881881', 'card [card], also [card]'],
    ['call +33 6 12 34 56 78 or 06 12 34 56 78', 'call [phone] or [phone]'],
    ['US (555) 123-4567 / 555-123-4567 / +1-202-555-0143', 'US [phone] / [phone] / [phone]'],
    ['IBAN DE89 3704 0044 0532 0130 00 or GB82WEST12345698765432', 'IBAN [iban] or [iban]'],
    ['sk-proj-abcdefghijklmnopqrstuvwxyz012345 ghp_abcdefghijklmnopqrstuvwxyz0123456789AB', '[token] [token]'],
    ['aws AKIAIOSFODNN7EXAMPLE', 'aws [token]'],
    ['Authorization: Bearer abcdefghijklmnop1234', 'Authorization: [token]'],
    ['jwt eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0In0.abcdefghijk', 'jwt [token]'],
    ['password=hunter2secret, api_key: 0123456789abcdef', '[secret], [secret]'],
  ];
  for (const [text, expected] of cases) assert.equal(redactor.redactText(text), expected, text);
});

test('what answers about software are made of is left alone', () => {
  for (const text of [
    'openssl 3.0.13-0ubuntu3.4 and libc6 2.36-9+deb12u7, epoch 1:2.3.4-5',
    'released 2024-06-01T00:00:00Z, valid until 2025-01-31',
    'score 0.123456789, size 1234567 bytes, id 1234567890',
    'chunk deb:openssl@3.0.13#2 of doc 7f3a9c2e',
  ])
    assert.equal(redactor.redactText(text), text);
});

test('checksums decide: a number that fails Luhn or mod 97 is kept', () => {
  assert.equal(luhnValid('4111111111111111'), true);
  assert.equal(luhnValid('4111111111111112'), false);
  assert.equal(ibanValid('DE89370400440532013000'), true);
  assert.equal(ibanValid('DE00123456789012345678'), false);
  assert.equal(redactor.redactText('4111-1111-1111-1112'), '4111-1111-1111-1112');
  assert.equal(redactor.redactText('DE00123456789012345678'), 'DE00123456789012345678');
});

test('counts by kind, never the removed text', () => {
  const result = redactor.redact('a@b.io and c@d.org, card 4111111111111111');
  assert.deepEqual(result.found, { email: 2, card: 1 });
  assert.doesNotMatch(JSON.stringify(result), /b\.io|4111/);
});

test('REDACTION_RULES picks built-in rules; ipv4 is off unless named', () => {
  assert.equal(redactor.redactText('host 10.1.2.3'), 'host 10.1.2.3');
  const withIp = redactorFromConfig({ REDACTION_RULES: 'email,ipv4' });
  assert.equal(withIp.redactText('host 10.1.2.3, x@y.io, 4111111111111111'), 'host [ip], [email], 4111111111111111');
});

test('extra patterns from REDACTION_PATTERNS and REDACTION_PATTERNS_FILE run after the built-in ones', () => {
  const dir = mkdtempSync(join(tmpdir(), 'redaction-'));
  const file = join(dir, 'patterns.json');
  writeFileSync(file, JSON.stringify([{ name: 'ticket', pattern: 'TICKET-\\d+', placeholder: '[ticket]' }]));
  const custom = redactorFromConfig({
    REDACTION_PATTERNS: JSON.stringify(['\\bcustomer #\\d{6}\\b', { name: 'badge', pattern: 'badge [a-z]{3}\\d{3}', flags: 'i' }]),
    REDACTION_PATTERNS_FILE: file,
  });
  assert.equal(
    custom.redactText('customer #123456 with BADGE abc123 on TICKET-42 (x@y.io)'),
    '[custom_1] with [badge] on [ticket] ([email])',
  );
});

test('bad settings are refused naming the variable', () => {
  const refused = (config: Parameters<typeof redactorFromConfig>[0], key: string, message: RegExp) =>
    assert.throws(
      () => redactorFromConfig(config),
      (error: unknown) => error instanceof RedactionConfigError && error.key === key && message.test(error.message),
    );
  refused({ REDACTION_RULES: 'email,ssn' }, 'REDACTION_RULES', /unknown rule ssn/);
  refused({ REDACTION_PATTERNS: '[unclosed' }, 'REDACTION_PATTERNS', /not JSON/);
  refused({ REDACTION_PATTERNS: '{"pattern":"x"}' }, 'REDACTION_PATTERNS', /JSON list/);
  refused({ REDACTION_PATTERNS: '["(unclosed"]' }, 'REDACTION_PATTERNS', /not a valid regex/);
  refused({ REDACTION_PATTERNS: '["a*"]' }, 'REDACTION_PATTERNS', /empty string/);
  refused({ REDACTION_PATTERNS_FILE: '/nonexistent/patterns.json' }, 'REDACTION_PATTERNS_FILE', /cannot be read/);
});

test('the cheap pre-checks never change a result: with and without them the text comes out the same', () => {
  const withoutHints = new Redactor(DEFAULT_RULES.map(({ requires: _skip, ...rule }) => rule));
  const withHints = new Redactor(DEFAULT_RULES);
  for (const text of [
    'a@b.io and 4111 1111 1111 1111 and +33 6 12 34 56 78 and DE89 3704 0044 0532 0130 00 and 10.0.0.1',
    'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0In0.abcdefghijk -----BEGIN RSA PRIVATE KEY-----\nMIIE\n-----END RSA PRIVATE KEY-----',
    'openssl 3.0.13, no personal data here',
    '',
  ])
    assert.deepEqual(withHints.redact(text), withoutHints.redact(text), text);
});

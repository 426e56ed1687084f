import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { KeyFactFinding } from '../../src/key-facts.ts';
import { checkKeyFacts, extractFacts, indexEvidence, normaliseForKey } from '../../src/key-facts.ts';
import { combineScore, DEFAULT_WEIGHTS } from '../../src/fcs-scorer.ts';

const APT =
  'kicad-doc-de 6.0.11+dfsg-1: Kicad help files (German). It is maintained by Debian Electronics Team. ' +
  'Once installed it occupies 22687 kB. The download is 19604184 bytes. It belongs to the electronics section with optional priority.';
const CHANGELOG =
  'libdrm (2.4.112-2) was uploaded to unstable with medium urgency by Timo Aaltonen on 29 July 2022. Changes: rules: Fix arm build.';
const PALAPELI =
  'Palapeli is a single-player jigsaw puzzle game. Unlike other games in that genre, you are not limited to aligning pieces on imaginary grids.';

const check = (answer: string, ...evidence: string[]): KeyFactFinding[] =>
  checkKeyFacts(answer, indexEvidence(evidence.map((text, i) => ({ id: `p${i}`, text }))));
const bad = (findings: KeyFactFinding[]): KeyFactFinding[] => findings.filter((f) => f.status !== 'supported');
const only = (findings: KeyFactFinding[], kind: string, status: string): boolean =>
  findings.some((f) => f.kind === kind && f.status === status);

test('extracts numbers with units, dates, versions and identifiers in normalised form', () => {
  const facts = extractFacts(
    'Version 2.4.112-2 of libdrm-dev was released on July 29, 2022 and occupies 22,687 kB (about 22.7 MB); 3 files.',
  );
  assert.deepEqual(
    facts.quantities.map((q) => [q.value, q.unit, q.base]),
    [
      [22687, 'kB', 22687000],
      [22.7, 'MB', 22700000],
    ],
  );
  assert.deepEqual(
    facts.dates.map((d) => d.iso),
    ['2022-07-29'],
  );
  assert.deepEqual(
    facts.versions.map((v) => v.normalised),
    ['2.4.112-2'],
  );
  assert.deepEqual(
    facts.identifiers.map((v) => v.normalised),
    ['libdrm-dev'],
  );
  assert.deepEqual(
    facts.numbers.map((n) => n.normalised),
    ['3'],
  );
});

test('date spellings normalise to one ISO date', () => {
  for (const text of ['on 29 July 2022', 'on July 29, 2022', 'on 2022-07-29', 'on 29th of Jul 2022']) {
    assert.deepEqual(
      extractFacts(text).dates.map((d) => d.iso),
      ['2022-07-29'],
      text,
    );
  }
});

test('a copied answer has every key fact supported', () => {
  const findings = check('The kicad-doc-de download is 19604184 bytes and it occupies 22687 kB.', APT);
  assert.deepEqual(bad(findings), []);
  assert.ok(findings.filter((f) => f.kind === 'quantity').length === 2);
});

test('the same quantity in another unit (with rounding) is supported', () => {
  assert.deepEqual(bad(check('Once installed it occupies about 22.7 MB.', APT)), []);
});

test('a changed number with the same unit is contradicted, citing the evidence value', () => {
  const findings = check('The kicad-doc-de download is 19604284 bytes.', APT);
  const quantity = findings.find((f) => f.kind === 'quantity')!;
  assert.equal(quantity.status, 'contradicted');
  assert.equal(quantity.passage_id, 'p0');
});

test('a unit swap (same number, other unit) is contradicted', () => {
  const findings = check('The kicad-doc-de download is 19604184 gigabytes.', APT);
  const quantity = findings.find((f) => f.kind === 'quantity')!;
  assert.equal(quantity.status, 'contradicted');
  assert.match(quantity.reason, /unit differs: evidence says 19604184 bytes/);
});

test('a wrong date is contradicted, a right one in another spelling supported', () => {
  assert.ok(only(check('Version 2.4.112-2 of libdrm was uploaded to unstable on 2 July 2022.', CHANGELOG), 'date', 'contradicted'));
  assert.deepEqual(bad(check('libdrm 2.4.112-2 was uploaded to unstable on 2022-07-29.', CHANGELOG)), []);
});

test('a wrong version is contradicted', () => {
  const findings = check('Version 2.4.112-3 of libdrm was uploaded to unstable.', CHANGELOG);
  const version = findings.find((f) => f.kind === 'version')!;
  assert.equal(version.status, 'contradicted');
  assert.equal(version.evidence_text, '2.4.112-2');
});

test('an entity swap is unsupported', () => {
  assert.ok(only(check('kicad-doc-de is maintained by Debian Science Team.', APT), 'entity', 'unsupported'));
  assert.ok(only(check('libdrm 2.4.112-2 was uploaded by Timo Hämäläinen.', CHANGELOG), 'entity', 'unsupported'));
  assert.deepEqual(bad(check('kicad-doc-de is maintained by Debian Electronics Team.', APT)), []);
});

test('an unsupported addition (new package, new number) is flagged', () => {
  const findings = check(
    'kicad-doc-de is a package providing Kicad help files (German). The php-uuid-all-dev download is 3032 bytes.',
    APT,
  );
  assert.ok(only(findings, 'entity', 'unsupported'));
  assert.ok(findings.some((f) => f.kind === 'quantity' && f.status !== 'supported'));
});

test('negation flips are contradicted in both directions', () => {
  assert.ok(
    only(
      check('Unlike other games in that genre, you are limited to aligning pieces on imaginary grids.', PALAPELI),
      'negation',
      'contradicted',
    ),
  );
  assert.ok(only(check('Version 2.4.112-2 of libdrm was not uploaded to unstable.', CHANGELOG), 'negation', 'contradicted'));
  assert.deepEqual(bad(check('You are not limited to aligning pieces on imaginary grids.', PALAPELI)), []);
});

test('an invented causal relation is unsupported', () => {
  const evidence = 'Re-enable builds on all architectures, previously disabled due to an FTBFS related to the include issue.';
  assert.ok(
    only(
      check('Re-enable builds on all architectures, previously disabled despite an FTBFS related to the include issue.', evidence),
      'relation',
      'unsupported',
    ),
  );
  assert.deepEqual(
    bad(check('Builds on all architectures were previously disabled due to an FTBFS related to the include issue.', evidence)),
    [],
  );
});

test('swapped cause and effect is contradicted', () => {
  const evidence = 'It provides a huge set of common tools, so you can just focus on making your game without reinventing the wheel.';
  const reversed = check(
    'You can just focus on making your game without reinventing the wheel, so it provides a huge set of common tools.',
    evidence,
  );
  assert.ok(reversed.some((f) => f.kind === 'relation' && f.status === 'contradicted' && f.normalised === 'cause-effect-reversed'));
  // The same relation stated with the effect first is not a reversal.
  assert.deepEqual(
    bad(
      check(
        'You can just focus on making your game without reinventing the wheel because it provides a huge set of common tools.',
        evidence,
      ),
    ),
    [],
  );
});

test('paraphrases and sentence-initial capitals raise no false alarms', () => {
  assert.deepEqual(bad(check('As described, version 6.0.11+dfsg-1 of kicad-doc-de is available.', APT)), []);
  assert.deepEqual(bad(check('Palapeli is a jigsaw puzzle game for a single player.', PALAPELI)), []);
});

test('the key-fact check moves the model probability in log-odds', () => {
  const contradicted: KeyFactFinding = { kind: 'quantity', answer_text: 'x', normalised: 'x', status: 'contradicted', reason: '' };
  const unsupported: KeyFactFinding = { ...contradicted, kind: 'entity', status: 'unsupported' };
  const supported: KeyFactFinding = { ...contradicted, status: 'supported' };
  assert.ok(Math.abs(combineScore(0.8, []) - 0.8) < 1e-9);
  // A contradicted fact overrules even a confident model.
  assert.ok(combineScore(0.95, [contradicted]) < 0.5);
  assert.ok(combineScore(0.95, [contradicted]) < combineScore(0.95, [unsupported]));
  // Supported facts add a small, capped bonus, and only when nothing is wrong.
  assert.ok(combineScore(0.5, [supported]) > 0.5);
  assert.ok(combineScore(0.5, Array(20).fill(supported)) <= 1 / (1 + Math.exp(-DEFAULT_WEIGHTS.maxSupportedBonus)) + 1e-9);
  assert.ok(combineScore(0.5, [supported, unsupported]) < 0.5);
  // A saturated model (p = 1) can still be overruled.
  assert.ok(combineScore(1, [contradicted]) < 0.5);
});

test('cache-key normalisation ignores case, punctuation and spelling of dates and thousands, not values', () => {
  assert.equal(normaliseForKey('Released 29 July 2022, size 22,687 kB!'), normaliseForKey('released   2022-07-29 size 22687 KB'));
  assert.equal(normaliseForKey('Who maintains kicad-doc-de?'), normaliseForKey('who maintains KICAD-DOC-DE'));
  assert.notEqual(normaliseForKey('version 1.5'), normaliseForKey('version 15'));
  assert.notEqual(normaliseForKey('It is available.'), normaliseForKey('It is not available.'));
});

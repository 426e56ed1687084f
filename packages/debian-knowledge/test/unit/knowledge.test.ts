/** Copied with the modules from services/reference-rag/test/unit/knowledge.test.ts, plus the renderer. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseChangelog, changelogRecords } from '../../src/debian-changelog.ts';
import { parseDeb822 } from '../../src/apt-metadata.ts';
import { chainValidity, publishedBy, validAt } from '../../src/knowledge-record.ts';
import { renderRecord } from '../../src/render.ts';

const CHANGELOG = `openssl (3.0.19-1~deb12u2) bookworm-security; urgency=medium

  * CVE-2026-28387 ("Potential use-after-free in DANE client code")
  * CVE-2026-28389 ("Possible NULL dereference when processing CMS
    KeyAgreeRecipientInfo")

 -- Sebastian Andrzej Siewior <sebastian@breakpoint.cc>  Fri, 03 Apr 2026 14:29:32 +0200

openssl (3.0.19-1~deb12u1) bookworm; urgency=medium

  * Import 3.0.19

 -- Sebastian Andrzej Siewior <sebastian@breakpoint.cc>  Sun, 22 Feb 2026 18:36:50 +0100
`;

test('a Debian changelog parses into dated uploads, newest first, dates in UTC', () => {
  const entries = parseChangelog(CHANGELOG);
  assert.equal(entries.length, 2);
  assert.equal(entries[0]!.version, '3.0.19-1~deb12u2');
  assert.equal(entries[0]!.distribution, 'bookworm-security');
  assert.equal(entries[0]!.uploader, 'Sebastian Andrzej Siewior');
  assert.equal(entries[0]!.date.toISOString(), '2026-04-03T12:29:32.000Z');
  assert.equal(entries[0]!.changes[1], 'CVE-2026-28389 ("Possible NULL dereference when processing CMS KeyAgreeRecipientInfo")');
});

test('each version is valid until the next one; "published by T" forgets later versions', () => {
  const records = chainValidity(changelogRecords(new Map([['openssl', parseChangelog(CHANGELOG)]])));
  const older = records.find((record) => record.version === '3.0.19-1~deb12u1')!;
  const newer = records.find((record) => record.version === '3.0.19-1~deb12u2')!;
  assert.equal(older.validUntil?.toISOString(), newer.validFrom.toISOString());
  assert.equal(newer.validUntil, null);
  assert.equal(older.knowledgeId, 'changelog/openssl');

  const march = new Date('2026-03-01T00:00:00Z');
  assert.ok(validAt(older, march) && !validAt(newer, march));
  const asPublishedInMarch = publishedBy(records, march);
  assert.deepEqual(
    asPublishedInMarch.map((record) => [record.version, record.validUntil]),
    [['3.0.19-1~deb12u1', null]],
  );
});

test('deb822 stanzas fold continuation lines', () => {
  const [stanza] = parseDeb822(
    'Package: bash\nVersion: 5.2.15-2+b9\nDescription: GNU Bourne Again SHell\n Bash is an sh-compatible command language interpreter.\n\n',
  );
  assert.equal(stanza!.get('Version'), '5.2.15-2+b9');
  assert.equal(stanza!.get('Description'), 'GNU Bourne Again SHell\nBash is an sh-compatible command language interpreter.');
});

test('a record renders as its fields, then its changes cut at 480 characters', () => {
  const fields: [string, string][] = [
    ['Package', 'acl'],
    ['Version', '2.3.1-3'],
  ];
  assert.equal(renderRecord({ fields, body: '', source: 'debian-changelog' }), 'Package: acl | Version: 2.3.1-3');
  assert.equal(
    renderRecord({ fields, body: 'Fix a bug.', source: 'apt-metadata' }),
    'Package: acl | Version: 2.3.1-3 | Description: Fix a bug.',
  );
  const long = renderRecord({ fields, body: 'x'.repeat(600), source: 'debian-changelog' });
  assert.ok(long.endsWith(`Changes: ${'x'.repeat(480)}…`));
});

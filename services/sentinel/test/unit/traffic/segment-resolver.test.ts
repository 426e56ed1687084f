import { test } from 'node:test';
import assert from 'node:assert/strict';
import { SegmentResolver, querySignature } from '../../../src/traffic/segment-resolver.ts';

/** Healthy clusters as the clean traffic taught them: a source package's changelog, and a binary built from it. */
function taught(resolver = new SegmentResolver()): SegmentResolver {
  resolver.learn('What is the latest version of rust-libslirp?', 'changelog/rust-libslirp');
  resolver.learn('When was the latest version of rust-libslirp released?', 'changelog/rust-libslirp');
  resolver.learn('What is the installed size of the librust-libslirp-dev package?', 'apt/librust-libslirp-dev');
  resolver.learn('Who maintains the librust-libslirp-dev package?', 'apt/librust-libslirp-dev');
  resolver.learn('What is the latest version of hcxtools?', 'changelog/hcxtools');
  return resolver;
}

test('a query cluster keeps the knowledge it was first answered from', () => {
  const resolver = new SegmentResolver();
  resolver.learn('Which version of OpenSSL is in Debian?', 'pkg-openssl');
  resolver.learn('Which version of OpenSSL is in Debian?', 'pkg-curl');
  assert.equal(querySignature('which openssl version is in debian'), querySignature('Which version of OpenSSL is in Debian?'));
  assert.deepEqual(resolver.usualKnowledge('which openssl version is in debian', ['pkg-curl']), {
    knowledgeId: 'pkg-openssl',
    match: 'exact',
  });
  assert.equal(resolver.segmentOf('which openssl version is in debian', 'pkg-curl'), 'pkg-openssl');
  assert.equal(resolver.segmentOf('what does curl do', 'pkg-curl'), 'pkg-curl');
  assert.equal(resolver.segmentOf('', undefined), undefined);
});

test('a rewording never seen healthy goes to the knowledge its words point to when the retriever lost it', () => {
  const resolver = taught();
  // A binary named as its source package: its name carries the word, but the healthy answers tie
  // the word to the changelog, so the binary retrieved in its place explains nothing.
  assert.deepEqual(resolver.usualKnowledge('latest rust-libslirp upload: who made it?', ['apt/rust-libslirp']), {
    knowledgeId: 'changelog/rust-libslirp',
    match: 'near',
  });
  // The changelog's points were deleted: the rewording retrieves the binary's entries instead.
  assert.deepEqual(
    resolver.usualKnowledge('which version of rust-libslirp is the current one?', ['apt/librust-libslirp-dev', 'apt/libslirp-helper']),
    {
      knowledgeId: 'changelog/rust-libslirp',
      match: 'near',
    },
  );
  assert.equal(
    resolver.segmentOf('which version of rust-libslirp is the current one?', 'apt/librust-libslirp-dev'),
    'changelog/rust-libslirp',
  );
  // While it is retrieved, the segment is simply what was retrieved.
  assert.equal(resolver.usualKnowledge('which version of rust-libslirp is the current one?', ['changelog/rust-libslirp']), undefined);
});

test('no near match on a word too few clusters carry, on words pointing to different ids, or when the retrieved id explains the query', () => {
  const resolver = taught();
  // hcxtools: one healthy cluster only.
  assert.equal(resolver.usualKnowledge("What's the newest release of hcxtools?", ['apt/libslirp-helper']), undefined);
  // rust-libslirp points to the changelog, librust-libslirp-dev to the binary: ambiguous.
  assert.equal(resolver.usualKnowledge('rust-libslirp librust-libslirp-dev difference?', ['apt/other']), undefined);
  // The retrieved id's name carries a query word that points nowhere: the retriever answered what was asked.
  assert.equal(resolver.usualKnowledge('latest libslirp-helper rust-libslirp?', ['apt/libslirp-helper']), undefined);
  // A word the retrieved id's own clusters carry (and no other id's) explains it too.
  assert.equal(
    resolver.usualKnowledge('installed size of librust-libslirp-dev next to rust-libslirp?', ['apt/librust-libslirp-dev']),
    undefined,
  );
});

test('a near match is a guess: learned from what it retrieved once a check finds it healthy, and generic words stop pointing', () => {
  // Opaque ids: no name explains anything, so a word every cluster of one id carried so far ("latest") points to it.
  const resolver = new SegmentResolver();
  resolver.learn('latest version of alpha?', 'doc-1');
  resolver.learn('latest alpha release date?', 'doc-1');
  const query = 'latest version of beta?';
  assert.deepEqual(resolver.usualKnowledge(query, ['doc-2']), { knowledgeId: 'doc-1', match: 'near' });
  resolver.holdPending(query, 'doc-1', 'doc-2');
  resolver.checkedHealthy('an unrelated query');
  assert.deepEqual(resolver.usualKnowledge(query, ['doc-2']), { knowledgeId: 'doc-1', match: 'near' });
  // The spot check agreed with the baseline: the rewording was healthy, answered from doc-2.
  resolver.checkedHealthy(query);
  assert.deepEqual(resolver.usualKnowledge(query, ['doc-2']), { knowledgeId: 'doc-2', match: 'exact' });
  // "latest" now appears in two ids' clusters: it points to neither.
  assert.equal(resolver.usualKnowledge('latest gamma?', ['doc-3']), undefined);
});

test("a segment's rejected replay learns its pending clusters; eviction forgets a cluster's words", () => {
  const resolver = new SegmentResolver();
  resolver.learn('latest version of alpha?', 'doc-1');
  resolver.learn('alpha release date?', 'doc-1');
  resolver.holdPending('alpha maintainer?', 'doc-1', 'doc-9');
  resolver.holdPending('alpha uploader?', 'doc-5', 'doc-8');
  resolver.segmentCleared('doc-1');
  assert.equal(resolver.usualKnowledgeOf('alpha maintainer?'), 'doc-9');
  assert.equal(resolver.usualKnowledgeOf('alpha uploader?'), undefined);

  const small = new SegmentResolver({ maxClusters: 2 });
  small.learn('alpha latest?', 'doc-1');
  small.learn('alpha release?', 'doc-1');
  assert.equal(small.usualKnowledge('alpha size?', ['doc-7'])?.knowledgeId, 'doc-1');
  small.learn('gamma size?', 'doc-3');
  // The first cluster was evicted: alpha is carried by one cluster only, too few to point.
  assert.equal(small.usualKnowledgeOf('alpha latest?'), undefined);
  assert.equal(small.usualKnowledge('alpha size?', ['doc-7']), undefined);
});

test("a wording's healthy context is remembered: knowledge beside its own that is retrieved no more is lost", () => {
  const resolver = new SegmentResolver();
  // The binary's entry ranks first for the changelog's question; the changelog sits next to it.
  const asked = 'Who uploaded the latest release of libclass-date-perl?';
  resolver.learn(asked, 'apt/libclass-date-perl', [
    'apt/libclass-date-perl',
    'changelog/libclass-date-perl',
    'apt/libgsf-1-114',
    'apt/debmake',
  ]);
  const healthy = ['apt/libclass-date-perl', 'changelog/libclass-date-perl', 'apt/libgsf-1-114', 'changelog/libcotp'];
  assert.deepEqual(resolver.usualKnowledge(asked, healthy), { knowledgeId: 'apt/libclass-date-perl', match: 'exact' });
  // The changelog's points deleted: the answer lost it (the first lost of the next ranks).
  const deleted = ['apt/libclass-date-perl', 'apt/libgsf-1-114', 'changelog/libcotp'];
  assert.deepEqual(resolver.usualKnowledge(asked, deleted), {
    knowledgeId: 'apt/libclass-date-perl',
    match: 'exact',
    lostCompanion: 'changelog/libclass-date-perl',
  });
  // Case and spacing aside, the same wording; rank 4 (apt/debmake) is beyond the companions kept.
  assert.equal(
    resolver.usualKnowledge('who uploaded  the latest release of LIBCLASS-DATE-PERL?', deleted)?.lostCompanion,
    'changelog/libclass-date-perl',
  );
  assert.equal(
    resolver.usualKnowledge(asked, ['apt/libclass-date-perl', 'changelog/libclass-date-perl', 'apt/libgsf-1-114'])?.lostCompanion,
    undefined,
  );
  // Another wording of the same cluster retrieves other next ranks: it has no companions of its own yet.
  assert.equal(resolver.usualKnowledge('latest release of libclass-date-perl: who uploaded it?', deleted)?.lostCompanion, undefined);
  // The first healthy context sticks; nothing retrieved (a failed retrieval) loses nothing here.
  resolver.learn(asked, 'apt/libclass-date-perl', ['apt/libclass-date-perl', 'apt/other']);
  assert.equal(resolver.usualKnowledge(asked, deleted)?.lostCompanion, 'changelog/libclass-date-perl');
  assert.equal(resolver.usualKnowledge(asked, [])?.lostCompanion, undefined);
});

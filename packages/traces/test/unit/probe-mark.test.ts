/**
 * The signed probe mark: only a mark made with the shared key, for this trace id, recently, verifies;
 * the old plain mark, another trace's mark, another key's mark and a stale one do not.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { isProbeTraceState, newProbeTraceContext, ProbeMarkSigner, ProbeMarkVerifier, spanOrigin } from '../../src/index.ts';

const KEY = 'k'.repeat(40);
const OTHER_KEY = 'o'.repeat(40);

test('a signed mark verifies for its trace id only, under the shared key, within its age', () => {
  let now = Date.UTC(2026, 11, 6, 8, 0, 0);
  const signer = new ProbeMarkSigner(KEY, () => now);
  const verifier = new ProbeMarkVerifier({ keys: [KEY], maxAgeMs: 3_600_000, now: () => now });
  const context = newProbeTraceContext(signer);
  assert.match(context.tracestate, /^rag-immune=probe:[0-9a-z]+:[A-Za-z0-9_-]{22}$/);
  // Still a probe claim for everything that only sorts spans (and a W3C-valid member: no ',' or '=' in the value).
  assert.equal(isProbeTraceState(context.tracestate), true);
  assert.equal(spanOrigin({ trace_state: `congo=t61rcWkgMzE,${context.tracestate}` }), 'probe');
  assert.equal(verifier.check(`congo=t61rcWkgMzE, ${context.tracestate}`, context.trace_id), 'verified');

  const other = newProbeTraceContext();
  assert.equal(verifier.check(context.tracestate, other.trace_id), 'bad_mac', "another trace's mark");
  assert.equal(verifier.check(new ProbeMarkSigner(OTHER_KEY, () => now).member(context.trace_id), context.trace_id), 'bad_mac');
  assert.equal(verifier.check('rag-immune=probe', context.trace_id), 'unsigned');
  assert.equal(verifier.check('rag-immune=probe:zz:AAAAAAAAAAAAAAAAAAAAAA', context.trace_id), 'bad_mac');
  assert.equal(verifier.check('rag-immune=probe:garbage', context.trace_id), 'bad_mac');
  assert.equal(verifier.check('congo=t61rcWkgMzE', context.trace_id), 'none');
  assert.equal(verifier.check(undefined, context.trace_id), 'none');

  now += 3_600_000 + 2000;
  assert.equal(verifier.check(context.tracestate, context.trace_id), 'expired');
});

test('a retired key still verifies while it is listed; short keys are refused', () => {
  const now = () => Date.UTC(2026, 11, 6, 8, 0, 0);
  const old = newProbeTraceContext(new ProbeMarkSigner(OTHER_KEY, now));
  assert.equal(new ProbeMarkVerifier({ keys: [KEY, OTHER_KEY], now }).check(old.tracestate, old.trace_id), 'verified');
  assert.equal(new ProbeMarkVerifier({ keys: [KEY], now }).check(old.tracestate, old.trace_id), 'bad_mac');
  assert.throws(() => new ProbeMarkSigner('short'), /at least 32/);
});

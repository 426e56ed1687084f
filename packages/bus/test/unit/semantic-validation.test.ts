import { test } from 'node:test';
import assert from 'node:assert/strict';
import { exampleProbeResult, exampleRepairAction, exampleRootCauseReport } from '@rag-immune/contracts';
import { PoisonMessageError, semanticValidator } from '../../src/index.ts';

const probes = semanticValidator('probes');

function rejected(event: unknown, field: RegExp): void {
  assert.throws(
    () => probes(event as never),
    (error: unknown) => error instanceof PoisonMessageError && error.reason === 'semantically_invalid' && field.test(error.message),
  );
}

test('well-formed events of every topic pass', () => {
  semanticValidator('probes')(exampleProbeResult());
  semanticValidator('reports')(exampleRootCauseReport());
  semanticValidator('actions')(exampleRepairAction());
});

test('valid Avro with absurd values is refused, naming the field', () => {
  const good = exampleProbeResult();
  rejected({ ...good, online: { ...good.online, latency_ms: -3 } }, /^online\.latency_ms: -3 is negative/);
  rejected({ ...good, online: { ...good.online, signals: { ...good.online.signals, fcs: Number.NaN } } }, /online\.signals\.fcs: NaN/);
  rejected({ ...good, online: { ...good.online, signals: { ...good.online.signals, fcs: 7 } } }, /outside \[0, 1\]/);
  rejected({ ...good, occurred_at: Date.now() + 24 * 3600 * 1000 }, /occurred_at: timestamp .* in the future/);
  rejected({ ...good, query: 'x'.repeat(10 * 1024 * 1024) }, /query: string of 10485760 characters/);
  rejected({ ...good, online: { ...good.online, latency_ms: Number.POSITIVE_INFINITY } }, /not a finite number/);
});

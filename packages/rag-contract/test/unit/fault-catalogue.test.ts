import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CAUSES } from '@rag-immune/contracts';
import { DEPLOY_FAULT_KINDS, EVALUATION_FAULT_KINDS, FAULT_CATALOGUE, FAULT_KINDS, QDRANT_FAULT_KINDS } from '../../src/index.ts';

test('the fault catalogue has one entry per fault kind, however it is put in', () => {
  assert.deepEqual(
    Object.keys(FAULT_CATALOGUE).sort(),
    [...FAULT_KINDS, ...EVALUATION_FAULT_KINDS, ...QDRANT_FAULT_KINDS, ...DEPLOY_FAULT_KINDS].sort(),
  );
});

for (const [kind, spec] of Object.entries(FAULT_CATALOGUE)) {
  test(`${kind}: its trial and scenario modes are modes it takes; its cause is catalogued with its component and a healing intent`, () => {
    for (const mode of [...spec.trialModes, ...spec.scenarioModes]) assert.ok(spec.modes.includes(mode), `${kind} has no mode ${mode}`);
    if (spec.cause === null) {
      assert.deepEqual(spec.healingIntents, [], 'an evaluation kind has no right repair');
      assert.ok((EVALUATION_FAULT_KINDS as readonly string[]).includes(kind));
      return;
    }
    const entry = CAUSES[spec.cause];
    assert.ok(spec.components.includes(entry.component), `${kind}: ${spec.cause} is in ${entry.component}`);
    assert.ok(
      spec.healingIntents.some((intent) => entry.intents.includes(intent)),
      `${kind}: none of ${spec.healingIntents.join(', ')} is an intent of ${spec.cause}`,
    );
  });
}

test('only faults with a fault API have identifier scenarios (they are injected through it)', () => {
  for (const kind of [...QDRANT_FAULT_KINDS, ...DEPLOY_FAULT_KINDS]) assert.deepEqual(FAULT_CATALOGUE[kind].scenarioModes, [], kind);
  for (const kind of [...FAULT_KINDS, ...EVALUATION_FAULT_KINDS]) assert.ok(FAULT_CATALOGUE[kind].scenarioModes.length > 0, kind);
});

/**
 * The walk of one RootCauseReport's slices through the effector's plan loop (issue 37, item 3): the
 * files whose code runs, in order, and how often the walk returns to a file it had left.
 *
 * The report: two causes (two slices). Slice 1's first planned tool runs and is verified; slice 2's
 * first tool fails (the runner undoes it) and its plan's next step is the terminal one (escalation).
 * Each entry is one call from a file of the plan loop into another file of the effector (stores,
 * catalogue, gates, runner, escalation), read off the code by hand; a callee's own callees are not
 * followed unless it is a file of the plan loop itself (plan/*.ts). The caller is entered again when
 * the callee returns. Run: `npx tsx services/effector/scripts/plan-walk.ts`.
 */

type Walk = readonly (string | readonly [string, Walk])[];

/** main before issue 37 item 3: plan-loop.ts called every collaborator itself. */
const slicesBefore = (secondSlice: boolean): Walk => [
  'state/action-store.ts', // list the incident's actions
  'plan/kept-repairs.ts', // healedAlready, keptRepairOf
  'verify/cause-scope.ts', // hasSeveralCauses
  'state/action-store.ts', // list again
  'policy/decision.ts', // toolsNotToRetry
  'plan/memory-consultation.ts',
  'policy/decision.ts', // decide
  'effector-deps.ts', // toolContextFor
  'actions/catalogue.ts', // tools.named
  'plan/planned-actions.ts', // ensurePlanned
  'breaker/breaker-gate.ts', // checkBreaker
  'grants/grant-gate.ts',
  'breaker/breaker-gate.ts', // claimRateSlot
  'run/action-runner.ts',
  'breaker/breaker-gate.ts', // releaseRateSlotUnlessStarted
  ...(secondSlice
    ? ['actions/catalogue.ts', 'plan/planned-actions.ts', 'escalation/escalation.ts'] // the terminal step escalates
    : []),
];
const BEFORE: Walk = [
  [
    'plan/plan-loop.ts',
    [
      'state/incident-store.ts', // record, held_for_human
      'state/action-store.ts', // owed undos
      'state/mode-store.ts',
      'verify/cause-scope.ts', // causeSlices
      ...slicesBefore(false),
      ...slicesBefore(true),
    ],
  ],
];

/** After: the plan loop hands a cause to cause-plan.ts and each step to plan-step.ts; settle alone escalates. */
const causePlan: Walk = [
  [
    'plan/cause-plan.ts',
    ['state/action-store.ts', 'policy/decision.ts', 'plan/memory-consultation.ts', 'policy/decision.ts', 'actions/tool-context.ts'],
  ],
];
const step = (terminal: boolean): Walk => [
  [
    'plan/plan-step.ts',
    terminal
      ? ['plan/planned-actions.ts', 'verify/cause-scope.ts']
      : [
          'plan/planned-actions.ts',
          'verify/cause-scope.ts', // hasSeveralCauses
          'breaker/breaker-gate.ts',
          'grants/grant-gate.ts',
          'breaker/breaker-gate.ts',
          'run/action-runner.ts',
          'breaker/breaker-gate.ts',
        ],
  ],
];
const AFTER: Walk = [
  [
    'plan/plan-loop.ts',
    [
      'state/incident-store.ts',
      'state/action-store.ts',
      'state/mode-store.ts',
      'verify/cause-scope.ts',
      // slice 1
      'state/action-store.ts',
      'plan/kept-repairs.ts',
      ...causePlan,
      'actions/catalogue.ts',
      ...step(false),
      // slice 2
      'state/action-store.ts',
      'plan/kept-repairs.ts',
      ...causePlan,
      'actions/catalogue.ts',
      ...step(false),
      'actions/catalogue.ts',
      ...step(true),
      'escalation/escalation.ts', // settle
    ],
  ],
];

/** The files in the order the code runs in them: a callee is entered, then its caller again. */
function flatten(walk: Walk, caller: string | null = null, out: string[] = []): string[] {
  for (const entry of walk) {
    const [file, calls] = typeof entry === 'string' ? [entry, [] as Walk] : entry;
    out.push(file);
    flatten(calls, file, out);
    if (caller !== null) out.push(caller);
  }
  return out;
}

/** Entries into a file the walk had been in before and left (staying in a file is not a return). */
export function returns(files: readonly string[]): number {
  const seen = new Set<string>();
  let count = 0;
  files.forEach((file, i) => {
    if (i > 0 && files[i - 1] === file) return;
    if (seen.has(file)) count += 1;
    seen.add(file);
  });
  return count;
}

/** Returns to plan/plan-loop.ts itself: how often reading the loop's own file sends the reader away and back. */
const loopReturns = (files: readonly string[]) => files.filter((f, i) => i > 0 && f === 'plan/plan-loop.ts' && files[i - 1] !== f).length;

/** Calls into a file called before (a collaborator consulted again at a later point): returns to callers not counted. */
function recalls(walk: Walk, seen = new Set<string>()): number {
  let count = 0;
  for (const entry of walk) {
    const [file, calls] = typeof entry === 'string' ? [entry, [] as Walk] : entry;
    if (seen.has(file)) count += 1;
    seen.add(file);
    count += recalls(calls, seen);
  }
  return count;
}

/** Returns to the plan loop's own files (plan/*.ts) only: the back-and-forth a reader of the loop follows. */
const planReturns = (files: readonly string[]) => returns(files.filter((f) => f.startsWith('plan/')));

for (const [name, walk] of [
  ['before', BEFORE],
  ['after', AFTER],
] as const) {
  const files = flatten(walk);
  console.log(
    `${name}: ${files.length} entries, ${returns(files)} returns to a file left before, ${planReturns(files)} among the plan loop's own files, ${recalls(walk)} calls into a file called before, ${loopReturns(files)} returns to plan-loop.ts`,
  );
}

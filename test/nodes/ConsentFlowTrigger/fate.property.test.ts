// Issue 41 as properties of the delivery memory (dedupe.ts lookUp/hold) and the decision table
// (decide.ts decide/settle), on random interleavings of copies arriving, connection drops, what n8n
// reports of the run, and time passing. The expectations are the rule, not the table:
//   - once a run's execution is known to exist (Immediately) or to have succeeded (When the Workflow
//     Finishes), no later copy runs, unless n8n stayed silent past the bound;
//   - a run that failed under When the Workflow Finishes lets the key go: the next copy runs;
//   - a closed connection changes no answer: the same sequence without its drops answers the same;
//   - nothing is stuck: after an outcome or the bound, no copy is answered in-progress.
import fc from 'fast-check';

import { FLIGHT_BOUND_MS, type Held, type Slot } from '../../../nodes/ConsentFlowTrigger/dedupe';
import { answerPlan, answererOf, type RunEvent } from '../../../nodes/shared/webhook/decide';
import { admit, type Admission } from '../../support/admission';
import { freshDedupe, type Dedupe } from '../../support/fresh-modules';

type Step =
	| { kind: 'copy' }
	| { kind: 'event'; event: Exclude<RunEvent, 'expired'> }
	| { kind: 'wait'; ms: number };

const step: fc.Arbitrary<Step> = fc.oneof(
	fc.constant<Step>({ kind: 'copy' }),
	fc
		.constantFrom('stored', 'executed', 'succeeded', 'failed', 'closed')
		.map((event) => ({ kind: 'event', event }) as Step),
	fc
		.constantFrom(1_000, FLIGHT_BOUND_MS / 2, FLIGHT_BOUND_MS)
		.map((ms) => ({ kind: 'wait', ms }) as Step),
);

const MODES = [
	['onReceived', true],
	['onReceived', false],
	['lastNode', false],
] as const;

// Which events prove, by the rule, that the delivery must not run again.
const SETTLES_FOR_GOOD: Record<string, readonly string[]> = {
	'onReceived/true': ['stored', 'succeeded'],
	'onReceived/false': ['executed', 'succeeded'],
	'lastNode/false': ['succeeded'],
};

let trigger = 0;

/** Plays `steps` against one key; returns every copy's admission and the rule's verdicts. */
function play(mode: readonly ['onReceived' | 'lastNode', boolean], steps: Step[]): Admission[] {
	const plan = answerPlan(answererOf(mode[0], mode[1]), true);
	const slot: Slot = { memoryKey: `t${++trigger}`, key: 'k', also: [], limit: 1000 };
	let now = 1_000_000;
	let run: { held: Held; settled: boolean; started: number } | undefined;
	let settledForGood = false;
	const answers: Admission[] = [];
	for (const s of steps) {
		if (s.kind === 'wait') now += s.ms;
		else if (s.kind === 'event') {
			if (run === undefined || run.settled) continue;
			report(run.held, s.event);
			if (SETTLES_FOR_GOOD[mode.join('/')].includes(s.event)) settledForGood = true;
			if (settledForGood || s.event === 'failed') run.settled = true;
		} else {
			const admission = admit(plan, lookUp(slot, now));
			answers.push(admission);
			const silentTooLong =
				run !== undefined && !run.settled && now - run.started >= FLIGHT_BOUND_MS;
			// the rule: after a proof of the run, every copy is a duplicate
			if (settledForGood) expect(admission).toBe('duplicate');
			// nothing stuck: a settled or silent run never answers in-progress
			if (run === undefined || run.settled || silentTooLong)
				expect(admission).not.toBe('in-progress');
			// a run not settled and within the bound holds its copies
			if (run !== undefined && !run.settled && !silentTooLong)
				expect(admission).toBe('in-progress');
			if (admission === 'run') run = { held: hold(slot, plan, now), settled: false, started: now };
		}
	}
	return answers;
}

// Every test runs in a new n8n process: a fresh copy of dedupe.ts, nothing remembered or held.
let hold: Dedupe['hold'];
let lookUp: Dedupe['lookUp'];
let report: Dedupe['report'];
beforeEach(() => {
	({ hold, lookUp, report } = freshDedupe());
});

describe.each(MODES)('Respond %s (n8n answers when stored: %s)', (respond, atEnqueue) => {
	it('follows the run: never runs again after its proof, never stuck, held while unknown', () => {
		fc.assert(
			fc.property(fc.array(step, { maxLength: 40 }), (steps) => {
				play([respond, atEnqueue], steps);
			}),
			{ numRuns: 400 },
		);
	});

	it('a closed connection changes no answer: the same steps without their drops answer the same', () => {
		fc.assert(
			fc.property(fc.array(step, { maxLength: 40 }), (steps) => {
				const withDrops = play([respond, atEnqueue], steps);
				const without = play(
					[respond, atEnqueue],
					steps.filter((s) => !(s.kind === 'event' && s.event === 'closed')),
				);
				expect(withDrops).toEqual(without);
			}),
			{ numRuns: 400 },
		);
	});
});

test('When the Workflow Finishes: a failed run lets the key go, and the next copy runs', () => {
	expect(
		play(
			['lastNode', false],
			[
				{ kind: 'copy' },
				{ kind: 'event', event: 'closed' },
				{ kind: 'event', event: 'failed' },
				{ kind: 'copy' },
			],
		),
	).toEqual(['run', 'run']);
	expect(
		play(
			['lastNode', false],
			[
				{ kind: 'copy' },
				{ kind: 'event', event: 'closed' },
				{ kind: 'event', event: 'succeeded' },
				{ kind: 'copy' },
			],
		),
	).toEqual(['run', 'duplicate']);
});

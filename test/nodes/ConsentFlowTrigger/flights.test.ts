// Issue 41: runs held in flight (dedupe.ts hold/report/lookUp) end with their run, or after the
// stated bound, and the set of them is bounded.
import {
	FLIGHT_BOUND_MS,
	MAX_IN_FLIGHT,
	type Slot,
} from '../../../nodes/ConsentFlowTrigger/dedupe';
import { answerPlan } from '../../../nodes/shared/webhook/decide';
import { freshDedupe, type Dedupe } from '../../support/fresh-modules';

const AFTER_RUN = answerPlan('n8n-after-run', true);
const slot = (key: string, memoryKey = 'flights'): Slot => ({
	memoryKey,
	key,
	also: [],
	legacy: [],
	limit: 1000,
});

// Every test runs in a new n8n process: a fresh copy of dedupe.ts, nothing remembered or held.
let hold: Dedupe['hold'];
let lookUp: Dedupe['lookUp'];
let report: Dedupe['report'];
beforeEach(() => {
	({ hold, lookUp, report } = freshDedupe());
});

test('a held run keeps its copies in flight through a closed connection, until n8n answers', () => {
	const run = hold(slot('a'), AFTER_RUN, 0);
	report(run, 'closed');
	expect(lookUp(slot('a'), 1)).toEqual({ duplicate: false, copyInFlight: true });
	report(run, 'succeeded');
	expect(lookUp(slot('a'), 2)).toEqual({ duplicate: true, copyInFlight: false });
	// a later event of a settled run changes nothing
	report(run, 'failed');
	expect(lookUp(slot('a'), 3)).toEqual({ duplicate: true, copyInFlight: false });
});

test(`n8n silent: the mark ends at the bound (${FLIGHT_BOUND_MS / 60000} minutes), and the key is not remembered`, () => {
	hold(slot('b'), AFTER_RUN, 0);
	expect(lookUp(slot('b'), FLIGHT_BOUND_MS - 1).copyInFlight).toBe(true);
	expect(lookUp(slot('b'), FLIGHT_BOUND_MS)).toEqual({ duplicate: false, copyInFlight: false });
});

test(`at most ${MAX_IN_FLIGHT} runs per trigger are held: one more lets the oldest go, as silent`, () => {
	for (let i = 0; i <= MAX_IN_FLIGHT; i++) hold(slot(`k${i}`), AFTER_RUN, 0);
	expect(lookUp(slot('k0'), 1)).toEqual({ duplicate: false, copyInFlight: false });
	expect(lookUp(slot('k1'), 1).copyInFlight).toBe(true);
	expect(lookUp(slot(`k${MAX_IN_FLIGHT}`), 1).copyInFlight).toBe(true);
	// another trigger's runs are its own
	expect(lookUp(slot('k1', 'other'), 1).copyInFlight).toBe(false);
});

test('a rotation: the keys under both secrets are held and remembered together', () => {
	const both: Slot = { ...slot('~k:current'), also: ['~k:previous'] };
	const run = hold(both, AFTER_RUN, 0);
	expect(lookUp(slot('~k:previous'), 1).copyInFlight).toBe(true);
	report(run, 'succeeded');
	expect(lookUp(slot('~k:previous'), 2).duplicate).toBe(true);
	expect(lookUp(slot('~k:current'), 2).duplicate).toBe(true);
});

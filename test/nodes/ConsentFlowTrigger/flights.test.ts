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
	expect(lookUp(slot('a'), 1)).toMatchObject({ duplicate: false, copyInFlight: true });
	report(run, 'succeeded');
	expect(lookUp(slot('a'), 2)).toMatchObject({ duplicate: true, copyInFlight: false });
	// a later event of a settled run changes nothing
	report(run, 'failed');
	expect(lookUp(slot('a'), 3)).toMatchObject({ duplicate: true, copyInFlight: false });
});

test(`n8n silent: the mark ends at the bound (${FLIGHT_BOUND_MS / 60000} minutes), and the key is not remembered`, () => {
	hold(slot('b'), AFTER_RUN, 0);
	expect(lookUp(slot('b'), FLIGHT_BOUND_MS - 1).copyInFlight).toBe(true);
	expect(lookUp(slot('b'), FLIGHT_BOUND_MS)).toMatchObject({
		duplicate: false,
		copyInFlight: false,
	});
});

test(`at most ${MAX_IN_FLIGHT} runs per trigger are held: then a new one is refused, none let go`, () => {
	for (let i = 0; i < MAX_IN_FLIGHT; i++) hold(slot(`k${i}`), AFTER_RUN, 0);
	const next = lookUp(slot(`k${MAX_IN_FLIGHT}`), 1);
	expect(next).toEqual({ duplicate: false, copyInFlight: false, flightFull: true });
	// the oldest unfinished run still holds its copies
	expect(lookUp(slot('k0'), 1)).toEqual({ duplicate: false, copyInFlight: true, flightFull: true });
	// another trigger's runs are its own
	expect(lookUp(slot('k1', 'other'), 1)).toEqual({
		duplicate: false,
		copyInFlight: false,
		flightFull: false,
	});
});

test('a full set makes room as runs end, or as the oldest pass their bound (oldest first)', () => {
	const runs = Array.from({ length: MAX_IN_FLIGHT }, (_, i) =>
		hold(slot(`k${i}`), AFTER_RUN, i < 2 ? 0 : 1),
	);
	report(runs[5], 'succeeded');
	expect(lookUp(slot('new'), 2).flightFull).toBe(false);
	hold(slot('new'), AFTER_RUN, 2);
	expect(lookUp(slot('newer'), 2).flightFull).toBe(true);
	// the two held at 0 pass their bound first: the oldest is settled, one held later is not
	expect(lookUp(slot('newer'), FLIGHT_BOUND_MS).flightFull).toBe(false);
	expect(lookUp(slot('k0'), FLIGHT_BOUND_MS).copyInFlight).toBe(false);
	expect(lookUp(slot('k2'), FLIGHT_BOUND_MS).copyInFlight).toBe(true);
});

test('a rotation: the keys under both secrets are held and remembered together', () => {
	const both: Slot = { ...slot('~k:current'), also: ['~k:previous'] };
	const run = hold(both, AFTER_RUN, 0);
	expect(lookUp(slot('~k:previous'), 1).copyInFlight).toBe(true);
	report(run, 'succeeded');
	expect(lookUp(slot('~k:previous'), 2).duplicate).toBe(true);
	expect(lookUp(slot('~k:current'), 2).duplicate).toBe(true);
});

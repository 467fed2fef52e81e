/**
 * The trigger's answer decision (answerPlan, decide and settle in nodes/shared/webhook/decide.ts) as a table: respond mode ×
 * what n8n offers × whether the delivery has an id → who answers, when the id is remembered,
 * whether copies are held; then what a copy gets and what happens after the answer. The rows
 * are the README's promises ("Answers and duplicates"); the behaviour in a real n8n is judged by
 * test/e2e/trigger-loop.test.js and the queue-mode suite.
 */
import {
	answererOf,
	answerPlan as planOf,
	settle,
	type AnswerPlan,
	type RunEvent,
	type RespondMode,
} from '../../../../nodes/shared/webhook/decide';
import { admit } from '../../../support/admission';

const answerPlan = (respond: RespondMode, atEnqueue: boolean, hasKey: boolean): AnswerPlan =>
	planOf(answererOf(respond, atEnqueue), hasKey);

describe('answerPlan', () => {
	test.each([
		// respond, n8n answers when stored, has id → answeredBy, remember
		['onReceived', true, true, 'n8n-when-stored', 'when-stored'],
		['onReceived', false, true, 'execute', 'when-answered'],
		['lastNode', true, true, 'n8n-after-run', 'after-2xx'],
		['lastNode', false, true, 'n8n-after-run', 'after-2xx'],
		['onReceived', true, false, 'n8n-when-stored', 'never'],
		['onReceived', false, false, 'execute', 'never'],
		['lastNode', true, false, 'n8n-after-run', 'never'],
		['lastNode', false, false, 'n8n-after-run', 'never'],
	] as const)(
		'%s, at enqueue %s, id %s → %s, remember %s',
		(respond, atEnqueue, hasKey, answeredBy, remember) => {
			expect(answerPlan(respond, atEnqueue, hasKey)).toEqual({ answeredBy, remember });
		},
	);
});

const plan = (respond: 'onReceived' | 'lastNode', atEnqueue: boolean, hasKey = true): AnswerPlan =>
	answerPlan(respond, atEnqueue, hasKey);

describe('decide: what a delivery gets', () => {
	test.each([
		// plan, duplicate, copy in flight, as many runs held as the bound allows → admission
		[plan('onReceived', true), false, false, false, 'run'],
		[plan('onReceived', true), false, true, false, 'in-progress'],
		[plan('onReceived', true), true, true, false, 'duplicate'],
		[plan('onReceived', false), false, true, false, 'in-progress'], // held until the execution answers
		[plan('onReceived', false), false, false, false, 'run'],
		[plan('onReceived', false), true, false, false, 'duplicate'],
		[plan('lastNode', false), false, true, false, 'in-progress'],
		[plan('lastNode', false), true, false, false, 'duplicate'],
		[plan('lastNode', false, false), true, true, true, 'run'], // no id: always runs, never held
		[plan('onReceived', true, false), true, true, true, 'run'],
		// a full set refuses a new run; a copy or a duplicate is answered as before
		[plan('onReceived', true), false, false, true, 'busy'],
		[plan('lastNode', false), false, false, true, 'busy'],
		[plan('onReceived', false), false, true, true, 'in-progress'],
		[plan('lastNode', false), true, false, true, 'duplicate'],
	] as const)(
		'%o, duplicate %s, copy in flight %s, full %s → %s',
		(p, duplicate, copyInFlight, flightFull, admission) => {
			expect(admit(p, { duplicate, copyInFlight, flightFull })).toBe(admission);
		},
	);
});

// Issue 41: what a run's events do to its key. Expected from the rule, not from the table:
// once n8n started an execution the key is remembered; only a failed "When the Workflow Finishes"
// run lets it go; a closed connection alone changes nothing; silence past the bound never loses.
const EVENTS: RunEvent[] = ['stored', 'executed', 'succeeded', 'failed', 'closed', 'expired'];

describe('settle: what an event of a held run does', () => {
	test.each([
		// plan, event → memory, release
		[plan('onReceived', true), 'stored', 'remember', true], // n8n 2.x stored the execution
		[plan('onReceived', true), 'succeeded', 'remember', true],
		[plan('onReceived', true), 'failed', 'forget', true], // answered non-2xx before storing: no execution
		[plan('onReceived', true), 'closed', 'keep', false], // the sender hung up: n8n still stores it
		[plan('onReceived', true), 'expired', 'forget', true], // never heard of: the retry runs
		[plan('onReceived', false), 'executed', 'remember', true], // execute() took it here
		[plan('onReceived', false), 'succeeded', 'remember', true], // its answer went out (queue mode)
		[plan('onReceived', false), 'closed', 'keep', false],
		[plan('onReceived', false), 'failed', 'forget', true],
		[plan('lastNode', false), 'stored', 'keep', false], // still running
		[plan('lastNode', false), 'executed', 'keep', false],
		[plan('lastNode', false), 'succeeded', 'remember', true], // only a succeeded run is remembered
		[plan('lastNode', false), 'failed', 'forget', true], // its retry must run
		[plan('lastNode', false), 'closed', 'keep', false], // hung up while it runs: nothing yet
		[plan('lastNode', false), 'expired', 'forget', true],
		[plan('lastNode', false, false), 'succeeded', 'keep', true], // no key: nothing to remember
		[plan('onReceived', false, false), 'closed', 'keep', true],
	] as const)('%o, %s → %s, release %s', (p, event, memory, release) => {
		expect(settle(p, event)).toEqual({ memory, release });
	});
});

test('the rule: a closed connection never changes a key; only a run that did not succeed, or silence, lets one go', () => {
	for (const respond of ['onReceived', 'lastNode'] as const) {
		for (const atEnqueue of [true, false]) {
			const p = plan(respond, atEnqueue);
			// nothing is remembered before the execution exists, and copies are held meanwhile
			expect(['when-stored', 'when-answered', 'after-2xx']).toContain(p.remember);
			expect(settle(p, 'closed')).toEqual({ memory: 'keep', release: false });
			for (const event of EVENTS) {
				const { memory, release } = settle(p, event);
				// a key is let go only where no execution is known to have succeeded
				if (memory === 'forget') expect(['failed', 'expired']).toContain(event);
				// an event that settles nothing keeps holding copies (409), never answers them
				if (!release) expect(memory).toBe('keep');
			}
			// every plan settles on success, failure and silence: nothing stays in flight
			for (const event of ['succeeded', 'failed', 'expired'] as const)
				expect(settle(p, event).release).toBe(true);
		}
	}
});

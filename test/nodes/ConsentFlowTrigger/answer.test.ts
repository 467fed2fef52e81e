/**
 * The trigger's answer decision (answerPlan, admit and settle in nodes/shared/webhook/decide.ts) as a table: respond mode ×
 * what n8n offers × whether the delivery has an id → who answers, when the id is remembered,
 * whether copies are held; then what a copy gets and what happens after the answer. The rows
 * are the README's promises ("Answers and duplicates"); the behaviour in a real n8n is judged by
 * test/e2e/trigger-loop.test.js and the queue-mode suite.
 */
import {
	admit,
	answererOf,
	answerPlan as planOf,
	settle,
	type AnswerPlan,
	type RespondMode,
} from '../../../nodes/shared/webhook/decide';

const answerPlan = (respond: RespondMode, atEnqueue: boolean, hasKey: boolean): AnswerPlan =>
	planOf(answererOf(respond, atEnqueue), hasKey);

describe('answerPlan', () => {
	test.each([
		// respond, n8n answers when stored, has id → answeredBy, remember, holdCopies
		['onReceived', true, true, 'n8n-when-stored', 'when-stored', true],
		['onReceived', false, true, 'execute', 'when-answered', true],
		['lastNode', true, true, 'n8n-after-run', 'after-2xx', true],
		['lastNode', false, true, 'n8n-after-run', 'after-2xx', true],
		['onReceived', true, false, 'n8n-when-stored', 'never', false],
		['onReceived', false, false, 'execute', 'never', false],
		['lastNode', true, false, 'n8n-after-run', 'never', false],
		['lastNode', false, false, 'n8n-after-run', 'never', false],
	] as const)('%s, at enqueue %s, id %s → %s, remember %s, hold copies %s', (respond, atEnqueue, hasKey, answeredBy, remember, holdCopies) => {
		expect(answerPlan(respond, atEnqueue, hasKey)).toEqual({ answeredBy, remember, holdCopies });
	});
});

const plan = (respond: 'onReceived' | 'lastNode', atEnqueue: boolean, hasKey = true): AnswerPlan =>
	answerPlan(respond, atEnqueue, hasKey);

describe('admit: what a delivery gets', () => {
	test.each([
		// plan, duplicate, copy in flight → admission
		[plan('onReceived', true), false, false, 'run'],
		[plan('onReceived', true), false, true, 'in-progress'],
		[plan('onReceived', true), true, true, 'duplicate'],
		[plan('onReceived', false), false, true, 'in-progress'], // held until the execution answers
		[plan('onReceived', false), false, false, 'run'],
		[plan('onReceived', false), true, false, 'duplicate'],
		[plan('lastNode', false), false, true, 'in-progress'],
		[plan('lastNode', false), true, false, 'duplicate'],
		[plan('lastNode', false, false), true, true, 'run'], // no id: always runs
		[plan('onReceived', true, false), true, true, 'run'],
	] as const)('%o, duplicate %s, copy in flight %s → %s', (p, duplicate, copyInFlight, admission) => {
		expect(admit(p, { duplicate, copyInFlight })).toBe(admission);
	});
});

describe('settle: after the answer', () => {
	test.each([
		// plan, answered 2xx → settlement
		[plan('onReceived', true), true, 'keep'], // recorded when stored
		[plan('onReceived', true), false, 'forget'], // n8n could not store it: the retry must run
		[plan('onReceived', false), true, 'remember'], // the execution's first step answered
		[plan('onReceived', false), false, 'forget'],
		[plan('lastNode', false), true, 'remember'], // only a succeeded run is remembered
		[plan('lastNode', false), false, 'keep'], // 500 or dropped: the retry runs
		[plan('lastNode', false, false), true, 'keep'],
		[plan('onReceived', false, false), false, 'keep'],
	] as const)('%o, answered %s → %s', (p, answered, settlement) => {
		expect(settle(p, answered)).toBe(settlement);
	});
});

test('the rule: no row answers and loses — no id is remembered before its execution exists or kept without a 2xx', () => {
	for (const respond of ['onReceived', 'lastNode'] as const) {
		for (const atEnqueue of [true, false]) {
			const p = plan(respond, atEnqueue);
			// nothing is remembered before the execution exists ...
			expect(['when-stored', 'when-answered', 'after-2xx']).toContain(p.remember);
			// ... a delivery not answered 2xx never stays remembered, so its retry runs ...
			expect(['forget', 'keep']).toContain(settle(p, false));
			if (p.remember !== 'after-2xx') expect(settle(p, false)).toBe('forget');
			// ... and copies are held while it is not settled, rather than run or called duplicates
			expect(p.holdCopies).toBe(true);
		}
	}
});

/**
 * Create and Wait for Outcome, the pure module (nodes/ConsentFlow/flow/outcome.ts), checked
 * against the published rule rather than its own tables: the mapping below is written from the
 * issue's text, and the event list is the service description's Events table
 * (PUBLISHED_EVENTS, /work/shared/api/consent-flow-service.md). Only the functions and the cap
 * are imported from the module under test.
 */
import { randomBytes } from 'node:crypto';
import fc from 'fast-check';
import {
	MAX_EVENTS_KEPT,
	advanceWait,
	limitDeadline,
	newWaitState,
	notThisWait,
	outcomeJson,
	FAILED_INDEX,
	outputNames,
	outputOf,
	readWaitState,
	waitOutcome,
	waitTimeExceededJson,
	waitingJson,
	withNotTaken,
	type Match,
	type WaitState,
} from '../../../nodes/ConsentFlow/flow/outcome';
import { PUBLISHED_EVENTS } from '../ConsentFlowTrigger/helpers';
import { syntheticNationalId } from '../../support/synthetic-ids';
import { matchKey } from '../../../nodes/shared/webhook/webhook-id';

// ---------- the rule, written from the issue ----------

/** The outputs in order, as the issue names them; the fifth only with Limit Wait Time. */
const OUTPUTS = ['Data Received', 'Rejected', 'Deleted', 'Failed/Expired'];
const WAIT_TIME_EXCEEDED = 'Wait Timed Out';

/** Event → output name, or null for an intermediate event (keeps waiting). */
const RULE: Record<string, string | null> = {
	'consent.created': null,
	'consent.accepted': null,
	'consent.data': 'Data Received',
	'consent.rejected': 'Rejected',
	'consent.deleted': 'Deleted',
	'consent.timedOut': 'Failed/Expired',
	'consent.timedOutDataFailed': 'Failed/Expired',
	'user.timedOut': 'Failed/Expired',
	'tax.dataFailed': 'Failed/Expired',
	'income.dataFailed': 'Failed/Expired',
};

/** `outcome` of the item per output, as the item shape names it. */
const OUTCOME_VALUE: Record<string, string> = {
	'Data Received': 'dataReceived',
	Rejected: 'rejected',
	Deleted: 'deleted',
	'Failed/Expired': 'failedOrTimedOut',
};

/** The output an event ends the wait on, as the module finds it; null: none. */
function outcomeIndex(event: unknown): number | null {
	const ends = waitOutcome(event);
	return ends === undefined || ends === null ? null : outputOf(ends);
}

function expectedIndex(event: unknown): number | null {
	if (typeof event !== 'string' || !Object.prototype.hasOwnProperty.call(RULE, event)) return null;
	const name = RULE[event];
	return name === null ? null : OUTPUTS.indexOf(name);
}

const OUTCOME_EVENTS = Object.keys(RULE).filter((event) => RULE[event] !== null);
const INTERMEDIATE_EVENTS = Object.keys(RULE).filter((event) => RULE[event] === null);

const FLOW_ID = 'flow-A';
const OTHER_FLOW = 'flow-B';
const STARTED = '2030-01-01T00:00:00.000Z';
const NOW = '2030-01-02T03:04:05.000Z';
const NATIONAL_ID = syntheticNationalId(1);

function flow(id: unknown = FLOW_ID): Record<string, unknown> {
	return {
		id,
		externalId: 'loan-42',
		href: 'https://consent.example/flows/x',
		requestStatus: 'Unopened',
	};
}

function waiting(deadline: string | null = null): WaitState {
	return newWait(flow(), STARTED, deadline);
}

let serial = 0;
function delivery(
	event: unknown,
	overrides: Record<string, unknown> = {},
): Record<string, unknown> {
	serial += 1;
	return {
		event,
		webhookId: `wh-${serial}`,
		timestamp: STARTED,
		flowId: FLOW_ID,
		externalId: 'loan-42',
		nationalId: NATIONAL_ID,
		authorizationCode: 'auth-code-1',
		payload: {
			flow: FLOW_ID,
			externalId: 'loan-42',
			nationalId: NATIONAL_ID,
			authorizationCode: 'auth-code-1',
		},
		receivedAt: STARTED,
		...overrides,
	};
}

/** A value as the wait keeps it: non-empty text, a finite number as text, else null. */
function norm(value: unknown): string | null {
	if (typeof value === 'string' && value !== '') return value;
	if (typeof value === 'number' && Number.isFinite(value)) return String(value);
	return null;
}

/** What the wait may keep of a delivery (issue 25): which event, its id and its times. */
function seen(sent: Record<string, unknown>): Record<string, unknown> {
	return {
		event: norm(sent.event),
		webhookId: norm(sent.webhookId),
		timestamp: norm(sent.timestamp),
		receivedAt: norm(sent.receivedAt),
	};
}

/** Fails when the serialised value holds personal data or a payload of a delivery. */
function expectNothingPersonal(value: unknown): void {
	const text = JSON.stringify(value);
	expect(text).not.toContain(NATIONAL_ID);
	expect(text).not.toContain('auth-code-1');
	expect(text).not.toContain('"payload"');
	expect(text).not.toContain('nationalId');
}

/** Freezes a value and everything reachable from it: any mutation then throws (strict mode). */
function deepFreeze<T>(value: T): T {
	if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
		Object.freeze(value);
		for (const key of Object.getOwnPropertyNames(value)) {
			deepFreeze((value as Record<string, unknown>)[key]);
		}
	}
	return value;
}

// ---------- matching as webhook() carries it: the values as sent, the External ID as keyed hashes ----------

const SECRET = randomBytes(16).toString('hex');

/** What webhook() carries for a delivery: its flow id as sent, its External ID hashed under the secret. */
function matchOf(sent: Record<string, unknown>): Match {
	const externalId = norm(sent.externalId);
	return {
		flowId: norm(sent.flowId),
		externalIdKeys: externalId === null ? [] : [matchKey(externalId, SECRET)],
	};
}

/** A new wait as createFlow keeps it: the External ID's keyed hash beside it. */
function newWait(...args: Parameters<typeof newWaitState>): WaitState {
	const state = newWaitState(...args);
	const externalId = state.externalId;
	return { ...state, externalIdKey: externalId === null ? null : matchKey(externalId, SECRET) };
}

/** `key`: the delivery's duplicate key, carried in its Match. */
function advance(
	state: WaitState,
	sent: Record<string, unknown>,
	now: string,
	key?: string,
): ReturnType<typeof advanceWait> {
	return advanceWait(state, sent, now, { ...matchOf(sent), key });
}

const notThis = (state: WaitState, sent: Record<string, unknown>) =>
	notThisWait(state, matchOf(sent), sent.flowId);

// ---------- the mapping ----------

describe('outputs and the event → output rule', () => {
	test('the rule covers exactly the ten events of the service description', () => {
		expect(PUBLISHED_EVENTS).toHaveLength(10);
		expect(Object.keys(RULE).sort()).toEqual([...PUBLISHED_EVENTS].sort());
	});

	test('output names, in order, with and without Limit Wait Time', () => {
		expect(outputNames(false)).toEqual(OUTPUTS);
		expect(outputNames(true)).toEqual([...OUTPUTS, WAIT_TIME_EXCEEDED]);
		// refused items go to Failed/Expired, found by its outcome, not by a number
		expect(outputNames(false)[FAILED_INDEX]).toBe('Failed/Expired');
	});

	test.each(PUBLISHED_EVENTS.map((event) => [event, RULE[event]]))('%s → %s', (event, name) => {
		const index = outcomeIndex(event);
		if (name === null) {
			expect(index).toBeNull();
		} else {
			expect(index).toBe(OUTPUTS.indexOf(name));
			expect(outputNames(false)[index!]).toBe(name);
		}
	});

	test.each([
		['an unknown event', 'consent.unknown'],
		['another case', 'CONSENT.DATA'],
		['a padded name', ' consent.data'],
		['the empty string', ''],
		['a prototype member', 'constructor'],
		['__proto__', '__proto__'],
		['toString', 'toString'],
		['undefined', undefined],
		['null', null],
		['a number', 3],
		['an object', { event: 'consent.data' }],
		['an array', ['consent.data']],
		['a boolean', true],
	])('%s is intermediate (null)', (_label, event) => {
		expect(outcomeIndex(event)).toBeNull();
	});

	test('property: any value is classified exactly as the rule says', () => {
		fc.assert(
			fc.property(
				fc.oneof(fc.constantFrom(...PUBLISHED_EVENTS), fc.string(), fc.anything()),
				(event) => {
					expect(outcomeIndex(event)).toBe(expectedIndex(event));
				},
			),
		);
	});
});

// ---------- waitOutcome ----------

describe('waitOutcome: the outcome an event ends the wait on', () => {
	test.each(PUBLISHED_EVENTS.map((event) => [event, RULE[event]]))(
		'%s ends it on %s',
		(event, name) => {
			expect(waitOutcome(event)).toBe(name === null ? null : OUTCOME_VALUE[name]);
		},
	);

	test.each([
		['an unknown event', 'consent.unknown'],
		['another case', 'CONSENT.DATA'],
		['a prototype member', 'constructor'],
		['__proto__', '__proto__'],
		['toString', 'toString'],
		['undefined', undefined],
		['a number', 3],
		['an array', ['consent.data']],
	])('%s is no event', (_label, event) => {
		expect(waitOutcome(event)).toBeUndefined();
	});
});

// ---------- advanceWait ----------

describe('advanceWait', () => {
	test('another flow’s event is foreign and leaves the state as it was', () => {
		const state = deepFreeze(waiting());
		const before = structuredClone(state);
		for (const event of PUBLISHED_EVENTS) {
			expect(advance(state, delivery(event, { flowId: OTHER_FLOW }), NOW)).toEqual({
				kind: 'foreign',
				reason: `another flow (${OTHER_FLOW})`,
			});
		}
		expect(state).toEqual(before);
	});

	// Issue 43: `flow` is published only on some events (consent.data, the time-outs and failures: not
	// shown). The rule: a delivery with a flow id is this wait's only with this flow's id; one
	// without is this wait's by External ID, when the wait has one; otherwise it is not taken.
	test('without a flow id, a delivery with this wait’s External ID ends the wait', () => {
		const state = deepFreeze(waiting());
		for (const flowId of [undefined, null, '']) {
			const data = advance(state, delivery('consent.data', { flowId, externalId: 'loan-42' }), NOW);
			expect(data.kind).toBe('outcome');
			expect((data as { output: number }).output).toBe(OUTPUTS.indexOf('Data Received'));
			const accepted = advance(
				state,
				delivery('consent.accepted', { flowId, externalId: 'loan-42' }),
				NOW,
			);
			expect(accepted.kind).toBe('intermediate');
		}
	});

	test('without a flow id, another External ID, none, or a wait without one: not taken', () => {
		const state = deepFreeze(waiting());
		for (const externalId of ['loan-43', undefined, null, '']) {
			for (const event of PUBLISHED_EVENTS) {
				const decision = advance(state, delivery(event, { flowId: undefined, externalId }), NOW);
				expect(decision).toEqual({
					kind: 'foreign',
					reason:
						externalId === 'loan-43'
							? 'no flow id, and another External ID'
							: 'neither flow id nor External ID',
				});
			}
		}
		const noExternal = deepFreeze(newWait({ ...flow(), externalId: undefined }, STARTED, null));
		const data = delivery('consent.data', { flowId: undefined, externalId: 'loan-42' });
		expect(advance(noExternal, data, NOW)).toEqual({
			kind: 'foreign',
			reason: 'no flow id, and this wait has no External ID to match it by',
		});
	});

	test('a flow id decides over the External ID: another flow with this External ID is not taken', () => {
		const other = delivery('consent.data', { flowId: OTHER_FLOW, externalId: 'loan-42' });
		expect(advance(deepFreeze(waiting()), other, NOW)).toEqual({
			kind: 'foreign',
			reason: `another flow (${OTHER_FLOW})`,
		});
	});

	test('a delivery not taken is recorded with the reason (no payload), shown in the waiting item, capped', () => {
		let state = waiting();
		const other = delivery('consent.data', {
			flowId: OTHER_FLOW,
			payload: { nationalId: NATIONAL_ID },
		});
		const reason = notThis(state, other);
		expect(reason).toBe(`another flow (${OTHER_FLOW})`);
		state = withNotTaken(state, other, reason!);
		const listed = {
			event: 'consent.data',
			webhookId: other.webhookId,
			flowId: OTHER_FLOW,
			reason,
		};
		expect(waitingJson(state).notTaken).toEqual([{ ...listed, receivedAt: other.receivedAt }]);
		expect(JSON.stringify(waitingJson(state))).not.toContain(NATIONAL_ID);
		expect(readWaitState(JSON.parse(JSON.stringify(state)))).toEqual(state);
		for (let i = 0; i < MAX_EVENTS_KEPT + 5; i++) state = withNotTaken(state, other, 'x');
		expect(state.notTaken).toHaveLength(MAX_EVENTS_KEPT);
		const noFlow = delivery('consent.data', { flowId: undefined, externalId: 'loan-43' });
		expect(notThis(waiting(), noFlow)).toBe('no flow id, and another External ID');
		expect('notTaken' in waitingJson(waiting())).toBe(false);
	});

	test('a flow id written as a number matches the same id as text', () => {
		const state = newWait(flow(7), STARTED, null);
		expect(state.flowId).toBe('7');
		const decision = advance(state, delivery('consent.data', { flowId: 7 }), NOW);
		expect(decision.kind).toBe('outcome');
	});

	test('duplicates by the signed key: the same body under another event type is a duplicate; a reused ce-id is not', () => {
		// binary mode (Accept Unsigned CloudEvents Headers): the webhookId is the unsigned ce-id,
		// the key the digest of the signed body (intake.ts)
		const created = advance(
			waiting(),
			delivery('consent.created', { webhookId: 'ce-1' }),
			NOW,
			'~d:aa',
		);
		expect(created.kind).toBe('intermediate');
		const state = deepFreeze((created as { state: WaitState }).state);
		expect(state.events[0].key).toBe('~d:aa');
		// the created body relabelled consent.data with a fresh ce-id: the same signed bytes
		expect(advance(state, delivery('consent.data', { webhookId: 'ce-2' }), NOW, '~d:aa')).toEqual({
			kind: 'duplicate',
		});
		// another body that reuses the first ce-id: not made a duplicate by it
		expect(advance(state, delivery('consent.data', { webhookId: 'ce-1' }), NOW, '~d:bb').kind).toBe(
			'outcome',
		);
		// the key never reaches an item
		const ended = advance(state, delivery('consent.data', { webhookId: 'ce-3' }), NOW, '~d:cc');
		expect(ended.kind).toBe('outcome');
		expect(JSON.stringify((ended as { json: unknown }).json)).not.toContain('~d:');
	});

	test('a stored key survives the round trip through what n8n saves', () => {
		const keyed = (
			advance(waiting(), delivery('consent.created'), NOW, 'k-1') as { state: WaitState }
		).state;
		expect(readWaitState(JSON.parse(JSON.stringify(keyed)))!.events[0].key).toBe('k-1');
	});

	test('a delivery id seen before is a duplicate, whatever its event', () => {
		const first = advance(waiting(), delivery('consent.created', { webhookId: 'wh-x' }), NOW);
		expect(first.kind).toBe('intermediate');
		const state = deepFreeze((first as { state: WaitState }).state);
		expect(advance(state, delivery('consent.created', { webhookId: 'wh-x' }), NOW)).toEqual({
			kind: 'duplicate',
		});
		expect(advance(state, delivery('consent.data', { webhookId: 'wh-x' }), NOW)).toEqual({
			kind: 'duplicate',
		});
		// the same id written as a number
		const numeric = advance(waiting(), delivery('consent.created', { webhookId: 41 }), NOW);
		expect(
			advance(
				(numeric as { state: WaitState }).state,
				delivery('consent.accepted', { webhookId: '41' }),
				NOW,
			),
		).toEqual({ kind: 'duplicate' });
	});

	test('deliveries without an id are never duplicates', () => {
		let state = waiting();
		for (let i = 0; i < 3; i++) {
			const decision = advance(state, delivery('consent.accepted', { webhookId: null }), NOW);
			expect(decision.kind).toBe('intermediate');
			state = (decision as { state: WaitState }).state;
		}
		expect(state.events.map((event) => event.webhookId)).toEqual([null, null, null]);
	});

	test('intermediate events are appended oldest first and the wait goes on', () => {
		const created = delivery('consent.created');
		const accepted = delivery('consent.accepted');
		const unknown = delivery('consent.somethingNew');
		let state = deepFreeze(waiting());
		for (const next of [created, accepted, unknown]) {
			const decision = advance(state, next, NOW);
			expect(decision.kind).toBe('intermediate');
			state = deepFreeze((decision as { state: WaitState }).state);
			expect(state.waiting).toBe(true);
		}
		expect(state.events).toEqual([created, accepted, unknown].map(seen));
		expect(state).toEqual({
			waiting: true,
			flowId: FLOW_ID,
			externalId: 'loan-42',
			externalIdKey: matchKey('loan-42', SECRET),
			href: 'https://consent.example/flows/x',
			events: [created, accepted, unknown].map(seen),
			startedAt: STARTED,
			deadline: null,
		});
		expectNothingPersonal(state);
	});

	test.each(INTERMEDIATE_EVENTS)('%s alone keeps the wait going', (event) => {
		const decision = advance(waiting(), delivery(event), NOW);
		expect(decision.kind).toBe('intermediate');
	});

	test(`at most MAX_EVENTS_KEPT intermediate events are kept: the newest`, () => {
		expect(Number.isInteger(MAX_EVENTS_KEPT) && MAX_EVENTS_KEPT > 0).toBe(true);
		const sent = Array.from({ length: MAX_EVENTS_KEPT + 7 }, (_, i) =>
			delivery(i % 2 === 0 ? 'consent.created' : 'consent.accepted', { webhookId: `n-${i}` }),
		);
		let state = waiting();
		for (const next of sent) {
			const decision = advance(state, next, NOW);
			expect(decision.kind).toBe('intermediate');
			state = (decision as { state: WaitState }).state;
			expect(state.events.length).toBeLessThanOrEqual(MAX_EVENTS_KEPT);
		}
		expect(state.events).toEqual(sent.slice(-MAX_EVENTS_KEPT).map(seen));
	});

	test.each(OUTCOME_EVENTS)(
		'%s ends the wait: its output, the item with the ids, events, outcomeEvent',
		(event) => {
			const accepted = delivery('consent.accepted');
			const before = advance(waiting('2030-02-01T00:00:00.000Z'), accepted, NOW);
			const state = deepFreeze((before as { state: WaitState }).state);
			const snapshot = structuredClone(state);
			const outcome = delivery(event);
			const decision = advance(state, outcome, NOW);
			expect(state).toEqual(snapshot);
			expect(decision.kind).toBe('outcome');
			if (decision.kind !== 'outcome') return;
			expect(decision.output).toBe(OUTPUTS.indexOf(RULE[event]!));
			expect(decision.state).toEqual({ ...snapshot, waiting: false });
			expect(decision.json).toEqual({
				outcome: OUTCOME_VALUE[RULE[event]!],
				event,
				flowId: FLOW_ID,
				externalId: 'loan-42',
				href: 'https://consent.example/flows/x',
				events: [seen(accepted)],
				waitStartedAt: STARTED,
				resumedAt: NOW,
				outcomeEvent: outcome,
			});
			// the outcome event is passed on as it came (the node minimises it before advanceWait)
			expect(decision.json.outcomeEvent).toBe(outcome);
		},
	);

	// ---------- properties ----------

	const anyDelivery = fc.record(
		{
			event: fc.oneof(
				{ weight: 6, arbitrary: fc.constantFrom(...PUBLISHED_EVENTS) },
				{ weight: 1, arbitrary: fc.string() },
				{ weight: 1, arbitrary: fc.anything() },
			),
			webhookId: fc.oneof(
				fc.constantFrom('a', 'b', 'c', 'd'),
				fc.string(),
				fc.integer({ min: 0, max: 5 }),
				fc.constant(null),
			),
			flowId: fc.oneof(
				{ weight: 4, arbitrary: fc.constant(FLOW_ID) },
				{ weight: 1, arbitrary: fc.constantFrom(OTHER_FLOW, null, '', 0) },
			),
			payload: fc.option(fc.dictionary(fc.string(), fc.jsonValue()), { nil: null }),
		},
		{ requiredKeys: [] },
	);

	test('property: the kept events never exceed the cap, and advanceWait never mutates its input', () => {
		fc.assert(
			fc.property(fc.array(anyDelivery, { maxLength: 60 }), (deliveries) => {
				let state = deepFreeze(waiting());
				for (const next of deliveries) {
					const snapshot = structuredClone(state);
					const decision = advance(state, next, NOW);
					expect(state).toEqual(snapshot);
					if (decision.kind === 'intermediate') {
						expect(decision.state.events.length).toBeLessThanOrEqual(MAX_EVENTS_KEPT);
						expect(decision.state.events[decision.state.events.length - 1]).toEqual(seen(next));
						expectNothingPersonal(decision.state);
						expect(decision.state.waiting).toBe(true);
						state = deepFreeze(decision.state);
					}
					if (decision.kind === 'outcome') {
						expect(decision.state.waiting).toBe(false);
						expect(decision.output).toBe(expectedIndex(next.event));
					}
				}
			}),
		);
	});

	test('property: the first outcome for the right flow with a new id ends the wait on its output', () => {
		fc.assert(
			fc.property(
				fc.array(anyDelivery, { maxLength: 40 }),
				fc.constantFrom(...OUTCOME_EVENTS),
				(before, event) => {
					let state = waiting();
					for (const next of before) {
						const decision = advance(state, next, NOW);
						if (decision.kind === 'outcome') return; // the wait already ended
						if (decision.kind === 'intermediate') state = decision.state;
					}
					const outcome = delivery(event, { webhookId: 'the-outcome' });
					const decision = advance(state, outcome, NOW);
					expect(decision.kind).toBe('outcome');
					if (decision.kind !== 'outcome') return;
					expect(decision.output).toBe(expectedIndex(event));
					expect(decision.output).toBe(outcomeIndex(event));
					expect(decision.state.waiting).toBe(false);
					expect(decision.json.outcomeEvent).toBe(outcome);
					expect(decision.json.events).toEqual(state.events);
				},
			),
		);
	});

	test('property: the decision kind follows the rule (a model written here)', () => {
		const norm = (value: unknown): string | null =>
			typeof value === 'string' && value !== ''
				? value
				: typeof value === 'number' && Number.isFinite(value)
					? String(value)
					: null;
		fc.assert(
			fc.property(fc.array(anyDelivery, { maxLength: 50 }), (deliveries) => {
				let state = waiting();
				const seen: string[] = [];
				for (const next of deliveries) {
					const flowId = norm(next.flowId);
					const id = norm(next.webhookId);
					let want: string;
					if (flowId !== FLOW_ID) want = 'foreign';
					else if (id !== null && seen.slice(-MAX_EVENTS_KEPT).includes(id)) want = 'duplicate';
					else if (expectedIndex(next.event) === null) want = 'intermediate';
					else want = 'outcome';
					const decision = advance(state, next, NOW);
					expect(decision.kind).toBe(want);
					if (decision.kind === 'outcome') return;
					if (decision.kind === 'intermediate') {
						state = decision.state;
						if (id !== null) seen.push(id);
					}
				}
			}),
		);
	});
});

// ---------- readWaitState ----------

describe('readWaitState', () => {
	test('round trip through JSON (what n8n saves with the execution)', () => {
		let state = waiting('2030-03-01T00:00:00.000Z');
		state = (advance(state, delivery('consent.created'), NOW) as { state: WaitState }).state;
		expect(readWaitState(JSON.parse(JSON.stringify(state)))).toEqual(state);
	});

	test.each([
		['undefined', undefined],
		['null', null],
		['an array', [{ waiting: true, flow: {} }]],
		['a number', 42],
		['a string', '{"waiting":true,"flow":{}}'],
		['a boolean', true],
		['an empty object', {}],
		['waiting as text', { waiting: 'true', flow: {} }],
		['waiting as a number', { waiting: 1, flow: {} }],
	])('%s is not a wait state', (_label, stored) => {
		expect(readWaitState(stored)).toBeUndefined();
	});
});

// ---------- items ----------

describe('items', () => {
	test('waitingJson shows the ids, href, the events so far and the deadline (no flow: it holds the resume URL)', () => {
		const created = delivery('consent.created');
		const state = (
			advance(waiting('2030-01-03T00:00:00.000Z'), created, NOW) as { state: WaitState }
		).state;
		expect(waitingJson(state)).toEqual({
			status: 'waiting',
			flowId: FLOW_ID,
			externalId: 'loan-42',
			href: 'https://consent.example/flows/x',
			events: [seen(created)],
			waitStartedAt: STARTED,
			deadline: '2030-01-03T00:00:00.000Z',
		});
		expectNothingPersonal(waitingJson(state));
		expectNothingPersonal(waitTimeExceededJson(state));
	});

	test('waitTimeExceededJson: no outcome event, resumed at the deadline', () => {
		const json = waitTimeExceededJson(waiting('2030-01-03T00:00:00.000Z'));
		expect(json).toMatchObject({
			outcome: 'waitTimeExceeded',
			event: null,
			flowId: FLOW_ID,
			externalId: 'loan-42',
			outcomeEvent: null,
			deadline: '2030-01-03T00:00:00.000Z',
			resumedAt: '2030-01-03T00:00:00.000Z',
			events: [],
		});
	});

	test('outcomeJson of a flow without externalId or href gives null for them', () => {
		const state = newWait({ id: 'f' }, STARTED, null);
		const json = outcomeJson(state, 'dataReceived', { event: 'consent.data', flowId: 'f' }, NOW);
		expect(json).toMatchObject({
			outcome: 'dataReceived',
			externalId: null,
			href: null,
			flowId: 'f',
		});
	});
});

// ---------- limitDeadline ----------

describe('limitDeadline', () => {
	/** Milliseconds per unit, computed here. */
	const MS: Record<string, number> = {
		seconds: 1000,
		minutes: 60 * 1000,
		hours: 60 * 60 * 1000,
		days: 24 * 60 * 60 * 1000,
	};
	const DAY_MS = MS.days;
	const nowMs = Date.parse('2030-06-15T12:00:00.000Z');

	function deadlineOf(amount: unknown, unit: unknown, now = nowMs): number {
		const result = limitDeadline(amount, unit, now);
		if ('error' in result) throw new Error(`refused: ${result.error}`);
		return result.deadline.getTime();
	}

	function errorOf(amount: unknown, unit: unknown): string {
		const result = limitDeadline(amount, unit, nowMs);
		expect(result).not.toHaveProperty('deadline');
		return (result as { error: string }).error;
	}

	test.each([
		[1, 'seconds'],
		[90, 'seconds'],
		[5, 'minutes'],
		[36, 'hours'],
		[14, 'days'],
		[365, 'days'],
		[8760, 'hours'],
	])('%s %s from now', (amount, unit) => {
		expect(deadlineOf(amount, unit)).toBe(nowMs + amount * MS[unit]);
	});

	test('numeric strings are accepted', () => {
		expect(deadlineOf('5', 'minutes')).toBe(nowMs + 5 * MS.minutes);
		expect(deadlineOf(' 2 ', 'hours')).toBe(nowMs + 2 * MS.hours);
		expect(deadlineOf('1.5', 'days')).toBe(nowMs + 1.5 * DAY_MS);
		expect(deadlineOf('1e2', 'seconds')).toBe(nowMs + 100 * MS.seconds);
	});

	test('fractions round up to the next millisecond, never down to no wait', () => {
		expect(deadlineOf(0.0001, 'seconds')).toBe(nowMs + 1);
		expect(deadlineOf(0.5, 'seconds')).toBe(nowMs + 500);
	});

	test('property: integer amounts within 365 days give now + amount × unit', () => {
		fc.assert(
			fc.property(
				fc.constantFrom('seconds', 'minutes', 'hours', 'days'),
				fc.integer({ min: 1, max: 365 * 86400 }),
				fc.integer({ min: 0, max: 4102444800000 }),
				(unit, raw, now) => {
					const limit = Math.floor((365 * DAY_MS) / MS[unit]);
					const amount = ((raw - 1) % limit) + 1;
					expect(deadlineOf(amount, unit, now)).toBe(now + amount * MS[unit]);
				},
			),
		);
	});

	test('property: any positive amount within 365 days waits that long, to the millisecond', () => {
		fc.assert(
			fc.property(
				fc.constantFrom('seconds', 'minutes', 'hours', 'days'),
				fc.double({ min: 1e-6, max: 365, noNaN: true }),
				(unit, days) => {
					const amount = (days * DAY_MS) / MS[unit];
					const waited = deadlineOf(amount, unit) - nowMs;
					const exact = amount * MS[unit];
					expect(waited).toBeGreaterThanOrEqual(Math.floor(exact));
					expect(waited).toBeLessThanOrEqual(Math.ceil(exact) + 1);
					expect(waited).toBeGreaterThan(0);
				},
			),
		);
	});

	test.each([
		['0', 0],
		['negative', -1],
		['negative zero', -0],
		['NaN', Number.NaN],
		['Infinity', Number.POSITIVE_INFINITY],
		['-Infinity', Number.NEGATIVE_INFINITY],
		['a word', 'fourteen'],
		['digits with a unit', '14d'],
		['the empty string', ''],
		['blanks', '   '],
		['"0"', '0'],
		['"-3"', '-3'],
		['"Infinity"', 'Infinity'],
		['null', null],
		['undefined', undefined],
		['true', true],
		['an object', { amount: 1 }],
		['an array', [5]],
	])('Amount %s is refused with a message', (_label, amount) => {
		expect(errorOf(amount, 'days')).toMatch(/number greater than 0/);
	});

	test.each([
		['weeks', 'weeks'],
		['Days (another case)', 'Days'],
		['empty', ''],
		['undefined', undefined],
		['a number', 86400],
		['__proto__', '__proto__'],
		['toString', 'toString'],
		['constructor', 'constructor'],
	])('Unit %s is refused with the units named', (_label, unit) => {
		const error = errorOf(1, unit);
		for (const name of ['seconds', 'minutes', 'hours', 'days']) expect(error).toContain(name);
	});

	test.each([
		[366, 'days'],
		[365 * 24 + 1, 'hours'],
		[365 * 24 * 60 + 1, 'minutes'],
		[365 * 86400 + 1, 'seconds'],
		[365.001, 'days'],
		['400', 'days'],
		[Number.MAX_VALUE, 'seconds'],
	])('%s %s is more than 365 days: refused', (amount, unit) => {
		expect(errorOf(amount, unit)).toMatch(/at most 365 days/);
	});
});

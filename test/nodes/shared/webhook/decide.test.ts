/**
 * Every answer of both webhook entry points, as one table (decide.ts; docs/architecture.md,
 * "One decision table", shows the same rows). Each row is written from the README's promises,
 * not from the code: the status the service sees, who writes it, and what runs.
 */
import {
	FACTS,
	SHUTTING_DOWN,
	UNSUPPORTED_RESUME,
	decide,
	inExecution,
	type Facts,
	FLIGHT_FULL,
} from '../../../../nodes/shared/webhook/decide';

const event = { event: 'consent.data', webhookId: 'wh-1', recognised: true };
const unknown = {
	event: 'consent.archived',
	webhookId: 'wh-2',
	recognised: false,
	reason: 'unknown-event',
	size: 40,
};

/** A delivery that passed every check of the trigger, with a key, answered by execute(). */
const trigger: Facts = {
	...FACTS,
	entry: 'trigger',
	verified: true,
	delivery: event,
	selected: true,
	hasKey: true,
};
const resume: Facts = {
	...FACTS,
	entry: 'resume',
	verified: true,
	delivery: event,
	canResume: true,
};

const ack = (status: string, d = event) => ({
	received: true,
	event: d.event,
	webhookId: d.webhookId,
	status,
});

type Row = [string, Facts, Record<string, unknown>];

const rows: Row[] = [
	// refusals of the intake, the same for both entries, in this order
	[
		'trigger: stopping process → 503, retry elsewhere',
		{ ...trigger, closing: true },
		{
			kind: 'now',
			by: 'node',
			status: 503,
			body: SHUTTING_DOWN,
			headers: { 'retry-after': '1', connection: 'close' },
		},
	],
	[
		'resume: stopping process → 503',
		{ ...resume, closing: true },
		{ kind: 'now', by: 'node', status: 503, body: SHUTTING_DOWN },
	],
	[
		'stopping wins over a bad signature',
		{ ...trigger, closing: true, verified: false },
		{ status: 503 },
	],
	[
		'trigger: not signed → 401',
		{ ...trigger, verified: false, delivery: null },
		{ kind: 'now', by: 'node', status: 401, body: 'Unauthorized' },
	],
	[
		'resume: not signed → 401',
		{ ...resume, verified: false, delivery: null },
		{ kind: 'now', by: 'node', status: 401, body: 'Unauthorized' },
	],
	// the trigger's own facts
	[
		'trigger: Events cannot be read → 500, the service retries',
		{ ...trigger, misconfigured: 'Events …' },
		{
			kind: 'now',
			by: 'node',
			status: 500,
			body: { received: false, status: 'misconfigured', message: 'Events …' },
		},
	],
	[
		'misconfigured wins over stale',
		{ ...trigger, misconfigured: 'x', stale: true },
		{ status: 500 },
	],
	[
		'trigger: outside Maximum Age → 200 stale, nothing runs',
		{ ...trigger, stale: true },
		{ kind: 'now', by: 'n8n', status: 200, body: ack('stale') },
	],
	[
		'stale wins over filtered',
		{ ...trigger, stale: true, selected: false },
		{ body: ack('stale') },
	],
	[
		'trigger: event not selected → 200 filtered',
		{ ...trigger, selected: false },
		{ kind: 'now', by: 'n8n', status: 200, body: ack('filtered') },
	],
	[
		'trigger: key remembered → 200 duplicate',
		{ ...trigger, duplicate: true },
		{ kind: 'now', by: 'n8n', status: 200, body: ack('duplicate') },
	],
	[
		'duplicate wins over a copy in flight',
		{ ...trigger, duplicate: true, copyInFlight: true },
		{ body: ack('duplicate') },
	],
	[
		'trigger: a copy not settled yet → 409 in-progress (retryable)',
		{ ...trigger, copyInFlight: true },
		{ kind: 'now', by: 'node', status: 409, body: ack('in-progress') },
	],
	[
		'trigger: as many runs held as the bound allows → 503 busy, retry-after (none let go)',
		{ ...trigger, flightFull: true },
		{
			kind: 'now',
			by: 'node',
			status: 503,
			body: FLIGHT_FULL,
			headers: { 'retry-after': '1' },
		},
	],
	[
		'trigger: no key → runs, even "in flight", "duplicate" or a full set',
		{ ...trigger, hasKey: false, duplicate: true, copyInFlight: true, flightFull: true },
		{
			kind: 'run',
			plan: { answeredBy: 'execute', remember: 'never' },
			ack: ack('emitted'),
		},
	],
	// the trigger's runs: who answers, when the key is remembered
	[
		'trigger: Immediately, n8n 2.x → n8n answers when stored',
		{ ...trigger, answeredBy: 'n8n-when-stored' },
		{
			kind: 'run',
			plan: { answeredBy: 'n8n-when-stored', remember: 'when-stored' },
			ack: ack('emitted'),
		},
	],
	[
		'trigger: Immediately elsewhere → execute() answers',
		trigger,
		{
			kind: 'run',
			plan: { answeredBy: 'execute', remember: 'when-answered' },
			ack: ack('emitted'),
		},
	],
	[
		'trigger: When the Workflow Finishes → n8n after the run',
		{ ...trigger, answeredBy: 'n8n-after-run' },
		{
			kind: 'run',
			plan: { answeredBy: 'n8n-after-run', remember: 'after-2xx' },
			ack: ack('emitted'),
		},
	],
	[
		'trigger: an unrecognised delivery runs like an event (its output: Unrecognised)',
		{ ...trigger, delivery: unknown },
		{ kind: 'run', ack: ack('emitted', unknown) },
	],
	// the resume URL's own facts
	[
		'resume: signed but not an event → 200 ignored, the wait goes on',
		{ ...resume, delivery: unknown },
		{
			kind: 'now',
			by: 'node',
			status: 200,
			body: { ...ack('ignored', unknown), reason: 'unknown-event', size: 40 },
		},
	],
	[
		"resume: n8n's waiting stack unknown → 500, keeps waiting",
		{ ...resume, canResume: false },
		{ kind: 'now', by: 'node', status: 500, body: UNSUPPORTED_RESUME },
	],
	[
		'resume: an event → runs, n8n answers after the run',
		resume,
		{
			kind: 'run',
			plan: { answeredBy: 'n8n-after-run', remember: 'never' },
			ack: null,
		},
	],
	[
		'resume: trigger-only facts do not apply',
		{ ...resume, selected: false, duplicate: true, copyInFlight: true, hasKey: true },
		{ kind: 'run' },
	],
];

describe('decide: every answer of the trigger and the resume URL', () => {
	test.each(rows)('%s', (_label, facts, expected) => {
		expect(decide(facts)).toMatchObject(expected);
	});

	test('every row that answers now names a status the service can act on', () => {
		for (const [, facts] of rows) {
			const answer = decide(facts);
			if (answer.kind === 'now') expect([200, 400, 401, 409, 500, 503]).toContain(answer.status);
		}
	});

	test('nothing unsigned runs: a failed signature never yields a run', () => {
		const refused: Array<Partial<Facts>> = [{ verified: false }, { closing: true }];
		for (const base of [trigger, resume]) {
			for (const refusal of refused) expect(decide({ ...base, ...refusal }).kind).toBe('now');
		}
	});
});

describe("inExecution: execute()'s part of a delivery that ran", () => {
	test.each([
		// answeredBy, claim → emitted, answer
		['execute', 'mine', true, 'emitted'],
		['execute', null, true, 'emitted'],
		['execute', 'taken', false, 'duplicate'], // another copy took it here: answered, not emitted
		['n8n-when-stored', 'mine', true, null], // n8n already answered
		['n8n-when-stored', 'taken', false, null],
		['n8n-after-run', null, true, null],
	] as const)('%s, claim %s → emit %s, answer %s', (answeredBy, claim, emit, answer) => {
		expect(inExecution(answeredBy, claim)).toEqual({ emit, answer });
	});
});

// When deliveries are answered ("Respond"), how they reach execute(), and how often the signing
// credential is read — through the n8n-like HTTP harness (http-harness.js follows n8n 2.41.1's
// webhook path: the deferred onReceived answer, lastNode answers after the run, 500 'Error in
// workflow' on a failed run, static data saved by the execution).
import {
	sleep,
	type IDataObject,
	type IExecuteFunctions,
	type INodeExecutionData,
} from 'n8n-workflow';

import { ConsentFlowTrigger } from '../../../nodes/ConsentFlowTrigger/ConsentFlowTrigger.node';
import { DEDUPE_KEY, FLIGHT_BOUND_MS } from '../../../nodes/ConsentFlowTrigger/dedupe';
import { CONSENT_EVENTS } from '../../../nodes/shared/webhook/events';
import { OUTPUT_NAMES, UNRECOGNISED_INDEX } from '../../support/outputs';
import { CARRIER } from '../../../nodes/ConsentFlowTrigger/respond';
import { freshTrigger, type TriggerProcess } from '../../support/fresh-modules';
import { createDatabase, postInTwoParts } from './http-harness';
import { envelope, nextId, postSigned, savedKeys as keysIn, sign } from './helpers';
import { CREDENTIALS, emitted, useTriggerHarness } from './trigger-harness';

const harness = useTriggerHarness();

function deferred(): { promise: Promise<void>; resolve: () => void } {
	let resolve = () => {};
	const promise = new Promise<void>((r) => {
		resolve = r;
	});
	return { promise, resolve };
}

afterEach(() => jest.restoreAllMocks());

describe('Respond: Immediately (default)', () => {
	it('answers the acknowledgement only after the execution ran in the harness, and the item reaches its own output', async () => {
		const h = await harness();
		const webhookId = nextId();
		const response = await postSigned(h.url, envelope('consent.rejected', { webhookId }));
		expect(response.status).toBe(200);
		expect(response.json).toEqual({
			received: true,
			event: 'consent.rejected',
			webhookId,
			status: 'emitted',
		});
		expect(h.executions).toHaveLength(1);
		const { index, json } = emitted(h);
		expect(OUTPUT_NAMES[index]).toBe('Rejected');
		expect(json.webhookId).toBe(webhookId);
		// The carrier stays on the node's input: the output item is the json alone.
		const item = h.executions[0].workflowData[index][0] as INodeExecutionData;
		expect(Object.keys(item).sort()).toEqual(['json', 'pairedItem']);
		expect(item.json).not.toHaveProperty(CARRIER);
	});

	it('remembers the id through the execution, across a restart of the process', async () => {
		const db = createDatabase();
		const webhookId = nextId();
		const first = await harness({ db });
		await postSigned(first.url, envelope('consent.data', { webhookId }));
		const stored = db.read() as Record<string, Record<string, unknown>>;
		expect(keysIn(stored['node:Consent Flow Trigger'][DEDUPE_KEY])).toContain(webhookId);
	});
});

describe('Respond: When the Workflow Finishes (at-least-once)', () => {
	const parameters = { respond: 'lastNode' };

	it('answers 500 when the run fails, runs the redelivery, then suppresses copies after success', async () => {
		let failNext = true;
		const h = await harness({
			parameters,
			failWorkflow: () => {
				const fail = failNext;
				failNext = false;
				return fail;
			},
		});
		const body = envelope('consent.data', { webhookId: nextId() });
		const failed = await postSigned(h.url, body);
		expect(failed.status).toBe(500);
		const retried = await postSigned(h.url, body);
		expect(retried.status).toBe(200);
		expect(retried.text).toBe('');
		const copy = await postSigned(h.url, body);
		expect(copy.status).toBe(200);
		expect(copy.json).toMatchObject({ status: 'duplicate' });
		expect(h.executions.map((e) => e.failed)).toEqual([true, false]);
	});

	it('refuses a copy with 409 while the first still runs, then treats it as a duplicate', async () => {
		const gate = deferred();
		const h = await harness({ parameters, failWorkflow: async () => (await gate.promise, false) });
		const body = envelope('consent.accepted', { webhookId: nextId() });
		const running = postSigned(h.url, body);
		// Wait until the first delivery is inside its run.
		for (let i = 0; i < 400 && h.deliveries.length === 0; i++) {
			await sleep(5);
		}
		const copy = await postSigned(h.url, body);
		expect(copy.status).toBe(409);
		expect(copy.json).toMatchObject({ status: 'in-progress' });
		gate.resolve();
		expect((await running).status).toBe(200);
		expect((await postSigned(h.url, body)).json).toMatchObject({ status: 'duplicate' });
		expect(h.executions).toHaveLength(1);
	});

	it('a failed run leaves no id behind: a later copy runs again', async () => {
		const h = await harness({ parameters, failWorkflow: () => true });
		const body = envelope('consent.data', { webhookId: nextId() });
		expect((await postSigned(h.url, body)).status).toBe(500);
		expect((await postSigned(h.url, body)).status).toBe(500);
		expect(h.executions).toHaveLength(2);
	});
});

describe('the signing credential', () => {
	it('is read once for a burst of deliveries, not once per delivery', async () => {
		const h = await harness();
		for (let i = 0; i < 10; i++) {
			expect((await postSigned(h.url, envelope('consent.data'))).status).toBe(200);
		}
		expect(h.credentialReads).toBe(1);
	});

	it('a burst that finds no credential in memory reads it once: the deliveries share one read', async () => {
		const h = await harness({ credentials: { ...CREDENTIALS }, credentialReadMs: 100 });
		const answers = await Promise.all(
			Array.from({ length: 8 }, () =>
				postSigned(h.url, envelope('consent.data', { webhookId: nextId() })),
			),
		);
		expect(answers.map((a) => a.status)).toEqual(Array(8).fill(200));
		expect(h.credentialReads).toBe(1);
	});

	it('an execution re-reads it past half its TTL, so that deliveries over 9 s never read it again', async () => {
		const h = await harness();
		let now = Date.now();
		const clock = jest.spyOn(Date, 'now').mockImplementation(() => now);
		try {
			for (let i = 0; i < 4; i++) {
				expect(
					(await postSigned(h.url, envelope('consent.data', { webhookId: nextId() }))).status,
				).toBe(200);
				now += 3000;
			}
		} finally {
			clock.mockRestore();
		}
		// at 0 s the webhook reads it; the executions at 3, 6 and 9 s refresh it (past 2.5 s) before its 5 s expire
		expect([h.credentialReads, h.executionCredentialReads]).toEqual([1, 3]);
	});

	it('a failed re-read in an execution keeps what was read, until it expires', async () => {
		const h = await harness({ credentials: { ...CREDENTIALS }, credentialId: 'flaky' });
		let now = Date.now();
		const clock = jest.spyOn(Date, 'now').mockImplementation(() => now);
		try {
			expect(
				(await postSigned(h.url, envelope('consent.data', { webhookId: nextId() }))).status,
			).toBe(200);
			h.setCredentials(null);
			now += 3000;
			expect(
				(await postSigned(h.url, envelope('consent.data', { webhookId: nextId() }))).status,
			).toBe(200);
			now += 2500;
			expect(
				(await postSigned(h.url, envelope('consent.data', { webhookId: nextId() }))).status,
			).toBe(401);
		} finally {
			clock.mockRestore();
		}
		expect([h.credentialReads, h.executionCredentialReads]).toEqual([2, 1]);
	});

	it('a different credential (another id) is read on its own', async () => {
		const a = await harness();
		const b = await harness({ credentials: { ...CREDENTIALS }, credentialId: 'another' });
		await postSigned(a.url, envelope('consent.data'));
		await postSigned(b.url, envelope('consent.data'));
		expect([a.credentialReads, b.credentialReads]).toEqual([1, 1]);
	});

	it('a missing secret is not remembered: every delivery reads again and gets 401', async () => {
		const h = await harness({
			credentials: { secret: '', signatureHeader: '' },
			credentialId: 'empty',
		});
		for (let i = 0; i < 3; i++) {
			expect((await postSigned(h.url, envelope('consent.data'))).status).toBe(401);
		}
		expect(h.credentialReads).toBe(3);
	});
});

describe('execute() on input without a carrier (pinned or hand-made data)', () => {
	// Events given by an expression: execute() asks n8n for the outputs it computed (names).
	// Without expressions it computes them itself (staticOutputNames; see the tests below).
	function run(
		items: INodeExecutionData[],
		names: readonly string[] = OUTPUT_NAMES,
		parameters: Record<string, unknown> = { events: '={{ $vars.events }}' },
	): Promise<INodeExecutionData[][]> {
		const context = {
			getInputData: () => items,
			getMode: () => 'manual',
			getNodeParameter: (_n: string, _i: number, fallback: unknown) => fallback,
			getNode: () => ({ name: 'Trigger', parameters }),
			getNodeOutputs: () => names.map((displayName) => ({ type: 'main', displayName })),
		} as unknown as IExecuteFunctions;
		return new ConsentFlowTrigger().execute.call(context);
	}

	it('without expressions in Events and Outputs, never asks n8n for the outputs (no expression evaluated)', async () => {
		const context = (parameters: Record<string, unknown>) =>
			({
				getInputData: () => [
					{ json: { event: 'tax.dataFailed' } },
					{ json: { event: 'consent.data' } },
				],
				getMode: () => 'manual',
				getNodeParameter: (_n: string, _i: number, fallback: unknown) => fallback,
				getNode: () => ({ name: 'Trigger', parameters }),
				getNodeOutputs: () => {
					throw new Error('getNodeOutputs evaluates CONFIGURED_OUTPUTS: not expected here');
				},
			}) as unknown as IExecuteFunctions;
		const subset = await new ConsentFlowTrigger().execute.call(
			context({ events: ['consent.data', 'tax.dataFailed'], outputMode: 'perEvent' }),
		);
		expect(subset.map((items) => items.map((i) => i.json.event))).toEqual([
			['consent.data'],
			['tax.dataFailed'],
		]);
		const all = await new ConsentFlowTrigger().execute.call(context({}));
		expect(all).toHaveLength(OUTPUT_NAMES.length);
		const single = await new ConsentFlowTrigger().execute.call(context({ outputMode: 'single' }));
		expect(single).toEqual([[expect.anything(), expect.anything()]]);
	});

	it('routes by the outputs n8n computed: a subset, and the one output of One for All Events', async () => {
		const subset = await run(
			[{ json: { event: 'tax.dataFailed' } }, { json: { event: 'consent.data' } }],
			['Data', 'No Tax Data'],
		);
		expect(subset.map((items) => items.map((i) => i.json.event))).toEqual([
			['consent.data'],
			['tax.dataFailed'],
		]);
		const single = await run([{ json: { event: 'tax.dataFailed' } }, { json: {} }], ['Event']);
		expect(single).toHaveLength(1);
		expect(single[0]).toHaveLength(2);
	});

	it('an event without an output (Events changed after the delivery) fails the execution, naming it', async () => {
		await expect(run([{ json: { event: 'consent.created' } }], ['Data'])).rejects.toThrow(
			/no output for "consent\.created": select it under Events/,
		);
	});

	it('puts each item on the output of its event, anything else on Unrecognised', async () => {
		const items: INodeExecutionData[] = [
			...CONSENT_EVENTS.map((event) => ({ json: { event } as IDataObject })),
			{ json: { event: 'no.such.event' } },
			{ json: { event: 5 } },
			{ json: {} },
			// A malformed carrier counts as none.
			{ json: { event: 'consent.data' }, [CARRIER]: { option: 'no.such.option' } },
			{ json: { event: 'consent.data' }, [CARRIER]: { option: 'consent.data' } },
		];
		const outputs = await run(items);
		expect(outputs).toHaveLength(OUTPUT_NAMES.length);
		CONSENT_EVENTS.forEach((event, index) => {
			expect(outputs[index].map((i) => i.json.event)).toEqual(
				event === 'consent.data' ? [event, event, event] : [event],
			);
		});
		expect(outputs[UNRECOGNISED_INDEX]).toHaveLength(3);
		const paired = outputs.flat().map((i) => (i.pairedItem as { item: number }).item);
		expect(paired.sort((x, y) => x - y)).toEqual(items.map((_, i) => i));
	});

	it('follows a valid carrier over the event name', async () => {
		const outputs = await run([
			{
				json: { event: 'consent.data' },
				[CARRIER]: { option: 'unrecognised', key: null, answeredBy: 'execute' },
			},
		]);
		expect(outputs[UNRECOGNISED_INDEX]).toHaveLength(1);
	});
});

describe('execute(): a copy that another process let through', () => {
	// Two webhook processes can each accept a copy of one delivery; when both executions come to
	// one worker, execute() keeps the first copy and answers the other "duplicate".
	const key = 'w-copy-1';
	let staticData: IDataObject = {};
	function context(items: INodeExecutionData[], answers: unknown[], mode = 'webhook') {
		return {
			getInputData: () => items,
			getMode: () => mode,
			getNodeParameter: (_n: string, _i: number, fallback: unknown) => fallback,
			getWorkflow: () => ({ id: 'wf-copies' }),
			getNode: () => ({ name: 'Trigger' }),
			getNodeOutputs: () => OUTPUT_NAMES.map((displayName) => ({ type: 'main', displayName })),
			getWorkflowStaticData: () => staticData,
			sendResponse: async (response: { body: Buffer; statusCode: number }) => {
				answers.push({
					statusCode: response.statusCode,
					body: JSON.parse(response.body.toString()),
				});
			},
		} as unknown as IExecuteFunctions;
	}
	const ack = { received: true, event: 'consent.data', webhookId: key, status: 'emitted' };
	const copy = (nonce: string, respond = 'onReceived'): INodeExecutionData => ({
		json: { event: 'consent.data', webhookId: key },
		[CARRIER]: {
			option: 'consent.data',
			key,
			answeredBy: respond === 'lastNode' ? 'n8n-after-run' : 'execute',
			nonce,
			ack,
		},
	});
	const emittedCount = (outputs: INodeExecutionData[][]) => outputs.flat().length;
	// the worker's n8n process: a fresh copy of the trigger and its delivery memory per test
	let Trigger: TriggerProcess['ConsentFlowTrigger'];

	beforeEach(() => {
		Trigger = freshTrigger().ConsentFlowTrigger;
		staticData = {};
	});

	it('keeps the first copy, answers a second copy (another nonce) "duplicate" without emitting it', async () => {
		const answers: unknown[] = [];
		const node = new Trigger();
		expect(emittedCount(await node.execute.call(context([copy('a')], answers)))).toBe(1);
		expect(emittedCount(await node.execute.call(context([copy('b')], answers)))).toBe(0);
		// The same copy again (e.g. run twice by the engine) is still its own.
		expect(emittedCount(await node.execute.call(context([copy('a')], answers)))).toBe(1);
		expect(answers).toEqual([
			{ statusCode: 200, body: ack },
			{ statusCode: 200, body: { ...ack, status: 'duplicate' } },
			{ statusCode: 200, body: ack },
		]);
	});

	it('answered by the execution: the id is saved with its static data only where the same process took the delivery', async () => {
		const node = new Trigger();
		// a queue-mode worker (no webhook() of this copy here): no static data written
		await node.execute.call(context([copy('w')], []));
		expect(staticData[DEDUPE_KEY]).toBeUndefined();
		// the process whose webhook() accepted the copy: remembered now, with the execution's data
		const accepting = freshTrigger();
		accepting.dedupe.ownDelivery(['production', 'wf-copies', 'Trigger'].join('\u0000'), key, 'p');
		await new accepting.ConsentFlowTrigger().execute.call(context([copy('p')], []));
		expect(keysIn(staticData[DEDUPE_KEY])).toEqual([key]);
	});

	it('answered by the execution: the key is saved (a save request n8n answers after saving) before the answer', async () => {
		const order: string[] = [];
		const accepting = freshTrigger();
		accepting.dedupe.ownDelivery(['production', 'wf-copies', 'Trigger'].join('\u0000'), key, 's');
		const saveUrl = 'http://127.0.0.1:5678/webhook/abc/consent-flow';
		const item = copy('s');
		item[CARRIER] = { ...(item[CARRIER] as IDataObject), saveUrl };
		const ctx = {
			...context([item], []),
			getNode: () => ({
				name: 'Trigger',
				credentials: { consentFlowWebhookSigningApi: { id: 's1' } },
			}),
			getCredentials: async () => ({
				secret: 'dummy-signing-secret-0123456789',
				signatureHeader: '',
			}),
			helpers: {
				httpRequest: async (options: { url: string; body: Buffer }) => {
					order.push(`save ${options.url} ${options.body.toString()}`);
					return Buffer.from('{"saved":true}');
				},
			},
			sendResponse: async () => void order.push('answer'),
		} as unknown as IExecuteFunctions;
		await new accepting.ConsentFlowTrigger().execute.call(ctx);
		expect(order).toEqual([`save ${saveUrl} {"node":"Trigger","keys":["${key}"]}`, 'answer']);
	});

	it('keeps deliveries without an id or without a nonce, and does not check on a test URL', async () => {
		const answers: unknown[] = [];
		await new Trigger().execute.call(context([copy('first')], answers));
		const noNonce = {
			...copy(''),
			[CARRIER]: { option: 'consent.created', key, answeredBy: 'execute', nonce: '', ack },
		};
		const noKey = {
			...copy('x'),
			[CARRIER]: { option: 'consent.created', key: null, answeredBy: 'execute', nonce: 'x', ack },
		};
		expect(emittedCount(await new Trigger().execute.call(context([noNonce, noKey], answers)))).toBe(
			2,
		);
		expect(
			emittedCount(await new Trigger().execute.call(context([copy('d')], answers, 'manual'))),
		).toBe(1);
	});

	it('leaves "When the Workflow Finishes" deliveries alone (n8n answers after the run)', async () => {
		const answers: unknown[] = [];
		await new Trigger().execute.call(context([copy('first')], answers));
		expect(
			emittedCount(await new Trigger().execute.call(context([copy('e', 'lastNode')], answers))),
		).toBe(1);
		expect(answers).toHaveLength(1);
	});
});

describe('one n8n: executions that run after later deliveries were accepted', () => {
	it('every accepted delivery is emitted once, although the executions save ids of deliveries still waiting to run', async () => {
		// n8n's regular mode: the answer goes out, the execution runs later; meanwhile other
		// deliveries are accepted and the process memory (saved by every execution) holds their
		// ids too. Each execution must still recognise its own delivery.
		const db = createDatabase();
		const h = await harness({ db, deferExecutions: true });
		const ids = Array.from({ length: 12 }, () => nextId());
		// The answers come from the executions: send all, run the executions, then read them.
		const posts: Array<ReturnType<typeof postSigned>> = [];
		for (const webhookId of ids) {
			posts.push(postSigned(h.url, envelope('consent.data', { webhookId })));
			while (h.pendingExecutions < posts.length) await sleep(2);
		}
		await h.drain();
		for (const answer of await Promise.all(posts))
			expect(answer.json).toMatchObject({ status: 'emitted' });
		const emittedIds = h.executions.flatMap((e) =>
			e.workflowData.flat().map((i) => i.json.webhookId),
		);
		expect(emittedIds).toEqual(ids);
		// And the copies afterwards are duplicates.
		expect(
			(await postSigned(h.url, envelope('consent.data', { webhookId: ids[3] }))).json,
		).toMatchObject({ status: 'duplicate' });
	});
});

describe('Respond: Immediately, when n8n cannot store the execution', () => {
	// n8n 2.x (native resolvers): response mode onReceived, answered after run() — which throws,
	// so n8n answers 500 and the service retries. n8n 1.x: the node told n8n there is no webhook
	// response (responseNode); when run() then fails nothing answers and the request is dropped.
	it.each([2, 1] as const)(
		'n8n %s.x: no 2xx answer leaves no id behind: the service retry runs once, later copies are duplicates',
		async (n8nMajor) => {
			let failures = 1;
			const h = await harness({ n8nMajor, storeFails: () => failures-- > 0 });
			const body = envelope('consent.accepted', { webhookId: nextId() });
			if (n8nMajor === 2) {
				expect((await postSigned(h.url, body)).status).toBe(500);
			} else {
				// n8n 1.x answers nothing here: the package cannot tell a lost run from a queued one, so
				// copies are held (409) until FLIGHT_BOUND_MS, then the next one runs (issue 41)
				await expect(postSigned(h.url, body)).rejects.toThrow();
				expect((await postSigned(h.url, body)).json).toMatchObject({ status: 'in-progress' });
				const now = Date.now();
				jest.spyOn(Date, 'now').mockReturnValue(now + FLIGHT_BOUND_MS);
			}
			expect(h.executions).toHaveLength(0);
			const retry = await postSigned(h.url, body);
			expect(retry.json).toMatchObject({ status: 'emitted' });
			expect((await postSigned(h.url, body)).json).toMatchObject({ status: 'duplicate' });
			expect(h.executions).toHaveLength(1);
		},
	);
});

describe('Respond: Immediately on n8n 2.x — an id is saved only once n8n stored its execution (issue 16)', () => {
	// The restart hole measured in queue mode: a webhook process stopped between saving a
	// delivery's id and storing its execution left the id in the database, and the retry was
	// answered "duplicate" without a run. The harness holds delivery A where run() stores the
	// execution while delivery B is answered (n8n saves static data with B's answer).
	function savedKeys(db: { read(): Record<string, unknown> | null }): string[] {
		const node = (db.read() ?? {})['node:Consent Flow Trigger'] as IDataObject | undefined;
		return keysIn(node?.[DEDUPE_KEY]);
	}

	it.each([2, 1] as const)(
		'n8n %s.x: a delivery waiting to be stored is not in the database; the process stopping there, a restarted process runs the retry',
		async (n8nMajor) => {
			const db = createDatabase();
			const [a, b] = [nextId(), nextId()];
			const hold = deferred();
			let stopping = false;
			const first = await harness({
				db,
				n8nMajor,
				beforeStore: async (delivery) => {
					const ids = delivery.result?.workflowData?.flat().map((i) => i.json.webhookId);
					if (ids?.includes(a)) await hold.promise;
				},
				storeFails: () => stopping,
			});
			const answerA = postSigned(first.url, envelope('consent.data', { webhookId: a })).catch(
				(error: Error) => error,
			);
			while (first.deliveries.length < 1) await sleep(2);
			expect(
				(await postSigned(first.url, envelope('consent.data', { webhookId: b }))).json,
			).toMatchObject({ status: 'emitted' });
			const keys = savedKeys(db).join(' ');
			expect(keys).toContain(b);
			// Not A's: on 2.x it is remembered when n8n stored A's execution; on 1.x (n8n saves
			// static data before it stores the execution) when A's execution answers it.
			expect(keys).not.toContain(a);
			// The process stops before A's execution is stored: A gets no 2xx.
			stopping = true;
			hold.resolve();
			const lost = await answerA;
			expect(lost instanceof Error || (lost as { status: number }).status >= 500).toBe(true);
			harness.restart();
			const restarted = await harness({ db, n8nMajor });
			expect(
				(await postSigned(restarted.url, envelope('consent.data', { webhookId: a }))).json,
			).toMatchObject({ status: 'emitted' });
			expect(restarted.executions).toHaveLength(1);
			expect(savedKeys(db)).toEqual(expect.arrayContaining([a, b]));
		},
	);

	it('a copy arriving while the first waits to be stored gets 409 "in-progress"; once the first is answered, copies are duplicates', async () => {
		const id = nextId();
		const hold = deferred();
		let held = false;
		const h = await harness({
			n8nMajor: 2,
			beforeStore: async () => {
				if (held) return;
				held = true;
				await hold.promise;
			},
		});
		const first = postSigned(h.url, envelope('consent.expired', { webhookId: id }));
		while (!held) await sleep(2);
		const copy = await postSigned(h.url, envelope('consent.expired', { webhookId: id }));
		expect(copy.status).toBe(409);
		expect(copy.json).toMatchObject({ status: 'in-progress' });
		hold.resolve();
		expect((await first).json).toMatchObject({ status: 'emitted' });
		expect(
			(await postSigned(h.url, envelope('consent.expired', { webhookId: id }))).json,
		).toMatchObject({ status: 'duplicate' });
		expect(h.executions).toHaveLength(1);
	});
});

describe('a stopping process takes nothing new (issue 16)', () => {
	// Node's http server: close() stops listening, connections with a request under way stay open
	// and their requests still reach the handler — n8n calls close() first on SIGTERM. A delivery
	// whose body is still arriving when the server closes is answered 503, on a connection the
	// server then closes, and leaves nothing behind.
	it.each([2, 1] as const)(
		'n8n %s.x: a delivery completing after the server stopped listening gets 503 "shutting-down" and Connection: close; the retry at the restarted process runs',
		async (n8nMajor) => {
			const db = createDatabase();
			const h = await harness({ db, n8nMajor });
			const webhookId = nextId();
			const body = Buffer.from(envelope('consent.accepted', { webhookId }));
			const response = await postInTwoParts(
				h.url,
				body,
				{ 'content-type': 'application/json', 'x-acme-sbl-signature': sign(body) },
				async () => {
					while (h.requestsStarted < 1) await sleep(2);
					h.stopListening();
				},
			);
			expect(response.status).toBe(503);
			expect(response.headers.connection).toBe('close');
			expect(response.headers['retry-after']).toBe('1');
			expect(response.json).toMatchObject({ received: false, status: 'shutting-down' });
			expect(h.executions).toHaveLength(0);
			expect(db.staticData).toBeNull();

			harness.restart();
			const restarted = await harness({ db, n8nMajor });
			expect((await postSigned(restarted.url, body)).json).toMatchObject({ status: 'emitted' });
			expect(restarted.executions).toHaveLength(1);
		},
	);
});

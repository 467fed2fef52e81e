import { oneNodeWorkflow } from '../../support/computed-outputs';
import {
	resolveWebhookDescriptionField,
	type ICredentialDataDecryptedObject,
	type ICredentialTestFunctions,
	type IDataObject,
	type INodeExecutionData,
	type INodeType,
	type IWebhookDescription,
	type IWebhookFunctions,
	type IWebhookResponseData,
} from 'n8n-workflow';

import { ConsentFlowTrigger } from '../../../nodes/ConsentFlowTrigger/ConsentFlowTrigger.node';
import { DEDUPE_KEY } from '../../../nodes/ConsentFlowTrigger/dedupe';
import { CONSENT_EVENTS } from '../../../nodes/shared/webhook/events';
import { answersAtEnqueue } from '../../../nodes/ConsentFlowTrigger/respond';
import { createDatabase, type HarnessOptions } from './http-harness';
import { SIGNING_KEY, envelope, nextId, post, postSigned, savedKeys, sign } from './helpers';
import { emitted, useTriggerHarness } from './trigger-harness';

const harness = useTriggerHarness();

describe('description', () => {
	const node = new ConsentFlowTrigger();
	const d = node.description;

	it('is a trigger with no inputs and outputs computed from Events and Outputs', () => {
		expect(d.name).toBe('consentFlowTrigger');
		expect(d.displayName).toBe('Consent Flow Trigger');
		expect(d.group).toEqual(['trigger']);
		expect(d.inputs).toEqual([]);
		expect(typeof d.outputs).toBe('string');
		expect(d.outputNames).toBeUndefined();
		expect(d.usableAsTool).toBeUndefined();
		expect(d.icon).toEqual({
			light: 'file:../../icons/sbl.svg',
			dark: 'file:../../icons/sbl.dark.svg',
		});
	});

	it('needs the signing credential, tested by signingSecretTest', () => {
		expect(d.credentials).toEqual([
			{ name: 'consentFlowWebhookSigningApi', required: true, testedBy: 'signingSecretTest' },
		]);
		expect(typeof node.methods.credentialTest.signingSecretTest).toBe('function');
	});

	it('has one POST webhook at path "webhook" whose response fields follow "Respond"', () => {
		expect(d.webhooks).toHaveLength(1);
		const [hook] = d.webhooks!;
		expect(hook).toMatchObject({ name: 'default', httpMethod: 'POST', path: 'webhook' });
		// Reference: n8n's own expression evaluator (n8n-workflow) on the template strings (what
		// n8n 1.x uses), and n8n-workflow 2.41's resolveWebhookDescriptionField (what n8n 2.x
		// uses), for the default parameters and each option. They agree except on purpose for
		// Immediately's responseMode: n8n 2.x answers onReceived after storing the execution, n8n
		// 1.x before, so 1.x gets responseNode (the node answers from its execution); see respond.ts.
		const expected = {
			onReceived: {
				template: { responseMode: 'responseNode', responseData: '' },
				native: { responseMode: 'onReceived', responseData: '' },
			},
			lastNode: {
				template: { responseMode: 'lastNode', responseData: 'noData' },
				native: { responseMode: 'lastNode', responseData: 'noData' },
			},
		};
		for (const respond of [undefined, 'onReceived', 'lastNode'] as const) {
			for (const extra of [{}, { rememberedDeliveries: '={{ 500 }}' }]) {
				const parameters = { ...(respond === undefined ? {} : { respond }), ...extra };
				const workflow = oneNodeWorkflow(
					node,
					'n8n-nodes-sbl.consentFlowTrigger',
					parameters,
					'Trigger',
				);
				const workflowNode = workflow.getNode('Trigger')!;
				const want = expected[respond ?? 'onReceived'];
				const dynamic = Object.keys(extra).length > 0;
				for (const field of ['responseMode', 'responseData'] as const) {
					const template = (hook as unknown as Record<string, string>)[field];
					expect(
						workflow.expression.getSimpleParameterValue(workflowNode, template, 'webhook', {}),
					).toBe(want.template[field]);
					const native = resolveWebhookDescriptionField(
						workflowNode,
						hook as unknown as IWebhookDescription,
						field,
					);
					// With an expression among the parameters n8n 2.x evaluates the template too.
					expect(native).toEqual(
						dynamic ? { resolved: false } : { resolved: true, value: want.native[field] },
					);
				}
				expect(answersAtEnqueue(workflowNode.parameters)).toBe(
					!dynamic && (respond ?? 'onReceived') === 'onReceived',
				);
			}
		}
	});

	it('tells the user which URL to give as webhookUrl', () => {
		const notice = d.properties.find((p) => p.type === 'notice');
		expect(notice?.displayName).toMatch(/Production URL as <code>webhookUrl<\/code>/);
		expect(notice?.displayName).toMatch(/publish \(n8n 1\.x: activate\) this workflow/);
	});

	it('has a no-op webhook lifecycle (the service has no registration API)', async () => {
		const hooks = node.webhookMethods.default;
		await expect(hooks.checkExists()).resolves.toBe(true);
		await expect(hooks.create()).resolves.toBe(true);
		await expect(hooks.delete()).resolves.toBe(true);
	});

	it('selects every event (and unrecognised deliveries) by default', () => {
		const events = d.properties.find((p) => p.name === 'events');
		expect(events?.type).toBe('multiOptions');
		expect(new Set(events?.default as string[])).toEqual(
			new Set([...CONSENT_EVENTS, 'unrecognised']),
		);
		expect((events?.options ?? []).map((o) => (o as { value: string }).value).sort()).toEqual(
			[...CONSENT_EVENTS, 'unrecognised'].sort(),
		);
	});
});

describe('credential test signingSecretTest', () => {
	const test = async (data: ICredentialDataDecryptedObject | undefined) =>
		await new ConsentFlowTrigger().methods.credentialTest.signingSecretTest.call(
			{} as ICredentialTestFunctions,
			{ id: '1', name: 'signing', type: 'consentFlowWebhookSigningApi', data },
		);

	// n8n shows any OK as "Connection tested successfully", and no call can check a signing secret
	it('does not report success for a well-formed secret: says it is not checked and where a wrong one shows', async () => {
		const result = await test({ secret: SIGNING_KEY, signatureHeader: '' });
		expect(result.status).toBe('Error');
		expect(result.message).toMatch(/^Not checked: the signing secret is well formed/);
		expect(result.message).toContain('Listen for test event');
		expect(result.message).not.toContain(SIGNING_KEY);
	});

	it.each([
		['empty', { secret: '' }, /^Signing Secret must be filled in/],
		['absent', undefined, /^Signing Secret must be filled in/],
		['short', { secret: 'short-secret' }, /at least 16/],
		['padded', { secret: ` ${SIGNING_KEY}` }, /whitespace/],
		['multi-line', { secret: `${SIGNING_KEY}\n` }, /must be on one line/],
		['bad header', { secret: SIGNING_KEY, signatureHeader: 'x bad' }, /header name/],
	])('rejects a secret that is %s with a clear message', async (_label, data, message) => {
		const result = await test(data);
		expect(result.status).toBe('Error');
		expect(result.message).toMatch(message);
		expect(result.message).not.toMatch(/^Not checked/);
	});
});

describe('webhook() over HTTP: events and outputs', () => {
	it.each(CONSENT_EVENTS.map((event, index) => [event, index] as const))(
		'%s lands on output %i',
		async (event, index) => {
			const h = await harness();
			const webhookId = nextId();
			const body = envelope(event, { webhookId, timestamp: '2026-11-22T10:00:00Z' });
			const response = await postSigned(h.url, body);
			expect(response.status).toBe(200);
			expect(response.contentType).toMatch(/application\/json/);
			expect(response.json).toEqual({ received: true, event, webhookId, status: 'emitted' });
			expect(h.executions).toHaveLength(1);
			const item = emitted(h);
			expect(item.index).toBe(index);
			expect(item.json).toMatchObject({
				event,
				webhookId,
				timestamp: '2026-11-22T10:00:00Z',
				flowId: 'flow-123',
				externalId: 'loan-42',
				nationalId: '01817000173',
				payload: { externalId: 'loan-42', flow: 'flow-123', nationalId: '01817000173' },
			});
			expect(Date.parse(item.json.receivedAt as string)).not.toBeNaN();
		},
	);

	it('consent.created carries authorizationCode', async () => {
		const h = await harness();
		const body = envelope('consent.created', {
			payload: { externalId: 'e', flow: 'f', nationalId: 'n', authorizationCode: 'auth-1' },
		});
		await postSigned(h.url, body);
		expect(emitted(h).json.authorizationCode).toBe('auth-1');
	});

	it.each([
		['consent.rejected', 2],
		['consent.deleted', 3],
	] as const)('%s arrives in both envelope forms on output %i', async (event, index) => {
		const h = await harness();
		// Published form: webhookId, type, payload with flow and nationalId only; no timestamp.
		const published = JSON.stringify({
			webhookId: nextId(),
			type: event,
			payload: { flow: 'flow-7', nationalId: '01817000173' },
		});
		// Current form: event and timestamp.
		const current = envelope(event, { payload: { flow: 'flow-7', nationalId: '01817000173' } });
		expect((await postSigned(h.url, published)).status).toBe(200);
		expect((await postSigned(h.url, current)).status).toBe(200);
		expect(h.executions).toHaveLength(2);
		const first = emitted(h, 0);
		const second = emitted(h, 1);
		expect(first.index).toBe(index);
		expect(second.index).toBe(index);
		expect(first.json).toMatchObject({
			event,
			timestamp: null,
			flowId: 'flow-7',
			externalId: null,
			nationalId: '01817000173',
		});
		expect(second.json.timestamp).not.toBeNull();
	});

	it('accepts the older envelope form with `id` and `type`', async () => {
		const h = await harness();
		const id = nextId('old');
		const response = await postSigned(
			h.url,
			JSON.stringify({ id, type: 'consent.data', payload: {} }),
		);
		expect(response.json).toMatchObject({
			event: 'consent.data',
			webhookId: id,
			status: 'emitted',
		});
		expect(emitted(h)).toMatchObject({ index: 4, json: { webhookId: id } });
	});

	it('sends a signed body that is not JSON to Unrecognised with the raw text', async () => {
		const h = await harness();
		const text = 'event=consent.created&flow=f-1 ø';
		const response = await postSigned(h.url, text, {
			extraHeaders: { 'content-type': 'text/plain; charset=utf-8' },
		});
		expect(response.status).toBe(200);
		expect(response.json).toEqual({
			received: true,
			event: null,
			webhookId: null,
			status: 'emitted',
		});
		const item = emitted(h);
		expect(item.index).toBe(10);
		expect(item.json).toMatchObject({ event: null, reason: 'not-json', rawBody: text });
		expect('webhookId' in item.json).toBe(false);
	});

	it('sends an unknown event to Unrecognised with its name and id', async () => {
		const h = await harness();
		const webhookId = nextId();
		const body = JSON.stringify({ webhookId, event: 'consent.archived', payload: { flow: 'f' } });
		await postSigned(h.url, body);
		const item = emitted(h);
		expect(item.index).toBe(10);
		expect(item.json).toMatchObject({
			event: 'consent.archived',
			reason: 'unknown-event',
			rawBody: body,
			webhookId,
		});
	});

	it('sends JSON without an event to Unrecognised as no-event', async () => {
		const h = await harness();
		await postSigned(h.url, '{"webhookId":"x-1","payload":{}}');
		expect(emitted(h)).toMatchObject({ index: 10, json: { reason: 'no-event', event: null } });
	});
});

describe('webhook() over HTTP: signature', () => {
	const body = envelope('consent.accepted');

	it('answers 401 to a wrong signature and runs nothing', async () => {
		const h = await harness();
		const response = await post(h.url, body, {
			'x-acme-sbl-signature': sign(body, 'wrong-secret-0123456'),
		});
		expect(response.status).toBe(401);
		expect(response.text).toBe('Unauthorized');
		expect(h.executions).toHaveLength(0);
		expect(h.deliveries[0].result).toEqual({ noWebhookResponse: true });
	});

	it('answers 401 when the signature header is missing', async () => {
		const h = await harness();
		const response = await post(h.url, body, { 'x-signature': sign(body) });
		expect(response.status).toBe(401);
		expect(h.executions).toHaveLength(0);
	});

	it('accepts upper-case hex', async () => {
		const h = await harness();
		const response = await post(h.url, body, { 'x-acme-sbl-signature': sign(body).toUpperCase() });
		expect(response.status).toBe(200);
		expect(h.executions).toHaveLength(1);
	});

	it('verifies the exact bytes: escapes, spacing and big numbers pass; re-serialised JSON does not', async () => {
		const h = await harness();
		const exact =
			'{ "webhookId":"exact-1", "event" : "consent.data",\n "payload":{"flow":"f","lastName":"Bj\\u00f8rnstad","income":12345678901234567890,"rate":1.50} }';
		const ok = await postSigned(h.url, exact);
		expect(ok.status).toBe(200);
		expect(emitted(h).json.payload).toMatchObject({ lastName: 'Bjørnstad', rate: 1.5 });

		const reserialised = JSON.stringify(JSON.parse(exact));
		const refused = await post(h.url, reserialised, { 'x-acme-sbl-signature': sign(exact) });
		expect(refused.status).toBe(401);
		expect(h.executions).toHaveLength(1);
	});

	it('uses the configured header name, and only that one', async () => {
		const h = await harness({
			credentials: { secret: SIGNING_KEY, signatureHeader: 'X-Bank-Signature' },
		});
		const viaConfigured = await postSigned(h.url, envelope('consent.data'), {
			header: 'x-bank-signature',
		});
		expect(viaConfigured.status).toBe(200);
		const viaPattern = await postSigned(h.url, envelope('consent.data'), {
			header: 'x-acme-sbl-signature',
		});
		expect(viaPattern.status).toBe(401);
		expect(h.executions).toHaveLength(1);
	});

	it('falls back to any x-*-sbl-signature header when none is configured', async () => {
		const h = await harness();
		const response = await postSigned(h.url, envelope('consent.data'), {
			header: 'X-Other-Maker-SBL-Signature',
		});
		expect(response.status).toBe(200);
		expect(h.executions).toHaveLength(1);
	});

	it.each([
		['no credential', null],
		['an empty secret', { secret: '', signatureHeader: '' }],
	])('answers 401 with %s configured (fail closed)', async (_label, credentials) => {
		const h = await harness({ credentials });
		// Even a body "signed" with the empty key is refused.
		const response = await postSigned(h.url, body, { secret: '' });
		expect(response.status).toBe(401);
		expect(h.executions).toHaveLength(0);
	});

	describe('several candidate signatures: the answer does not depend on their order', () => {
		const good = sign(body);
		const bogus = sign(body, 'another-secret-0123456');
		const bogusHeader = ['x-first-sbl-signature', bogus];
		const goodHeader = ['x-second-sbl-signature', good];

		it.each([
			['bogus', bogusHeader, goodHeader],
			['valid', goodHeader, bogusHeader],
		])('two matching headers, one bogus: 200 with the %s one first', async (_label, a, b) => {
			const h = await harness();
			const response = await post(h.url, body, { [a[0]]: a[1], [b[0]]: b[1] });
			expect(response.status).toBe(200);
			expect(h.executions).toHaveLength(1);
		});

		it.each([
			['bogus', [bogus, good]],
			['valid', [good, bogus]],
		])('one header sent twice, the %s one first: 200', async (_label, values) => {
			const h = await harness();
			const response = await post(h.url, body, { 'x-acme-sbl-signature': values } as never);
			expect(response.status).toBe(200);
		});

		it('a comma-joined value with a valid signature: 200', async () => {
			const h = await harness();
			const response = await post(h.url, body, {
				'x-acme-sbl-signature': `${bogus}, sha256=${good}`,
			});
			expect(response.status).toBe(200);
		});

		it('only bogus candidates: 401', async () => {
			const h = await harness();
			const response = await post(h.url, body, {
				'x-first-sbl-signature': bogus,
				'x-second-sbl-signature': `${bogus}, ${good.slice(1)}`,
			});
			expect(response.status).toBe(401);
			expect(h.executions).toHaveLength(0);
		});

		it('more than 8 candidates: 401 even with a valid one among them', async () => {
			const h = await harness();
			const eight = Array(7).fill(bogus).concat(good).join(', ');
			expect((await post(h.url, body, { 'x-acme-sbl-signature': eight })).status).toBe(200);
			const nine = Array(8).fill(bogus).concat(good).join(', ');
			expect((await post(h.url, body, { 'x-acme-sbl-signature': nine })).status).toBe(401);
			expect(h.executions).toHaveLength(1);
		});

		it('with a configured header, a valid signature in another header does not count', async () => {
			const h = await harness({
				credentials: { secret: SIGNING_KEY, signatureHeader: 'x-bank-signature' },
			});
			const response = await post(h.url, body, {
				'x-bank-signature': bogus,
				'x-acme-sbl-signature': good,
			});
			expect(response.status).toBe(401);
			const both = await post(h.url, body, { 'x-bank-signature': [bogus, good] } as never);
			expect(both.status).toBe(200);
		});
	});

	it('reads the raw body with readRawBody() when rawBody is not set yet', async () => {
		const h = await harness({ provideRawBody: false });
		const response = await postSigned(h.url, body);
		expect(response.status).toBe(200);
		expect(h.executions).toHaveLength(1);
	});
});

describe('webhook() over HTTP: duplicates', () => {
	it('acknowledges a repeated webhookId without emitting it', async () => {
		const h = await harness();
		const webhookId = nextId();
		const body = envelope('consent.accepted', { webhookId });
		expect((await postSigned(h.url, body)).json).toMatchObject({ status: 'emitted' });
		const again = await postSigned(h.url, body);
		expect(again.status).toBe(200);
		expect(again.json).toEqual({
			received: true,
			event: 'consent.accepted',
			webhookId,
			status: 'duplicate',
		});
		expect(h.executions).toHaveLength(1);
	});

	it('saves every new id (not only the first) and still suppresses them after a restart', async () => {
		const db = createDatabase();
		const ids = [nextId(), nextId(), nextId()];
		const before = await harness({ db });
		for (const webhookId of ids) {
			expect(
				(await postSigned(before.url, envelope('consent.data', { webhookId }))).json,
			).toMatchObject({
				status: 'emitted',
			});
		}
		// Saved by the execution of each delivery (execute() writes the id again).
		expect(db.writes).toBeGreaterThanOrEqual(3);
		const saved = db.read() as Record<string, Record<string, unknown>>;
		expect(savedKeys(saved['node:Consent Flow Trigger'][DEDUPE_KEY])).toEqual(ids);
		await before.close();
		harness.restart(); // a restart is a new process

		// "Restart": a new node instance and a new server, the same stored static data.
		const after = await harness({ db });
		for (const webhookId of ids) {
			const response = await postSigned(after.url, envelope('consent.data', { webhookId }));
			expect(response.json).toMatchObject({ status: 'duplicate', webhookId });
		}
		expect(after.executions).toHaveLength(0);
		const fresh = await postSigned(after.url, envelope('consent.data'));
		expect(fresh.json).toMatchObject({ status: 'emitted' });
		const stored = db.read() as Record<string, Record<string, unknown>>;
		expect(savedKeys(stored['node:Consent Flow Trigger'][DEDUPE_KEY]).slice(0, 3)).toEqual(ids);
	});

	it('forgets the oldest ids beyond Remembered Deliveries', async () => {
		const h = await harness({ parameters: { rememberedDeliveries: 2 } });
		const [a, b, c] = [nextId(), nextId(), nextId()];
		for (const webhookId of [a, b, c])
			await postSigned(h.url, envelope('consent.data', { webhookId }));
		expect(
			(await postSigned(h.url, envelope('consent.data', { webhookId: c }))).json,
		).toMatchObject({
			status: 'duplicate',
		});
		expect(
			(await postSigned(h.url, envelope('consent.data', { webhookId: a }))).json,
		).toMatchObject({
			status: 'emitted',
		});
	});

	it('emits every delivery when Ignore Duplicate Deliveries is off', async () => {
		const h = await harness({ parameters: { ignoreDuplicates: false } });
		const body = envelope('consent.data');
		await postSigned(h.url, body);
		await postSigned(h.url, body);
		expect(h.executions).toHaveLength(2);
		expect(h.db.writes).toBe(0);
	});

	it('suppresses repeated unrecognised deliveries that carry an id', async () => {
		const h = await harness();
		const body = JSON.stringify({ webhookId: nextId(), event: 'consent.archived' });
		await postSigned(h.url, body);
		expect((await postSigned(h.url, body)).json).toMatchObject({ status: 'duplicate' });
		expect(h.executions).toHaveLength(1);
	});

	describe('test URL and Production URL do not share the duplicate memory', () => {
		const status = async (url: string, webhookId: string) =>
			((await postSigned(url, envelope('consent.data', { webhookId }))).json as { status: string })
				.status;

		it.each([
			[
				'an id sent to the test URL does not block it at the Production URL',
				{ mode: 'manual' },
				{},
			],
			['an id seen in production does not block a test delivery of it', {}, { mode: 'manual' }],
			['two triggers (node names) of one workflow do not share memory', {}, { nodeName: 'Second' }],
		] as Array<[string, Partial<HarnessOptions>, Partial<HarnessOptions>]>)(
			'%s (same process, same database)',
			async (_label, firstOptions, secondOptions) => {
				const db = createDatabase();
				const first = await harness({ db, ...firstOptions });
				const second = await harness({ db, ...secondOptions });
				const webhookId = nextId();
				expect(await status(first.url, webhookId)).toBe('emitted');
				expect(await status(second.url, webhookId)).toBe('emitted');
				expect(await status(second.url, webhookId)).toBe('duplicate');
				expect(second.executions).toHaveLength(1);
			},
		);

		it('each memory still suppresses its own repeats', async () => {
			const test = await harness({ mode: 'manual' });
			const webhookId = nextId('again');
			expect(await status(test.url, webhookId)).toBe('emitted');
			expect(await status(test.url, webhookId)).toBe('duplicate');
			expect(test.db.writes).toBe(0);
		});

		it('two triggers (node names) of one workflow do not share memory', async () => {
			const db = createDatabase();
			const first = await harness({ db });
			const second = await harness({ db, nodeName: 'Second Trigger' });
			const webhookId = nextId('two');
			expect(await status(first.url, webhookId)).toBe('emitted');
			expect(await status(second.url, webhookId)).toBe('emitted');
		});
	});

	it("the n8n save order in the harness loses a naive node's later writes (why execute() writes the id again)", async () => {
		// A naive trigger: records ids by mutating static data in webhook() only and lets n8n
		// answer, with n8n's plain onReceived fields and no execute().
		class NaiveTrigger extends ConsentFlowTrigger {
			constructor() {
				super();
				this.description = {
					...this.description,
					webhooks: [
						{ name: 'default', httpMethod: 'POST', responseMode: 'onReceived', path: 'webhook' },
					],
				};
				(this as { execute?: unknown }).execute = undefined;
			}

			async webhook(this: IWebhookFunctions): Promise<IWebhookResponseData> {
				const body = JSON.parse(this.getRequestObject().rawBody.toString()) as IDataObject;
				const data = this.getWorkflowStaticData('node');
				const seen = (data.seen as string[] | undefined) ?? [];
				if (seen.includes(body.webhookId as string))
					return { webhookResponse: { status: 'duplicate' } };
				data.seen = [...seen, body.webhookId as string];
				const item: INodeExecutionData = { json: body };
				return { workflowData: [[item]], webhookResponse: { status: 'emitted' } };
			}
		}
		const db = createDatabase();
		const h = await harness({ db, createNode: () => new NaiveTrigger() as INodeType });
		const [a, b] = [nextId(), nextId()];
		const first = await postSigned(h.url, envelope('consent.data', { webhookId: a }));
		await postSigned(h.url, envelope('consent.data', { webhookId: b }));
		// n8n's deferred onReceived answer without responseData is the literal 'firstEntryJson'.
		expect(first.text).toBe('firstEntryJson');
		// The first write (stored static data was null) survived, the second did not.
		const stored = db.read() as Record<string, { seen: string[] }>;
		expect(stored['node:Consent Flow Trigger'].seen).toEqual([a]);
		expect((await postSigned(h.url, envelope('consent.data', { webhookId: b }))).text).toBe(
			'firstEntryJson',
		);
		expect(h.executions).toHaveLength(3);
	});
});

describe('webhook() over HTTP: event filter', () => {
	it('acknowledges unselected events as filtered; the selected ones have the only outputs', async () => {
		const h = await harness({ parameters: { events: ['consent.data', 'income.dataFailed'] } });
		const filtered = await postSigned(h.url, envelope('consent.created'));
		expect(filtered.status).toBe(200);
		expect(filtered.json).toMatchObject({ event: 'consent.created', status: 'filtered' });
		expect(h.executions).toHaveLength(0);
		expect(h.db.writes).toBe(0);

		// outputs: Data, Income Data Failed (issue 13: no handle for an unselected event)
		await postSigned(h.url, envelope('income.dataFailed'));
		expect(emitted(h, undefined, 2).index).toBe(1);
		await postSigned(h.url, envelope('consent.data'));
		expect(emitted(h, undefined, 2).index).toBe(0);
	});

	it('One for All Events: every selected event, and Unrecognised, on the one output', async () => {
		const h = await harness({ parameters: { outputMode: 'single' } });
		for (const body of [envelope('consent.created'), envelope('tax.dataFailed'), 'not json']) {
			const response = await postSigned(h.url, body);
			expect(response.json).toMatchObject({ status: 'emitted' });
			const { index, json } = emitted(h, undefined, 1);
			expect(index).toBe(0);
			// the event name stays in the item
			expect(json.event).toBe(body === 'not json' ? null : JSON.parse(body).event);
		}
		expect(h.executions).toHaveLength(3);
	});

	it('drops unrecognised deliveries unless selected', async () => {
		const h = await harness({ parameters: { events: ['consent.data'] } });
		const response = await postSigned(h.url, 'not json');
		expect(response.json).toMatchObject({ status: 'filtered', event: null });
		expect(h.executions).toHaveLength(0);
	});

	it('a filtered delivery is not remembered as seen', async () => {
		const db = createDatabase();
		const webhookId = nextId();
		const narrow = await harness({ db, parameters: { events: ['consent.data'] } });
		await postSigned(narrow.url, envelope('consent.created', { webhookId }));
		const wide = await harness({ db });
		const response = await postSigned(wide.url, envelope('consent.created', { webhookId }));
		expect(response.json).toMatchObject({ status: 'emitted' });
	});
});

describe('webhook() over HTTP: options', () => {
	it('Include Headers adds the headers without signature, cookie and authorization', async () => {
		// named in Additional Headers, the credentials are left out all the same
		const additionalHeaders =
			'x-request-id, cookie, authorization, x-api-key, x-auth-token, x-n8n-api-key';
		const h = await harness({
			parameters: { options: { includeHeaders: true, additionalHeaders } },
		});
		await postSigned(h.url, envelope('consent.data'), {
			extraHeaders: {
				'x-request-id': 'req-9',
				cookie: 'session=1',
				authorization: 'Bearer abc',
				'x-api-key': 'k-1',
				'x-auth-token': 't-1',
				'x-n8n-api-key': 'n-1',
			},
		});
		const headers = emitted(h).json.headers as Record<string, string>;
		expect(headers['x-request-id']).toBe('req-9');
		expect(headers['content-type']).toBe('application/json');
		expect(headers).not.toHaveProperty('x-acme-sbl-signature');
		expect(headers).not.toHaveProperty('cookie');
		expect(headers).not.toHaveProperty('authorization');
		expect(JSON.stringify(headers)).not.toMatch(/k-1|t-1|n-1|Bearer|session/);
	});

	it('Include Headers leaves out the configured signature header, also when named', async () => {
		const h = await harness({
			credentials: { secret: SIGNING_KEY, signatureHeader: ' X-Bank ' },
			parameters: { options: { includeHeaders: true, additionalHeaders: 'x-bank, x-note' } },
		});
		// a value that looks like no token: a stray candidate beside the matching digest
		const body = envelope('consent.data');
		await post(h.url, body, { 'x-bank': `note, ${sign(body)}`, 'x-note': 'n-1' });
		const headers = emitted(h).json.headers as Record<string, string>;
		expect(headers).toMatchObject({ 'x-note': 'n-1' });
		expect(headers).not.toHaveProperty('x-bank');
	});

	it('leaves headers out by default', async () => {
		const h = await harness();
		await postSigned(h.url, envelope('consent.data'));
		expect(emitted(h).json).not.toHaveProperty('headers');
	});

	describe('Maximum Age (Seconds)', () => {
		const parameters = { options: { maxAgeSeconds: 300 } };

		it('emits a delivery with a recent timestamp', async () => {
			const h = await harness({ parameters });
			const response = await postSigned(
				h.url,
				envelope('consent.data', { timestamp: new Date().toISOString() }),
			);
			expect(response.json).toMatchObject({ status: 'emitted' });
		});

		it('acknowledges an old delivery as stale, without emitting or remembering it', async () => {
			const h = await harness({ parameters });
			const old = new Date(Date.now() - 3600 * 1000).toISOString();
			const webhookId = nextId();
			const response = await postSigned(
				h.url,
				envelope('consent.data', { webhookId, timestamp: old }),
			);
			expect(response.status).toBe(200);
			expect(response.json).toEqual({
				received: true,
				event: 'consent.data',
				webhookId,
				status: 'stale',
			});
			expect(h.executions).toHaveLength(0);
			expect(h.db.writes).toBe(0);
		});

		it('treats an unparsable timestamp as stale', async () => {
			const h = await harness({ parameters });
			const response = await postSigned(
				h.url,
				envelope('consent.data', { timestamp: 'last tuesday' }),
			);
			expect(response.json).toMatchObject({ status: 'stale' });
			expect(h.executions).toHaveLength(0);
		});

		it('lets envelopes without a timestamp through', async () => {
			const h = await harness({ parameters });
			const body = JSON.stringify({
				webhookId: nextId(),
				type: 'consent.rejected',
				payload: { flow: 'f' },
			});
			expect((await postSigned(h.url, body)).json).toMatchObject({ status: 'emitted' });
		});

		it('does not check timestamps when off (default)', async () => {
			const h = await harness();
			const response = await postSigned(
				h.url,
				envelope('consent.data', { timestamp: '2001-01-01T00:00:00Z' }),
			);
			expect(response.json).toMatchObject({ status: 'emitted' });
		});
	});
});

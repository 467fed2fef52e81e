'use strict';

const crypto = require('node:crypto');
const { startSimulator } = require('./index');
const { SCENARIOS } = require('./lib/webhooks');
const {
	NATIONAL_IDS,
	token,
	call,
	control,
	flowBody,
	waitFor,
	startReceiver,
	hmacHex,
} = require('./helpers');

// The scenario table of the brief, written out here so the test does not trust the implementation.
const EXPECTED_EVENTS = {
	happy: ['consent.created', 'consent.accepted', 'consent.data'],
	rejected: ['consent.created', 'consent.rejected'],
	'user-timeout': ['consent.created', 'user.timedOut'],
	'consent-timeout': ['consent.created', 'consent.accepted', 'consent.data', 'consent.timedOut'],
	'consent-timeout-data-failed': [
		'consent.created',
		'consent.accepted',
		'consent.timedOutDataFailed',
	],
	'tax-failed': ['consent.created', 'consent.accepted', 'tax.dataFailed'],
	'income-failed': ['consent.created', 'consent.accepted', 'income.dataFailed'],
};

let sim;
let sbl;
let receiver;
beforeAll(async () => {
	sim = await startSimulator({ webhookDelayMs: 5 });
	sbl = await token(sim, 'consent');
	receiver = await startReceiver((req) => ({
		status: req.url === '/teapot' ? 418 : 202,
		body: 'received',
	}));
});
afterAll(async () => {
	await sim.close();
	await receiver.close();
});

const createFlow = async (overrides) => {
	const res = await call(`${sim.consentBaseUrl}/api/flow-definitions/sbl`, {
		method: 'POST',
		token: sbl,
		json: flowBody({ webhookUrl: `${receiver.url}/hook`, ...overrides }),
	});
	expect(res.status).toBe(201);
	return res.body;
};

const sigOf = (hook) => hook.headers[sim.signatureHeader];

function expectSigned(hook) {
	expect(sigOf(hook)).toBe(hmacHex(sim.signingSecret, hook.raw));
	expect(hook.headers['content-type']).toBe('application/json');
}

function expectEnvelope(hook, event, flow) {
	const env = hook.json;
	if (event === 'consent.rejected' || event === 'consent.deleted') {
		expect(env).toEqual({
			id: expect.stringMatching(/^[0-9a-f-]{36}$/),
			type: event,
			payload: { flow: flow.id, nationalId: flow.nationalId },
		});
		return;
	}
	expect(Object.keys(env).sort()).toEqual(['event', 'payload', 'timestamp', 'type', 'webhookId']);
	expect(env.webhookId).toMatch(/^[0-9a-f-]{36}$/);
	expect(env.event).toBe(event);
	expect(env.type).toBe(event);
	expect(new Date(env.timestamp).toISOString()).toBe(env.timestamp);
	expect(env.payload).toMatchObject({
		externalId: flow.externalId,
		flow: flow.id,
		nationalId: flow.nationalId,
	});
	expect('authorizationCode' in env.payload).toBe(event === 'consent.created');
	expect('data' in env.payload).toBe(event === 'consent.data');
	if (event === 'consent.created') expect(env.payload.authorizationCode).toMatch(/^[\w-]{16,}$/);
	if (event === 'consent.data')
		expect(env.payload.data.tax.grossIncome).toEqual(expect.any(Number));
}

describe('lifecycle scenarios', () => {
	test('the scenario table covers seven scenarios in the documented order', () => {
		expect(SCENARIOS).toEqual([
			'happy',
			'rejected',
			'user-timeout',
			'consent-timeout',
			'consent-timeout-data-failed',
			'tax-failed',
			'income-failed',
		]);
	});

	test.each(SCENARIOS)(
		'%s: events arrive in order, signed over the exact bytes, in the right envelope',
		async (scenario) => {
			const flow = await createFlow({
				nationalId: NATIONAL_IDS[scenario],
				externalId: `case-${scenario}`,
			});
			const expected = EXPECTED_EVENTS[scenario];
			const hooks = await waitFor(() => {
				const got = receiver.forFlow(flow.id);
				return got.length >= expected.length ? got : null;
			});
			await new Promise((r) => setTimeout(r, 30));
			expect(receiver.forFlow(flow.id).map((h) => h.json.type)).toEqual(expected);
			hooks.forEach((hook, i) => {
				expectSigned(hook);
				expectEnvelope(hook, expected[i], flow);
			});
			const ids = hooks.map((h) => h.json.webhookId || h.json.id);
			expect(new Set(ids).size).toBe(ids.length);
			const deliveries = await control(sim, `/deliveries?flowId=${flow.id}`);
			expect(deliveries.body.deliveries.map((d) => d.event)).toEqual(expected);
			for (const d of deliveries.body.deliveries) {
				expect(d).toMatchObject({
					flowId: flow.id,
					url: `${receiver.url}/hook`,
					status: 202,
					responseBody: 'received',
					error: null,
					source: 'lifecycle',
				});
				expect(d.requestHeaders[sim.signatureHeader]).toBe(
					hmacHex(sim.signingSecret, Buffer.from(d.body)),
				);
				expect(Date.parse(d.time)).not.toBeNaN();
			}
		},
	);

	test('externalId "sim:<scenario>" overrides the digit-sum choice', async () => {
		const flow = await createFlow({
			nationalId: NATIONAL_IDS.happy,
			externalId: 'sim:consent-timeout-data-failed:case-9',
		});
		await waitFor(() => receiver.forFlow(flow.id).length >= 3);
		expect(receiver.forFlow(flow.id).map((h) => h.json.type)).toEqual(
			EXPECTED_EVENTS['consent-timeout-data-failed'],
		);
		const listed = await control(sim, `/flows/${flow.id}`);
		expect(listed.body.flow.scenario).toBe('consent-timeout-data-failed');
	});

	test('the create response does not wait for webhooks', async () => {
		await control(sim, '/config', { method: 'POST', json: { webhookDelayMs: 150 } });
		try {
			const flow = await createFlow({ externalId: 'sim:rejected' });
			expect(receiver.forFlow(flow.id)).toHaveLength(0);
			await waitFor(() => receiver.forFlow(flow.id).length === 2);
		} finally {
			await control(sim, '/config', { method: 'POST', json: { webhookDelayMs: 5 } });
		}
	});

	test('with autoLifecycle off nothing is sent', async () => {
		await control(sim, '/config', { method: 'POST', json: { autoLifecycle: false } });
		try {
			const flow = await createFlow({ externalId: 'sim:happy' });
			await new Promise((r) => setTimeout(r, 100));
			expect(receiver.forFlow(flow.id)).toHaveLength(0);
		} finally {
			await control(sim, '/config', { method: 'POST', json: { autoLifecycle: true } });
		}
	});

	test('an unreachable webhook URL is recorded as an error', async () => {
		const flow = await createFlow({
			externalId: 'sim:rejected',
			webhookUrl: 'http://127.0.0.1:9/closed',
		});
		const deliveries = await waitFor(async () => {
			const res = await control(sim, `/deliveries?flowId=${flow.id}`);
			return res.body.deliveries.length === 2 ? res.body.deliveries : null;
		});
		expect(deliveries[0].status).toBeNull();
		expect(deliveries[0].error).toMatch(/ECONNREFUSED/);
	});
});

describe('manual firing and redelivery', () => {
	let flow;
	beforeAll(async () => {
		await control(sim, '/config', { method: 'POST', json: { autoLifecycle: false } });
		flow = await createFlow({ externalId: 'manual-1' });
	});
	afterAll(() => control(sim, '/config', { method: 'POST', json: { autoLifecycle: true } }));

	const fire = (json, id = flow.id) => control(sim, `/flows/${id}/fire`, { method: 'POST', json });
	const last = () => receiver.received[receiver.received.length - 1];

	test('fires a new-envelope event and reports the receiver answer', async () => {
		const res = await fire({ event: 'consent.accepted' });
		expect(res.status).toBe(200);
		expect(res.body).toMatchObject({
			status: 202,
			body: 'received',
			webhookId: expect.any(String),
			signature: expect.stringMatching(/^[0-9a-f]{64}$/),
		});
		const hook = last();
		expect(hook.raw.toString('utf8')).toBe(res.body.sentBody);
		expectSigned(hook);
		expect(sigOf(hook)).toBe(res.body.signature);
		expectEnvelope(hook, 'consent.accepted', flow);
		expect(hook.json.webhookId).toBe(res.body.webhookId);
	});

	test('envelope "old" and "new" can be forced', async () => {
		await fire({ event: 'consent.accepted', envelope: 'old' });
		expect(Object.keys(last().json).sort()).toEqual(['id', 'payload', 'type']);
		await fire({ event: 'consent.rejected', envelope: 'new' });
		expect(last().json).toMatchObject({
			event: 'consent.rejected',
			type: 'consent.rejected',
			payload: { flow: flow.id, nationalId: flow.nationalId },
		});
		expect(last().json.timestamp).toEqual(expect.any(String));
		await fire({ event: 'consent.rejected' });
		expectEnvelope(last(), 'consent.rejected', flow);
	});

	test('badSignature, noSignature, upper case and a custom header name', async () => {
		await fire({ event: 'consent.created', badSignature: true });
		expect(sigOf(last())).toMatch(/^[0-9a-f]{64}$/);
		expect(sigOf(last())).not.toBe(hmacHex(sim.signingSecret, last().raw));
		await fire({ event: 'consent.created', noSignature: true });
		expect(sigOf(last())).toBeUndefined();
		const upper = await fire({ event: 'consent.created', signatureCase: 'upper' });
		expect(sigOf(last())).toMatch(/^[0-9A-F]{64}$/);
		expect(sigOf(last()).toLowerCase()).toBe(hmacHex(sim.signingSecret, last().raw));
		expect(upper.body.signature).toBe(sigOf(last()));
		await fire({ event: 'consent.created', headerName: 'X-Other-Signature' });
		expect(sigOf(last())).toBeUndefined();
		expect(last().headers['x-other-signature']).toBe(hmacHex(sim.signingSecret, last().raw));
	});

	test('rawBody is sent byte for byte and signed; url overrides the target', async () => {
		const rawBody = '{"webhookId":"w-1",  "event":"consent.data","payload":{"note":"blåbær"}}';
		const res = await fire({ rawBody, event: 'consent.data', url: `${receiver.url}/teapot` });
		expect(res.body.status).toBe(418);
		expect(last().url).toBe('/teapot');
		expect(last().raw.equals(Buffer.from(rawBody, 'utf8'))).toBe(true);
		expectSigned(last());
	});

	test('POST /__sim/fire sends to any URL without a flow', async () => {
		const res = await control(sim, '/fire', {
			method: 'POST',
			json: { url: `${receiver.url}/free`, event: 'income.dataFailed', externalId: 'x-1' },
		});
		expect(res.body.status).toBe(202);
		expect(last().url).toBe('/free');
		expect(last().json).toMatchObject({
			event: 'income.dataFailed',
			payload: {
				externalId: 'x-1',
				flow: expect.any(String),
				nationalId: expect.stringMatching(/^\d{11}$/),
			},
		});
		expectSigned(last());
		const missing = await control(sim, '/fire', {
			method: 'POST',
			json: { event: 'consent.created' },
		});
		expect(missing.status).toBe(400);
	});

	test('redeliver re-sends an earlier delivery byte for byte with the same webhookId', async () => {
		const first = await fire({ event: 'consent.data' });
		const original = last();
		const again = await control(sim, '/redeliver', {
			method: 'POST',
			json: { deliveryId: first.body.deliveryId },
		});
		expect(again.status).toBe(200);
		const copy = last();
		expect(copy).not.toBe(original);
		expect(copy.raw.equals(original.raw)).toBe(true);
		expect(sigOf(copy)).toBe(sigOf(original));
		expect(copy.json.webhookId).toBe(original.json.webhookId);
		expect(again.body.webhookId).toBe(first.body.webhookId);
		const deliveries = await control(sim, `/deliveries?flowId=${flow.id}`);
		const record = deliveries.body.deliveries.find((d) => d.deliveryId === again.body.deliveryId);
		expect(record).toMatchObject({ source: 'redeliver', redeliveryOf: first.body.deliveryId });
		const unknown = await control(sim, '/redeliver', {
			method: 'POST',
			json: { deliveryId: 999999 },
		});
		expect(unknown.status).toBe(404);
	});

	test('fire validates its input and needs a known flow', async () => {
		expect((await fire({})).status).toBe(400);
		expect((await fire({ event: 'consent.created', envelope: 'ancient' })).status).toBe(400);
		expect((await fire({ event: 'consent.created' }, crypto.randomUUID())).status).toBe(404);
	});
});

describe('signing options', () => {
	test('signingSecret and signatureHeader options are used', async () => {
		const other = await startSimulator({
			signingSecret: 'another-secret-value-123',
			signatureHeader: 'X-Custom-Sig',
			autoLifecycle: false,
		});
		try {
			expect(other.signatureHeader).toBe('x-custom-sig');
			const res = await call(`${other.url}/__sim/fire`, {
				method: 'POST',
				json: { url: `${receiver.url}/custom`, event: 'consent.created' },
			});
			expect(res.body.status).toBe(202);
			const hook = receiver.received[receiver.received.length - 1];
			expect(hook.headers['x-custom-sig']).toBe(hmacHex('another-secret-value-123', hook.raw));
			expect(hook.headers['x-acme-sbl-signature']).toBeUndefined();
		} finally {
			await other.close();
		}
	});
});

describe('redelivery (webhookRetries)', () => {
	test('off by default: one attempt per event whatever the answer', async () => {
		const flow = await createFlow({
			webhookUrl: `${receiver.url}/teapot`,
			externalId: `sim:rejected:${crypto.randomUUID()}`,
		});
		const got = await waitFor(async () => {
			const list = (await control(sim, `/deliveries?flowId=${flow.id}`)).body.deliveries;
			return list.length === 2 ? list : null;
		});
		expect(got.map((d) => [d.event, d.status, d.source])).toEqual([
			['consent.created', 418, 'lifecycle'],
			['consent.rejected', 418, 'lifecycle'],
		]);
	});

	test('with webhookRetries n, an event not answered 2xx is sent again (same bytes and id) up to n times, before the next event', async () => {
		const other = await startSimulator({
			webhookDelayMs: 5,
			webhookRetries: 3,
			webhookRetryDelayMs: 10,
		});
		// The receiver refuses the first two attempts of each body with 409, then accepts.
		const seen = new Map();
		const flaky = await startReceiver((req, raw) => {
			const n = (seen.get(raw.toString('utf8')) || 0) + 1;
			seen.set(raw.toString('utf8'), n);
			return { status: n <= 2 ? 409 : 200 };
		});
		try {
			const otherToken = await token(other, 'consent');
			const res = await call(`${other.consentBaseUrl}/api/flow-definitions/sbl`, {
				method: 'POST',
				token: otherToken,
				json: flowBody({
					webhookUrl: `${flaky.url}/hook`,
					externalId: `sim:rejected:${crypto.randomUUID()}`,
				}),
			});
			expect(res.status).toBe(201);
			const got = await waitFor(async () => {
				const list = (await control(other, `/deliveries?flowId=${res.body.id}`)).body.deliveries;
				return list.length === 6 ? list : null;
			});
			expect(got.map((d) => [d.event, d.status, d.source])).toEqual([
				['consent.created', 409, 'lifecycle'],
				['consent.created', 409, 'retry'],
				['consent.created', 200, 'retry'],
				['consent.rejected', 409, 'lifecycle'],
				['consent.rejected', 409, 'retry'],
				['consent.rejected', 200, 'retry'],
			]);
			for (const group of [got.slice(0, 3), got.slice(3)]) {
				expect(new Set(group.map((d) => d.body)).size).toBe(1);
				expect(new Set(group.map((d) => d.webhookId)).size).toBe(1);
				expect(group.slice(1).map((d) => d.redeliveryOf)).toEqual([
					group[0].deliveryId,
					group[0].deliveryId,
				]);
			}
			// 3 bodies × attempts: the receiver saw exactly what the log says
			expect(flaky.received).toHaveLength(6);
		} finally {
			await other.close();
			await flaky.close();
		}
	});

	test('config rejects bad retry values', async () => {
		for (const bad of [
			{ webhookRetries: -1 },
			{ webhookRetries: 1.5 },
			{ webhookRetries: 21 },
			{ webhookRetryDelayMs: -5 },
		]) {
			expect((await control(sim, '/config', { method: 'POST', json: bad })).status).toBe(400);
		}
	});
});

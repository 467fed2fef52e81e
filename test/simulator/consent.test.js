'use strict';

const crypto = require('node:crypto');
const { startSimulator } = require('./index');
const { token, call, control, flowBody, waitFor, startReceiver } = require('./helpers');

let sim;
let sbl;
let limited;
beforeAll(async () => {
	sim = await startSimulator({ autoLifecycle: false });
	sbl = await token(sim, 'consent');
	limited = await token(sim, 'limited');
});
afterAll(() => sim.close());

const createUrl = () => `${sim.consentBaseUrl}/api/flow-definitions/sbl`;
const create = (json, bearer = sbl, extra = {}) =>
	call(createUrl(), { method: 'POST', token: bearer, json, ...extra });

describe('bearer token checks', () => {
	test('missing token → 401 invalid_token with WWW-Authenticate', async () => {
		const res = await create(flowBody(), null);
		expect(res.status).toBe(401);
		expect(res.body).toEqual({ error: 'invalid_token', message: expect.any(String) });
		expect(res.headers.get('www-authenticate')).toMatch(/^Bearer error="invalid_token"/);
	});

	test('malformed, forged or foreign-realm tokens → 401', async () => {
		const [h, p] = sbl.split('.');
		const forgedClaims = Buffer.from(
			JSON.stringify({ ...JSON.parse(Buffer.from(p, 'base64url')), scope: 'sbl admin' }),
		).toString('base64url');
		const { privateKey } = crypto.generateKeyPairSync('rsa', { modulusLength: 2048 });
		const foreignSig = crypto
			.sign('RSA-SHA256', Buffer.from(`${h}.${p}`), privateKey)
			.toString('base64url');
		const estimateToken = await token(sim, 'estimate');
		for (const bad of [
			'garbage',
			`${h}.${forgedClaims}.${sbl.split('.')[2]}`,
			`${h}.${p}.${foreignSig}`,
			estimateToken,
		]) {
			const res = await call(`${sim.consentBaseUrl}/api/resource`, { token: bad });
			expect(res.status).toBe(401);
			expect(res.body.error).toBe('invalid_token');
			expect(res.headers.get('www-authenticate')).toMatch(/invalid_token/);
		}
	});

	test('token without scope sbl → 403 insufficient_scope', async () => {
		const res = await create(flowBody(), limited);
		expect(res.status).toBe(403);
		expect(res.body).toEqual({ error: 'insufficient_scope', message: 'token lacks scope sbl' });
		const del = await call(`${sim.consentBaseUrl}/api/flows/${crypto.randomUUID()}`, {
			method: 'DELETE',
			token: limited,
		});
		expect(del.status).toBe(403);
	});

	test('tokens of agents-test and agents-prod are accepted', async () => {
		for (const [client, realm] of [
			['loanApplication', 'agents-test'],
			['loanApplicationProd', 'agents-prod'],
		]) {
			const t = await token(sim, client, { realm, scope: 'loan-application:create:fi' });
			const res = await call(`${sim.consentBaseUrl}/api/loan-applications`, { token: t });
			expect(res.status).toBe(200);
		}
	});
});

describe('POST /api/flow-definitions/sbl', () => {
	test('201 with the flow', async () => {
		const before = Date.now();
		const res = await create(flowBody({ externalId: 'loan-42' }));
		expect(res.status).toBe(201);
		const flow = res.body;
		expect(flow).toEqual({
			id: expect.stringMatching(/^[0-9a-f-]{36}$/),
			href: `${sim.url}/consent/flows/${flow.id}`,
			requestStatus: 'Unopened',
			validTo: expect.any(String),
			redirectUrl: 'https://bank.example/after-consent',
			webhookUrl: 'http://127.0.0.1:9/unused',
			externalId: 'loan-42',
			coveredBy: '923456783',
			nationalId: flowBody().nationalId,
		});
		const days = (Date.parse(flow.validTo) - before) / 86400000;
		expect(days).toBeGreaterThan(29.99);
		expect(days).toBeLessThan(30.01);
		const page = await call(flow.href);
		expect(page.status).toBe(200);
		expect(page.headers.get('content-type')).toMatch(/text\/html/);
		expect(page.text).toContain(flow.id);
		const listed = await control(sim, `/flows/${flow.id}`);
		expect(listed.body.flow.lastName).toBe('Nordmann');
	});

	test('externalId is optional (null in the flow)', async () => {
		const res = await create(flowBody());
		expect(res.status).toBe(201);
		expect(res.body.externalId).toBeNull();
	});

	test('400 names every invalid field', async () => {
		const res = await create({
			nationalId: '1234',
			lastName: '  ',
			organizationId: '12345678X',
			redirectUrl: 'not a url',
			webhookUrl: 'ftp://example.com/hook',
			externalId: 42,
		});
		expect(res.status).toBe(400);
		expect(res.body.error).toBe('bad_request');
		const names = [
			'nationalId',
			'lastName',
			'organizationId',
			'redirectUrl',
			'webhookUrl',
			'externalId',
		];
		expect(res.body.fields.map((f) => f.field).sort()).toEqual([...names].sort());
		for (const name of names) expect(res.body.message).toContain(name);
		for (const f of res.body.fields) expect(f.message).toEqual(expect.any(String));
	});

	test('400 for a missing field, non-JSON content type, malformed JSON and a non-object body', async () => {
		const { webhookUrl, ...rest } = flowBody();
		const missing = await create(rest);
		expect(missing.status).toBe(400);
		expect(missing.body.fields).toEqual([{ field: 'webhookUrl', message: expect.any(String) }]);
		const form = await call(createUrl(), {
			method: 'POST',
			token: sbl,
			headers: { 'content-type': 'application/x-www-form-urlencoded' },
			body: 'nationalId=1',
		});
		expect(form.status).toBe(400);
		expect(form.body.error).toBe('bad_request');
		const malformed = await call(createUrl(), {
			method: 'POST',
			token: sbl,
			headers: { 'content-type': 'application/json' },
			body: '{"nationalId":',
		});
		expect(malformed.status).toBe(400);
		expect(malformed.body.message).toMatch(/JSON/);
		const array = await create([flowBody()]);
		expect(array.status).toBe(400);
		expect(webhookUrl).toBeDefined();
	});

	test('consentResponseWrapper wraps the created flow as { data }', async () => {
		await control(sim, '/config', { method: 'POST', json: { consentResponseWrapper: true } });
		try {
			const res = await create(flowBody());
			expect(res.status).toBe(201);
			expect(Object.keys(res.body)).toEqual(['data']);
			expect(res.body.data.requestStatus).toBe('Unopened');
		} finally {
			await control(sim, '/config', { method: 'POST', json: { consentResponseWrapper: false } });
		}
		const bare = await create(flowBody());
		expect(bare.body.id).toEqual(expect.any(String));
	});
});

describe('DELETE /api/flows/:flowId', () => {
	test('200 { id, deleted } then 404, and consent.deleted goes to the webhook in the older envelope', async () => {
		const receiver = await startReceiver();
		try {
			const created = await create(
				flowBody({ webhookUrl: `${receiver.url}/hook`, externalId: 'del-1' }),
			);
			const id = created.body.id;
			const del = await call(`${sim.consentBaseUrl}/api/flows/${id}`, {
				method: 'DELETE',
				token: sbl,
			});
			expect(del.status).toBe(200);
			expect(del.body).toEqual({ id, deleted: true });
			const again = await call(`${sim.consentBaseUrl}/api/flows/${id}`, {
				method: 'DELETE',
				token: sbl,
			});
			expect(again.status).toBe(404);
			expect(again.body).toEqual({ error: 'not_found', message: `no flow ${id}` });
			const [hook] = await waitFor(() => (receiver.received.length ? receiver.received : null));
			expect(hook.json).toEqual({
				id: expect.any(String),
				type: 'consent.deleted',
				payload: { flow: id, nationalId: flowBody().nationalId },
			});
			const page = await call(`${sim.url}/consent/flows/${id}`);
			expect(page.status).toBe(404);
		} finally {
			await receiver.close();
		}
	});

	test('unknown flow → 404; missing token → 401', async () => {
		const id = crypto.randomUUID();
		const res = await call(`${sim.consentBaseUrl}/api/flows/${id}`, {
			method: 'DELETE',
			token: sbl,
		});
		expect(res.status).toBe(404);
		expect(res.body.message).toBe(`no flow ${id}`);
		const anon = await call(`${sim.consentBaseUrl}/api/flows/${id}`, { method: 'DELETE' });
		expect(anon.status).toBe(401);
	});
});

describe('resource and loan application paths', () => {
	test('GET /api/resource answers with the client and the token scopes', async () => {
		const res = await call(`${sim.consentBaseUrl}/api/resource`, { token: sbl });
		expect(res.status).toBe(200);
		expect(res.body).toMatchObject({
			ok: true,
			client: sim.clients.consent.clientId,
			scopes: ['sbl'],
		});
		const lim = await call(`${sim.consentBaseUrl}/api/resource`, { token: limited });
		expect(lim.body.scopes).toEqual(['loan-application:create:es']);
		const anon = await call(`${sim.consentBaseUrl}/api/resource`);
		expect(anon.status).toBe(401);
	});

	test('loan application paths echo method, path and scopes', async () => {
		const t = await token(sim, 'loanApplication', {
			realm: 'agents-test',
			scope: 'loan-application:create:se loan-application:update:se',
		});
		const get = await call(`${sim.consentBaseUrl}/api/loan-applications/abc?x=1`, { token: t });
		expect(get.status).toBe(200);
		expect(get.body).toMatchObject({
			ok: true,
			method: 'GET',
			path: '/api/loan-applications/abc',
			scopes: ['loan-application:create:se', 'loan-application:update:se'],
		});
		const post = await call(`${sim.consentBaseUrl}/api/loan-applications`, {
			method: 'POST',
			token: limited,
			json: { amount: 1 },
		});
		expect(post.body).toMatchObject({
			method: 'POST',
			path: '/api/loan-applications',
			scopes: ['loan-application:create:es'],
			body: { amount: 1 },
		});
		const anon = await call(`${sim.consentBaseUrl}/api/loan-applications/abc`);
		expect(anon.status).toBe(401);
	});

	test('unknown consent paths → 404', async () => {
		const res = await call(`${sim.consentBaseUrl}/api/nothing-here`, { token: sbl });
		expect(res.status).toBe(404);
		expect(res.body.error).toBe('not_found');
	});
});

'use strict';

const { startSimulator } = require('./index');
const { FORM, basic, tokenResponse, token, call, control, flowBody } = require('./helpers');

let sim;
beforeAll(async () => {
	sim = await startSimulator({ autoLifecycle: false, tokenLifetimeSeconds: 900 });
});
afterAll(() => sim.close());
beforeEach(() => control(sim, '/reset', { method: 'POST' }));

const requests = async () => (await control(sim, '/requests')).body.requests;
const addFault = (json) => control(sim, '/faults', { method: 'POST', json });
const resource = (t) => call(`${sim.consentBaseUrl}/api/resource`, { token: t });

describe('request log', () => {
	test('records requests with secrets and tokens redacted', async () => {
		const c = sim.clients.consent;
		const viaBasic = await tokenResponse(sim, 'consent');
		const viaBody = await tokenResponse(sim, 'estimate', { via: 'body' });
		const sblToken = viaBasic.body.access_token;
		await resource(sblToken);
		await call(`${sim.consentBaseUrl}/api/flow-definitions/sbl`, {
			method: 'POST',
			token: sblToken,
			json: flowBody({ externalId: 'log-1' }),
		});
		await call(
			`${sim.estimateBaseUrl}/RealEstates/0301/12/34/0/0/EvEstimateBasis?access_token=${viaBody.body.access_token}`,
			{
				token: viaBody.body.access_token,
				headers: { cookie: 'session=abc123secretcookie' },
			},
		);
		await call(`${sim.authUrl}/realms/sbl/protocol/openid-connect/token`, {
			method: 'POST',
			headers: { 'content-type': 'text/plain' },
			body: `grant_type=client_credentials&client_secret=${c.clientSecret}`,
		});
		await control(sim, '/flows');

		const log = await requests();
		const json = JSON.stringify(log);
		for (const secret of [
			c.clientSecret,
			sim.clients.estimate.clientSecret,
			sblToken,
			viaBody.body.access_token,
			basic(c.clientId, c.clientSecret).slice(6),
			'abc123secretcookie',
		]) {
			expect(json).not.toContain(secret);
		}
		expect(log.map((r) => r.seq)).toEqual([1, 2, 3, 4, 5, 6]);
		expect(log.every((r) => !r.path.startsWith('/__sim'))).toBe(true);

		const [basicReq, bodyReq, bearerReq, createReq, estimateReq, plainReq] = log;
		expect(basicReq).toMatchObject({
			method: 'POST',
			authScheme: 'Basic',
			status: 200,
			contentType: FORM,
			body: { grant_type: 'client_credentials' },
		});
		expect(basicReq.headers.authorization).toBe('[redacted]');
		expect(bodyReq.authScheme).toBeNull();
		expect(bodyReq.body).toEqual({
			grant_type: 'client_credentials',
			client_id: sim.clients.estimate.clientId,
			client_secret: '[redacted]',
		});
		const claims = JSON.parse(Buffer.from(sblToken.split('.')[1], 'base64url').toString());
		expect(bearerReq).toMatchObject({
			authScheme: 'Bearer',
			tokenScope: 'sbl',
			tokenJti: claims.jti,
			path: '/consent/api/resource',
			status: 200,
		});
		expect(createReq.body).toMatchObject({ externalId: 'log-1', lastName: 'Nordmann' });
		expect(createReq.status).toBe(201);
		expect(estimateReq.query.access_token).toBe('[redacted]');
		expect(estimateReq.headers.cookie).toBe('[redacted]');
		expect(estimateReq.tokenScope).toBe('estimate:read');
		expect(plainReq.status).toBe(400);
		expect(typeof plainReq.body).toBe('string');
		expect(plainReq.time).toEqual(expect.any(String));
	});

	test('filters and DELETE clears the log', async () => {
		await call(`${sim.url}/nowhere`);
		await call(`${sim.estimateBaseUrl}/RealEstates/0301/12/34/0/0/MarketEstimate`);
		const filtered = await control(sim, '/requests?pathPrefix=/estimate');
		expect(filtered.body.requests).toHaveLength(1);
		expect((await requests()).length).toBe(2);
		const cleared = await control(sim, '/requests', { method: 'DELETE' });
		expect(cleared.status).toBe(200);
		expect(await requests()).toEqual([]);
	});
});

describe('faults', () => {
	const market = () => call(`${sim.estimateBaseUrl}/RealEstates/0301/12/34/0/0/MarketEstimate`);

	test('429 with Retry-After for the next N matching requests, then normal answers', async () => {
		const added = await addFault({
			count: 2,
			status: 429,
			retryAfter: 3,
			match: { pathPrefix: '/estimate/', method: 'get' },
		});
		expect(added.status).toBe(201);
		expect((await resource(await token(sim, 'consent'))).status).toBe(200);
		expect((await control(sim, '/faults')).body.faults[0]).toMatchObject({
			remaining: 2,
			status: 429,
		});
		const first = await market();
		expect(first.status).toBe(429);
		expect(first.headers.get('retry-after')).toBe('3');
		expect(first.body).toMatchObject({ status: 429 });
		expect((await market()).status).toBe(429);
		expect((await market()).status).toBe(200);
		expect((await control(sim, '/faults')).body.faults).toEqual([]);
		const log = await requests();
		expect(log.filter((r) => r.fault).map((r) => r.fault.status)).toEqual([429, 429]);
		expect(log.filter((r) => r.fault).every((r) => r.status === 429)).toBe(true);
	});

	test('500 and 503 on any path; method matching', async () => {
		await addFault({ status: 500 });
		expect((await market()).status).toBe(500);
		await addFault({ status: 503, match: { method: 'POST' } });
		expect((await market()).status).toBe(200);
		const t = await tokenResponse(sim, 'consent');
		expect(t.res.status).toBe(503);
		expect(t.res.headers.get('retry-after')).toBeNull();
	});

	test('latency delays then answers normally', async () => {
		await addFault({ latencyMs: 300 });
		const start = Date.now();
		const res = await market();
		expect(Date.now() - start).toBeGreaterThanOrEqual(290);
		expect(res.status).toBe(200);
		const log = await requests();
		expect(log[0].fault).toMatchObject({ latencyMs: 300 });
	});

	test('drop destroys the connection without an answer', async () => {
		await addFault({ drop: true });
		await expect(market()).rejects.toThrow();
		expect((await market()).status).toBe(200);
		const log = await requests();
		expect(log[0].fault.drop).toBe(true);
		expect(log[0].status).toBeNull();
	});

	test('invalid faults → 400; DELETE clears pending faults', async () => {
		expect((await addFault({ count: 1 })).status).toBe(400);
		expect((await addFault({ status: 42 })).status).toBe(400);
		expect((await addFault({ count: 0, status: 500 })).status).toBe(400);
		await addFault({ count: 5, status: 500 });
		expect((await control(sim, '/faults')).body.faults).toHaveLength(1);
		await control(sim, '/faults', { method: 'DELETE' });
		expect((await control(sim, '/faults')).body.faults).toEqual([]);
		expect((await market()).status).toBe(200);
	});

	test('echo: body and headers are templates filled with what the request carried; the log still hides the token', async () => {
		const t = await token(sim, 'consent');
		await addFault({
			status: 400,
			body: '{"message":"gateway rejected {{authorization}}","detail":"{{token}}","who":"{{body.nationalId}} {{body.lastName}}","none":"{{body.missing}}"}',
			headers: { 'x-echo': '{{token}}' },
			match: { method: 'POST' },
		});
		const flow = flowBody();
		const res = await call(`${sim.consentBaseUrl}/api/flow-definitions/sbl`, {
			method: 'POST',
			token: t,
			json: flow,
		});
		expect(res.status).toBe(400);
		expect(res.headers.get('content-type')).toMatch(/^application\/json/);
		expect(res.body).toEqual({
			message: `gateway rejected Bearer ${t}`,
			detail: t,
			who: `${flow.nationalId} ${flow.lastName}`,
			none: '',
		});
		expect(res.headers.get('x-echo')).toBe(t);
		const log = await requests();
		expect(JSON.stringify(log)).not.toContain(t);

		await addFault({
			status: 500,
			body: '<html><body>{{rawBody}}</body></html>',
			contentType: 'text/html',
		});
		const html = await call(`${sim.consentBaseUrl}/api/flow-definitions/sbl`, {
			method: 'POST',
			token: t,
			json: flow,
		});
		expect(html.status).toBe(500);
		expect(html.headers.get('content-type')).toBe('text/html');
		expect(html.text).toBe(`<html><body>${JSON.stringify(flow)}</body></html>`);

		await addFault({ status: 502, body: 'plain {{token}}' });
		const plain = await call(`${sim.consentBaseUrl}/api/resource`, { token: t });
		expect(plain.headers.get('content-type')).toMatch(/^text\/plain/);
		expect(plain.text).toBe(`plain ${t}`);
	});

	test('opaqueTokens: reference tokens with nothing to decode that the API accepts; /tokens lists every token issued', async () => {
		expect(
			(await control(sim, '/config', { method: 'POST', json: { opaqueTokens: 'yes' } })).status,
		).toBe(400);
		const jwt = await token(sim, 'consent');
		expect(jwt.split('.')).toHaveLength(3);
		await control(sim, '/config', { method: 'POST', json: { opaqueTokens: true } });
		const opaque = await token(sim, 'consent');
		expect(opaque).toMatch(/^sim_[A-Za-z0-9_-]{32}$/);
		const answer = await resource(opaque);
		expect(answer.status).toBe(200);
		expect(answer.body).toMatchObject({
			ok: true,
			client: sim.clients.consent.clientId,
			scopes: ['sbl'],
		});
		expect((await resource(`${opaque}x`)).status).toBe(401);
		const listed = (await control(sim, '/tokens')).body.tokens.map((t) => t.token);
		expect(listed.slice(-2)).toEqual([jwt, opaque]);
		// the request log still hides it
		expect(JSON.stringify(await requests())).not.toContain(opaque);
	});

	test('echo faults are checked: body must be a string with a status, headers strings', async () => {
		expect((await addFault({ body: 'x' })).status).toBe(400);
		expect((await addFault({ status: 500, body: 42 })).status).toBe(400);
		expect((await addFault({ status: 500, headers: { a: 1 } })).status).toBe(400);
		expect((await addFault({ status: 500, contentType: 'text/html' })).status).toBe(400);
		expect((await control(sim, '/faults')).body.faults).toEqual([]);
	});

	test('control requests are neither faulted nor logged', async () => {
		await addFault({ count: 3, status: 500 });
		expect((await control(sim, '/flows')).status).toBe(200);
		expect((await control(sim, '/faults')).body.faults[0].remaining).toBe(3);
		expect(await requests()).toEqual([]);
	});
});

describe('config and reset', () => {
	test('config validates keys and values', async () => {
		expect((await control(sim, '/config', { method: 'POST', json: { nope: 1 } })).status).toBe(400);
		expect(
			(await control(sim, '/config', { method: 'POST', json: { tokenLifetimeSeconds: 0 } })).status,
		).toBe(400);
		expect(
			(await control(sim, '/config', { method: 'POST', json: { autoLifecycle: 'yes' } })).status,
		).toBe(400);
		const ok = await control(sim, '/config', {
			method: 'POST',
			json: { webhookDelayMs: 0, consentResponseWrapper: true },
		});
		expect(ok.body.config).toEqual({
			tokenLifetimeSeconds: 900,
			consentResponseWrapper: true,
			autoLifecycle: false,
			webhookDelayMs: 0,
			webhookRetries: 0,
			webhookRetryDelayMs: 500,
			rateLimitPerSecond: 0,
			opaqueTokens: false,
		});
		expect((await control(sim, '/config')).body.config.consentResponseWrapper).toBe(true);
	});

	test('reset clears logs, faults, flows, deliveries, stored documents and config; keys stay', async () => {
		const sblToken = await token(sim, 'consent');
		const estToken = await token(sim, 'estimate');
		await control(sim, '/config', {
			method: 'POST',
			json: { tokenLifetimeSeconds: 5, autoLifecycle: true },
		});
		const flow = await call(`${sim.consentBaseUrl}/api/flow-definitions/sbl`, {
			method: 'POST',
			token: sblToken,
			json: flowBody(),
		});
		expect(flow.status).toBe(201);
		const est = () =>
			call(`${sim.estimateBaseUrl}/RealEstates/0301/12/34/0/0/EvEstimate`, {
				method: 'POST',
				token: estToken,
			});
		const firstId = (await est()).body.data.storedEstimateDocumentationId;
		expect((await est()).body.data.storedEstimateDocumentationId).toBe(firstId + 1);
		await addFault({ count: 9, status: 500, match: { pathPrefix: '/never' } });
		await control(sim, '/fire', {
			method: 'POST',
			json: { url: 'http://127.0.0.1:9/x', event: 'consent.created' },
		});

		const reset = await control(sim, '/reset', { method: 'POST' });
		expect(reset.body.config).toEqual({
			tokenLifetimeSeconds: 900,
			consentResponseWrapper: false,
			autoLifecycle: false,
			webhookDelayMs: 20,
			webhookRetries: 0,
			webhookRetryDelayMs: 500,
			rateLimitPerSecond: 0,
			opaqueTokens: false,
		});
		expect(await requests()).toEqual([]);
		expect((await control(sim, '/faults')).body.faults).toEqual([]);
		expect((await control(sim, '/flows')).body.flows).toEqual([]);
		expect((await control(sim, '/deliveries')).body.deliveries).toEqual([]);
		expect((await call(`${sim.estimateBaseUrl}/EvEstimate/Documents/${firstId + 1}`)).status).toBe(
			404,
		);
		expect((await est()).body.data.storedEstimateDocumentationId).toBe(firstId);
		expect((await resource(sblToken)).status).toBe(200);
	});

	test('unknown control routes → 404; health and info answer', async () => {
		expect((await control(sim, '/nothing')).status).toBe(404);
		expect((await control(sim, '/health')).body).toEqual({ ok: true });
		const info = await control(sim, '/info');
		expect(info.body).toMatchObject({
			url: sim.url,
			estimateBaseUrl: sim.estimateBaseUrl,
			signatureHeader: sim.signatureHeader,
		});
		expect(info.body.close).toBeUndefined();
	});

	test('the root answers with the URLs; unknown paths → 404', async () => {
		const root = await call(`${sim.url}/`);
		expect(root.body).toMatchObject({ name: 'sbl-simulator', consentBaseUrl: sim.consentBaseUrl });
		expect((await call(`${sim.url}/somewhere`)).status).toBe(404);
	});
});

describe('close', () => {
	test('close() stops listening and cancels pending lifecycle webhooks', async () => {
		const other = await startSimulator({ webhookDelayMs: 10000 });
		const t = await token(other, 'consent');
		const res = await call(`${other.consentBaseUrl}/api/flow-definitions/sbl`, {
			method: 'POST',
			token: t,
			json: flowBody(),
		});
		expect(res.status).toBe(201);
		const started = Date.now();
		await other.close();
		await other.close();
		expect(Date.now() - started).toBeLessThan(1000);
		await expect(fetch(`${other.url}/`)).rejects.toThrow();
	});
});

describe('truncate fault', () => {
	const http = require('node:http');
	/** A raw GET with node:http: status, headers, the body bytes and whether the body ended normally. */
	const rawGet = (url) =>
		new Promise((resolve, reject) => {
			http
				.get(url, (res) => {
					const chunks = [];
					res.on('data', (c) => chunks.push(c));
					res.on('end', () =>
						resolve({
							status: res.statusCode,
							headers: res.headers,
							body: Buffer.concat(chunks),
							ended: true,
						}),
					);
					res.on('error', (error) =>
						resolve({
							status: res.statusCode,
							headers: res.headers,
							body: Buffer.concat(chunks),
							ended: false,
							error,
						}),
					);
				})
				.on('error', reject);
		});
	const documentUrl = (id) => `${sim.estimateBaseUrl}/EvEstimate/Documents/${id}`;

	test('truncate: the answer has no Content-Length, ends by closing the connection after that share of the body, and looks complete', async () => {
		const whole = await rawGet(documentUrl(900001));
		expect(Number(whole.headers['content-length'])).toBe(whole.body.length);
		const added = await addFault({
			truncate: 0.5,
			match: { pathPrefix: `${sim.estimatePrefix}/EvEstimate/Documents/` },
		});
		expect(added.status).toBe(201);
		expect(added.body.fault).toMatchObject({
			truncate: 0.5,
			chunked: false,
			status: null,
			drop: false,
		});
		const cut = await rawGet(documentUrl(900001));
		expect(cut.status).toBe(200);
		expect(cut.ended).toBe(true); // nothing in HTTP tells the client that bytes are missing
		expect(cut.headers['content-length']).toBeUndefined();
		expect(cut.headers['transfer-encoding']).toBeUndefined();
		expect(cut.headers.connection).toBe('close');
		expect(cut.headers['content-type']).toBe('application/pdf');
		expect(cut.body.length).toBe(Math.floor(whole.body.length * 0.5));
		expect(cut.body.equals(whole.body.subarray(0, cut.body.length))).toBe(true);
		expect(cut.body.subarray(-1024).toString('latin1')).not.toContain('%%EOF');
		const again = await rawGet(documentUrl(900001));
		expect(again.body.equals(whole.body)).toBe(true);
		const log = (await requests()).filter((r) => r.path.includes('/EvEstimate/Documents/'));
		expect(log.map((r) => r.fault?.truncate ?? null)).toEqual([null, 0.5, null]);
		expect(log[1].status).toBe(200);
	});

	test('truncate with chunked: Transfer-Encoding chunked and the socket destroyed before the last chunk (a client sees the break)', async () => {
		await addFault({ truncate: 0.25, chunked: true });
		const cut = await rawGet(documentUrl(900001));
		expect(cut.status).toBe(200);
		expect(cut.headers['transfer-encoding']).toBe('chunked');
		expect(cut.headers['content-length']).toBeUndefined();
		expect(cut.ended).toBe(false);
		expect(cut.body.length).toBeLessThanOrEqual(Math.ceil(1024 * 1024 * 0.25));
		const log = await requests();
		expect(log[0].fault).toMatchObject({ truncate: 0.25, chunked: true });
		expect(log[0].status).toBeNull();
	});

	test('truncate cuts JSON answers too; truncate 0 sends headers and no body', async () => {
		const url = `${sim.estimateBaseUrl}/RealEstates/0301/12/34/0/0/MarketEstimate`;
		const whole = await rawGet(url);
		await addFault({ truncate: 0.5 });
		const cut = await rawGet(url);
		expect(cut.body.toString()).toBe(
			whole.body.toString().slice(0, Math.floor(whole.body.length * 0.5)),
		);
		await addFault({ truncate: 0 });
		const empty = await rawGet(url);
		expect(empty.status).toBe(200);
		expect(empty.ended).toBe(true);
		expect(empty.body.length).toBe(0);
	});

	test('invalid truncate faults → 400', async () => {
		for (const bad of [
			{ truncate: 1 },
			{ truncate: -0.1 },
			{ truncate: '0.5' },
			{ truncate: 0.5, chunked: 'yes' },
			{ chunked: true },
		]) {
			expect((await addFault(bad)).status).toBe(400);
		}
		expect((await control(sim, '/faults')).body.faults).toEqual([]);
	});
});

describe('rate limiter (rateLimitPerSecond)', () => {
	test('a token bucket of N requests refilled at N per second over the APIs: the rest 429 with Retry-After 1; the identity provider is not limited', async () => {
		const limited = await startSimulator({ rateLimitPerSecond: 10 });
		try {
			const bearer = await token(limited, 'consent');
			const answers = await Promise.all(
				Array.from({ length: 30 }, () =>
					call(`${limited.consentBaseUrl}/api/resource`, { token: bearer }),
				),
			);
			const ok = answers.filter((a) => a.status === 200).length;
			const refused = answers.filter((a) => a.status === 429);
			// 10 in the bucket, plus at most what refilled while the 30 were answered
			expect(ok).toBeGreaterThanOrEqual(10);
			expect(ok).toBeLessThan(15);
			expect(ok + refused.length).toBe(30);
			for (const r of refused) {
				expect(r.headers.get('retry-after')).toBe('1');
				expect(r.body).toMatchObject({ error: 'rate_limited' });
			}
			// tokens are still issued
			for (let i = 0; i < 15; i++) expect(typeof (await token(limited, 'consent'))).toBe('string');
			// after a second the bucket is full again
			await new Promise((r) => setTimeout(r, 1100));
			expect((await call(`${limited.consentBaseUrl}/api/resource`, { token: bearer })).status).toBe(
				200,
			);
			const log = (await control(limited, '/requests?pathPrefix=/consent')).body.requests;
			expect(log.filter((e) => e.rateLimited).length).toBe(refused.length);
		} finally {
			await limited.close();
		}
	});

	test('off by default and through config; bad values are refused', async () => {
		const sim = await startSimulator();
		try {
			expect((await control(sim, '/config')).body.config.rateLimitPerSecond).toBe(0);
			for (const bad of [-1, 'x', null]) {
				expect(
					(await control(sim, '/config', { method: 'POST', json: { rateLimitPerSecond: bad } }))
						.status,
				).toBe(400);
			}
			expect(
				(await control(sim, '/config', { method: 'POST', json: { rateLimitPerSecond: 5 } })).status,
			).toBe(200);
		} finally {
			await sim.close();
		}
	});
});

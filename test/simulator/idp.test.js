'use strict';

const crypto = require('node:crypto');
const { startSimulator } = require('./index');
const { FORM, basic, basicRfc6749, tokenResponse, call, control } = require('./helpers');

let sim;
beforeAll(async () => {
	sim = await startSimulator();
});
afterAll(() => sim.close());

const tokenUrl = (realm) => `${sim.authUrl}/realms/${realm}/protocol/openid-connect/token`;
const post = (realm, headers, body) => call(tokenUrl(realm), { method: 'POST', headers, body });
const decode = (jwt) =>
	jwt
		.split('.')
		.slice(0, 2)
		.map((p) => JSON.parse(Buffer.from(p, 'base64url').toString('utf8')));

describe('handle', () => {
	test('exposes the contract URLs and demo clients', () => {
		expect(sim.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
		expect(sim.port).toBe(Number(sim.url.split(':')[2]));
		expect(sim.authUrl).toBe(`${sim.url}/auth`);
		expect(sim.consentBaseUrl).toBe(`${sim.url}/consent`);
		expect(sim.estimateBaseUrl).toBe(`${sim.url}/estimate/v1`);
		expect(Object.keys(sim.realms).sort()).toEqual([
			'agents-prod',
			'agents-test',
			'estimate',
			'sbl',
		]);
		expect(sim.realms.sbl.tokenUrl).toBe(tokenUrl('sbl'));
		for (const name of ['consent', 'limited', 'estimate', 'estimateNoScope']) {
			expect(sim.clients[name].clientId).toEqual(expect.any(String));
			expect(sim.clients[name].clientSecret.length).toBeGreaterThanOrEqual(20);
		}
		expect(sim.signatureHeader).toBe('x-acme-sbl-signature');
		expect(sim.signingSecret.length).toBeGreaterThanOrEqual(20);
	});
});

describe('token endpoint', () => {
	test('Basic client authentication issues a Bearer JWT with the default scope', async () => {
		const { res, body } = await tokenResponse(sim, 'consent');
		expect(res.status).toBe(200);
		expect(body).toEqual({
			access_token: expect.any(String),
			token_type: 'Bearer',
			expires_in: 3600,
			scope: 'sbl',
		});
		const [header, claims] = decode(body.access_token);
		expect(header).toMatchObject({ alg: 'RS256', kid: expect.any(String) });
		expect(claims).toMatchObject({
			iss: `${sim.authUrl}/realms/sbl`,
			sub: sim.clients.consent.clientId,
			azp: sim.clients.consent.clientId,
			scope: 'sbl',
		});
		expect(claims.exp - claims.iat).toBe(3600);
		expect(claims.jti).toMatch(/^[0-9a-f-]{36}$/);
	});

	test('body client authentication works and grants requested loan application scopes', async () => {
		const scope = 'loan-application:create:se loan-application:accept:fi';
		const { res, body } = await tokenResponse(sim, 'loanApplication', {
			via: 'body',
			scope,
			realm: 'agents-test',
		});
		expect(res.status).toBe(200);
		expect(body.scope).toBe(scope);
		expect(decode(body.access_token)[1].iss).toBe(`${sim.authUrl}/realms/agents-test`);
	});

	test('all twelve loan application scopes can be requested in agents-prod', async () => {
		const all = ['create', 'update', 'delete', 'accept'].flatMap((a) =>
			['es', 'se', 'fi'].map((c) => `loan-application:${a}:${c}`),
		);
		const { res, body } = await tokenResponse(sim, 'loanApplicationProd', {
			scope: all.join(' '),
			realm: 'agents-prod',
		});
		expect(res.status).toBe(200);
		expect(body.scope.split(' ')).toEqual(all);
	});

	test('RFC 6749 form-encoded Basic credentials are decoded (raw form also accepted)', async () => {
		const c = sim.clients.special;
		expect(c.clientSecret).toMatch(/[:%+ ]/);
		const encoded = await post(
			'sbl',
			{ 'content-type': FORM, authorization: basicRfc6749(c.clientId, c.clientSecret) },
			'grant_type=client_credentials',
		);
		expect(encoded.status).toBe(200);
		const raw = await post(
			'sbl',
			{ 'content-type': FORM, authorization: basic(c.clientId, c.clientSecret) },
			'grant_type=client_credentials',
		);
		expect(raw.status).toBe(200);
	});

	test('only application/x-www-form-urlencoded is accepted', async () => {
		const c = sim.clients.consent;
		const res = await post(
			'sbl',
			{ 'content-type': 'application/json', authorization: basic(c.clientId, c.clientSecret) },
			JSON.stringify({ grant_type: 'client_credentials' }),
		);
		expect(res.status).toBe(400);
		expect(res.body).toEqual({
			error: 'invalid_request',
			error_description: expect.stringMatching(/x-www-form-urlencoded/),
		});
		const none = await post('sbl', { authorization: basic(c.clientId, c.clientSecret) }, undefined);
		expect(none.status).toBe(400);
		expect(none.body.error).toBe('invalid_request');
	});

	test('grant_type must be client_credentials', async () => {
		const c = sim.clients.consent;
		const headers = { 'content-type': FORM, authorization: basic(c.clientId, c.clientSecret) };
		const wrong = await post('sbl', headers, 'grant_type=password&username=a&password=b');
		expect(wrong.status).toBe(400);
		expect(wrong.body.error).toBe('unsupported_grant_type');
		const missing = await post('sbl', headers, 'scope=sbl');
		expect(missing.status).toBe(400);
		expect(missing.body.error).toBe('invalid_request');
	});

	test('wrong secret or unknown client → 401 invalid_client (WWW-Authenticate only for Basic)', async () => {
		const c = sim.clients.consent;
		const viaBasic = await post(
			'sbl',
			{ 'content-type': FORM, authorization: basic(c.clientId, `${c.clientSecret}x`) },
			'grant_type=client_credentials',
		);
		expect(viaBasic.status).toBe(401);
		expect(viaBasic.body.error).toBe('invalid_client');
		expect(viaBasic.headers.get('www-authenticate')).toMatch(/^Basic /);
		const viaBody = await post(
			'sbl',
			{ 'content-type': FORM },
			new URLSearchParams({
				grant_type: 'client_credentials',
				client_id: c.clientId,
				client_secret: 'nope',
			}).toString(),
		);
		expect(viaBody.status).toBe(401);
		expect(viaBody.body).toEqual({
			error: 'invalid_client',
			error_description: expect.any(String),
		});
		expect(viaBody.headers.get('www-authenticate')).toBeNull();
		const unknown = await post(
			'sbl',
			{ 'content-type': FORM, authorization: basic('nobody', 'nothing') },
			'grant_type=client_credentials',
		);
		expect(unknown.status).toBe(401);
		const anonymous = await post('sbl', { 'content-type': FORM }, 'grant_type=client_credentials');
		expect(anonymous.status).toBe(401);
		expect(anonymous.body.error).toBe('invalid_client');
	});

	// As in Keycloak: a realm that exists but does not hold the client answers as for an unknown client.
	test('a client is only known in its one realm', async () => {
		const cases = [
			['consent', 'agents-test'],
			['consent', 'agents-prod'],
			['consent', 'estimate'],
			['loanApplication', 'sbl'],
			['loanApplication', 'agents-prod'],
			['loanApplicationProd', 'agents-test'],
		];
		for (const [client, realm] of cases) {
			const { res, body } = await tokenResponse(sim, client, { realm, scope: '' });
			expect([client, realm, res.status, body.error]).toEqual([
				client,
				realm,
				401,
				'invalid_client',
			]);
		}
		for (const name of ['consent', 'limited', 'loanApplication', 'loanApplicationProd'])
			expect(sim.clients[name].realms).toHaveLength(1);
	});

	test('scopes the client may not have → 400 invalid_scope; limited client defaults to its one scope', async () => {
		const refused = await tokenResponse(sim, 'limited', { scope: 'sbl' });
		expect(refused.res.status).toBe(400);
		expect(refused.body.error).toBe('invalid_scope');
		expect(refused.body.error_description).toMatch(/sbl/);
		const bogus = await tokenResponse(sim, 'consent', { scope: 'sbl admin' });
		expect(bogus.res.status).toBe(400);
		expect(bogus.body.error).toBe('invalid_scope');
		const limited = await tokenResponse(sim, 'limited');
		expect(limited.res.status).toBe(200);
		expect(limited.body.scope).toBe('loan-application:create:es');
		const estimate = await tokenResponse(sim, 'estimate', { via: 'body' });
		expect(estimate.body.scope).toBe('estimate:read');
		const noScope = await tokenResponse(sim, 'estimateNoScope');
		expect(noScope.res.status).toBe(200);
		expect(noScope.body.scope).toBe('');
	});

	test('unknown realm → 404 realm_not_found', async () => {
		const res = await post('nowhere', { 'content-type': FORM }, 'grant_type=client_credentials');
		expect(res.status).toBe(404);
		expect(res.body.error).toBe('realm_not_found');
		const certs = await call(`${sim.authUrl}/realms/nowhere/protocol/openid-connect/certs`);
		expect(certs.status).toBe(404);
	});
});

describe('keys', () => {
	test('JWK set follows RFC 7517 and verifies issued tokens', async () => {
		const res = await call(`${sim.authUrl}/realms/sbl/protocol/openid-connect/certs`);
		expect(res.status).toBe(200);
		expect(res.body.keys).toHaveLength(1);
		const jwk = res.body.keys[0];
		expect(jwk).toEqual({
			kty: 'RSA',
			kid: expect.any(String),
			use: 'sig',
			alg: 'RS256',
			n: expect.any(String),
			e: 'AQAB',
		});
		const { body } = await tokenResponse(sim, 'estimate');
		const [h, p, s] = body.access_token.split('.');
		expect(decode(body.access_token)[0].kid).toBe(jwk.kid);
		const key = crypto.createPublicKey({ key: jwk, format: 'jwk' });
		expect(
			crypto.verify('RSA-SHA256', Buffer.from(`${h}.${p}`), key, Buffer.from(s, 'base64url')),
		).toBe(true);
		const tampered = Buffer.from(
			JSON.stringify({ ...decode(body.access_token)[1], scope: 'admin' }),
		).toString('base64url');
		expect(
			crypto.verify(
				'RSA-SHA256',
				Buffer.from(`${h}.${tampered}`),
				key,
				Buffer.from(s, 'base64url'),
			),
		).toBe(false);
		const other = await call(`${sim.authUrl}/realms/estimate/protocol/openid-connect/certs`);
		expect(other.body).toEqual(res.body);
	});

	test('OpenID configuration names the token endpoint and keys', async () => {
		const res = await call(`${sim.authUrl}/realms/agents-test/.well-known/openid-configuration`);
		expect(res.status).toBe(200);
		expect(res.body.token_endpoint).toBe(tokenUrl('agents-test'));
		expect(res.body.jwks_uri).toBe(
			`${sim.authUrl}/realms/agents-test/protocol/openid-connect/certs`,
		);
	});
});

describe('token lifetime', () => {
	afterEach(() =>
		control(sim, '/config', { method: 'POST', json: { tokenLifetimeSeconds: 3600 } }),
	);

	test('a 1 s token works at once and is rejected with 401 after it expired', async () => {
		const set = await control(sim, '/config', {
			method: 'POST',
			json: { tokenLifetimeSeconds: 1 },
		});
		expect(set.body.config.tokenLifetimeSeconds).toBe(1);
		const { body } = await tokenResponse(sim, 'consent');
		expect(body.expires_in).toBe(1);
		const fresh = await call(`${sim.consentBaseUrl}/api/resource`, { token: body.access_token });
		expect(fresh.status).toBe(200);
		await new Promise((r) => setTimeout(r, 1100));
		const stale = await call(`${sim.consentBaseUrl}/api/resource`, { token: body.access_token });
		expect(stale.status).toBe(401);
		expect(stale.body).toEqual({
			error: 'invalid_token',
			message: expect.stringMatching(/expired/),
		});
	});

	test('the start option sets the lifetime', async () => {
		const other = await startSimulator({ tokenLifetimeSeconds: 7 });
		try {
			const { body } = await tokenResponse(other, 'consent');
			expect(body.expires_in).toBe(7);
			const [, claims] = decode(body.access_token);
			expect(claims.exp - claims.iat).toBeLessThanOrEqual(7);
			expect(claims.exp - claims.iat).toBeGreaterThanOrEqual(6);
		} finally {
			await other.close();
		}
	});
});

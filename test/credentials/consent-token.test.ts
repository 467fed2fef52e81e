/**
 * The Consent Flow credential's own token request (preAuthentication, issue 48): what it sends, when
 * it keeps a held token, and what it says when no token can be had.
 */
import type { INodeParameters } from 'n8n-workflow';
import { normaliseHttpError } from '../../nodes/shared/transport/failure';
import { DECIDES_ALL, answer, base, fetchWith, flow, loan } from './helpers';

describe('Consent Flow OAuth2 API credential: its token request', () => {
	test('Client Authentication: Basic header (base64 of clientId:clientSecret, as published) or the form body; the token is returned', async () => {
		const basic = await fetchWith(flow, answer(200, { access_token: 'tok-1', expires_in: 60 }));
		expect(basic.result).toMatchObject({ accessToken: 'tok-1' });
		expect(basic.sent[0].headers).toMatchObject({
			'Content-Type': 'application/x-www-form-urlencoded',
			Authorization: `Basic ${Buffer.from('c:se:cr et&1234').toString('base64')}`,
		});
		expect(basic.sent[0].body).toEqual({ grant_type: 'client_credentials', scope: 'sbl' });
		const body = await fetchWith(
			{ ...flow, authentication: 'body' },
			answer(200, JSON.stringify({ access_token: 'tok-2' })),
		);
		expect(body.result).toMatchObject({ accessToken: 'tok-2' });
		expect(body.sent[0].headers.Authorization).toBeUndefined();
		expect(body.sent[0].body).toEqual({
			grant_type: 'client_credentials',
			scope: 'sbl',
			client_id: 'c',
			client_secret: 'se:cr et&1234',
		});
	});

	// n8n's HTTP Request node calls preAuthentication after any failed request and sends it again
	// when a new token comes back: a token is kept while unexpired and fetched for the same values.
	test('a held token is kept until it expires or the values it was fetched for change', async () => {
		const first = await fetchWith(flow, answer(200, { access_token: 'tok-1', expires_in: 60 }));
		const held: INodeParameters = { ...flow, ...(first.result as INodeParameters) };
		const kept = await fetchWith(held, answer(200, { access_token: 'tok-2', expires_in: 60 }));
		expect([kept.sent, kept.result]).toEqual([[], {}]);
		expect(String(held.accessTokenFor)).not.toContain(String(base.clientSecret));
		// Client Authentication does not decide whether a token can be had
		const sameClient = await fetchWith(
			{ ...held, authentication: 'body' },
			answer(200, { access_token: 'tok-2' }),
		);
		expect(sameClient.sent).toEqual([]);
		for (const changed of [
			{ realm: 'other' },
			{ clientId: 'other' },
			{ clientSecret: 'other-secret-99' },
			{ identityProviderUrl: 'https://other.example' },
			{ additionalScopes: 'extra:one' },
			{ environment: 'production' },
			{ accessTokenFor: 'not json' },
			{ accessToken: '' },
		]) {
			const again = await fetchWith(
				{ ...held, ...changed },
				answer(200, { access_token: 'tok-3' }),
			);
			expect([JSON.stringify(changed), again.sent.length]).toEqual([JSON.stringify(changed), 1]);
			expect(again.result).toMatchObject({ accessToken: 'tok-3' });
		}
		const now = Date.now();
		const expired = await fetchWith(
			{
				...held,
				accessTokenFor: JSON.stringify({
					...JSON.parse(String(held.accessTokenFor)),
					until: now - 1,
				}),
			},
			answer(200, { access_token: 'tok-4', expires_in: 60 }),
		);
		expect(expired.result).toMatchObject({ accessToken: 'tok-4' });
		expect(
			JSON.parse(String((expired.result as INodeParameters).accessTokenFor)).until,
		).toBeGreaterThanOrEqual(now + 60_000);
		// no lifetime in the answer: fetched again whenever n8n asks
		const noLifetime = await fetchWith(flow, answer(200, { access_token: 'tok-5' }));
		const heldNoLifetime = { ...flow, ...(noLifetime.result as INodeParameters) };
		expect(
			(await fetchWith(heldNoLifetime, answer(200, { access_token: 'tok-6' }))).sent,
		).toHaveLength(1);
	});

	// An empty Realm never becomes agents-<environment> (the old fallback), and in Production the
	// client secret never travels over plain http: refused before anything is sent, naming the field.
	test.each([
		[{ ...base }, /Realm is empty/],
		[{ ...base, realm: '   ' }, /Realm is empty/],
		[{ ...base, realm: '', environment: 'production' }, /Realm is empty/],
		[
			{ ...flow, environment: 'production', identityProviderUrl: 'http://auth.example' },
			/Identity Provider URL must use https when Environment is Production/,
		],
		[
			{ ...loan, environment: 'production', identityProviderUrl: ' HTTP://auth.example ' },
			/Identity Provider URL must use https/,
		],
		[
			{ ...flow, identityProviderUrl: 'auth.example' },
			/Identity Provider URL is not an http\(s\) address/,
		],
	])('%j: nothing is sent, the error names the field', async (fields, expected) => {
		const { sent, error } = await fetchWith(fields, answer(200, { access_token: 'x' }));
		expect(sent).toEqual([]);
		expect(error?.message).toMatch(expected);
	});

	test('Test may use http (the simulator)', async () => {
		const { sent } = await fetchWith(
			{ ...flow, identityProviderUrl: 'http://127.0.0.1:8080' },
			answer(200, { access_token: 'x' }),
		);
		expect(sent[0].url).toBe('http://127.0.0.1:8080/realms/flows/protocol/openid-connect/token');
	});

	// n8n replaces a message holding one of these codes with its own words (NodeError's COMMON_ERRORS)
	const N8N_CODES =
		/ECONNREFUSED|ECONNRESET|ENOTFOUND|ETIMEDOUT|ERRADDRINUSE|EADDRNOTAVAIL|ECONNABORTED|EHOSTUNREACH|EAI_AGAIN|ENOENT|EISDIR|ENOTDIR|EACCES|EEXIST|EPERM|GETADDRINFO/i;

	// Issue 48: when no token can be had, the message (the credential Test shows it as it is: no
	// `response`, no `code`) names what decides it and never a secret.
	test.each([
		[
			flow,
			answer(401, { error: 'invalid_client', error_description: 'unknown client se:cr et&1234' }),
			/^Could not get an access token \(invalid_client, HTTP 401\) from realm "flows": check Realm/,
		],
		[flow, answer(401, 'not json'), /^Could not get an access token \(HTTP 401\)/],
		[
			flow,
			answer(400, { error: 'invalid_scope' }),
			/\(invalid_scope, HTTP 400\).*may not request one of the scopes "sbl"/,
		],
		[
			flow,
			answer(404, { error: 'Realm does not exist' }),
			/\(Realm does not exist, HTTP 404\).*No token endpoint at this address/,
		],
		[flow, answer(200, { token_type: 'Bearer' }), /\(HTTP 200\).*held no access_token/],
		[flow, answer(401, { error: 'se:cr et&1234' }), /^Could not get an access token \(HTTP 401\)/],
	])(
		'%#: a refusal names Realm, Client ID and Client Secret, Environment and Identity Provider URL',
		async (fields, reply, expected) => {
			const { error } = await fetchWith(fields, reply);
			expect(error).toBeInstanceOf(Error);
			expect(error!.message).toMatch(expected);
			expect(error!.message).toMatch(DECIDES_ALL);
			expect(error!.message).not.toContain('se:cr et&1234');
			expect(error!.message).not.toContain(Buffer.from('c:se:cr et&1234').toString('base64'));
			expect(error!.message).not.toMatch(N8N_CODES);
			expect([error!.response, error!.code, error!.cause]).toEqual([
				undefined,
				undefined,
				undefined,
			]);
		},
	);

	test('the loan application service: Service and Environment decide the realm', async () => {
		const { error } = await fetchWith(loan, answer(401, { error: 'invalid_client' }));
		expect(error!.message).toMatch(
			/from realm "agents-test": check Service and Environment .*Client ID and Client Secret .*Identity Provider URL/,
		);
	});

	test('an unreachable identity provider is named in words, without the codes n8n would replace', async () => {
		const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:9'), {
			code: 'ECONNREFUSED',
		});
		const { error } = await fetchWith(flow, refused);
		expect(error!.message).toBe(
			'Could not get an access token from realm "flows": the identity provider could not be reached (the connection was refused). Check Identity Provider URL and that the identity provider is up.',
		);
		expect(error!.code).toBeUndefined();
		const other = await fetchWith(flow, new Error('socket hang up'));
		expect(other.error!.message).toMatch(/\(the connection failed\)/);
	});

	test('the transport reads back the code and status of its own messages only', async () => {
		const refused = await fetchWith(flow, answer(401, { error: 'invalid_client' }));
		expect(normaliseHttpError(refused.error)).toMatchObject({
			tokenFailure: true,
			oauthError: 'invalid_client',
			ownToken: { status: 401, message: refused.error!.message },
		});
		const missing = await fetchWith(flow, answer(404, ''));
		expect(normaliseHttpError(missing.error).ownToken?.status).toBe(404);
		expect(normaliseHttpError(missing.error).oauthError).toBeUndefined();
		const unreached = await fetchWith(flow, new Error('x'));
		expect(normaliseHttpError(unreached.error).ownToken).toEqual({
			status: undefined,
			message: unreached.error!.message,
		});
		const n8nText = new Error(
			'Failed to acquire OAuth2 access token: Client authentication failed',
		);
		expect(normaliseHttpError(n8nText).ownToken).toBeUndefined();
	});
});

/**
 * The credentials' hidden fields and test requests are n8n expressions over the visible ones. These tests resolve
 * them with n8n-workflow's own expression engine, the way n8n's CredentialsHelper does
 * (defaults applied with NodeHelpers.getNodeParameters, then `$self` = the credential data).
 */
import { NodeHelpers, Workflow } from 'n8n-workflow';
import type {
	ICredentialDataDecryptedObject,
	ICredentialType,
	IHttpRequestHelper,
	IHttpRequestOptions,
	INode,
	INodeParameters,
	INodeTypes,
} from 'n8n-workflow';
import { ConsentFlowOAuth2Api } from '../../credentials/ConsentFlowOAuth2Api.credentials';
import { tokenFailureOf } from '../../credentials/consentFlowToken';
import { ConsentFlowWebhookSigningApi } from '../../credentials/ConsentFlowWebhookSigningApi.credentials';
import { RealEstateEstimateOAuth2Api } from '../../credentials/RealEstateEstimateOAuth2Api.credentials';

function resolve(credential: ICredentialType, data: INodeParameters): INodeParameters {
	const nodeTypes = {
		getByName: () => ({ description: { properties: [] } }),
		getByNameAndVersion: () => ({ description: { properties: [] } }),
		getKnownTypes: () => ({}),
	} as unknown as INodeTypes;
	const node: INode = {
		id: 'n',
		name: 'Temp-Node',
		type: 'n8n-nodes-base.noOp',
		typeVersion: 1,
		position: [0, 0],
		parameters: {},
	};
	const workflow = new Workflow({ nodes: [node], connections: {}, active: false, nodeTypes });
	const full = NodeHelpers.getNodeParameters(
		credential.properties,
		data,
		true,
		false,
		null,
		null,
	) as INodeParameters;
	return workflow.expression.getParameterValue(
		full,
		null,
		0,
		0,
		node.name,
		[],
		'internal',
		{},
		undefined,
		false,
		full,
	) as INodeParameters;
}

/** Resolves an expression of the credential test (written over $credentials) like a hidden field. */
function evaluateTest(credential: ICredentialType, expression: string, data: INodeParameters) {
	return resolve(
		{
			...credential,
			properties: [
				...credential.properties,
				{
					displayName: 'T',
					name: 't',
					type: 'hidden',
					default: expression.replace(/\$credentials/g, '$self'),
				},
			],
		} as ICredentialType,
		data,
	).t;
}

describe('Consent Flow OAuth2 API credential', () => {
	const credential = new ConsentFlowOAuth2Api();
	const base = {
		identityProviderUrl: 'https://auth.example',
		apiBaseUrl: 'https://api.example',
		clientId: 'c',
		clientSecret: 'se:cr et&1234',
	};
	/** The credential data as n8n hands it to preAuthentication: defaults applied. */
	const full = (data: INodeParameters) =>
		NodeHelpers.getNodeParameters(
			credential.properties,
			data,
			true,
			false,
			null,
			null,
		) as ICredentialDataDecryptedObject;

	interface Sent {
		url: string;
		headers: Record<string, string>;
		body: Record<string, string>;
	}
	/** preAuthentication against a fake token endpoint: what it sent, what it returned or threw. */
	async function fetchWith(data: INodeParameters, answer: unknown) {
		const sent: Sent[] = [];
		const helper = {
			helpers: {
				httpRequest: async (options: IHttpRequestOptions) => {
					sent.push({
						url: String(options.url),
						headers: options.headers as Record<string, string>,
						body: Object.fromEntries(new URLSearchParams(String(options.body))),
					});
					if (answer instanceof Error) throw answer;
					return answer;
				},
			},
		} as unknown as IHttpRequestHelper;
		try {
			const result = await credential.preAuthentication.call(helper, full(data));
			return { sent, result, error: undefined };
		} catch (error) {
			return { sent, result: undefined, error: error as Error & Record<string, unknown> };
		}
	}
	const answer = (statusCode: number, body: unknown) => ({ statusCode, body, headers: {} });

	test('fetches its own token (no oAuth2Api), keeps it in a hidden expirable password field and sends it as Bearer', () => {
		expect((credential as ICredentialType).extends).toBeUndefined();
		expect(credential.properties.find((p) => p.name === 'grantType')).toBeUndefined();
		const hidden = credential.properties.filter((p) => p.type === 'hidden');
		expect(hidden).toEqual([
			{
				displayName: 'Access Token',
				name: 'accessToken',
				type: 'hidden',
				typeOptions: { expirable: true, password: true },
				default: '',
			},
			{
				displayName: 'Access Token Fetched For',
				name: 'accessTokenFor',
				type: 'hidden',
				typeOptions: { password: true },
				default: '',
			},
		]);
	});

	test('sends the held token as Bearer; refuses an empty Realm and an http identity provider in Production before anything is sent (the Test runs it too)', async () => {
		const options = {
			method: 'POST' as const,
			url: 'https://api.example/api/x',
			headers: { Accept: 'application/json' },
		};
		await expect(
			credential.authenticate(full({ ...base, realm: 'flows', accessToken: 'tok-9' }), options),
		).resolves.toEqual({
			...options,
			headers: { Accept: 'application/json', Authorization: 'Bearer tok-9' },
		});
		await expect(
			credential.authenticate(full({ ...base, accessToken: 'tok-9' }), options),
		).rejects.toThrow(/Realm is empty/);
		await expect(
			credential.authenticate(
				full({
					...base,
					realm: 'flows',
					environment: 'production',
					identityProviderUrl: 'http://a',
				}),
				options,
			),
		).rejects.toThrow(/must use https/);
	});

	const TOKEN = (realm: string) =>
		`https://auth.example/realms/${realm}/protocol/openid-connect/token`;
	const flow = { ...base, realm: 'flows' };
	const loan = { ...base, service: 'loanApplication' };

	// Issue 48: Service decides the token endpoint. Consent flows: the realm the operator gives
	// (Realm); the loan application service: agents-<environment> (consent-flow-service.md, Endpoints,
	// notes). Nothing falls back to another service's realm. The Test's expressions say the same.
	test.each([
		[{ ...flow }, TOKEN('flows')],
		[{ ...flow, realm: ' flows ', environment: 'production' }, TOKEN('flows')],
		[{ ...loan }, TOKEN('agents-test')],
		[{ ...loan, environment: 'production', realm: 'flows' }, TOKEN('agents-prod')],
		[
			{ ...flow, identityProviderUrl: 'https://auth.example/base//' },
			'https://auth.example/base/realms/flows/protocol/openid-connect/token',
		],
	])('token URL for %j', async (fields, expected) => {
		const { sent } = await fetchWith(fields, answer(200, { access_token: 'tok-1' }));
		expect(sent.map((r) => r.url)).toEqual([expected]);
		expect(evaluateTest(credential, credential.test!.request.url as string, fields)).toBe(expected);
	});

	test.each([
		[{ ...flow }, 'sbl'],
		[{ ...flow, additionalScopes: ' extra:one, sbl  extra:two ' }, 'sbl extra:one extra:two'],
		// a list left over from the other choice is not requested
		[{ ...flow, loanApplicationScopes: ['loan-application:create:es'] }, 'sbl'],
		[
			{
				...loan,
				loanApplicationScopes: ['loan-application:create:es', 'loan-application:accept:fi'],
				additionalScopes: 'extra:one loan-application:create:es',
			},
			'loan-application:create:es loan-application:accept:fi extra:one',
		],
		[{ ...loan }, undefined],
	])(
		'scope for %j: sbl or the selected loan application scopes, plus Additional Scopes, without duplicates',
		async (fields, scope) => {
			const { sent } = await fetchWith(fields, answer(200, { access_token: 'tok-1' }));
			expect(sent[0].body.scope).toBe(scope);
			const form = new URLSearchParams(
				String(evaluateTest(credential, credential.test!.request.body as string, fields)),
			);
			expect(form.get('scope')).toBe(scope ?? '');
		},
	);

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

	test('Service: Consent Flows by default; Realm required and shown only for it', () => {
		const service = credential.properties.find((p) => p.name === 'service');
		expect(service).toMatchObject({ type: 'options', default: 'consentFlow' });
		expect((service?.options as Array<{ value: string }>).map((o) => o.value)).toEqual([
			'consentFlow',
			'loanApplication',
		]);
		const realm = credential.properties.find((p) => p.name === 'realm');
		expect(realm).toMatchObject({
			type: 'string',
			default: '',
			required: true,
			displayOptions: { show: { service: ['consentFlow'] } },
		});
		expect(String(realm?.description)).toMatch(/^The realm of the flow service, from the operator/);
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

	const DECIDES_ALL = /Realm .*Client ID and Client Secret .*Environment and Identity Provider URL/;
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

	test('tokenFailureOf reads back the code and status of its own messages only', async () => {
		const refused = await fetchWith(flow, answer(401, { error: 'invalid_client' }));
		expect(tokenFailureOf(refused.error!.message)).toEqual({
			error: 'invalid_client',
			status: 401,
		});
		const missing = await fetchWith(flow, answer(404, ''));
		expect(tokenFailureOf(missing.error!.message)).toEqual({ status: 404 });
		const unreached = await fetchWith(flow, new Error('x'));
		expect(tokenFailureOf(unreached.error!.message)).toEqual({});
		expect(
			tokenFailureOf('Failed to acquire OAuth2 access token: Client authentication failed'),
		).toBeUndefined();
	});

	// Issue 43: the Test calls only the published token endpoint (no GET /api/resource), asking
	// for a token for this client with the requested scopes.
	test('the credential test asks the token endpoint for a token with the requested scopes, nothing else', () => {
		const request = credential.test!.request;
		expect(request.method).toBe('POST');
		expect(request.baseURL).toBeUndefined();
		expect(request.headers).toEqual({ 'Content-Type': 'application/x-www-form-urlencoded' });
		const data = {
			...flow,
			clientSecret: 's&=cret',
			additionalScopes: 'loan-application:create:es',
		};
		expect(
			Object.fromEntries(
				new URLSearchParams(String(evaluateTest(credential, request.body as string, data))),
			),
		).toEqual({
			grant_type: 'client_credentials',
			scope: 'sbl loan-application:create:es',
			client_id: 'c',
			client_secret: 's&=cret',
		});
		const rules = credential.test!.rules as Array<{
			properties: { value: number; message: string };
		}>;
		const said = Object.fromEntries(rules.map((r) => [r.properties.value, r.properties.message]));
		expect(said[401]).toMatch(DECIDES_ALL);
		expect(said[400]).toMatch(/scope/);
		expect(said[404]).toMatch(/Realm .*Identity Provider URL/);
	});

	// No display condition: n8n 1.123's public API refuses every value of a multiOptions field that has one
	test('Loan Application Scopes: the twelve loan-application scopes, ignored for Consent Flows', () => {
		const scopes = credential.properties.find((p) => p.name === 'loanApplicationScopes');
		expect(scopes?.displayOptions).toBeUndefined();
		expect(String(scopes?.description)).toMatch(/^Only for Service: Loan Application Service/);
		const values = (scopes?.options as Array<{ value: string }>).map((o) => o.value);
		expect(values).toHaveLength(12);
		for (const action of ['create', 'update', 'delete', 'accept']) {
			for (const country of ['es', 'se', 'fi'])
				expect(values).toContain(`loan-application:${action}:${country}`);
		}
		expect(credential.properties.find((p) => p.name === 'scopes')).toBeUndefined();
	});

	test('secret is a password field and the credential test calls no /api path', () => {
		expect(
			credential.properties.find((p) => p.name === 'clientSecret')?.typeOptions?.password,
		).toBe(true);
		expect(JSON.stringify(credential.test)).not.toMatch(/\/api\//);
	});
});

describe('Real Estate Estimate OAuth2 API credential', () => {
	const credential = new RealEstateEstimateOAuth2Api();

	test('client credentials with visible token URL, base URL, auth mode and free-text scope', () => {
		const resolved = resolve(credential, {
			accessTokenUrl: 'https://auth.example/token',
			apiBaseUrl: 'https://api.example/estimate/v1',
			clientId: 'c',
			clientSecret: 's',
			scope: 'estimate:read other',
		});
		expect(resolved).toMatchObject({
			grantType: 'clientCredentials',
			accessTokenUrl: 'https://auth.example/token',
			authentication: 'header',
			scope: 'estimate:read other',
		});
	});

	test('the credential test reads the documents of an object under API Base URL (trailing slashes and spaces dropped)', () => {
		const request = credential.test!.request;
		const baseURL = request.baseURL as string;
		const evaluated = evaluateTest(credential, baseURL, {
			accessTokenUrl: 'https://a/t',
			apiBaseUrl: ' https://api.example/estimate/v1// ',
			clientId: 'c',
			clientSecret: 's',
		});
		expect(`${evaluated}${request.url}`).toBe(
			'https://api.example/estimate/v1/RealEstates/0301/1/1/0/0/EstimateDocuments',
		);
		expect(request.method).toBe('GET');
	});
});

describe("both OAuth2 credentials in n8n's HTTP Request node", () => {
	test.each([
		[new ConsentFlowOAuth2Api(), /\/api\/$/],
		[new RealEstateEstimateOAuth2Api(), /\/RealEstates\/$/],
	])('%p has a name, a docs URL and an API base URL placeholder', (credential, placeholder) => {
		const meta = credential.httpRequestNode as {
			name: string;
			docsUrl: string;
			apiBaseUrlPlaceholder: string;
		};
		expect(meta.name.length).toBeGreaterThan(3);
		expect(new URL(meta.docsUrl).protocol).toBe('https:');
		expect(meta.apiBaseUrlPlaceholder).toMatch(placeholder);
	});
});

describe('Consent Flow Webhook Signing credential', () => {
	const credential = new ConsentFlowWebhookSigningApi();

	test('has a password secret and an optional header name', () => {
		const secret = credential.properties.find((p) => p.name === 'secret');
		expect(secret?.typeOptions?.password).toBe(true);
		expect(resolve(credential, { secret: 'x' }).signatureHeader).toBe('');
	});
});

/**
 * The credentials' hidden fields are n8n expressions over the visible ones. These tests resolve
 * them with n8n-workflow's own expression engine, the way n8n's CredentialsHelper does
 * (defaults applied with NodeHelpers.getNodeParameters, then `$self` = the credential data).
 */
import { NodeHelpers, Workflow } from 'n8n-workflow';
import type { ICredentialType, INode, INodeParameters, INodeTypes } from 'n8n-workflow';
import { ConsentFlowOAuth2Api } from '../../credentials/ConsentFlowOAuth2Api.credentials';
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
	};

	test('extends oAuth2Api with the client-credentials grant, hidden', () => {
		expect(credential.extends).toEqual(['oAuth2Api']);
		const grant = credential.properties.find((p) => p.name === 'grantType');
		expect(grant).toMatchObject({ type: 'hidden', default: 'clientCredentials' });
	});

	test.each([
		[
			{ environment: 'test' },
			'https://auth.example/realms/agents-test/protocol/openid-connect/token',
		],
		[
			{ environment: 'production' },
			'https://auth.example/realms/agents-prod/protocol/openid-connect/token',
		],
		[
			{ environment: 'production', realm: 'sbl' },
			'https://auth.example/realms/sbl/protocol/openid-connect/token',
		],
		[
			{ identityProviderUrl: 'https://auth.example/base//' },
			'https://auth.example/base/realms/agents-test/protocol/openid-connect/token',
		],
	])('token URL for %j', (fields, expected) => {
		expect(resolve(credential, { ...base, ...fields }).accessTokenUrl).toBe(expected);
	});

	// Issue 33: the flow service's realm is fixed by the operator (consent-flow-service.md, Endpoints,
	// notes); agents-<environment> is the loan application service's realm. The form must say both,
	// and the empty default must stay what the token URL above computes.
	// Issue 43: Realm is required where the flow service's scope sbl is requested (its realm is fixed
	// by the operator); agents-<environment> is the default only with loan application scopes alone.
	// Issue 43: Realm is needed where the flow service's scope sbl is requested (its realm is fixed by
	// the operator); agents-<environment> is the default only with loan application scopes alone.
	// Neither `required` nor displayOptions on Scopes: n8n 1.123's public API then forbids Realm
	// (measured: every credential create of the e2e suite refused on 1.123.81).
	test('Realm: "Required with Sbl", from the operator; empty means agents-<environment> only without Sbl', () => {
		const realms = credential.properties.filter((p) => p.name === 'realm');
		expect(realms).toHaveLength(1);
		expect(realms[0]).toMatchObject({ type: 'string', default: '' });
		expect(realms[0].displayOptions).toBeUndefined();
		const text = String(realms[0].description);
		expect(text).toMatch(/^Required with Sbl: the realm of the flow service, from the operator/);
		expect(text).toMatch(/Leave empty only with loan application scopes alone/);
		expect(
			resolve(credential, {
				...base,
				scopes: ['loan-application:create:es'],
				environment: 'production',
			}).accessTokenUrl,
		).toBe('https://auth.example/realms/agents-prod/protocol/openid-connect/token');
	});

	// Credentials saved by earlier versions (Realm empty, scope sbl) keep the token URL they had.
	test('a credential saved earlier with an empty Realm and Sbl keeps agents-<environment>', () => {
		expect(resolve(credential, { ...base, scopes: ['sbl'], realm: '' }).accessTokenUrl).toBe(
			'https://auth.example/realms/agents-test/protocol/openid-connect/token',
		);
	});

	// Issue "Hostile input", item 10: in Production the client secret and tokens never travel over
	// plain http. The computed token URL of an http identity provider (and the credential test's
	// API address) become a reserved .invalid host (RFC 6761 §6.4: never resolves), so n8n's token
	// request and credential test fail before sending anything, naming the rule in the host.
	test.each([
		[{ environment: 'production', identityProviderUrl: 'http://auth.example' }],
		[{ environment: 'production', identityProviderUrl: ' HTTP://auth.example ' }],
		[{ environment: 'production', identityProviderUrl: 'auth.example' }],
	])('Production with %j: the token URL cannot be reached over http', (fields) => {
		const url = new URL(String(resolve(credential, { ...base, ...fields }).accessTokenUrl));
		expect(url.protocol).toBe('https:');
		expect(url.hostname).toBe('identity-provider-url-must-use-https-in-production.invalid');
	});

	test('Test may use http (the simulator)', () => {
		const resolved = resolve(credential, {
			...base,
			environment: 'test',
			identityProviderUrl: 'http://127.0.0.1:8080',
		});
		expect(resolved.accessTokenUrl).toBe(
			'http://127.0.0.1:8080/realms/agents-test/protocol/openid-connect/token',
		);
	});

	// Issue 43: the Test calls only the published token endpoint (no GET /api/resource), asking
	// for a token for this client with the requested scopes, and never over http in Production.
	test('the credential test asks the token endpoint for a token with the requested scopes, nothing else', () => {
		const request = credential.test!.request;
		expect(request.method).toBe('POST');
		expect(request.baseURL).toBeUndefined();
		expect(request.headers).toEqual({ 'Content-Type': 'application/x-www-form-urlencoded' });
		const data = {
			...base,
			realm: 'sbl',
			clientSecret: 's&=cret',
			scopes: ['sbl', 'loan-application:create:es'],
		};
		expect(evaluateTest(credential, request.url as string, data)).toBe(
			resolve(credential, data).accessTokenUrl,
		);
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
		expect(
			evaluateTest(credential, request.url as string, {
				...data,
				environment: 'production',
				identityProviderUrl: 'http://auth.example',
			}),
		).toBe(
			'https://identity-provider-url-must-use-https-in-production.invalid/realms/sbl/protocol/openid-connect/token',
		);
		const rules = credential.test!.rules as Array<{
			properties: { value: number; message: string };
		}>;
		const said = Object.fromEntries(rules.map((r) => [r.properties.value, r.properties.message]));
		expect(said[401]).toMatch(/Client ID and Client Secret/);
		expect(said[400]).toMatch(/scope/);
		expect(said[404]).toMatch(/Realm .*Identity Provider URL/);
	});

	// Issue 43: Realm is required with Sbl. n8n 1.123 cannot make a field required on a condition,
	// so the Test asks for a realm named after the rule (its 404 names Realm) without the secret; the token URL the nodes use is unchanged.
	test('the Test fails for Sbl and an empty Realm, naming Realm; loan application scopes alone may leave it empty', () => {
		const url = (data: INodeParameters) =>
			evaluateTest(credential, credential.test!.request.url as string, { ...base, ...data });
		const refused =
			/^https:\/\/auth\.example\/realms\/realm-is-required-with-scope-sbl\/protocol\/openid-connect\/token$/;
		expect(url({ scopes: ['sbl'], realm: '' })).toMatch(refused);
		expect(url({ scopes: ['sbl'], realm: '  ' })).toMatch(refused);
		expect(url({ scopes: [], additionalScopes: 'sbl', realm: '' })).toMatch(refused);
		expect(url({ scopes: ['loan-application:create:es'], realm: '' })).toBe(
			'https://auth.example/realms/agents-test/protocol/openid-connect/token',
		);
		expect(
			url({ scopes: ['loan-application:create:es'], additionalScopes: 'sblx', realm: '' }),
		).toBe('https://auth.example/realms/agents-test/protocol/openid-connect/token');
		expect(url({ scopes: ['sbl'], realm: 'flows' })).toBe(
			'https://auth.example/realms/flows/protocol/openid-connect/token',
		);
		// and the secret is not sent to that realm
		const body = (data: INodeParameters) =>
			Object.fromEntries(
				new URLSearchParams(
					String(
						evaluateTest(credential, credential.test!.request.body as string, {
							...base,
							clientSecret: 'sec',
							...data,
						}),
					),
				),
			);
		expect(body({ scopes: ['sbl'], realm: '' })).not.toHaveProperty('client_secret');
		expect(body({ scopes: ['sbl'], realm: 'flows' })).toHaveProperty('client_secret', 'sec');
		expect(resolve(credential, { ...base, scopes: ['sbl'], realm: '' }).accessTokenUrl).toBe(
			'https://auth.example/realms/agents-test/protocol/openid-connect/token',
		);
	});

	test('scope joins the selected and additional scopes with spaces, without duplicates', () => {
		const resolved = resolve(credential, {
			...base,
			scopes: ['sbl', 'loan-application:create:es', 'loan-application:accept:fi'],
			additionalScopes: ' extra:one, sbl  extra:two ',
		});
		expect(resolved.scope).toBe(
			'sbl loan-application:create:es loan-application:accept:fi extra:one extra:two',
		);
	});

	test('default scope is sbl', () => {
		expect(resolve(credential, base).scope).toBe('sbl');
	});

	test('offers sbl and the twelve loan-application scopes', () => {
		const scopes = credential.properties.find((p) => p.name === 'scopes');
		const values = (scopes?.options as Array<{ value: string }>).map((o) => o.value);
		expect(values).toHaveLength(13);
		expect(values).toContain('sbl');
		for (const action of ['create', 'update', 'delete', 'accept']) {
			for (const country of ['es', 'se', 'fi'])
				expect(values).toContain(`loan-application:${action}:${country}`);
		}
	});

	test('client authentication maps to oAuth2Api "authentication": header (Basic) or body', () => {
		const auth = credential.properties.find((p) => p.name === 'authentication');
		expect((auth?.options as Array<{ value: string }>).map((o) => o.value)).toEqual([
			'header',
			'body',
		]);
		expect(resolve(credential, { ...base, authentication: 'body' }).authentication).toBe('body');
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

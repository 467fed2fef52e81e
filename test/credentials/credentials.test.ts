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

	const TOKEN = (realm: string) =>
		`https://auth.example/realms/${realm}/protocol/openid-connect/token`;
	const flow = { ...base, realm: 'flows' };
	const loan = { ...base, service: 'loanApplication' };

	// Issue 48: Service decides the token endpoint. Consent flows: the realm the operator gives
	// (Realm); the loan application service: agents-<environment> (consent-flow-service.md, Endpoints,
	// notes). Nothing falls back to another service's realm.
	test.each([
		[{ ...flow }, TOKEN('flows')],
		[{ ...flow, realm: ' flows ', environment: 'production' }, TOKEN('flows')],
		[{ ...loan }, TOKEN('agents-test')],
		[{ ...loan, environment: 'production', realm: 'flows' }, TOKEN('agents-prod')],
		[
			{ ...flow, identityProviderUrl: 'https://auth.example/base//' },
			'https://auth.example/base/realms/flows/protocol/openid-connect/token',
		],
	])('token URL for %j', (fields, expected) => {
		expect(resolve(credential, fields).accessTokenUrl).toBe(expected);
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
		expect(JSON.stringify(credential)).not.toMatch(/realm-is-required-with-scope-sbl/);
	});

	// An empty Realm never becomes agents-<environment> (the old fallback): the token URL is a
	// reserved .invalid host (RFC 6761: never resolves) that names the field, so nothing is sent.
	test.each([
		[{}],
		[{ realm: '' }],
		[{ realm: '   ' }],
		[{ realm: '', environment: 'production' }],
	])('Consent Flows with %j: no token is asked anywhere, the host names Realm', (fields) => {
		const url = new URL(String(resolve(credential, { ...base, ...fields }).accessTokenUrl));
		expect(url.hostname).toBe('realm-is-empty-enter-the-realm-from-the-operator.invalid');
		expect(url.href).not.toMatch(/agents-/);
	});

	// Issue "Hostile input", item 10: in Production the client secret and tokens never travel over
	// plain http. The computed token URL of an http identity provider (and the credential test's
	// API address) become a reserved .invalid host (RFC 6761 §6.4: never resolves), so n8n's token
	// request and credential test fail before sending anything, naming the rule in the host.
	test.each([
		[{ ...flow, environment: 'production', identityProviderUrl: 'http://auth.example' }],
		[{ ...loan, environment: 'production', identityProviderUrl: ' HTTP://auth.example ' }],
		[{ ...flow, environment: 'production', identityProviderUrl: 'auth.example' }],
	])('Production with %j: the token URL cannot be reached over http', (fields) => {
		const url = new URL(String(resolve(credential, fields).accessTokenUrl));
		expect(url.protocol).toBe('https:');
		expect(url.hostname).toBe('identity-provider-url-must-use-https-in-production.invalid');
	});

	test('Test may use http (the simulator)', () => {
		const resolved = resolve(credential, {
			...flow,
			environment: 'test',
			identityProviderUrl: 'http://127.0.0.1:8080',
		});
		expect(resolved.accessTokenUrl).toBe(
			'http://127.0.0.1:8080/realms/flows/protocol/openid-connect/token',
		);
	});

	// Issue 43: the Test calls only the published token endpoint (no GET /api/resource), asking
	// for a token for this client with the requested scopes, and never over http in Production.
	test('the credential test asks the token endpoint for a token with the requested scopes, nothing else', () => {
		const request = credential.test!.request;
		expect(request.method).toBe('POST');
		expect(request.baseURL).toBeUndefined();
		expect(request.headers).toEqual({ 'Content-Type': 'application/x-www-form-urlencoded' });
		const form = (data: INodeParameters) =>
			Object.fromEntries(
				new URLSearchParams(String(evaluateTest(credential, request.body as string, data))),
			);
		const data = {
			...flow,
			clientSecret: 's&=cret',
			additionalScopes: 'loan-application:create:es',
		};
		expect(evaluateTest(credential, request.url as string, data)).toBe(
			resolve(credential, data).accessTokenUrl,
		);
		expect(form(data)).toEqual({
			grant_type: 'client_credentials',
			scope: 'sbl loan-application:create:es',
			client_id: 'c',
			client_secret: 's&=cret',
		});
		const loanData = { ...loan, loanApplicationScopes: ['loan-application:accept:fi'] };
		expect(evaluateTest(credential, request.url as string, loanData)).toBe(TOKEN('agents-test'));
		expect(form(loanData).scope).toBe('loan-application:accept:fi');
		expect(evaluateTest(credential, request.url as string, { ...base, realm: '' })).toBe(
			resolve(credential, { ...base, realm: '' }).accessTokenUrl,
		);
		expect(
			evaluateTest(credential, request.url as string, {
				...data,
				environment: 'production',
				identityProviderUrl: 'http://auth.example',
			}),
		).toBe(
			'https://identity-provider-url-must-use-https-in-production.invalid/realms/flows/protocol/openid-connect/token',
		);
		const rules = credential.test!.rules as Array<{
			properties: { value: number; message: string };
		}>;
		const said = Object.fromEntries(rules.map((r) => [r.properties.value, r.properties.message]));
		expect(said[401]).toMatch(
			/Realm .*Client ID and Client Secret .*Environment and Identity Provider URL/,
		);
		expect(said[400]).toMatch(/scope/);
		expect(said[404]).toMatch(/Realm .*Identity Provider URL/);
	});

	test('scope: sbl for Consent Flows, the selected scopes for the loan application service, plus Additional Scopes, without duplicates', () => {
		expect(resolve(credential, base).scope).toBe('sbl');
		expect(
			resolve(credential, { ...flow, additionalScopes: ' extra:one, sbl  extra:two ' }).scope,
		).toBe('sbl extra:one extra:two');
		// a list left over from the other choice is not requested
		expect(
			resolve(credential, { ...flow, loanApplicationScopes: ['loan-application:create:es'] }).scope,
		).toBe('sbl');
		expect(
			resolve(credential, {
				...loan,
				loanApplicationScopes: ['loan-application:create:es', 'loan-application:accept:fi'],
				additionalScopes: 'extra:one loan-application:create:es',
			}).scope,
		).toBe('loan-application:create:es loan-application:accept:fi extra:one');
		expect(resolve(credential, loan).scope).toBe('');
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

/**
 * The credentials' hidden fields and test requests are n8n expressions over the visible ones. These tests resolve
 * them with n8n-workflow's own expression engine, the way n8n's CredentialsHelper does
 * (defaults applied with NodeHelpers.getNodeParameters, then `$self` = the credential data).
 */
import type { ICredentialType } from 'n8n-workflow';
import { ConsentFlowOAuth2Api } from '../../credentials/ConsentFlowOAuth2Api.credentials';
import { ConsentFlowWebhookSigningApi } from '../../credentials/ConsentFlowWebhookSigningApi.credentials';
import { RealEstateEstimateOAuth2Api } from '../../credentials/RealEstateEstimateOAuth2Api.credentials';
import {
	DECIDES_ALL,
	TOKEN,
	answer,
	base,
	credential,
	evaluateTest,
	fetchWith,
	flow,
	full,
	loan,
	resolve,
} from './helpers';

describe('Consent Flow OAuth2 API credential', () => {
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

import type {
	ICredentialDataDecryptedObject,
	ICredentialTestRequest,
	ICredentialType,
	IHttpRequestHelper,
	IHttpRequestOptions,
	INodeProperties,
} from 'n8n-workflow';
import { clientCredentialsFields } from './clientCredentialsFields';
import { DECIDES_FLOW_TOKEN, checkBeforeSending, fetchAccessToken } from './consentFlowToken';

/** The loan application scopes: an action in a country. */
const COUNTRIES = { es: 'Spain', se: 'Sweden', fi: 'Finland' };
const loanApplicationScopeOptions = Object.entries(COUNTRIES).flatMap(([code, country]) =>
	['create', 'update', 'delete', 'accept'].map((action) => ({
		name: `${action[0].toUpperCase()}${action.slice(1)} (${country})`,
		value: `loan-application:${action}:${code}`,
	})),
);

// The Test's request, as n8n expressions: the same realm and scope as consentFlowToken.ts (a unit
// test holds the two together).
const REALM = `($credentials.service === 'loanApplication' ? ($credentials.environment === 'production' ? 'agents-prod' : 'agents-test') : String($credentials.realm || '').trim())`;
const TOKEN_URL = `String($credentials.identityProviderUrl || '').trim().replace(/\\/+$/, '') + '/realms/' + ${REALM} + '/protocol/openid-connect/token'`;
const SCOPE = `[].concat($credentials.service === 'loanApplication' ? $credentials.loanApplicationScopes || [] : ['sbl'], String($credentials.additionalScopes || '').split(/[\\s,]+/)).filter(function (s, i, all) { return !!s && all.indexOf(s) === i; }).join(' ')`;

// OAuth2 client credentials for the consent flow service and the loan application API; the token is
// fetched by the credential itself and kept in the hidden Access Token field (consentFlowToken.ts).
export class ConsentFlowOAuth2Api implements ICredentialType {
	name = 'consentFlowOAuth2Api';

	displayName = 'Consent Flow OAuth2 API';

	icon = { light: 'file:../icons/sbl.svg', dark: 'file:../icons/sbl.dark.svg' } as const;

	documentationUrl = 'https://www.npmjs.com/package/n8n-nodes-sbl#credentials';

	// How the credential is offered in n8n's HTTP Request node (Authentication → Predefined
	// Credential Type): the README sends users there for the loan application API.
	httpRequestNode = {
		name: 'SBL Consent Flow and Loan Application',
		docsUrl: 'https://www.npmjs.com/package/n8n-nodes-sbl#credentials',
		apiBaseUrlPlaceholder: 'https://api.example.com/api/',
	};

	properties: INodeProperties[] = [
		{
			displayName: 'Service',
			name: 'service',
			type: 'options',
			options: [
				{
					name: 'Consent Flows',
					value: 'consentFlow',
					description: 'The flow service, in the realm the operator gives you; requests scope sbl',
				},
				{
					name: 'Loan Application Service',
					value: 'loanApplication',
					description: 'Realm agents-test or agents-prod, following Environment',
				},
			],
			default: 'consentFlow',
			description: 'Which service the token is for: it decides the token endpoint',
		},
		{
			displayName: 'Environment',
			name: 'environment',
			type: 'options',
			options: [
				{ name: 'Test', value: 'test' },
				{ name: 'Production', value: 'production' },
			],
			default: 'test',
			description: 'Which environment the client belongs to; Production requires https addresses',
		},
		{
			displayName: 'Identity Provider URL',
			name: 'identityProviderUrl',
			type: 'string',
			default: '',
			required: true,
			placeholder: 'e.g. https://auth.example.com',
			description: 'Base address of the identity provider ({auth_url}), without /realms/…',
		},
		{
			displayName: 'Realm',
			name: 'realm',
			type: 'string',
			default: '',
			required: true,
			displayOptions: { show: { service: ['consentFlow'] } },
			placeholder: 'from the operator',
			description: 'The realm of the flow service, from the operator',
		},
		{
			displayName: 'API Base URL',
			name: 'apiBaseUrl',
			type: 'string',
			default: '',
			required: true,
			placeholder: 'e.g. https://api.example.com',
			description: 'Base address of the consent flow API ({base_url}), without /api/…',
		},
		...clientCredentialsFields,
		{
			displayName: 'Loan Application Scopes',
			name: 'loanApplicationScopes',
			type: 'multiOptions',
			options: loanApplicationScopeOptions,
			default: [],
			// Shown always: n8n 1.123's public API turns a display condition on a multiOptions field
			// into a schema no value satisfies (measured)
			description: 'Only for Service: Loan Application Service: the scopes granted to this client',
		},
		{
			displayName: 'Additional Scopes',
			name: 'additionalScopes',
			type: 'string',
			default: '',
			placeholder: 'e.g. custom:scope other:scope',
			description: 'More scopes to request, separated by spaces or commas',
		},
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
	];

	async preAuthentication(this: IHttpRequestHelper, credentials: ICredentialDataDecryptedObject) {
		return await fetchAccessToken(this, credentials);
	}

	// Bearer token. Also the credential Test's first step: n8n runs preAuthentication there only while
	// no token is held, so an empty Realm or an http identity provider in Production typed into the
	// form is refused here, before anything is sent.
	async authenticate(
		credentials: ICredentialDataDecryptedObject,
		requestOptions: IHttpRequestOptions,
	): Promise<IHttpRequestOptions> {
		checkBeforeSending(credentials);
		return {
			...requestOptions,
			headers: {
				...requestOptions.headers,
				Authorization: `Bearer ${String(credentials.accessToken ?? '')}`,
			},
		};
	}

	// The Test proves what is published and nothing more: the token endpoint issues a token for this
	// client with the requested scopes. While no token is held n8n first runs preAuthentication, whose
	// refusal is the Test's message; this request then asks the token endpoint again with the client as
	// form fields whatever Client Authentication says (published as accepted), so that a held token
	// does not pass the Test for a changed secret (its refusals: the rules below).
	test: ICredentialTestRequest = {
		request: {
			url: `={{ ${TOKEN_URL} }}`,
			method: 'POST',
			headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
			body: `={{ 'grant_type=client_credentials&scope=' + encodeURIComponent(${SCOPE}) + '&client_id=' + encodeURIComponent(String($credentials.clientId || '')) + '&client_secret=' + encodeURIComponent(String($credentials.clientSecret || '')) }}`,
		},
		rules: [
			{
				type: 'responseCode',
				properties: {
					value: 401,
					message: `The identity provider refused the client (401): check ${DECIDES_FLOW_TOKEN}`,
				},
			},
			{
				type: 'responseCode',
				properties: {
					value: 400,
					message:
						'The identity provider refused the token request (400): a scope this client may not request (check Loan Application Scopes and Additional Scopes), or the client may not use the client credentials grant',
				},
			},
			{
				type: 'responseCode',
				properties: {
					value: 404,
					message:
						'No token endpoint at this address (404): check Realm (the realm the operator gave you), Service and Identity Provider URL (the base address, without /realms/…)',
				},
			},
		],
	};
}

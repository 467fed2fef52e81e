import type { ICredentialTestRequest, ICredentialType, INodeProperties } from 'n8n-workflow';
import {
	clientCredentialsFields,
	clientCredentialsGrant,
	hiddenAuthorizationCodeFields,
} from './clientCredentialsFields';

/** Country codes of the loan application scopes. */
const LOAN_APPLICATION_COUNTRIES = [
	{ code: 'es', name: 'Spain' },
	{ code: 'se', name: 'Sweden' },
	{ code: 'fi', name: 'Finland' },
];
const LOAN_APPLICATION_ACTIONS = ['create', 'update', 'delete', 'accept'];

const loanApplicationScopeOptions = LOAN_APPLICATION_COUNTRIES.flatMap((country) =>
	LOAN_APPLICATION_ACTIONS.map((action) => ({
		name: `${action[0].toUpperCase()}${action.slice(1)} (${country.name})`,
		value: `loan-application:${action}:${country.code}`,
	})),
);

// Service decides the token endpoint: the flow service's realm is fixed by the operator (Realm);
// the loan application service's is agents-<environment> (both in consent-flow-service.md). In
// Production an identity provider address that is not https becomes a reserved .invalid host
// (RFC 6761: never resolves), and so does an empty Realm: nothing is sent, and the host names the
// field to fix.
function realmOf(ref: string): string {
	return `(${ref}.service === 'loanApplication' ? (${ref}.environment === 'production' ? 'agents-prod' : 'agents-test') : String(${ref}.realm || '').trim())`;
}

function tokenUrl(ref: string): string {
	return `(${ref}.service !== 'loanApplication' && ${realmOf(ref)} === '' ? 'https://realm-is-empty-enter-the-realm-from-the-operator.invalid' : ${ref}.environment === 'production' && !/^https:\\/\\//i.test(String(${ref}.identityProviderUrl || '').trim()) ? 'https://identity-provider-url-must-use-https-in-production.invalid' : String(${ref}.identityProviderUrl || '').trim().replace(/\\/+$/, '')) + '/realms/' + ${realmOf(ref)} + '/protocol/openid-connect/token'`;
}

function scope(ref: string): string {
	return `[].concat(${ref}.service === 'loanApplication' ? ${ref}.loanApplicationScopes || [] : ['sbl'], String(${ref}.additionalScopes || '').split(/[\\s,]+/)).filter(function (s, i, all) { return !!s && all.indexOf(s) === i; }).join(' ')`;
}

const DECIDES =
	'Realm (consent flows: the realm from the operator; a realm that does not know the client answers as for an unknown client), Client ID and Client Secret (test and production have different clients), Environment and Identity Provider URL';

/**
 * OAuth2 client credentials for the consent flow service (SBL) and the loan application API.
 * n8n's own OAuth2 machinery fetches, caches and refreshes the token; the token URL and the
 * space-joined scope are computed from the visible fields.
 */
export class ConsentFlowOAuth2Api implements ICredentialType {
	name = 'consentFlowOAuth2Api';

	extends = ['oAuth2Api'];

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
		clientCredentialsGrant,
		{
			displayName: 'Service',
			name: 'service',
			type: 'options',
			options: [
				{
					name: 'Consent Flows',
					value: 'consentFlow',
					description:
						'Token endpoint of the flow service, in the realm the operator gives you (Realm). Requests scope sbl.',
				},
				{
					name: 'Loan Application Service',
					value: 'loanApplication',
					description:
						'Token endpoint of the loan application service: realm agents-test or agents-prod, following Environment',
				},
			],
			default: 'consentFlow',
			description:
				'Which service the token is for; it decides the token endpoint. One credential per service.',
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
			description:
				'Which environment the client belongs to (test and production have different clients). For the loan application service it decides the realm (agents-test or agents-prod); in Production the nodes require https URLs.',
		},
		{
			displayName: 'Identity Provider URL',
			name: 'identityProviderUrl',
			type: 'string',
			default: '',
			required: true,
			placeholder: 'e.g. https://auth.example.com',
			description:
				'Base address of the identity provider that issues tokens ({auth_url}), without the /realms/… part',
		},
		{
			displayName: 'Realm',
			name: 'realm',
			type: 'string',
			default: '',
			required: true,
			displayOptions: { show: { service: ['consentFlow'] } },
			placeholder: 'from the operator',
			description:
				'The realm of the flow service, from the operator (it is fixed by the operator). A realm that does not know this client refuses it as an unknown client: if the Test says "Client authentication failed", check Realm as well as Client ID and Client Secret.',
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
			description:
				'Only for Service: Loan Application Service (Consent Flows requests sbl and ignores this list). The loan-application:<action>:<country> scopes granted to this client.',
		},
		{
			displayName: 'Additional Scopes',
			name: 'additionalScopes',
			type: 'string',
			default: '',
			placeholder: 'e.g. custom:scope other:scope',
			description:
				'More scopes to request, separated by spaces or commas (added to sbl for Consent Flows, to the selected scopes for the loan application service)',
		},
		{
			displayName: 'Access Token URL',
			name: 'accessTokenUrl',
			type: 'hidden',
			default: `={{ ${tokenUrl('$self')} }}`,
		},
		{
			displayName: 'Scope',
			name: 'scope',
			type: 'hidden',
			default: `={{ ${scope('$self')} }}`,
		},
		...hiddenAuthorizationCodeFields,
	];

	// The Test proves what is published and nothing more: the token endpoint issues a token for this
	// client with the requested scopes. n8n first fetches a token its own way (when that fails, the
	// Test shows n8n's message); this request then asks the token endpoint again with the form the test sends
	// whatever Client Authentication says (client_id and client_secret as form fields, published as
	// accepted), so that a token n8n stored earlier does not pass the Test for a changed secret.
	test: ICredentialTestRequest = {
		request: {
			url: `={{ ${tokenUrl('$credentials')} }}`,
			method: 'POST',
			headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
			body: `={{ 'grant_type=client_credentials&scope=' + encodeURIComponent(${scope('$credentials')}) + '&client_id=' + encodeURIComponent(String($credentials.clientId || '')) + '&client_secret=' + encodeURIComponent(String($credentials.clientSecret || '')) }}`,
		},
		rules: [
			{
				type: 'responseCode',
				properties: {
					value: 401,
					message: `The identity provider refused the client (401): check ${DECIDES}`,
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

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

const scopeOptions = [
	{ name: 'Sbl (Consent Flows)', value: 'sbl' },
	...LOAN_APPLICATION_COUNTRIES.flatMap((country) =>
		LOAN_APPLICATION_ACTIONS.map((action) => ({
			name: `Loan Application: ${action[0].toUpperCase()}${action.slice(1)} (${country.name})`,
			value: `loan-application:${action}:${country.code}`,
		})),
	),
];

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
			displayName: 'Environment',
			name: 'environment',
			type: 'options',
			options: [
				{ name: 'Test', value: 'test' },
				{ name: 'Production', value: 'production' },
			],
			default: 'test',
			description:
				'Which environment the client belongs to. Decides the default realm (agents-test or agents-prod) and, in Production, the nodes require https URLs.',
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
			placeholder: 'e.g. agents-test',
			description:
				'The realm of the token endpoint comes from the service operator: for consent flows (scope sbl) enter the realm the operator gives you. Empty means agents-test or agents-prod, following Environment: the realm of the loan application service.',
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
			displayName: 'Scopes',
			name: 'scopes',
			type: 'multiOptions',
			options: scopeOptions,
			default: ['sbl'],
			description:
				'Scopes to request with the token. Sbl is needed to create and delete consent flows; the loan application scopes are for the loan application API.',
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
			displayName: 'Access Token URL',
			name: 'accessTokenUrl',
			type: 'hidden',
			// In Production an identity provider address that is not https becomes a reserved .invalid
			// host (RFC 6761: never resolves): the client secret is never sent in clear text.
			default:
				"={{ ($self.environment === 'production' && !/^https:\\/\\//i.test(String($self.identityProviderUrl || '').trim()) ? 'https://identity-provider-url-must-use-https-in-production.invalid' : String($self.identityProviderUrl || '').trim().replace(/\\/+$/, '')) + '/realms/' + ($self.realm ? $self.realm : ($self.environment === 'production' ? 'agents-prod' : 'agents-test')) + '/protocol/openid-connect/token' }}",
		},
		{
			displayName: 'Scope',
			name: 'scope',
			type: 'hidden',
			default:
				"={{ [].concat($self.scopes || [], String($self.additionalScopes || '').split(/[\\s,]+/)).filter(function (s, i, all) { return !!s && all.indexOf(s) === i; }).join(' ') }}",
		},
		...hiddenAuthorizationCodeFields,
	];

	test: ICredentialTestRequest = {
		request: {
			// Production never sends the token to an http API Base URL (see accessTokenUrl)
			baseURL:
				'={{ $credentials.environment === "production" && !/^https:\\/\\//i.test(String($credentials.apiBaseUrl).trim()) ? "https://api-base-url-must-use-https-in-production.invalid" : String($credentials.apiBaseUrl).trim().replace(/\\/+$/, "") }}',
			url: '/api/resource',
			method: 'GET',
		},
	};
}

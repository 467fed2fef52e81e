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

// In Production an identity provider address that is not https becomes a reserved .invalid host
// (RFC 6761: never resolves): the client secret is never sent in clear text. An empty Realm is the
// loan application realm agents-<environment> (published); credentials saved before Realm was
// required with scope sbl keep that default, so they work as before.
function realmOf(ref: string): string {
	return `(${ref}.realm ? String(${ref}.realm).trim() : (${ref}.environment === 'production' ? 'agents-prod' : 'agents-test'))`;
}

function tokenUrl(ref: string, realm = realmOf(ref)): string {
	return `(${ref}.environment === 'production' && !/^https:\\/\\//i.test(String(${ref}.identityProviderUrl || '').trim()) ? 'https://identity-provider-url-must-use-https-in-production.invalid' : String(${ref}.identityProviderUrl || '').trim().replace(/\\/+$/, '')) + '/realms/' + ${realm} + '/protocol/openid-connect/token'`;
}

function scope(ref: string): string {
	return `[].concat(${ref}.scopes || [], String(${ref}.additionalScopes || '').split(/[\\s,]+/)).filter(function (s, i, all) { return !!s && all.indexOf(s) === i; }).join(' ')`;
}

// Realm is required with Sbl, but n8n 1.123 cannot require a field on a condition: the Test asks
// the identity provider for a realm named after the rule (its 404 names Realm), without the secret.
// The nodes keep agents-<environment> for credentials saved before.
const REALM_RULE = 'realm-is-required-with-scope-sbl';

function realmMissing(ref: string): string {
	return `((${ref}.realm ? String(${ref}.realm).trim() : '') === '' && (${scope(ref)}).split(' ').indexOf('sbl') !== -1)`;
}

function testTokenUrl(ref: string): string {
	return tokenUrl(ref, `(${realmMissing(ref)} ? '${REALM_RULE}' : ${realmOf(ref)})`);
}

const REALM_TEXT =
	'Required with Sbl: the realm of the flow service, from the operator (it is fixed by the operator; enter the realm they give you). Leave empty only with loan application scopes alone: the token URL then uses agents-test or agents-prod, following Environment (the published realm of the loan application service).';

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
		// Needed with Sbl, yet neither `required` nor displayOptions on the Scopes list: n8n 1.123's
		// public API turns a condition on a multiOptions field into a schema that forbids Realm.
		{
			displayName: 'Realm',
			name: 'realm',
			type: 'string',
			default: '',
			placeholder: 'from the operator',
			description: REALM_TEXT,
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
	// client with the requested scopes. n8n first fetches a token its own way (its message names the
	// failing part); this request then asks the token endpoint again with the form the test sends
	// whatever Client Authentication says (client_id and client_secret as form fields, published as
	// accepted), so that a token n8n stored earlier does not pass the Test for a changed secret.
	test: ICredentialTestRequest = {
		request: {
			url: `={{ ${testTokenUrl('$credentials')} }}`,
			method: 'POST',
			headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
			body: `={{ 'grant_type=client_credentials&scope=' + encodeURIComponent(${scope('$credentials')}) + '&client_id=' + encodeURIComponent(String($credentials.clientId || '')) + (${realmMissing('$credentials')} ? '' : '&client_secret=' + encodeURIComponent(String($credentials.clientSecret || ''))) }}`,
		},
		rules: [
			{
				type: 'responseCode',
				properties: {
					value: 401,
					message:
						'The identity provider refused the client (401): check Client ID and Client Secret (test and production have different clients)',
				},
			},
			{
				type: 'responseCode',
				properties: {
					value: 400,
					message:
						'The identity provider refused the token request (400): a scope this client may not request (check Scopes and Additional Scopes), or the client may not use the client credentials grant',
				},
			},
			{
				type: 'responseCode',
				properties: {
					value: 404,
					message:
						'No token endpoint at this address (404): check Realm (required with Sbl: the realm the operator gave you) and Identity Provider URL (the base address, without /realms/…)',
				},
			},
		],
	};
}

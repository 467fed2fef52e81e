import type { ICredentialType, INodeProperties } from 'n8n-workflow';

/**
 * OAuth2 client credentials for the real estate estimate API. n8n fetches, caches and
 * refreshes the token.
 */
export class RealEstateEstimateOAuth2Api implements ICredentialType {
	name = 'realEstateEstimateOAuth2Api';

	extends = ['oAuth2Api'];

	displayName = 'Real Estate Estimate OAuth2 API';

	icon = { light: 'file:../icons/estimate.svg', dark: 'file:../icons/estimate.dark.svg' } as const;

	documentationUrl = 'https://www.npmjs.com/package/n8n-nodes-sbl#credentials';

	properties: INodeProperties[] = [
		{
			displayName: 'Grant Type',
			name: 'grantType',
			type: 'hidden',
			default: 'clientCredentials',
		},
		{
			displayName: 'Access Token URL',
			name: 'accessTokenUrl',
			type: 'string',
			default: '',
			required: true,
			placeholder: 'https://auth.example.com/realms/estimate/protocol/openid-connect/token',
			description: 'Token endpoint of the identity provider that issues tokens for the estimate API',
		},
		{
			displayName: 'API Base URL',
			name: 'apiBaseUrl',
			type: 'string',
			default: '',
			required: true,
			placeholder: 'https://api.example.com/estimate/v1',
			description:
				'Base address of the estimate API including any path prefix, without /RealEstates/…',
		},
		{
			displayName: 'Client ID',
			name: 'clientId',
			type: 'string',
			default: '',
			required: true,
		},
		{
			displayName: 'Client Secret',
			name: 'clientSecret',
			type: 'string',
			typeOptions: { password: true },
			default: '',
			required: true,
		},
		{
			displayName: 'Client Authentication',
			name: 'authentication',
			type: 'options',
			options: [
				{
					name: 'Basic Auth Header',
					value: 'header',
					description: 'Send client ID and secret as an Authorization: Basic header',
				},
				{
					name: 'In Body',
					value: 'body',
					description: 'Send client_id and client_secret as form fields of the token request',
				},
			],
			default: 'header',
		},
		{
			displayName: 'Scope',
			name: 'scope',
			type: 'string',
			default: '',
			placeholder: 'estimate:read',
			description: 'Scopes to request, separated by spaces (leave empty for the client default)',
		},
		{
			displayName: 'Auth URL',
			name: 'authUrl',
			type: 'hidden',
			default: '',
		},
		{
			displayName: 'Auth URI Query Parameters',
			name: 'authQueryParameters',
			type: 'hidden',
			default: '',
		},
	];
}

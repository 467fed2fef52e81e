import type { ICredentialType, INodeProperties } from 'n8n-workflow';
import {
	clientCredentialsFields,
	clientCredentialsGrant,
	hiddenAuthorizationCodeFields,
} from './clientCredentialsFields';

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
		clientCredentialsGrant,
		{
			displayName: 'Access Token URL',
			name: 'accessTokenUrl',
			type: 'string',
			default: '',
			required: true,
			placeholder: 'https://auth.example.com/realms/estimate/protocol/openid-connect/token',
			description:
				'Token endpoint of the identity provider that issues tokens for the estimate API',
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
		...clientCredentialsFields,
		{
			displayName: 'Scope',
			name: 'scope',
			type: 'string',
			default: '',
			placeholder: 'estimate:read',
			description: 'Scopes to request, separated by spaces (leave empty for the client default)',
		},
		...hiddenAuthorizationCodeFields,
	];
}

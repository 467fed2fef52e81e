import type { ICredentialTestRequest, ICredentialType, INodeProperties } from 'n8n-workflow';
import { clientCredentialsFields } from './clientCredentialsFields';

// OAuth2 client credentials on n8n's oAuth2Api, so that n8n fetches, caches and refreshes the token.
export class RealEstateEstimateOAuth2Api implements ICredentialType {
	name = 'realEstateEstimateOAuth2Api';

	extends = ['oAuth2Api'];

	displayName = 'Real Estate Estimate OAuth2 API';

	icon = { light: 'file:../icons/estimate.svg', dark: 'file:../icons/estimate.dark.svg' } as const;

	documentationUrl = 'https://www.npmjs.com/package/n8n-nodes-sbl#credentials';

	// Offered in the HTTP Request node (Authentication → Predefined Credential Type).
	httpRequestNode = {
		name: 'Real Estate Estimate',
		docsUrl: 'https://www.npmjs.com/package/n8n-nodes-sbl#real-estate-estimate',
		apiBaseUrlPlaceholder: 'https://api.example.com/estimate/v1/RealEstates/',
	};

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
			placeholder: 'e.g. https://auth.example.com/realms/estimate/protocol/openid-connect/token',
			description: 'Token endpoint of the identity provider for the estimate API',
		},
		{
			displayName: 'API Base URL',
			name: 'apiBaseUrl',
			type: 'string',
			default: '',
			required: true,
			placeholder: 'e.g. https://api.example.com/estimate/v1',
			description: 'Estimate API address with its path prefix, without /RealEstates/…',
		},
		...clientCredentialsFields,
		{
			displayName: 'Scope',
			name: 'scope',
			type: 'string',
			default: '',
			description: 'Scopes to request, separated by spaces; empty for the client default',
		},
	];

	// A token, then a read without side effects: 401/403 for a client the API does not accept.
	test: ICredentialTestRequest = {
		request: {
			baseURL: '={{ String($credentials.apiBaseUrl).trim().replace(/\\/+$/, "") }}',
			url: '/RealEstates/0301/1/1/0/0/EstimateDocuments',
			method: 'GET',
		},
	};
}

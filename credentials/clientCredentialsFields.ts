import type { INodeProperties } from 'n8n-workflow';

/**
 * Fields both OAuth2 client-credentials credentials share: client ID, secret and how the token
 * request authenticates the client (`authentication`, as oAuth2Api names it: Basic header or form body).
 */
export const clientCredentialsFields: INodeProperties[] = [
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
];

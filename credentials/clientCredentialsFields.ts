import type { INodeProperties } from 'n8n-workflow';

/** The fields both client-credentials credentials share; `authentication` is named as in oAuth2Api. */
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

import type { IDataObject } from 'n8n-workflow';
import type { ConnectionSpec } from '../shared/transport';

export const CONNECTION: ConnectionSpec = {
	credentialType: 'consentFlowOAuth2Api',
	baseUrlHint:
		'Open the Consent Flow OAuth2 API credential and enter the base address of the consent flow API, for example https://api.example.com (without /api/…).',
};

function isObject(value: unknown): value is IDataObject {
	return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** `{ data: {...} }` → the inner object, when the outer one carries nothing else of the flow. */
export function unwrapData(response: unknown): IDataObject {
	if (!isObject(response)) {
		return response === undefined || response === null || response === ''
			? {}
			: { data: response as string };
	}
	const data = response.data;
	if (isObject(data) && !('id' in response) && !('href' in response)) return data;
	return response;
}

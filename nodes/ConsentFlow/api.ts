import type { IDataObject } from 'n8n-workflow';
import type { ConnectionSpec } from '../shared/transport';
import { isObject } from '../shared/json';

export const CONNECTION: ConnectionSpec = {
	credentialType: 'consentFlowOAuth2Api',
	baseUrlHint:
		'Open the Consent Flow OAuth2 API credential and enter the base address of the consent flow API, for example https://api.example.com (without /api/…).',
};

/** `{ data: {...} }` → the inner object, when the outer one carries nothing else of the flow. */
export function unwrapData(response: unknown): IDataObject {
	if (!isObject<IDataObject>(response)) {
		return response === undefined || response === null || response === ''
			? {}
			: { data: response as string };
	}
	const data = response.data;
	if (isObject<IDataObject>(data) && !('id' in response) && !('href' in response)) return data;
	return response;
}

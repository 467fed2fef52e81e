import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';
import type { RunEnv } from '../shared/runner';
import { apiRequest } from '../shared/transport';
import type { ApiRequest, ConnectionSpec, FailureFacts, RetryPolicy } from '../shared/transport';
import { passwordFieldsOf } from '../shared/transport/redact';
import { isObject } from '../shared/json';
import { ConsentFlowOAuth2Api } from '../../credentials/ConsentFlowOAuth2Api.credentials';
import { describeFailure } from './wording';

export const CONNECTION: ConnectionSpec = {
	credentialType: 'consentFlowOAuth2Api',
	passwordFields: passwordFieldsOf(new ConsentFlowOAuth2Api().properties),
	baseUrlHint:
		'Open the Consent Flow OAuth2 API credential and enter the base address of the consent flow API, for example https://api.example.com (without /api/…).',
	// The flow service's realm is fixed by the operator: the token endpoint is never guessed.
	credentialProblem: (credentials) => {
		if (credentials.service === 'loanApplication') {
			return {
				message: "The credential's Service is the loan application service, not Consent Flows",
				description:
					'Consent flows need a token from the flow service: open the Consent Flow OAuth2 API credential, set Service to Consent Flows and enter the Realm the operator gave you (or choose another credential).',
			};
		}
		if (!String(credentials.realm ?? '').trim()) {
			return {
				message: "The credential's Realm is empty",
				description:
					'Open the Consent Flow OAuth2 API credential and enter the Realm the operator gave you for the flow service.',
			};
		}
		return undefined;
	},
};

/** A create (POST) or a delete of `flowId`, its failures worded for it; the answer unwrapped. */
export async function flowRequest(
	ctx: IExecuteFunctions,
	{ connection, fields }: RunEnv,
	itemIndex: number,
	request: ApiRequest,
	policy: RetryPolicy,
	flowId?: string,
): Promise<IDataObject> {
	const call = {
		operation: request.method === 'DELETE' ? ('delete' as const) : ('create' as const),
		host: connection.host,
		flowId,
		fields,
		retryStatuses: policy.retryStatuses,
	};
	const wording = (facts: FailureFacts) => describeFailure(facts, call);
	return unwrapData(await apiRequest(ctx, connection, request, { itemIndex, policy, wording }));
}

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

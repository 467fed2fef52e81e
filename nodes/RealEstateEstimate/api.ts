import { NodeApiError } from 'n8n-workflow';
import type { IExecuteFunctions } from 'n8n-workflow';
import type { RunEnv } from '../shared/runner';
import { apiRequest, DEFAULT_RETRY } from '../shared/transport';
import type { ApiRequest, ConnectionSpec, RetryPolicy } from '../shared/transport';
import { itemLabel } from '../shared/validation';
import { passwordFieldsOf } from '../shared/transport/redact';
import { RealEstateEstimateOAuth2Api } from '../../credentials/RealEstateEstimateOAuth2Api.credentials';
import { estimateWording } from './wording';
import type { Subject } from './wording';

export const CONNECTION: ConnectionSpec = {
	credentialType: 'realEstateEstimateOAuth2Api',
	passwordFields: passwordFieldsOf(new RealEstateEstimateOAuth2Api().properties),
	baseUrlHint:
		'Set API Base URL to the address of the estimate API including its path prefix, e.g. https://api.example.com/estimate/v1',
};

/** Reads, and an estimate sent with storeEstimate false, change nothing: safe to send again. */
export const RESEND_ANY_FAILURE: RetryPolicy = { ...DEFAULT_RETRY, idempotent: true };

/**
 * An estimate the service may store (storeEstimate not false) is a write: sent again only when the
 * answer shows the service did not act (429, or 503 asking to come back with Retry-After).
 */
const RESEND_WHEN_NOT_ACTED: RetryPolicy = {
	...DEFAULT_RETRY,
	idempotent: false,
	onlyWithRetryAfter: [503],
};

export function estimateRetryPolicy(body: { storeEstimate?: unknown } | undefined): RetryPolicy {
	return body?.storeEstimate === false ? RESEND_ANY_FAILURE : RESEND_WHEN_NOT_ACTED;
}

export async function apiJson(
	ctx: IExecuteFunctions,
	env: RunEnv,
	itemIndex: number,
	request: ApiRequest,
	subject: Subject,
	policy: RetryPolicy,
): Promise<unknown> {
	const response = await apiRequest(ctx, env.connection, request, {
		itemIndex,
		policy,
		wording: estimateWording(subject),
	});
	let parsed: unknown = response;
	if (typeof parsed === 'string') {
		// text/plain is one of the offered response types: parse it ourselves
		try {
			parsed = JSON.parse(parsed);
		} catch {
			parsed = undefined;
		}
	}
	if (
		parsed === null ||
		typeof parsed !== 'object' ||
		Array.isArray(parsed) ||
		!('data' in parsed)
	) {
		throw new NodeApiError(
			ctx.getNode(),
			{ problem: 'unexpected response shape' },
			{
				itemIndex,
				message: `${itemLabel(itemIndex)}: Unexpected answer from the estimate API while trying to ${subject.action} for ${subject.target}`,
				description:
					'Expected a JSON object of the form { "data": … }. Check that API Base URL points at the estimate API including its path prefix.',
			},
		);
	}
	return (parsed as { data: unknown }).data;
}

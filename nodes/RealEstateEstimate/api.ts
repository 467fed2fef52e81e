import { NodeApiError } from 'n8n-workflow';
import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';
import type { Operation, OperationResult, RunEnv } from '../shared/runner';
import { apiRequest, DEFAULT_RETRY } from '../shared/transport';
import type { ApiRequest, ConnectionSpec, RetryPolicy } from '../shared/transport';
import { itemLabel } from '../shared/validation';
import { passwordFieldsOf } from '../shared/transport/redact';
import { RealEstateEstimateOAuth2Api } from '../../credentials/RealEstateEstimateOAuth2Api.credentials';
import { describeObject, objectPath, readIdentity } from './identity';
import type { ObjectIdentity } from './identity';
import { estimateWording } from './wording';
import type { Subject } from './wording';

/** An operation of this node; `identifiesObject`: it reads the shared object identification fields. */
export type EstimateOperation<P> = Operation<P> & { identifiesObject: boolean };

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

function dataToResults(data: unknown): OperationResult[] {
	if (data === null || data === undefined) return [];
	if (Array.isArray(data)) return data.flatMap((entry) => dataToResults(entry));
	if (typeof data === 'object') return [{ json: data as IDataObject }];
	return [{ json: { value: data as string | number | boolean } }];
}

/** The answer's `data`, as output items. */
export async function apiJson(
	ctx: IExecuteFunctions,
	env: RunEnv,
	itemIndex: number,
	request: ApiRequest,
	subject: Subject,
	policy: RetryPolicy,
): Promise<OperationResult[]> {
	let parsed = await apiRequest(ctx, env.connection, request, {
		itemIndex,
		policy,
		wording: estimateWording(subject),
	});
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
	return dataToResults((parsed as { data: unknown }).data);
}

interface ReadOperationSpec {
	suffix: string;
	action: string;
	notFound: (target: string) => string;
	badRequestHint: string;
	/** Identified by the cooperative's org number, not the node's cadastre/share choice. */
	identity?: 'cooperative';
}

/** A GET of the object's `suffix`, resent after any failure. */
export function readOperation(spec: ReadOperationSpec): EstimateOperation<ObjectIdentity> {
	return {
		identifiesObject: spec.identity === undefined,
		prepare: (ctx, { fields }, itemIndex) => readIdentity(ctx, fields, itemIndex, spec.identity),

		async run(ctx, env, itemIndex, identity) {
			const target = describeObject(identity);
			return await apiJson(
				ctx,
				env,
				itemIndex,
				{ method: 'GET', path: `${objectPath(identity)}/${spec.suffix}` },
				{
					action: spec.action,
					target,
					notFound: spec.notFound(target),
					badRequestHint: spec.badRequestHint,
				},
				RESEND_ANY_FAILURE,
			);
		},
	};
}

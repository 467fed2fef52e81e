// One request path for every operation: the object → path, the retry policy, the error texts.
import { NodeApiError } from 'n8n-workflow';
import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';
import type { OperationResult, RunEnv } from '../shared/runner';
import { apiRequest, DEFAULT_RETRY } from '../shared/transport';
import type {
	ApiRequest,
	ConnectionSpec,
	ErrorText,
	FailureFacts,
	RetryPolicy,
	Wording,
} from '../shared/transport';
import {
	checkInteger,
	checkOptionalInteger,
	checkOrganizationNumber,
	checkPositiveInteger,
	fail,
	itemLabel,
	ok,
	show,
} from '../shared/validation';
import type { Check, Fields } from '../shared/validation';
import { isObject } from '../shared/json';
import { passwordFieldsOf } from '../shared/transport/redact';
import { RealEstateEstimateOAuth2Api } from '../../credentials/RealEstateEstimateOAuth2Api.credentials';

export const CONNECTION: ConnectionSpec = {
	credentialType: 'realEstateEstimateOAuth2Api',
	passwordFields: passwordFieldsOf(new RealEstateEstimateOAuth2Api().properties),
	baseUrlHint:
		'Set API Base URL to the address of the estimate API including its path prefix, e.g. https://api.example.com/estimate/v1',
};

/** Reads, and an estimate sent with storeEstimate false, change nothing: safe to send again. */
export const RESEND_ANY_FAILURE: RetryPolicy = { ...DEFAULT_RETRY, idempotent: true };

/** An estimate the service may store: sent again only on 429, or 503 with Retry-After (not acted on). */
export const RESEND_WHEN_NOT_ACTED: RetryPolicy = {
	...DEFAULT_RETRY,
	idempotent: false,
	onlyWithRetryAfter: [503],
};

/** The object of an item: its API path and how messages name it. */
export interface EstimateObject {
	path: string;
	label: string;
}

// Leading zero kept (0301 is Oslo): a number is padded, a string must already have four digits.
export function checkKnr(value: unknown): Check<string> {
	const text =
		typeof value === 'number' && Number.isInteger(value)
			? String(value).padStart(4, '0')
			: typeof value === 'string'
				? value.trim()
				: '';
	if (/^\d{4}$/.test(text) && text !== '0000') return ok(text);
	return fail(`must be exactly 4 digits with its leading zero, such as 0301, got ${show(value)}`);
}

/** `cooperative`: Get Housing Cooperative, the organization number alone. */
export function readObject(
	ctx: IExecuteFunctions,
	fields: Fields,
	itemIndex: number,
	cooperative = false,
): EstimateObject {
	const take = <T>(name: string, check: (value: unknown) => Check<T>): T =>
		fields.take(itemIndex, name, check(ctx.getNodeParameter(name, itemIndex, '')));
	const form = cooperative ? 'share' : ctx.getNodeParameter('identifyBy', itemIndex, 'cadastre');
	if (form === 'cadastre') {
		const knr = take('knr', checkKnr);
		const gnr = take('gnr', (value) => checkInteger(value, 1, 99999));
		const bnr = take('bnr', (value) => checkInteger(value, 1, 9999));
		// a missing leasehold or section number means "none": 0, as the API expects
		const fnr = take('fnr', (value) => checkOptionalInteger(value, 0, 0, 9999));
		const snr = take('snr', (value) => checkOptionalInteger(value, 0, 0, 999));
		const numbers = `${gnr}/${bnr}/${fnr}/${snr}`;
		return { path: `/RealEstates/${knr}/${numbers}`, label: `cadastre ${knr}-${numbers}` };
	}
	if (form !== 'share') {
		throw fields.error(itemIndex, 'identifyBy', `must be cadastre or share, got ${show(form)}`);
	}
	const org = take('organizationNumber', checkOrganizationNumber);
	if (cooperative) return { path: `/RealEstates/${org}`, label: `housing cooperative ${org}` };
	const share = take('shareNumber', checkPositiveInteger);
	return {
		path: `/RealEstates/${org}/${share}`,
		label: `housing cooperative ${org} share ${share}`,
	};
}

/** What the error texts of one request name. */
export interface Subject {
	action: string;
	target: string;
	/** The 404 message (the API publishes one for the estimate and for a document). */
	notFound?: string;
	/** The request may store an estimate document (EvEstimate without storeEstimate false). */
	mayStore?: boolean;
}

const CHECK_CREDENTIAL =
	"Check Client ID, Client Secret, Scope and Access Token URL in the credential 'Real Estate Estimate OAuth2 API', then reconnect it.";

/** Failures without an answer of the estimate API: the token, the connection, a stop. */
function withoutAnswer(
	facts: FailureFacts,
	about: string,
	mayStore?: boolean,
): ErrorText | undefined {
	const { kind, attempts } = facts;
	if (kind === 'token-refused') {
		return {
			message: `Could not get an access token for the estimate API${facts.oauthError ? ` (${facts.oauthError})` : ''}`,
			description: CHECK_CREDENTIAL,
		};
	}
	if (kind === 'cancelled') {
		return { message: `The execution was stopped ${about}`, description: 'Nothing more was sent.' };
	}
	if (kind !== 'network-maybe-sent' && kind !== 'network-not-sent') return undefined;
	const stored = kind === 'network-maybe-sent' && mayStore;
	return {
		message: `The estimate API did not answer (${facts.networkWords}) ${about}${stored ? ' — an estimate document may have been stored' : ''}`,
		description: stored
			? "The node does not send this estimate again: check the object's stored documents (Document → Get Many) before running the item again, or turn on Don't Store Estimate."
			: `No answer (${facts.code ?? 'no code'}) after ${attempts} attempt(s). Check API Base URL in the credential.`,
	};
}

/** One pattern: what the API did while trying to do what for which object, then what to do. */
export function estimateWording({ action, target, notFound, mayStore }: Subject): Wording {
	return (facts): ErrorText => {
		const { kind, status, request, attempts } = facts;
		const about = `while trying to ${action} for ${target}`;
		const unanswered = withoutAnswer(facts, about, mayStore);
		if (unanswered) return unanswered;
		const fields = facts.fields.map((entry) => `${entry.field}: ${entry.message}`);
		const detail = [facts.service, ...fields].filter(Boolean).join('; ');
		const said = detail ? ` The API said: ${detail}` : '';
		const text = (did: string, description: string, after = ''): ErrorText => ({
			message: `The estimate API ${did} ${about}${after}`,
			description,
		});
		switch (kind) {
			case 'not-authenticated':
				return text('did not accept the access token (401)', CHECK_CREDENTIAL);
			case 'forbidden':
				return text('did not authorize the request (403)', "Check the credential's Scope.");
			case 'rejected':
				return text(
					`rejected the request (${status})`,
					`Check the values sent with ${request}.${said}`,
				);
			case 'not-found':
				return {
					message: `${notFound ?? `Nothing found ${about}`} (404)`,
					description: `The estimate API found nothing for ${request}.${said}`,
				};
			case 'rate-limited':
			case 'unavailable': {
				// a storing estimate is not sent again after a 503 without Retry-After
				const once = mayStore && status === 503 && !facts.retryAfter;
				return text(
					`${kind === 'rate-limited' ? 'kept rate limiting the requests' : 'is unavailable'} (${status}), gave up after ${attempts} attempt(s)`,
					`${facts.retryAfterTooLong}${once ? ' A storing estimate is sent again only when the API asks to wait (Retry-After).' : ''} Retry later.`.trim(),
				);
			}
		}
		if (status === 500) {
			return text(
				'could not process the request (500)',
				`The service documents a 500 as an internal fault to report to its support. The request was ${request} at ${new Date().toISOString()}; give support this request and time.${said}`,
				' — contact support',
			);
		}
		return text(`answered ${status}`, `${request}.${said}`);
	};
}

/** The answer's `data`, as output items (null: none; an array: one item per object in it). */
export async function apiJson(
	ctx: IExecuteFunctions,
	env: RunEnv,
	itemIndex: number,
	request: ApiRequest,
	subject: Subject,
	policy: RetryPolicy,
): Promise<OperationResult[]> {
	const wording = estimateWording(subject);
	const parsed = await apiRequest(ctx, env.connection, request, { itemIndex, policy, wording });
	if (!isObject(parsed) || !('data' in parsed)) {
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
	const data = Array.isArray(parsed.data) ? parsed.data : [parsed.data];
	// nothing dropped: an entry that is no object is output as { value }
	return data
		.filter((entry) => entry !== null && entry !== undefined)
		.map((entry) => ({ json: isObject<IDataObject>(entry) ? entry : { value: entry as string } }));
}

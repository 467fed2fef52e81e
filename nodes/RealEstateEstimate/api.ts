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
	const org = take('organizationNumber', (value) => checkOrganizationNumber(value));
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

/** The token, 401 and 403: what to check in the credential. */
function accessText(facts: FailureFacts, { action }: Subject): ErrorText | undefined {
	switch (facts.kind) {
		case 'token-refused':
			return {
				message: `Could not get an access token for the estimate API${facts.oauthError ? ` (${facts.oauthError})` : ''}`,
				description: CHECK_CREDENTIAL,
			};
		case 'not-authenticated':
			return {
				message: `Not authenticated with the estimate API (401) while trying to ${action}`,
				description: `The API did not accept the access token. ${CHECK_CREDENTIAL}`,
			};
		case 'forbidden':
			return {
				message: `Not authorized by the estimate API (403) to ${action}`,
				description: "The client lacks access to this operation: check the credential's Scope.",
			};
	}
	return undefined;
}

/** 429, 503, a broken connection, a stop: what was sent again, and what was not. */
function resendText(facts: FailureFacts, subject: Subject, about: string): ErrorText | undefined {
	const { kind, status, attempts, code } = facts;
	if (kind === 'rate-limited' || kind === 'unavailable') {
		const what = status === 429 ? 'kept rate limiting the requests' : 'is unavailable';
		// a storing estimate is not sent again after a 503 without Retry-After
		const once = subject.mayStore && status === 503 && !facts.retryAfter;
		return {
			message: `The estimate API ${what} (${status}), gave up after ${attempts} attempt(s)`,
			description: `While trying to ${subject.action} for ${subject.target}.${facts.retryAfterTooLong ? ` ${facts.retryAfterTooLong}` : ''}${once ? ' A storing estimate is sent again only when the API asks to wait (Retry-After).' : ''} Retry later.`,
		};
	}
	if (kind === 'network-maybe-sent' && subject.mayStore) {
		return {
			message: `The connection to the estimate API broke after the request was sent ${about} — an estimate document may have been stored`,
			description: `The node does not send this estimate again (${code ?? 'no code'}). Check the object's stored documents (Document → Get Many) before running the item again, or turn on Don't Store Estimate.`,
		};
	}
	if (kind === 'network-maybe-sent' || kind === 'network-not-sent') {
		return {
			message: `Could not reach the estimate API (${facts.networkWords}) ${about}`,
			description: `No answer (${code ?? 'no code'}) after ${attempts} attempt(s). Check API Base URL in the credential.`,
		};
	}
	if (kind === 'cancelled') {
		return { message: `The execution was stopped ${about}`, description: 'Nothing more was sent.' };
	}
	return undefined;
}

export function estimateWording(subject: Subject): Wording {
	return (facts): ErrorText => {
		const { kind, status, request } = facts;
		const about = `while trying to ${subject.action} for ${subject.target}`;
		const fields = facts.fields.map((entry) => `${entry.field}: ${entry.message}`);
		const detail = [facts.service, ...fields].filter(Boolean).join('; ');
		const said = detail ? ` The API said: ${detail}` : '';
		const known = accessText(facts, subject) ?? resendText(facts, subject, about);
		if (known) return known;
		if (kind === 'not-found') {
			return {
				message: `${subject.notFound ?? `Nothing found ${about}`} (404)`,
				description: `The estimate API found nothing for ${request}.${said}`,
			};
		}
		if (kind === 'rejected') {
			return {
				message: `The estimate API rejected the request (${status}) ${about}`,
				description: `Check the values sent with ${request}.${said}`,
			};
		}
		if (status === 500) {
			return {
				message: `The estimate API could not process the request (500) ${about} — contact support`,
				description: `The service documents a 500 as an internal fault to report to its support. The request was ${request} at ${new Date().toISOString()}; give support this request and time.${said}`,
			};
		}
		return {
			message: `The estimate API answered ${status} ${about}`,
			description: `${request}.${said}`,
		};
	};
}

/** The answer's `data`, as output items (null: none; an array: one item per entry). */
export async function apiJson(
	ctx: IExecuteFunctions,
	env: RunEnv,
	itemIndex: number,
	request: ApiRequest,
	subject: Subject,
	policy: RetryPolicy,
): Promise<OperationResult[]> {
	const wording = estimateWording(subject);
	let parsed = await apiRequest(ctx, env.connection, request, { itemIndex, policy, wording });
	if (typeof parsed === 'string') {
		// text/plain is one of the offered response types: parse it ourselves
		try {
			parsed = JSON.parse(parsed);
		} catch {
			parsed = undefined;
		}
	}
	if (parsed === null || typeof parsed !== 'object' || !('data' in parsed)) {
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
	const data = (parsed as { data: unknown }).data;
	return (Array.isArray(data) ? data : [data])
		.filter((entry) => entry !== null && entry !== undefined)
		.map((entry) => ({
			json: typeof entry === 'object' ? (entry as IDataObject) : { value: entry as string },
		}));
}

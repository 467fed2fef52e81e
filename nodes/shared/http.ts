/**
 * HTTP plumbing shared by the transports: every request goes through
 * `this.helpers.httpRequestWithAuthentication` (n8n fetches, caches and refreshes the OAuth2
 * token), failures are normalised into a plain shape without any request headers (so no token
 * can leak), and 429/503 answers are retried with bounded backoff honouring Retry-After.
 */
import { sleep } from 'n8n-workflow';
import type { IDataObject, IExecuteFunctions, IHttpRequestOptions } from 'n8n-workflow';

export interface RetryPolicy {
	/** Retries after the first attempt (0 = no retries). */
	maxRetries: number;
	/** First backoff; doubled per retry. */
	baseDelayMs: number;
	/** Upper bound for one wait, also for a Retry-After the service asks for. */
	maxDelayMs: number;
	/** Statuses that mean "not processed, try later". */
	retryStatuses: number[];
	/**
	 * Whether a request that may already have reached the service can be sent again:
	 * true for idempotent calls (GET, DELETE), false for creates. Connection failures that
	 * prove nothing was sent (refused, DNS) are retried either way.
	 */
	idempotent: boolean;
}

export const DEFAULT_RETRY: RetryPolicy = {
	maxRetries: 3,
	baseDelayMs: 500,
	maxDelayMs: 30_000,
	retryStatuses: [429, 503],
	idempotent: true,
};

/** What a failed request looked like, without request headers or credentials. */
export interface HttpFailure {
	/** HTTP status, when the service answered. */
	status?: number;
	/** Response headers, lower-cased names. */
	headers: Record<string, string>;
	/** Parsed response body, when there was one. */
	body?: unknown;
	/** Network error code (ECONNREFUSED, ECONNRESET, ETIMEDOUT, …), when the service did not answer. */
	code?: string;
	/** The failure's own message (no headers, no body). */
	message: string;
	/** True when the failure happened while getting the OAuth2 token, not in the API call. */
	tokenFailure: boolean;
	/** The token endpoint's OAuth2 error code (invalid_client, invalid_scope, …), when it gave one. */
	oauthError?: string;
}

const NOT_SENT_CODES = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH']);

type Loose = Record<string, unknown> | undefined;

function asRecord(value: unknown): Loose {
	return value !== null && typeof value === 'object' ? (value as Record<string, unknown>) : undefined;
}

function findCode(error: unknown, depth = 0): string | undefined {
	const record = asRecord(error);
	if (!record || depth > 4) return undefined;
	if (typeof record.code === 'string' && /^E[A-Z_]+$|^UND_ERR/.test(record.code)) return record.code;
	return findCode(record.cause, depth + 1);
}

function findResponse(error: unknown, depth = 0): Loose {
	const record = asRecord(error);
	if (!record || depth > 4) return undefined;
	const response = asRecord(record.response);
	if (response && (typeof response.status === 'number' || typeof response.statusCode === 'number')) {
		return response;
	}
	return findResponse(record.cause, depth + 1);
}

function findOAuthError(error: unknown, depth = 0): string | undefined {
	const record = asRecord(error);
	if (!record || depth > 4) return undefined;
	const body = asRecord(record.body);
	if (body && typeof body.error === 'string') return body.error;
	return findOAuthError(record.cause, depth + 1);
}

/**
 * The RFC 6749 error texts n8n's OAuth2 client (@n8n/client-oauth2) puts in place of the token
 * endpoint's error code. n8n 1.x wraps that error in a NodeApiError whose class field `cause` is
 * reset after construction (ExecutionBaseError declares `cause;`), so the body with the code is
 * lost and only this text is left: map it back to the code.
 */
const OAUTH_ERROR_TEXTS: Array<[RegExp, string]> = [
	[/^Client authentication failed \(e\.g\., unknown client/, 'invalid_client'],
	[/^The requested scope is invalid, unknown, or malformed/, 'invalid_scope'],
	[/^The provided authorization grant \(e\.g\., authorization code/, 'invalid_grant'],
	[/^The client is not authorized to request an authorization code using this method/, 'unauthorized_client'],
	[/^The authorization grant type is not supported by the authorization server/, 'unsupported_grant_type'],
	[/^The request is missing a required parameter, includes an invalid parameter value/, 'invalid_request'],
];

function oauthErrorFromText(messages: unknown[]): string | undefined {
	for (const message of messages) {
		if (typeof message !== 'string') continue;
		const text = message.replace(/^.*failed to acquire oauth2 access token:\s*/i, '').trim();
		for (const [pattern, code] of OAUTH_ERROR_TEXTS) if (pattern.test(text)) return code;
	}
	return undefined;
}

function parseBody(data: unknown): unknown {
	if (Buffer.isBuffer(data)) data = data.toString('utf8');
	if (typeof data === 'string') {
		const text = data.trim();
		if (!text) return undefined;
		try {
			return JSON.parse(text);
		} catch {
			return text.length > 500 ? `${text.slice(0, 500)}…` : text;
		}
	}
	return data;
}

function lowerCaseHeaders(headers: unknown): Record<string, string> {
	const out: Record<string, string> = {};
	const record = asRecord(headers);
	if (!record) return out;
	// axios headers objects expose toJSON(); plain objects are used as they are
	const plain = typeof record.toJSON === 'function' ? (record.toJSON as () => unknown)() : record;
	for (const [name, value] of Object.entries(asRecord(plain) ?? {})) {
		if (value !== undefined && value !== null) out[name.toLowerCase()] = String(value);
	}
	return out;
}

/** Turns whatever n8n's request helpers threw into an `HttpFailure`. */
export function normalizeHttpError(error: unknown): HttpFailure {
	const record = asRecord(error) ?? {};
	const response = findResponse(error);
	let status: number | undefined;
	if (response) status = Number(response.status ?? response.statusCode);
	if (status === undefined && record.httpCode !== undefined && record.httpCode !== null) {
		const parsed = Number(record.httpCode);
		if (Number.isInteger(parsed) && parsed >= 100) status = parsed;
	}
	const message = typeof record.message === 'string' ? record.message : String(error);
	const oauthError =
		findOAuthError(error) ??
		(status === undefined ? oauthErrorFromText([message, asRecord(record.cause)?.message]) : undefined);
	const tokenFailure =
		oauthError !== undefined ||
		/access token|oauth2|invalid_client|invalid_scope|token endpoint/i.test(
			[message, asRecord(record.cause)?.message].filter((m) => typeof m === 'string').join(' '),
		);
	return {
		status: Number.isFinite(status) ? status : undefined,
		headers: lowerCaseHeaders(response?.headers),
		// n8n 1.x's NodeApiError drops the wrapped error (and its response) but keeps the response
		// body as context.data: the service's own message is then still there
		body: parseBody(response ? (response.data ?? response.body) : asRecord(record.context)?.data),
		code: findCode(error),
		message,
		tokenFailure,
		oauthError,
	};
}

/** Retry-After as milliseconds: delta-seconds or an HTTP date; undefined when absent or unparsable. */
export function parseRetryAfter(value: string | undefined, now = Date.now()): number | undefined {
	if (value === undefined) return undefined;
	const text = value.trim();
	if (/^\d+(\.\d+)?$/.test(text)) return Math.round(Number(text) * 1000);
	const date = Date.parse(text);
	if (Number.isNaN(date)) return undefined;
	return Math.max(0, date - now);
}

/** The wait before retry number `retry` (0-based), or undefined when no retry should happen. */
export function retryDelay(failure: HttpFailure, retry: number, policy: RetryPolicy): number | undefined {
	if (retry >= policy.maxRetries) return undefined;
	let retryable = false;
	if (failure.status !== undefined) {
		retryable = policy.retryStatuses.includes(failure.status);
	} else if (!failure.tokenFailure && failure.code) {
		retryable = NOT_SENT_CODES.has(failure.code) || policy.idempotent;
	}
	if (!retryable) return undefined;
	const backoff = Math.min(policy.baseDelayMs * 2 ** retry, policy.maxDelayMs);
	const asked = parseRetryAfter(failure.headers['retry-after']);
	if (asked === undefined) return backoff;
	if (asked > policy.maxDelayMs) return undefined; // the service asks for a longer pause than we wait
	return asked;
}

export interface RequestOutcome<T> {
	response: T;
	attempts: number;
}

/**
 * Sends one request through n8n's authenticated helper, retrying per `policy`. Throws the last
 * `HttpFailure` (a plain object; transports turn it into a NodeApiError with their messages).
 */
export async function requestWithRetry<T = unknown>(
	ctx: IExecuteFunctions,
	credentialType: string,
	options: IHttpRequestOptions,
	policy: RetryPolicy,
): Promise<RequestOutcome<T>> {
	for (let retry = 0; ; retry++) {
		try {
			const response = (await ctx.helpers.httpRequestWithAuthentication.call(
				ctx,
				credentialType,
				{ ...options },
			)) as T;
			return { response, attempts: retry + 1 };
		} catch (error) {
			const failure = normalizeHttpError(error);
			const wait = retryDelay(failure, retry, policy);
			if (wait === undefined) throw Object.assign(failure, { attempts: retry + 1 });
			await sleep(wait);
		}
	}
}

export function isHttpFailure(value: unknown): value is HttpFailure & { attempts: number } {
	const record = asRecord(value);
	return !!record && typeof record.message === 'string' && 'tokenFailure' in record && 'headers' in record;
}

/** A short, secret-free text of the service's error body, for messages. */
export function describeBody(body: unknown): string | undefined {
	if (body === undefined || body === null || body === '') return undefined;
	if (typeof body === 'string') return body;
	const record = asRecord(body) as IDataObject | undefined;
	if (record) {
		const parts = [record.message, record.error_description, record.title, record.detail, record.error]
			.filter((part) => typeof part === 'string' && part)
			.map(String);
		if (parts.length) return parts[0];
	}
	return JSON.stringify(body).slice(0, 500);
}

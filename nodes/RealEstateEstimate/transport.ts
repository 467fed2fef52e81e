/**
 * The node's only way to the estimate API: base URL from the credential, n8n's authenticated
 * request helper (OAuth2 client credentials, token cached and refreshed by n8n), bounded retries
 * of 429/503 honouring Retry-After, the `{ data }` wrapper, and one mapping of every failure to a
 * clean NodeApiError (built from a plain object: never the raw error, which holds the request
 * and its Authorization header).
 */
import { NodeApiError, NodeOperationError } from 'n8n-workflow';
import type { IDataObject, IExecuteFunctions, IHttpRequestOptions, JsonObject } from 'n8n-workflow';
import {
	DEFAULT_RETRY,
	describeBody,
	isHttpFailure,
	normalizeHttpError,
	parseRetryAfter,
	requestWithRetry,
} from '../shared/http';
import type { HttpFailure, RetryPolicy } from '../shared/http';
import { validateHttpUrl } from '../shared/identifiers';

export const CREDENTIAL_TYPE = 'realEstateEstimateOAuth2Api';

/** Every call of this API only reads (or computes) data: all are safe to send again. */
export const RETRY_POLICY: RetryPolicy = { ...DEFAULT_RETRY, idempotent: true };

export interface ApiContext {
	/** Credential's API base URL with any path prefix, without a trailing slash. */
	baseUrl: string;
	retry: RetryPolicy;
}

/** What the caller was asking for, for messages: "get the estimate" for "cadastre 0301-…". */
export interface Subject {
	/** Verb phrase: `get the estimate`, `download the estimate document`. */
	action: string;
	/** The object or document the call was about. */
	target: string;
	/** Sentence for a 404, e.g. `Estimate could not be retrieved for cadastre 0301-208/12/0/0`. */
	notFound: string;
	/** Which parameters a 400 points at. */
	badRequestHint: string;
}

export interface ApiRequest {
	method: 'GET' | 'POST';
	/** Path below the base URL, starting with `/`. */
	path: string;
	body?: IDataObject;
	/** Return the response body as a readable stream (for the PDF), with headers. */
	stream?: boolean;
}

export interface StreamResponse {
	body: unknown;
	headers: Record<string, string>;
}

/** Reads the base URL from the credential once per execution. */
export async function getApiContext(ctx: IExecuteFunctions): Promise<ApiContext> {
	const credentials = await ctx.getCredentials(CREDENTIAL_TYPE);
	const baseUrl = String(credentials.apiBaseUrl ?? '').trim();
	const error = validateHttpUrl(baseUrl);
	if (error) {
		throw new NodeOperationError(ctx.getNode(), `The credential's API Base URL ${error}`, {
			description: 'Set API Base URL to the address of the estimate API including its path prefix, e.g. https://api.example.com/estimate/v1',
		});
	}
	return { baseUrl: baseUrl.replace(/\/+$/, ''), retry: RETRY_POLICY };
}

function requestOptions(api: ApiContext, request: ApiRequest): IHttpRequestOptions {
	const options: IHttpRequestOptions = {
		method: request.method,
		url: `${api.baseUrl}${request.path}`,
	};
	if (request.stream) {
		options.encoding = 'stream';
		options.returnFullResponse = true;
		options.json = false;
		options.headers = { Accept: 'application/pdf' };
	} else {
		options.json = true;
		options.headers = { Accept: 'application/json' };
		if (request.body !== undefined) options.body = request.body;
	}
	return options;
}

/** Sends a request; failures come back as NodeApiError naming the item and what was asked. */
export async function apiRequest(
	ctx: IExecuteFunctions,
	api: ApiContext,
	itemIndex: number,
	request: ApiRequest,
	subject: Subject,
): Promise<unknown> {
	try {
		const { response } = await requestWithRetry<unknown>(ctx, CREDENTIAL_TYPE, requestOptions(api, request), api.retry);
		return response;
	} catch (error) {
		const failure = isHttpFailure(error) ? error : { ...normalizeHttpError(error), attempts: 1 };
		releaseBody(failure.body);
		throw toNodeApiError(ctx, itemIndex, failure, request, subject);
	}
}

/** An error answer to a streamed request may carry an unread stream: free its socket. */
function releaseBody(body: unknown): void {
	const destroy = body !== null && typeof body === 'object' ? (body as { destroy?: unknown }).destroy : undefined;
	if (typeof destroy === 'function') (destroy as () => void).call(body);
}

/** A JSON call: returns the unwrapped `data` (may be null). */
export async function apiJson(
	ctx: IExecuteFunctions,
	api: ApiContext,
	itemIndex: number,
	request: ApiRequest,
	subject: Subject,
): Promise<unknown> {
	const response = await apiRequest(ctx, api, itemIndex, request, subject);
	let parsed: unknown = response;
	if (typeof parsed === 'string') {
		// text/plain is one of the offered response types: parse it ourselves
		try {
			parsed = JSON.parse(parsed);
		} catch {
			parsed = undefined;
		}
	}
	if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed) || !('data' in parsed)) {
		throw new NodeApiError(
			ctx.getNode(),
			{ problem: 'unexpected response shape' },
			{
				itemIndex,
				message: `Unexpected answer from the estimate API while trying to ${subject.action} for ${subject.target}`,
				description: 'Expected a JSON object of the form { "data": … }. Check that API Base URL points at the estimate API including its path prefix.',
			},
		);
	}
	return (parsed as { data: unknown }).data;
}

/** A streamed call: the body stream and the response headers (lower-case names). */
export async function apiStream(
	ctx: IExecuteFunctions,
	api: ApiContext,
	itemIndex: number,
	request: ApiRequest,
	subject: Subject,
): Promise<StreamResponse> {
	const response = (await apiRequest(ctx, api, itemIndex, { ...request, stream: true }, subject)) as {
		body?: unknown;
		headers?: Record<string, unknown>;
	};
	const headers: Record<string, string> = {};
	for (const [name, value] of Object.entries(response?.headers ?? {})) {
		if (value !== undefined && value !== null) headers[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : String(value);
	}
	return { body: response?.body, headers };
}

const NETWORK_WORDS: Record<string, string> = {
	ECONNREFUSED: 'connection refused',
	ECONNRESET: 'connection reset',
	ENOTFOUND: 'host not found',
	EAI_AGAIN: 'name lookup failed',
	ETIMEDOUT: 'timed out',
	ECONNABORTED: 'connection aborted',
	EHOSTUNREACH: 'host unreachable',
	ENETUNREACH: 'network unreachable',
	EPIPE: 'connection closed',
	UND_ERR_SOCKET: 'connection closed',
	UND_ERR_HEADERS_TIMEOUT: 'timed out',
	UND_ERR_BODY_TIMEOUT: 'timed out',
	UND_ERR_CONNECT_TIMEOUT: 'timed out',
};

/** A short secret-free text of an error body: problem details (title/detail/errors) or describeBody. */
export function describeProblem(body: unknown): string | undefined {
	if (body === undefined || body === null) return undefined;
	if (typeof body === 'string') return body.length > 300 ? `${body.slice(0, 300)}…` : body;
	if (typeof body !== 'object' || Object.getPrototypeOf(body) !== Object.prototype) return undefined; // e.g. a stream
	const record = body as Record<string, unknown>;
	const parts: string[] = [];
	if (typeof record.detail === 'string' && record.detail) parts.push(record.detail);
	else if (typeof record.title === 'string' && record.title) parts.push(record.title);
	if (record.errors && typeof record.errors === 'object' && !Array.isArray(record.errors)) {
		const fields = Object.entries(record.errors as Record<string, unknown>).map(
			([field, messages]) => `${field}: ${Array.isArray(messages) ? messages.join(', ') : String(messages)}`,
		);
		if (fields.length) parts.push(fields.join('; '));
	}
	if (parts.length) return parts.join(' — ');
	try {
		return describeBody(body);
	} catch {
		return undefined;
	}
}

/** " The service asked to wait 3600 s, longer than the node waits (30 s)." when that is why it stopped. */
function waitNote(failure: HttpFailure): string {
	const asked = parseRetryAfter(failure.headers['retry-after']);
	if (asked === undefined || asked <= RETRY_POLICY.maxDelayMs) return '';
	return ` The service asked to wait ${Math.round(asked / 1000)} s (Retry-After), longer than the node waits (${RETRY_POLICY.maxDelayMs / 1000} s).`;
}

function capitalise(text: string): string {
	return text.charAt(0).toUpperCase() + text.slice(1);
}

const TOKEN_ERRORS: Record<string, string> = {
	invalid_client: 'the token endpoint rejected the client ID or secret (invalid_client)',
	unauthorized_client: 'the client may not use the client credentials grant (unauthorized_client)',
	invalid_scope: 'the requested scope is not allowed for this client (invalid_scope)',
	invalid_grant: 'the token endpoint rejected the grant (invalid_grant)',
	invalid_request: 'the token endpoint rejected the token request (invalid_request)',
};

/**
 * One failure → one NodeApiError with message, description, httpCode, itemIndex and a declared
 * failure cause. The error object handed to NodeApiError is a plain summary without headers.
 */
export function toNodeApiError(
	ctx: IExecuteFunctions,
	itemIndex: number,
	failure: HttpFailure & { attempts: number },
	request: ApiRequest,
	subject: Subject,
): NodeApiError {
	const asked = `${request.method} ${request.path}`;
	const status = failure.status;
	const detail = describeProblem(failure.body);
	const summary: JsonObject = { request: asked, attempts: failure.attempts };
	if (status !== undefined) summary.status = status;
	if (detail) summary.detail = detail;
	let message: string;
	let description: string;
	let cause: NonNullable<ConstructorParameters<typeof NodeApiError>[2]>['failure'];

	if (failure.tokenFailure) {
		const reason = (failure.oauthError && TOKEN_ERRORS[failure.oauthError]) ?? failure.oauthError;
		if (failure.oauthError) summary.oauthError = failure.oauthError;
		message = `Could not get an access token for the estimate API${reason ? `: ${reason}` : ''}`;
		description =
			"Check Client ID, Client Secret, Client Authentication, Scope and Access Token URL in the credential 'Real Estate Estimate OAuth2 API', then reconnect it.";
		cause = { cause: 'credential-invalid' };
	} else if (status === undefined) {
		const code = failure.code ?? 'unknown';
		summary.networkCode = code;
		message = `Could not reach the estimate API (${NETWORK_WORDS[code] ?? 'network error'}) while trying to ${subject.action} for ${subject.target}`;
		description = `Network error ${code} after ${failure.attempts} attempt(s). Check API Base URL in the credential and that the service is reachable from n8n.`;
		cause = { cause: 'temporarily-unavailable' };
	} else if (status === 400) {
		message = `The estimate API rejected the request as out of range (400): ${subject.badRequestHint}`;
		description = `${capitalise(subject.action)} for ${subject.target} (${asked}).${detail ? ` The API said: ${detail}` : ''}`;
		cause = { cause: 'configuration-invalid' };
	} else if (status === 401) {
		message = `Not authenticated with the estimate API (401) while trying to ${subject.action}`;
		description =
			"The API did not accept the access token. Check Client ID, Client Secret and Access Token URL in the credential 'Real Estate Estimate OAuth2 API', then reconnect it.";
		cause = { cause: 'credential-invalid' };
	} else if (status === 403) {
		message = `Not authorized by the estimate API (403) to ${subject.action}`;
		description =
			"The client is authenticated but lacks access to this operation. Check the credential's Scope (e.g. estimate:read) and ask the provider to grant the client access.";
		cause = { cause: 'configuration-invalid' };
	} else if (status === 404) {
		message = `${subject.notFound} (404)`;
		description = `The estimate API found nothing for ${asked}.${detail ? ` The API said: ${detail}` : ''}`;
		cause = { cause: 'configuration-invalid' };
	} else if (status === 429) {
		message = `The estimate API kept rate limiting the requests (429), gave up after ${failure.attempts} attempt(s)`;
		description = `While trying to ${subject.action} for ${subject.target}.${waitNote(failure)} Lower Concurrent Requests or retry later.`;
		const retryAfterMs = parseRetryAfter(failure.headers['retry-after']);
		cause = retryAfterMs !== undefined ? { cause: 'rate-limited', retryAfterMs } : { cause: 'rate-limited' };
	} else if (status === 503) {
		message = `The estimate API is unavailable (503), gave up after ${failure.attempts} attempt(s)`;
		description = `While trying to ${subject.action} for ${subject.target}.${waitNote(failure)} Retry later.`;
		const retryAfterMs = parseRetryAfter(failure.headers['retry-after']);
		cause = retryAfterMs !== undefined ? { cause: 'temporarily-unavailable', retryAfterMs } : { cause: 'temporarily-unavailable' };
	} else if (status === 500) {
		message = `Unexpected failure in the estimate API (500) while trying to ${subject.action} for ${subject.target} — contact support`;
		description = `The request was ${asked} at ${new Date().toISOString()}; give support this request and time.${detail ? ` The API said: ${detail}` : ''}`;
	} else {
		message = `The estimate API answered ${status} while trying to ${subject.action} for ${subject.target}`;
		description = `${asked}.${detail ? ` The API said: ${detail}` : ''}`;
		if (status >= 500) cause = { cause: 'temporarily-unavailable' };
	}

	return new NodeApiError(ctx.getNode(), summary, {
		itemIndex,
		message,
		description,
		httpCode: status !== undefined ? String(status) : undefined,
		...(cause ? { failure: cause } : {}),
	});
}

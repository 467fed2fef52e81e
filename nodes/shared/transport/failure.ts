/**
 * What went wrong, independent of which node asked: whatever n8n's request helper threw becomes
 * an `HttpFailure` (a plain object without request headers, so no token can leak), and
 * `classifyFailure` sorts it into one `FailureKind`. Nodes only choose their wording per kind.
 */
import { mentionsTokenFailure, oauthErrorFromText } from '../n8n-compat';

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
	/** How many times the request was sent (set by the retry loop). */
	attempts?: number;
	/** The execution was stopped: nothing more was sent. */
	cancelled?: boolean;
}

export type FailureKind =
	/** The identity provider did not issue a token (refused the client, unknown realm, unreachable). */
	| 'token-refused'
	/** 401: the API did not accept the token. */
	| 'not-authenticated'
	/** 403: authenticated, not allowed. */
	| 'forbidden'
	/** 404 */
	| 'not-found'
	/** 400, 409, 422: the service refused the request's content. */
	| 'rejected'
	/** 429 */
	| 'rate-limited'
	/** 502, 503, 504: the service or its gateway is down for now. */
	| 'unavailable'
	/** 500 and any other 5xx. */
	| 'server-error'
	/** Any other status. */
	| 'unexpected-status'
	/** The connection failed before anything was sent (refused, DNS). */
	| 'network-not-sent'
	/** The connection broke or timed out after the request may have reached the service. */
	| 'network-maybe-sent'
	/** The execution was stopped while the request was in flight or waiting for a retry. */
	| 'cancelled';

/** Network error codes → words for messages, and whether the request surely never left n8n. */
export const NETWORK_ERRORS: Record<string, { words: string; notSent: boolean }> = {
	ECONNREFUSED: { words: 'the connection was refused', notSent: true },
	ENOTFOUND: { words: 'the host name was not found', notSent: true },
	EAI_AGAIN: { words: 'the host name could not be resolved', notSent: true },
	EHOSTUNREACH: { words: 'the host is unreachable', notSent: true },
	ENETUNREACH: { words: 'the network is unreachable', notSent: true },
	ECONNRESET: { words: 'the connection was reset', notSent: false },
	ECONNABORTED: { words: 'the connection was aborted', notSent: false },
	ETIMEDOUT: { words: 'the connection timed out', notSent: false },
	ESOCKETTIMEDOUT: { words: 'the connection timed out', notSent: false },
	EPIPE: { words: 'the connection was closed', notSent: false },
	UND_ERR_SOCKET: { words: 'the connection was closed', notSent: false },
	UND_ERR_HEADERS_TIMEOUT: { words: 'the answer timed out', notSent: false },
	UND_ERR_BODY_TIMEOUT: { words: 'the answer timed out', notSent: false },
	UND_ERR_CONNECT_TIMEOUT: { words: 'the connection timed out', notSent: false },
};

export function networkWords(code: string | undefined): string {
	return (code && NETWORK_ERRORS[code]?.words) || 'the connection failed';
}

export function isNotSent(code: string | undefined): boolean {
	return !!code && NETWORK_ERRORS[code]?.notSent === true;
}

type Loose = Record<string, unknown> | undefined;

function asRecord(value: unknown): Loose {
	return value !== null && typeof value === 'object'
		? (value as Record<string, unknown>)
		: undefined;
}

function findCode(error: unknown, depth = 0): string | undefined {
	const record = asRecord(error);
	if (!record || depth > 4) return undefined;
	if (typeof record.code === 'string' && /^E[A-Z_]+$|^UND_ERR/.test(record.code))
		return record.code;
	return findCode(record.cause, depth + 1);
}

function findResponse(error: unknown, depth = 0): Loose {
	const record = asRecord(error);
	if (!record || depth > 4) return undefined;
	const response = asRecord(record.response);
	if (
		response &&
		(typeof response.status === 'number' || typeof response.statusCode === 'number')
	) {
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

/** Longest service text kept for messages. */
const MAX_TEXT = 500;

function clip(text: string): string {
	return text.length > MAX_TEXT ? `${text.slice(0, MAX_TEXT)}…` : text;
}

function parseBody(data: unknown): unknown {
	if (Buffer.isBuffer(data)) data = data.toString('utf8');
	if (typeof data === 'string') {
		const text = data.trim();
		if (!text) return undefined;
		try {
			return JSON.parse(text);
		} catch {
			return clip(text);
		}
	}
	return data;
}

/** Response headers (plain or axios' object) with lower-case names; lists joined with ", ". */
export function lowerCaseHeaders(headers: unknown): Record<string, string> {
	const out: Record<string, string> = {};
	const record = asRecord(headers);
	if (!record) return out;
	// axios headers objects expose toJSON(); plain objects are used as they are
	const plain = typeof record.toJSON === 'function' ? (record.toJSON as () => unknown)() : record;
	for (const [name, value] of Object.entries(asRecord(plain) ?? {})) {
		if (value === undefined || value === null) continue;
		out[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : String(value);
	}
	return out;
}

/** Turns whatever n8n's request helpers threw into an `HttpFailure`. */
export function normaliseHttpError(error: unknown): HttpFailure {
	const record = asRecord(error) ?? {};
	const response = findResponse(error);
	let status: number | undefined;
	if (response) status = Number(response.status ?? response.statusCode);
	if (status === undefined && record.httpCode !== undefined && record.httpCode !== null) {
		const parsed = Number(record.httpCode);
		if (Number.isInteger(parsed) && parsed >= 100) status = parsed;
	}
	const message = typeof record.message === 'string' ? record.message : String(error);
	const causeMessage = asRecord(record.cause)?.message;
	const oauthError =
		findOAuthError(error) ??
		(status === undefined ? oauthErrorFromText([message, causeMessage]) : undefined);
	const tokenFailure = oauthError !== undefined || mentionsTokenFailure([message, causeMessage]);
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

export function isHttpFailure(value: unknown): value is HttpFailure {
	const record = asRecord(value);
	return (
		!!record &&
		typeof record.message === 'string' &&
		'tokenFailure' in record &&
		'headers' in record
	);
}

/** One failure → one kind. */
export function classifyFailure(failure: HttpFailure): FailureKind {
	if (failure.cancelled) return 'cancelled';
	if (failure.tokenFailure || failure.oauthError) return 'token-refused';
	const status = failure.status;
	if (status === undefined)
		return isNotSent(failure.code) ? 'network-not-sent' : 'network-maybe-sent';
	if (status === 401) return 'not-authenticated';
	if (status === 403) return 'forbidden';
	if (status === 404) return 'not-found';
	if (status === 400 || status === 409 || status === 422) return 'rejected';
	if (status === 429) return 'rate-limited';
	if (status === 502 || status === 503 || status === 504) return 'unavailable';
	if (status >= 500) return 'server-error';
	return 'unexpected-status';
}

/** A field the service named as wrong, with its message. */
export interface ServiceField {
	field: string;
	message: string;
}

/** The service's error body as a short text, and the fields it names (both forms seen in the descriptions). */
export interface ServiceText {
	text?: string;
	fields: ServiceField[];
}

function isPlainRecord(value: unknown): value is Record<string, unknown> {
	return (
		value !== null && typeof value === 'object' && Object.getPrototypeOf(value) === Object.prototype
	);
}

/**
 * Reads an error body: a string is kept (clipped); an object gives its first message-like field
 * (detail, message, error_description, title, error) and its field errors, either
 * `fields: [{ field, message }]` or problem details `errors: { field: [messages] }`. Anything else
 * (a stream, a buffer) gives nothing.
 */
export function serviceText(body: unknown, redact: (text: string) => string = (text) => text): ServiceText {
	if (body === undefined || body === null || body === '') return { fields: [] };
	// redacted before it is cut: a cut through a token or an identity number would leave a part of it
	if (typeof body === 'string') return { text: clip(redact(body)), fields: [] };
	if (!isPlainRecord(body)) return { fields: [] };
	const fields: ServiceField[] = [];
	if (Array.isArray(body.fields)) {
		for (const entry of body.fields) {
			if (!isPlainRecord(entry)) continue;
			fields.push({
				field: typeof entry.field === 'string' ? entry.field : '',
				message: typeof entry.message === 'string' ? entry.message : 'invalid',
			});
		}
	}
	if (isPlainRecord(body.errors)) {
		for (const [field, messages] of Object.entries(body.errors)) {
			fields.push({
				field,
				message: Array.isArray(messages) ? messages.join(', ') : String(messages),
			});
		}
	}
	const first = [body.detail, body.message, body.error_description, body.title, body.error].find(
		(part): part is string => typeof part === 'string' && part !== '',
	);
	let text = first;
	if (text === undefined && fields.length === 0) {
		try {
			text = JSON.stringify(body);
		} catch {
			text = undefined;
		}
	}
	return { text: text === undefined ? undefined : clip(redact(text)), fields };
}

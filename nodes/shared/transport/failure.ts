// Whatever n8n threw → an HttpFailure without request headers (no token can leak) → one FailureKind.
import { mentionsTokenFailure, oauthErrorFromText } from '../n8n-compat';
import { findInCauses, isObject, plainHeaders } from '../json';

export interface HttpFailure {
	status?: number;
	headers: Record<string, string>;
	body?: unknown;
	code?: string;
	message: string;
	tokenFailure: boolean;
	oauthError?: string;
	/** The Consent Flow credential's own token request failed (its message names the fields). */
	ownToken?: { status?: number; message: string };
	attempts?: number;
	cancelled?: boolean;
}

export type FailureKind =
	| 'token-refused'
	| 'not-authenticated'
	| 'forbidden'
	| 'not-found'
	| 'rejected'
	| 'rate-limited'
	| 'unavailable'
	| 'server-error'
	| 'unexpected-status'
	| 'network-not-sent'
	| 'network-maybe-sent'
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

// In words, not codes: n8n replaces a message that contains ECONNREFUSED & co. with its own text.
export function networkWords(code: string | undefined): string {
	return (code && NETWORK_ERRORS[code]?.words) || 'the connection failed';
}

export function isNotSent(code: string | undefined): boolean {
	return !!code && NETWORK_ERRORS[code]?.notSent === true;
}

/** How every refusal of the Consent Flow credential's own token request starts (consentFlowToken.ts). */
export const OWN_TOKEN_FAILURE = 'Could not get an access token';
/** `Could not get an access token (invalid_client, HTTP 401) …`: the OAuth2 error and the status. */
const OWN_REFUSAL = /^Could not get an access token \((?:([^(),]+), )?HTTP (\d{3})\)/;

const findCode = (error: unknown) =>
	findInCauses(error, ({ code }) =>
		typeof code === 'string' && /^E[A-Z_]+$|^UND_ERR/.test(code) ? code : undefined,
	);

const findResponse = (error: unknown) =>
	findInCauses(error, ({ response }) =>
		isObject(response) &&
		(typeof response.status === 'number' || typeof response.statusCode === 'number')
			? response
			: undefined,
	);

const findOAuthError = (error: unknown) =>
	findInCauses(error, ({ body }) =>
		isObject(body) && typeof body.error === 'string' ? body.error : undefined,
	);

const MAX_TEXT = 500;

function clip(text: string, length = MAX_TEXT): string {
	return text.length > length ? `${text.slice(0, length)}…` : text;
}

/** Room after the shown part: a token or number that starts in it ends in the searched window. */
const SEARCH_MARGIN = 4096;

// Only a window is searched, then the shown part is cut from what was redacted: a cut through a
// token or an identity number would leave a part of it, and a large body would cost its whole length.
function redactedClip(text: string, redact: (text: string) => string): string {
	return clip(redact(clip(text, MAX_TEXT + SEARCH_MARGIN)));
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

export function lowerCaseHeaders(headers: unknown): Record<string, string> {
	const out: Record<string, string> = {};
	for (const [name, value] of Object.entries(plainHeaders(headers))) {
		if (value === undefined || value === null) continue;
		out[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : String(value);
	}
	return out;
}

export function normaliseHttpError(error: unknown): HttpFailure {
	const record = isObject(error) ? error : {};
	const response = findResponse(error);
	const httpCode = Number(record.httpCode);
	let status = response ? Number(response.status ?? response.statusCode) : undefined;
	if (!response && Number.isInteger(httpCode) && httpCode >= 100) status = httpCode;
	const message = typeof record.message === 'string' ? record.message : String(error);
	const causeMessage = isObject(record.cause) ? record.cause.message : undefined;
	const ownText = [message, causeMessage].find(
		(text): text is string => typeof text === 'string' && text.startsWith(OWN_TOKEN_FAILURE),
	);
	const refusal = ownText === undefined ? null : OWN_REFUSAL.exec(ownText);
	const oauthError =
		findOAuthError(error) ??
		refusal?.[1] ??
		(status === undefined ? oauthErrorFromText([message, causeMessage]) : undefined);
	const tokenFailure =
		ownText !== undefined ||
		oauthError !== undefined ||
		mentionsTokenFailure([message, causeMessage]);
	const failure: HttpFailure = {
		status: Number.isFinite(status) ? status : undefined,
		headers: lowerCaseHeaders(response?.headers),
		// n8n 1.x's NodeApiError drops the wrapped error (and its response) but keeps the response
		// body as context.data: the service's own message is then still there
		body: parseBody(
			response
				? (response.data ?? response.body)
				: isObject(record.context)
					? record.context.data
					: undefined,
		),
		code: findCode(error),
		message,
		tokenFailure,
		oauthError,
	};
	if (ownText !== undefined) {
		failure.ownToken = { status: refusal ? Number(refusal[2]) : undefined, message: ownText };
	}
	return failure;
}

export function isHttpFailure(value: unknown): value is HttpFailure {
	return (
		isObject(value) &&
		typeof value.message === 'string' &&
		'tokenFailure' in value &&
		'headers' in value
	);
}

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

export interface ServiceField {
	field: string;
	message: string;
}

function isPlainRecord(value: unknown): value is Record<string, unknown> {
	return (
		value !== null && typeof value === 'object' && Object.getPrototypeOf(value) === Object.prototype
	);
}

// Field errors in two assumed forms (the descriptions show no error body): `fields: [{ field, message }]`
// and problem details `errors: { field: [messages] }`. A stream or a buffer gives nothing.
export function serviceText(
	body: unknown,
	redact: (text: string) => string = (text) => text,
): { text?: string; fields: ServiceField[] } {
	if (body === undefined || body === null || body === '') return { fields: [] };
	if (typeof body === 'string') return { text: redactedClip(body, redact), fields: [] };
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
	return { text: text === undefined ? undefined : redactedClip(text, redact), fields };
}

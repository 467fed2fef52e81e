import { createHmac, timingSafeEqual } from 'crypto';

/**
 * Signature verification for consent flow webhooks.
 *
 * The service signs every delivery with a hex HMAC-SHA256 of the request payload, keyed with
 * the secret webhook key, and sends it in `x-<maker>-sbl-signature`. Verification runs over
 * the exact bytes received: re-serialising the parsed JSON would change spacing, `\u` escapes
 * and number spelling (`1.50`, `12345678901234567890`) and so the digest.
 *
 * Pure functions, no n8n imports: the node, the tests and the benchmark share them.
 */

/** Header names accepted when the credential names none: `x-<anything>-sbl-signature`. */
export const SIGNATURE_HEADER_PATTERN = /^x-.+-sbl-signature$/i;

/** A SHA-256 digest is 32 bytes: 64 hex characters. */
const HEX_DIGEST = /^[0-9a-f]{64}$/i;

/** Optional `sha256=` prefix (GitHub style); tolerated, not required. */
const DIGEST_PREFIX = /^sha256=/i;

export type HeaderBag = Record<string, string | string[] | undefined>;

export interface FoundHeader {
	/** The header name as it appears in the request (Node lower-cases incoming names). */
	name: string;
	/** The header value; repeated headers are joined with ', ' (and then never verify). */
	value: string;
}

/** At most this many candidate signatures are checked; more → nothing verifies. */
export const MAX_SIGNATURE_CANDIDATES = 8;

function headerValue(value: string | string[] | undefined): string | undefined {
	if (value === undefined) return undefined;
	if (Array.isArray(value)) return value.length === 0 ? undefined : value.join(', ');
	return value;
}

/**
 * The headers that may carry the signature, in arrival order: only the one named
 * `configuredName` (case-insensitive) when it is non-empty, else every header matching
 * {@link SIGNATURE_HEADER_PATTERN}.
 */
function signatureHeaders(headers: HeaderBag, configuredName?: string | null): FoundHeader[] {
	const wanted = (configuredName ?? '').trim().toLowerCase();
	const found: FoundHeader[] = [];
	for (const [name, raw] of Object.entries(headers)) {
		const matches = wanted ? name.toLowerCase() === wanted : SIGNATURE_HEADER_PATTERN.test(name);
		const value = matches ? headerValue(raw) : undefined;
		if (value !== undefined) found.push({ name, value });
	}
	return found;
}

/**
 * The first signature header in arrival order (see {@link signatureCandidates}, which the node
 * uses: it does not depend on the order). Kept for scripts/bench-signature.js.
 */
export function findSignatureHeader(
	headers: HeaderBag,
	configuredName?: string | null,
): FoundHeader | undefined {
	return signatureHeaders(headers, configuredName)[0];
}

/**
 * Every candidate signature: each non-empty comma-separated piece of the value of every
 * signature header (repeated headers arrive comma-joined or as an array), in arrival order.
 */
export function signatureCandidates(headers: HeaderBag, configuredName?: string | null): string[] {
	return signatureHeaders(headers, configuredName)
		.flatMap((header) => header.value.split(','))
		.map((piece) => piece.trim())
		.filter((piece) => piece !== '');
}

/** Lower-case hex HMAC-SHA256 of `rawBody` keyed with `secret` (what the service sends). */
export function computeSignature(rawBody: Buffer | string, secret: string): string {
	return createHmac('sha256', secret).update(rawBody).digest('hex');
}

/**
 * True only when `header` carries the hex HMAC-SHA256 of exactly `rawBody` under `secret`.
 *
 * - Upper- or lower-case hex; surrounding whitespace and a `sha256=` prefix are tolerated.
 * - Fails closed: an empty secret, a missing header, or a value that is not 64 hex
 *   characters returns false (never throws).
 * - The comparison is `crypto.timingSafeEqual` on two 32-byte buffers.
 */
export function verifySignature(
	rawBody: Buffer,
	header: string | undefined | null,
	secret: string | undefined | null,
): boolean {
	return typeof header === 'string' && verifyAnySignature(rawBody, [header], secret);
}

/** The 32 digest bytes of a candidate (hex, optional `sha256=`, surrounding spaces), or null. */
function digestBytes(candidate: string): Buffer | null {
	const hex = candidate.trim().replace(DIGEST_PREFIX, '');
	return HEX_DIGEST.test(hex) ? Buffer.from(hex, 'hex') : null;
}

/**
 * True when at least one of `candidates` verifies (see {@link verifySignature}); false for no
 * candidates or more than {@link MAX_SIGNATURE_CANDIDATES}. Every well-formed candidate is
 * compared, in constant time, whatever the earlier results: neither the answer nor the time
 * depends on which position the valid one has.
 */
export function verifyAnySignature(
	rawBody: Buffer,
	candidates: readonly string[],
	secret: string | undefined | null,
): boolean {
	if (typeof secret !== 'string' || secret.length === 0) return false;
	if (!Buffer.isBuffer(rawBody)) return false;
	if (candidates.length === 0 || candidates.length > MAX_SIGNATURE_CANDIDATES) return false;

	const expected = createHmac('sha256', secret).update(rawBody).digest();
	let verified = false;
	for (const candidate of candidates) {
		const received = typeof candidate === 'string' ? digestBytes(candidate) : null;
		// 64 hex digits (HEX_DIGEST) are 32 bytes, as is a SHA-256 digest: timingSafeEqual never throws.
		if (received === null) continue;
		verified = timingSafeEqual(received, expected) || verified;
	}
	return verified;
}

/**
 * Names of headers that carry a credential, never copied into output items: authorization
 * (also proxy-, x-auth…, www-authenticate), cookies, sessions, any signature, secret,
 * password, token (access, CSRF, security, …), credentials, and API or access keys
 * (x-api-key, apikey, x-n8n-api-key, subscription and function keys, …). Matched anywhere in
 * the lower-cased name.
 */
export const CREDENTIAL_HEADER_PATTERN =
	/(^|[-_.])auth|cookie|session|signature|secret|passw(or)?d|token|credential|csrf|xsrf|(api|access|private|subscription|functions|client|app)[-_]?key/;

/**
 * The request headers without any that carries a credential ({@link CREDENTIAL_HEADER_PATTERN})
 * and without the configured signature header.
 */
export function headersWithoutSecrets(
	headers: HeaderBag,
	configuredName?: string | null,
): Record<string, string | string[]> {
	const configured = (configuredName ?? '').trim().toLowerCase();
	const kept: Record<string, string | string[]> = {};
	for (const [name, value] of Object.entries(headers)) {
		if (value === undefined) continue;
		const lower = name.toLowerCase();
		if (CREDENTIAL_HEADER_PATTERN.test(lower)) continue;
		if (configured && lower === configured) continue;
		kept[name] = value;
	}
	return kept;
}

/** Minimum length of a signing secret accepted by the credential test. */
export const MIN_SECRET_LENGTH = 16;

/** RFC 9110 token: the characters allowed in a header name. */
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

/**
 * The credential test's rule. Returns a message describing what is wrong with the
 * credential, or null when it looks usable:
 * - the secret must be a non-empty string;
 * - without leading or trailing whitespace and without line breaks (copy-paste artefacts:
 *   they would be part of the HMAC key and every delivery would fail verification);
 * - at least {@link MIN_SECRET_LENGTH} characters;
 * - a configured signature header name must be a valid HTTP header name.
 */
/** How the form rule names a secret: its field, the key it holds, and what it signs. */
export interface SecretWording {
	/** `The signing secret` */
	field: string;
	/** `the key`, `the old key` */
	key: string;
	/** '' or ` signed with the old key` */
	signedWith: string;
}

/**
 * The form rule every signing secret follows (current or previous): no line breaks, no leading
 * or trailing whitespace (copy-paste artefacts that would become part of the HMAC key), at least
 * {@link MIN_SECRET_LENGTH} characters. Null when the text passes; the message never shows it.
 */
export function secretFormProblem(secret: string, words: SecretWording): string | null {
	if (/[\r\n]/.test(secret)) {
		return `${words.field} contains a line break. Paste ${words.key} on one line, exactly as issued.`;
	}
	if (secret.trim() !== secret) {
		return `${words.field} starts or ends with whitespace. Remove it: it would become part of the HMAC key and no delivery${words.signedWith} would verify.`;
	}
	if (secret.length < MIN_SECRET_LENGTH) {
		return `${words.field} is ${secret.length} characters long; at least ${MIN_SECRET_LENGTH} are required. Check that the whole ${words.key.replace(/^the /, '')} was pasted.`;
	}
	return null;
}

export function signingCredentialProblem(
	secret: unknown,
	signatureHeader?: unknown,
): string | null {
	if (typeof secret !== 'string' || secret.length === 0) {
		return 'The signing secret is empty. Paste the secret webhook key issued by the consent flow service.';
	}
	const problem = secretFormProblem(secret, {
		field: 'The signing secret',
		key: 'the key',
		signedWith: '',
	});
	if (problem !== null) return problem;
	if (typeof signatureHeader === 'string' && signatureHeader.trim() !== '') {
		if (!HEADER_NAME.test(signatureHeader.trim())) {
			return `The signature header "${signatureHeader}" is not a valid HTTP header name.`;
		}
	}
	return null;
}

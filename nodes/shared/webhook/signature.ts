import { createHmac, timingSafeEqual } from 'crypto';

// Verified over the exact bytes received; the rules and why: docs/architecture.md#signature-rules

export const SIGNATURE_HEADER_PATTERN = /^x-.+-sbl-signature$/i;

const HEX_DIGEST = /^[0-9a-f]{64}$/i;

const DIGEST_PREFIX = /^sha256=/i;

export type HeaderBag = Record<string, string | string[] | undefined>;

interface FoundHeader {
	name: string;
	value: string;
}

export const MAX_SIGNATURE_CANDIDATES = 8;

function headerValue(value: string | string[] | undefined): string | undefined {
	if (value === undefined) return undefined;
	if (Array.isArray(value)) return value.length === 0 ? undefined : value.join(', ');
	return value;
}

/** Every signature header in arrival order (the configured name, else the published pattern). */
export function signatureHeaders(
	headers: HeaderBag,
	configuredName?: string | null,
): FoundHeader[] {
	const wanted = (configuredName ?? '').trim().toLowerCase();
	const found: FoundHeader[] = [];
	for (const [name, raw] of Object.entries(headers)) {
		const matches = wanted ? name.toLowerCase() === wanted : SIGNATURE_HEADER_PATTERN.test(name);
		const value = matches ? headerValue(raw) : undefined;
		if (value !== undefined) found.push({ name, value });
	}
	return found;
}

export function signatureCandidates(headers: HeaderBag, configuredName?: string | null): string[] {
	return signatureHeaders(headers, configuredName)
		.flatMap((header) => header.value.split(','))
		.map((piece) => piece.trim())
		.filter((piece) => piece !== '');
}

function digestBytes(candidate: unknown): Buffer | null {
	if (typeof candidate !== 'string') return null;
	const hex = candidate.trim().replace(DIGEST_PREFIX, '');
	return HEX_DIGEST.test(hex) ? Buffer.from(hex, 'hex') : null;
}

export const MAX_ACTIVE_SECRETS = 2;

export interface SecretMatch {
	signedWith: 'current' | 'previous';
}

// The one verifier. Every digest is computed and every candidate compared, without short-circuit:
// neither the answer nor the time depends on which secret or candidate matched.
export function matchSecret(
	rawBody: Buffer,
	candidates: readonly unknown[],
	secrets: readonly string[],
): SecretMatch | null {
	if (!Buffer.isBuffer(rawBody)) return null;
	if (!Array.isArray(secrets) || secrets.length > MAX_ACTIVE_SECRETS) return null;
	if (secrets.some((secret) => typeof secret !== 'string' || secret.length === 0)) return null;
	if (!Array.isArray(candidates) || candidates.length > MAX_SIGNATURE_CANDIDATES) return null;

	const expected = secrets.map((secret) => createHmac('sha256', secret).update(rawBody).digest());
	// bit i set: a candidate matched secret i
	let matched = 0;
	for (const candidate of candidates) {
		const received = digestBytes(candidate);
		// 64 hex digits are 32 bytes, as is every expected digest: timingSafeEqual never throws.
		if (received === null) continue;
		expected.forEach((digest, i) => {
			matched |= (timingSafeEqual(received, digest) ? 1 : 0) << i;
		});
	}
	if (matched === 0) return null;
	return { signedWith: matched & 1 ? 'current' : 'previous' };
}

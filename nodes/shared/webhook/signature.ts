import { createHmac, timingSafeEqual } from 'crypto';

// Verified over the exact bytes received; the rules and why: docs/architecture.md#signature-rules

export const SIGNATURE_HEADER_PATTERN = /^x-.+-sbl-signature$/i;

const HEX_DIGEST = /^[0-9a-f]{64}$/i;

const DIGEST_PREFIX = /^sha256=/i;

export type HeaderBag = Record<string, string | string[] | undefined>;

export const MAX_SIGNATURE_CANDIDATES = 8;

/** The pieces of every signature header (the configured name, else the published pattern), in arrival order. */
export function signatureCandidates(headers: HeaderBag, configuredName?: string | null): string[] {
	const wanted = (configuredName ?? '').trim().toLowerCase();
	return Object.entries(headers)
		.filter(([name]) =>
			wanted ? name.toLowerCase() === wanted : SIGNATURE_HEADER_PATTERN.test(name),
		)
		.flatMap(([, value]) => value ?? [])
		.flatMap((value) => value.split(','))
		.map((piece) => piece.trim())
		.filter((piece) => piece !== '');
}

function digestBytes(candidate: string): Buffer | null {
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
	candidates: readonly string[],
	secrets: readonly string[],
): SecretMatch | null {
	if (secrets.length > MAX_ACTIVE_SECRETS || secrets.includes('')) return null;
	if (candidates.length > MAX_SIGNATURE_CANDIDATES) return null;

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

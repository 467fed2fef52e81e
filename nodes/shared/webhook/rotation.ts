import { createHmac, timingSafeEqual } from 'crypto';
import { secretFormProblem } from './signature';

/**
 * Secret rotation for the webhook signing credential: the current secret and an optional
 * *previous* one are both active, as Stripe (several endpoint secrets during a roll) and
 * Standard Webhooks (space-separated signatures, any key of several may match) do it. The
 * service says a compromised secret is reset at once; with one secret only, every delivery
 * signed with the other side's secret is refused until both sides match, and retries pile up.
 *
 * Pure functions, no n8n imports. Nothing here returns, logs or throws a secret.
 */

/** A SHA-256 digest is 32 bytes: 64 hex characters. */
const HEX_DIGEST = /^[0-9a-f]{64}$/i;

/** Optional `sha256=` prefix (GitHub style); tolerated, not required (as in signature.ts). */
const DIGEST_PREFIX = /^sha256=/i;

/** Most candidate signatures checked (as MAX_SIGNATURE_CANDIDATES in signature.ts). */
export const MAX_CANDIDATES = 8;

/** At most two secrets are active: the current one and the previous one. */
export const MAX_ACTIVE_SECRETS = 2;

/**
 * The secrets a delivery may be signed with, current first. Fails closed: without a usable current
 * secret nothing is active, whatever the previous field holds (the previous one is a grace
 * period, never a replacement). Both follow the credential test's form rule here too, so a
 * previous secret the test refuses (e.g. 1 character) never verifies anything.
 */
export function activeSecrets(secret: unknown, previousSecret: unknown): string[] {
	if (!usableSecret(secret)) return [];
	if (!usableSecret(previousSecret) || previousSecret === secret) return [secret];
	return [secret, previousSecret];
}

function usableSecret(value: unknown): value is string {
	// the words only shape the message, which is not used here
	return typeof value === 'string' && secretFormProblem(value, PREVIOUS_SECRET_WORDS) === null;
}

/** How the credential test's messages name the previous secret. */
const PREVIOUS_SECRET_WORDS = {
	field: 'The previous signing secret',
	key: 'the old key',
	signedWith: ' signed with the old key',
};

/** The 32 digest bytes of a candidate (hex, optional `sha256=`, surrounding spaces), or null. */
function digestBytes(candidate: unknown): Buffer | null {
	if (typeof candidate !== 'string') return null;
	const hex = candidate.trim().replace(DIGEST_PREFIX, '');
	return HEX_DIGEST.test(hex) ? Buffer.from(hex, 'hex') : null;
}

/** Which active secret signed a delivery, and the digest of its body under that secret. */
export interface SecretMatch {
	signedWith: 'current' | 'previous';
	/** Hex HMAC-SHA256 of the body under the matching secret: a key for the signed bytes. */
	digest: string;
}

/**
 * The first of `secrets` (see {@link activeSecrets}) under which one candidate is the hex
 * HMAC-SHA256 of exactly `rawBody`, else null (also for no secret, no candidate, more than
 * {@link MAX_CANDIDATES} candidates or more than {@link MAX_ACTIVE_SECRETS} secrets).
 * Every digest is computed and every candidate compared with `timingSafeEqual`, results combined
 * without short-circuit: the cost does not depend on which secret or candidate matched.
 */
export function matchSecret(
	rawBody: Buffer,
	candidates: readonly unknown[],
	secrets: readonly string[],
): SecretMatch | null {
	if (!Buffer.isBuffer(rawBody)) return null;
	// No secret or no candidate needs no check of its own: nothing can match.
	if (!Array.isArray(secrets) || secrets.length > MAX_ACTIVE_SECRETS) return null;
	if (secrets.some((secret) => typeof secret !== 'string' || secret.length === 0)) return null;
	if (!Array.isArray(candidates) || candidates.length > MAX_CANDIDATES) return null;

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
	const index = matched & 1 ? 0 : 1;
	return { signedWith: index === 0 ? 'current' : 'previous', digest: expected[index].toString('hex') };
}

/** Whether {@link matchSecret} finds a secret that signed `rawBody`. */
export function verifyWithSecrets(
	rawBody: Buffer,
	candidates: readonly unknown[],
	secrets: readonly string[],
): boolean {
	return matchSecret(rawBody, candidates, secrets) !== null;
}

/**
 * The credential test's rule for the optional previous secret: null when it is empty (not set)
 * or usable, else a message that names the field, never its value. A previous secret equal to
 * the current one is usable (it adds nothing; see {@link previousSecretNote}).
 */
export function previousSecretProblem(previousSecret: unknown): string | null {
	if (previousSecret === undefined || previousSecret === null || previousSecret === '') return null;
	if (typeof previousSecret !== 'string') {
		return 'The previous signing secret is not text. Clear the field, or paste the old key.';
	}
	return secretFormProblem(previousSecret, PREVIOUS_SECRET_WORDS);
}

/** A remark for the credential test when the previous secret is set (null when it is not). */
export function previousSecretNote(secret: unknown, previousSecret: unknown): string | null {
	if (typeof previousSecret !== 'string' || previousSecret === '') return null;
	if (previousSecret === secret) {
		return 'The previous secret is the same as the signing secret, so it adds nothing: clear it.';
	}
	return 'Deliveries signed with the previous secret are accepted too: clear it once the service signs with the new one.';
}

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
 * The secrets a delivery may be signed with, current first. Fails closed: without a current
 * secret (empty, not a string) nothing is active, whatever the previous field holds — the
 * previous secret is only a grace period for the current one, never a replacement. An empty or
 * absent previous secret, or one equal to the current one, adds nothing (a credential saved
 * before the field existed therefore verifies exactly as before).
 */
export function activeSecrets(secret: unknown, previousSecret: unknown): string[] {
	if (typeof secret !== 'string' || secret.length === 0) return [];
	if (typeof previousSecret !== 'string' || previousSecret.length === 0) return [secret];
	if (previousSecret === secret) return [secret];
	return [secret, previousSecret];
}

/** The 32 digest bytes of a candidate (hex, optional `sha256=`, surrounding spaces), or null. */
function digestBytes(candidate: unknown): Buffer | null {
	if (typeof candidate !== 'string') return null;
	const hex = candidate.trim().replace(DIGEST_PREFIX, '');
	return HEX_DIGEST.test(hex) ? Buffer.from(hex, 'hex') : null;
}

/**
 * True when at least one candidate is the hex HMAC-SHA256 of exactly `rawBody` under one of
 * `secrets` (see {@link activeSecrets}). False for no secret, an empty secret, no candidate, more
 * than {@link MAX_CANDIDATES} candidates or more than {@link MAX_ACTIVE_SECRETS} secrets.
 *
 * Constant time in which secret matched: the digest under every secret is computed first, then
 * every well-formed candidate is compared with every digest by `crypto.timingSafeEqual`, and the
 * results are combined with a non-short-circuit `|`. A delivery signed with the previous secret
 * costs the same as one signed with the current one (the same HMACs, the same comparisons).
 */
export function verifyWithSecrets(
	rawBody: Buffer,
	candidates: readonly unknown[],
	secrets: readonly string[],
): boolean {
	if (!Buffer.isBuffer(rawBody)) return false;
	if (!Array.isArray(secrets) || secrets.length === 0 || secrets.length > MAX_ACTIVE_SECRETS) {
		return false;
	}
	if (secrets.some((secret) => typeof secret !== 'string' || secret.length === 0)) return false;
	if (!Array.isArray(candidates) || candidates.length === 0) return false;
	if (candidates.length > MAX_CANDIDATES) return false;

	const expected = secrets.map((secret) => createHmac('sha256', secret).update(rawBody).digest());
	let matched = 0;
	for (const candidate of candidates) {
		const received = digestBytes(candidate);
		// 64 hex digits are 32 bytes, as is every expected digest: timingSafeEqual never throws.
		if (received === null) continue;
		for (const digest of expected) {
			matched |= timingSafeEqual(received, digest) ? 1 : 0;
		}
	}
	return matched === 1;
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
	return secretFormProblem(previousSecret, {
		field: 'The previous signing secret',
		key: 'the old key',
		signedWith: ' signed with the old key',
	});
}

/** A remark for the credential test when the previous secret is set (null when it is not). */
export function previousSecretNote(secret: unknown, previousSecret: unknown): string | null {
	if (typeof previousSecret !== 'string' || previousSecret === '') return null;
	if (previousSecret === secret) {
		return 'The previous secret is the same as the signing secret, so it adds nothing: clear it.';
	}
	return 'Deliveries signed with the previous secret are accepted too: clear it once the service signs with the new one.';
}

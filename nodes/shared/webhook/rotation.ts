import { createHmac, timingSafeEqual } from 'crypto';
import { secretFormProblem } from './signature';

// The previous secret stays active during a rotation: docs/architecture.md#rotation

const HEX_DIGEST = /^[0-9a-f]{64}$/i;

const DIGEST_PREFIX = /^sha256=/i;

export const MAX_CANDIDATES = 8;

export const MAX_ACTIVE_SECRETS = 2;

// Fails closed: no usable current secret, nothing active (the previous one is a grace period only).
export function activeSecrets(secret: unknown, previousSecret: unknown): string[] {
	if (!usableSecret(secret)) return [];
	if (!usableSecret(previousSecret) || previousSecret === secret) return [secret];
	return [secret, previousSecret];
}

function usableSecret(value: unknown): value is string {
	// the words only shape the message, which is not used here
	return typeof value === 'string' && secretFormProblem(value, PREVIOUS_SECRET_WORDS) === null;
}

const PREVIOUS_SECRET_WORDS = {
	field: 'The previous signing secret',
	key: 'the old key',
	signedWith: ' signed with the old key',
};

function digestBytes(candidate: unknown): Buffer | null {
	if (typeof candidate !== 'string') return null;
	const hex = candidate.trim().replace(DIGEST_PREFIX, '');
	return HEX_DIGEST.test(hex) ? Buffer.from(hex, 'hex') : null;
}

export interface SecretMatch {
	signedWith: 'current' | 'previous';
	digest: string;
}

// Every digest is computed and every candidate compared, without short-circuit: the cost does not
// depend on which secret or candidate matched.
export function matchSecret(
	rawBody: Buffer,
	candidates: readonly unknown[],
	secrets: readonly string[],
): SecretMatch | null {
	if (!Buffer.isBuffer(rawBody)) return null;
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

export function verifyWithSecrets(
	rawBody: Buffer,
	candidates: readonly unknown[],
	secrets: readonly string[],
): boolean {
	return matchSecret(rawBody, candidates, secrets) !== null;
}

export function previousSecretProblem(previousSecret: unknown): string | null {
	if (previousSecret === undefined || previousSecret === null || previousSecret === '') return null;
	if (typeof previousSecret !== 'string') {
		return 'The previous signing secret is not text. Clear the field, or paste the old key.';
	}
	return secretFormProblem(previousSecret, PREVIOUS_SECRET_WORDS);
}

export function previousSecretNote(secret: unknown, previousSecret: unknown): string | null {
	if (typeof previousSecret !== 'string' || previousSecret === '') return null;
	if (previousSecret === secret) {
		return 'The previous secret is the same as the signing secret, so it adds nothing: clear it.';
	}
	return 'Deliveries signed with the previous secret are accepted too: clear it once the service signs with the new one.';
}

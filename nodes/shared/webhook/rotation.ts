import { secretFormProblem } from './signature';

// The previous secret stays active during a rotation: docs/architecture.md#rotation

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

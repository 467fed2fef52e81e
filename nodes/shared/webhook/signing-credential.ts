// The signing credential's form, and which of its secrets are active: docs/architecture.md#rotation

// The credential type is credentials/ConsentFlowWebhookSigningApi.credentials.ts's `name`.
export const SIGNING_CREDENTIAL = 'consentFlowWebhookSigningApi';

export const MIN_SECRET_LENGTH = 16;

/** RFC 9110 token: the characters allowed in a header name. */
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

// Line breaks and outer whitespace are copy-paste artefacts that would become part of the HMAC key.
function secretRule(secret: unknown): string | null {
	if (typeof secret !== 'string' || secret === '')
		return 'must be filled in with the secret webhook key the consent flow service issued';
	if (/[\r\n]/.test(secret)) return 'must be on one line, exactly as issued';
	if (secret.trim() !== secret) {
		return 'must not start or end with whitespace, which would become part of the HMAC key';
	}
	if (secret.length < MIN_SECRET_LENGTH) {
		return `must be at least ${MIN_SECRET_LENGTH} characters long (it has ${secret.length}): paste the whole key`;
	}
	return null;
}

/** The first reason the signing credential cannot verify deliveries (field and rule), or null. */
export function signingCredentialCheck(data: {
	secret?: unknown;
	signatureHeader?: unknown;
	previousSecret?: unknown;
}): string | null {
	const { secret, signatureHeader, previousSecret } = data;
	const rule = secretRule(secret);
	if (rule !== null) return `Signing Secret ${rule}.`;
	const header = typeof signatureHeader === 'string' ? signatureHeader.trim() : '';
	if (header !== '' && !HEADER_NAME.test(header)) {
		return 'Signature Header must be empty or a valid HTTP header name.';
	}
	if (previousSecret === undefined || previousSecret === null || previousSecret === '') return null;
	const previous = secretRule(previousSecret);
	return previous === null ? null : `Previous Signing Secret ${previous}, or empty.`;
}

// Fails closed: no usable current secret, nothing active (the previous one is a grace period only).
export function activeSecrets(secret: unknown, previousSecret: unknown): string[] {
	if (typeof secret !== 'string' || secretRule(secret) !== null) return [];
	const usable = typeof previousSecret === 'string' && secretRule(previousSecret) === null;
	return usable && previousSecret !== secret ? [secret, previousSecret] : [secret];
}

export function previousSecretNote(secret: unknown, previousSecret: unknown): string | null {
	if (typeof previousSecret !== 'string' || previousSecret === '') return null;
	if (previousSecret === secret) {
		return 'The previous secret is the same as the signing secret, so it adds nothing: clear it.';
	}
	return 'Deliveries signed with the previous secret are accepted too: clear it once the service signs with the new one.';
}

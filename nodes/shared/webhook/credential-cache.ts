/**
 * A short-lived, per-process memory of the signing credential, keyed by the credential's id.
 *
 * n8n reads a credential from its database and decrypts it on every `getCredentials` call; for a
 * webhook that is one query and one decryption per delivery. The trigger keeps what it read for
 * {@link CREDENTIAL_TTL_MS}: a changed or deleted secret takes effect within that time (until
 * then a delivery signed with the new secret gets 401 and the service retries it).
 * Pure, no n8n imports; the clock is passed in.
 */

export const CREDENTIAL_TTL_MS = 5000;

const MAX_ENTRIES = 100;

export interface SigningFacts {
	secret: string;
	signatureHeader: string;
	/** The optional previous secret (rotation.ts); absent or '' when not set. */
	previousSecret?: string;
}

interface Entry extends SigningFacts {
	readAt: number;
}

const entries = new Map<string, Entry>();

/** The remembered credential `id` if it was read less than the TTL ago (clock going back: not). */
export function cachedCredential(id: string | undefined, now: number): SigningFacts | undefined {
	if (id === undefined || id === '') return undefined;
	const entry = entries.get(id);
	if (entry === undefined) return undefined;
	const age = now - entry.readAt;
	if (age < 0 || age >= CREDENTIAL_TTL_MS) {
		entries.delete(id);
		return undefined;
	}
	const facts: SigningFacts = { secret: entry.secret, signatureHeader: entry.signatureHeader };
	if (entry.previousSecret) facts.previousSecret = entry.previousSecret;
	return facts;
}

/** Remembers a credential that was just read (only one that can verify: a non-empty secret). */
export function rememberCredential(id: string | undefined, facts: SigningFacts, now: number): void {
	if (id === undefined || id === '' || facts.secret === '') return;
	entries.delete(id);
	if (entries.size >= MAX_ENTRIES) {
		const oldest = entries.keys().next().value;
		if (oldest !== undefined) entries.delete(oldest);
	}
	entries.set(id, { ...facts, readAt: now });
}

/** For tests: forget every credential. */
export function resetCredentialCache(): void {
	entries.clear();
}

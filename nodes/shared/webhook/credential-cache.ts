// n8n queries and decrypts a credential on every getCredentials: kept per process for the TTL, so a
// changed secret takes effect within it (401s meanwhile are retried).

export const CREDENTIAL_TTL_MS = 5000;

const MAX_ENTRIES = 100;

export interface SigningFacts {
	secret: string;
	signatureHeader: string;
	previousSecret?: string;
}

interface Entry {
	facts: SigningFacts;
	readAt: number;
}

const entries = new Map<string, Entry>();
// reads under way: deliveries that find the entry expired together share one read
const reading = new Map<string, Promise<SigningFacts>>();

export function cachedCredential(id: string | undefined, now: number): SigningFacts | undefined {
	if (id === undefined || id === '') return undefined;
	const entry = entries.get(id);
	if (entry === undefined) return undefined;
	const age = now - entry.readAt;
	if (age < 0 || age >= CREDENTIAL_TTL_MS) {
		entries.delete(id);
		return undefined;
	}
	return { ...entry.facts };
}

export function rememberCredential(id: string | undefined, facts: SigningFacts, now: number): void {
	if (id === undefined || id === '' || facts.secret === '') return;
	entries.delete(id);
	if (entries.size >= MAX_ENTRIES) {
		const oldest = entries.keys().next().value;
		if (oldest !== undefined) entries.delete(oldest);
	}
	const kept = { ...facts };
	if (!kept.previousSecret) delete kept.previousSecret; // an empty previous secret is none
	entries.set(id, { facts: kept, readAt: now });
}

/** The cached facts, else one read that every caller asking meanwhile shares; `read` must not throw. */
export async function readThrough(
	id: string | undefined,
	read: () => Promise<SigningFacts>,
): Promise<SigningFacts> {
	const cached = cachedCredential(id, Date.now());
	if (cached !== undefined) return cached;
	if (id === undefined || id === '') return await read();
	let pending = reading.get(id);
	if (pending === undefined) {
		pending = read()
			.then((facts) => {
				rememberCredential(id, facts, Date.now());
				return facts;
			})
			.finally(() => reading.delete(id));
		reading.set(id, pending);
	}
	return { ...(await pending) };
}

/** Whether an entry this process uses is past half its TTL: worth re-reading before it expires. */
export function dueForRefresh(id: string | undefined, now: number): boolean {
	const entry = id ? entries.get(id) : undefined;
	if (entry === undefined) return false;
	const age = now - entry.readAt;
	return age >= CREDENTIAL_TTL_MS / 2 && age < CREDENTIAL_TTL_MS;
}

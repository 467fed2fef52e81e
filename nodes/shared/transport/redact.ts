/**
 * The one redactor: every text that leaves a node (error message, description, error response,
 * continue-on-fail item) passes through a `Redactor` built from the credential's secrets.
 */

/** Blanks out the given secrets and anything that looks like a bearer/basic token or a JWT. */
export type Redactor = (text: string) => string;

const AUTH_SCHEME = /\b(bearer|basic)(\s+|%20|\+)[A-Za-z0-9._~+/=-]{8,}/gi;
const JWT = /eyJ[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]*/g;
/** Secrets shorter than this are not searched for: they would blank out ordinary words. */
const MIN_SECRET_LENGTH = 4;

export function makeRedactor(secrets: readonly unknown[]): Redactor {
	const known = secrets
		.filter(
			(secret): secret is string =>
				typeof secret === 'string' && secret.length >= MIN_SECRET_LENGTH,
		)
		// longest first, so a secret that contains another is blanked whole
		.sort((a, b) => b.length - a.length);
	return (text: string): string => {
		let out = text;
		for (const secret of known) out = out.split(secret).join('***');
		return out.replace(AUTH_SCHEME, '$1 ***').replace(JWT, '***');
	};
}

/** A redactor for texts that have no credential at hand (patterns only). */
export const redactPatterns: Redactor = makeRedactor([]);

/** Applies `redact` to every string inside a JSON-like value (a copy; the input is not changed). */
export function redactDeep<T>(value: T, redact: Redactor, depth = 0): T {
	if (typeof value === 'string') return redact(value) as T;
	if (depth > 20 || value === null || typeof value !== 'object') return value;
	if (Array.isArray(value)) return value.map((entry) => redactDeep(entry, redact, depth + 1)) as T;
	const out: Record<string, unknown> = {};
	for (const [key, entry] of Object.entries(value as Record<string, unknown>)) {
		out[key] = redactDeep(entry, redact, depth + 1);
	}
	return out as T;
}

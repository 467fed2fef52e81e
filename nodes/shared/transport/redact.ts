/**
 * The one redactor: every text that leaves a node (error message, description, error response,
 * continue-on-fail item) passes through a `Redactor` built from the credential's secrets. It
 * learns: a token n8n fetched or refreshed during a request is only known after that request,
 * so the transport hands it over (`learn`) before it writes any text about the failure.
 */
import { maskIdentityNumbers } from '../personal';

/** Blanks out the given secrets, anything that looks like a bearer/basic token or a JWT, and identity numbers. */
export type Redactor = (text: string) => string;

/** A redactor that can be told more secrets later; every copy of a connection shares it. */
export interface LearningRedactor extends Redactor {
	learn(...secrets: unknown[]): void;
}

const AUTH_SCHEME = /\b(bearer|basic)(\s+|%20|\+)[A-Za-z0-9._~+/=-]{8,}/gi;
const JWT = /eyJ[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]*/g;
/** Secrets shorter than this are not searched for: they would blank out ordinary words. */
const MIN_SECRET_LENGTH = 4;

/** The forms a secret takes when a service echoes it: as is, URL-encoded, JSON-escaped. */
function secretForms(secret: string): string[] {
	const forms = new Set([secret, encodeURIComponent(secret)]);
	const json = JSON.stringify(secret).slice(1, -1);
	forms.add(json);
	forms.add(json.replace(/\//g, '\\/'));
	return [...forms];
}

export function makeRedactor(secrets: readonly unknown[]): LearningRedactor {
	let known: string[] = [];
	const learn = (...more: unknown[]): void => {
		const next = new Set(known);
		for (const secret of more) {
			if (typeof secret !== 'string' || secret.length < MIN_SECRET_LENGTH) continue;
			for (const form of secretForms(secret)) next.add(form);
		}
		// longest first, so a secret that contains another is blanked whole
		known = [...next].sort((a, b) => b.length - a.length);
	};
	learn(...secrets);
	const redact = (text: string): string => {
		let out = text;
		for (const secret of known) out = out.split(secret).join('***');
		return maskIdentityNumbers(out.replace(AUTH_SCHEME, '$1 ***').replace(JWT, '***'));
	};
	return Object.assign(redact, { learn });
}

/** A redactor for texts that have no credential at hand (patterns only). */
export const redactPatterns: Redactor = makeRedactor([]);

/**
 * The secrets an OAuth2 credential's data holds: the client secret, the stored tokens and the
 * Basic header value n8n's OAuth2 client sends to the token endpoint (raw and form-encoded).
 */
export function credentialSecrets(credentials: Record<string, unknown> | undefined): string[] {
	if (!credentials) return [];
	const out: string[] = [];
	const add = (value: unknown) => {
		if (typeof value === 'string' && value !== '') out.push(value);
	};
	add(credentials.clientSecret);
	const tokens = credentials.oauthTokenData;
	if (tokens !== null && typeof tokens === 'object') {
		const data = tokens as Record<string, unknown>;
		add(data.access_token);
		add(data.refresh_token);
		add(data.id_token);
	}
	const { clientId, clientSecret } = credentials;
	if (typeof clientId === 'string' && typeof clientSecret === 'string' && clientSecret !== '') {
		const form = (text: string) => encodeURIComponent(text).replace(/%20/g, '+');
		for (const pair of [`${clientId}:${clientSecret}`, `${form(clientId)}:${form(clientSecret)}`]) {
			add(Buffer.from(pair).toString('base64'));
		}
	}
	return out;
}

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

// Every text that leaves a node passes a Redactor; it learns tokens n8n fetched during a request.
import { leftOutForm, replaceIdentityNumbers } from '../identity-search';
import { maskIdentityNumbers } from '../personal';

export type Redactor = (text: string) => string;

export interface LearningRedactor extends Redactor {
	learn(...secrets: unknown[]): void;
}

const AUTH_SCHEME = /\b(bearer|basic)(\s*[:=]\s*|\s+|%20|%3A|\+)[A-Za-z0-9._~+/=-]{8,}/gi;
/** A token by its name: `access_token=…`, `"refresh_token": "…"`, `Authorization: …` (any case);
 * after AUTH_SCHEME, so `Authorization: Bearer ***` keeps its scheme (a word shorter than 8). */
const NAMED_TOKEN =
	/\b((?:access|refresh|id)_?token|token|client_?secret|auth(?:orization)?_?code|authorization|x-api-key|api[_-]?key|password|passwd|session_?id)(["']?\s*(?:[:=]|%3A|%3D)\s*["']?)[A-Za-z0-9._~+/=-]{8,}/gi;
/** A JSON string under a secret's name: all of it, whatever its characters (a password has any). */
const NAMED_JSON_STRING =
	/("(?:(?:access|refresh|id)_?token|token|client_?secret|secret|password|passwd|api[_-]?key|x-api-key|session_?id|auth(?:orization)?_?code)"\s*:\s*")(?:[^"\\]|\\.)*"/gi;
/** Authorization with any scheme (Token, ApiKey, Digest, …): the rest of the line. */
const ANY_SCHEME =
	/\b(authorization)(["']?\s*(?:[:=]|%3A|%3D)\s*["']?)([A-Za-z][\w-]*)[ \t]+[^\r\n]{1,2048}/gi;
/** A cookie header's value, whatever it holds (sessions). */
const COOKIE = /\b((?:set-)?cookie)(["']?\s*[:=]\s*["']?)[^\r\n"]{1,4096}/gi;
/** A JWT, also without its signature part (`header.payload.` or clipped after the payload). It
 * starts where a base64url run starts: a start inside a run would scan that run again (quadratic). */
const JWT = /(?<![A-Za-z0-9_-])eyJ[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]{5,}(?:\.[A-Za-z0-9_-]*)?/g;
/** Secrets shorter than this are not searched for: they would blank out ordinary words. */
const MIN_SECRET_LENGTH = 4;
/** A secret's beginning this long is blanked where a text was clipped: no more of it shows. */
const PREFIX_LENGTH = 8;
const CLIPPED = /^(?:$|…|\.\.\.)/;
/** Letters only: a word ("… to get the estimate"), not a token clipped after its beginning. */
const LETTERS = /^\p{L}*$/u;

function secretForms(secret: string): string[] {
	const uri = encodeURIComponent(secret);
	// n8n's OAuth2 client: encodeURIComponent with `+` for a space; WHATWG forms encode !'()~ too
	const encoded = [
		uri,
		uri.replace(/%20/g, '+'),
		new URLSearchParams({ s: secret }).toString().slice(2),
	];
	const lower = encoded.map((text) => text.replace(/%[0-9A-F]{2}/g, (hex) => hex.toLowerCase()));
	const json = JSON.stringify(secret).slice(1, -1);
	const base64 = Buffer.from(secret).toString('base64');
	// base64 with and without padding, base64url; the secret in upper and lower case
	const recoded = [base64, base64.replace(/=+$/, ''), Buffer.from(secret).toString('base64url')];
	const cased = [secret.toUpperCase(), secret.toLowerCase()];
	const hex = Buffer.from(secret).toString('hex');
	return [
		...new Set([
			secret,
			...encoded,
			...lower,
			json,
			json.replace(/\//g, '\\/'),
			...recoded,
			...cased,
			hex,
			hex.toUpperCase(),
		]),
	];
}

// A beginning followed by more text is an ordinary word (`estimate` of `estimate-…`), not a secret.
function secretEnd(text: string, at: number, secrets: readonly string[]): number {
	let best = at;
	for (const secret of secrets) {
		let end = at;
		while (end - at < secret.length && text[end] === secret[end - at]) end++;
		const whole = end - at === secret.length;
		const clipped =
			end - at >= PREFIX_LENGTH &&
			CLIPPED.test(text.slice(end)) &&
			!LETTERS.test(text.slice(at, end));
		if (whole || clipped) {
			best = Math.max(best, end);
		}
	}
	return best;
}

function blankSecrets(text: string, secrets: readonly string[]): string {
	let out = '';
	let from = 0;
	for (let at = 0; at < text.length; at++) {
		const end = secretEnd(text, at, secrets);
		if (end === at) continue;
		out += `${text.slice(from, at)}***`;
		from = end;
		at = end - 1;
	}
	return out + text.slice(from);
}

export function makeRedactor(secrets: readonly unknown[]): LearningRedactor {
	let known: string[] = [];
	const learn = (...more: unknown[]): void => {
		const next = new Set(known);
		for (const secret of more) {
			if (typeof secret !== 'string' || secret.length < MIN_SECRET_LENGTH) continue;
			for (const form of secretForms(secret)) next.add(form);
		}
		known = [...next];
	};
	learn(...secrets);
	const redact = (text: string): string => {
		const out = blankSecrets(text, known);
		const patterns = out
			.replace(AUTH_SCHEME, '$1 ***')
			.replace(ANY_SCHEME, '$1$2$3 ***')
			.replace(COOKIE, '$1$2***')
			.replace(NAMED_JSON_STRING, '$1***"')
			.replace(NAMED_TOKEN, '$1$2***')
			.replace(JWT, '***');
		// valid numbers in any written form (account forms too), then any 11-digit shape (mistyped too)
		return maskIdentityNumbers(
			replaceIdentityNumbers(patterns, leftOutForm, { accountForms: 'search' }),
		);
	};
	return Object.assign(redact, { learn });
}

export const redactPatterns: Redactor = makeRedactor([]);

/** The fields a credential type marks as secret (typeOptions.password): their values are redacted. */
export function passwordFieldsOf(
	properties: ReadonlyArray<{ name: string; typeOptions?: { password?: boolean } }>,
): string[] {
	return properties.filter((p) => p.typeOptions?.password === true).map((p) => p.name);
}

// The client secret, the tokens (the Consent Flow credential's Access Token field, n8n's OAuth2
// token data), and the Basic value sent to the token endpoint (raw and form-encoded).
export function credentialSecrets(
	credentials: Record<string, unknown> | undefined,
	passwordFields: readonly string[],
): string[] {
	if (!credentials) return [];
	const out: string[] = [];
	const add = (value: unknown) => {
		if (typeof value === 'string' && value !== '') out.push(value);
	};
	for (const field of passwordFields) add(credentials[field]);
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

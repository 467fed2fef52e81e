// What the nodes leave out of their items, and why: docs/architecture.md#minimise
import type { INodeProperties } from 'n8n-workflow';
import {
	type Found,
	identityNumberOfNumber,
	isIban,
	leftOutForm,
	maskedForm,
	replaceIdentityNumbers,
	UUID_SHAPE,
} from '../identity-search';
import { personalMasker } from '../personal';
import { MAX_DEPTH } from './envelope';
import { isObject, type JsonObject } from '../json';

export type MinimiseMode = 'keep' | 'mask' | 'leaveOut';

export const MINIMISE_PARAMETER = 'minimisePersonalData';

export const MINIMISE_DEFAULT: MinimiseMode = 'mask';

export const MINIMISE_OPTIONS: Array<{ name: string; value: MinimiseMode; description: string }> = [
	{
		name: 'Keep Everything',
		value: 'keep',
		description: 'Every field as the service sent it',
	},
	{
		name: 'Leave Out National ID',
		value: 'leaveOut',
		description:
			'National IDs and authorization codes left out; other identity numbers as ***********',
	},
	{
		name: 'Mask National ID',
		value: 'mask',
		description: 'Identity numbers shown as *********NN; authorization codes left out',
	},
];

// Anything unknown minimises the most: a wrong setting must not put more personal data into executions.
export function minimiseMode(value: unknown): MinimiseMode {
	return value === 'keep' || value === 'mask' ? value : 'leaveOut';
}

const SHOWN = 2;

// The last two are check digits: enough to tell applicants apart by eye, not to find a person.
export function maskNationalId(value: unknown): unknown {
	if (Number.isFinite(value)) value = String(value);
	if (typeof value !== 'string') return value;
	const shown = value.length > SHOWN * 2 ? SHOWN : 0;
	return '*'.repeat(value.length - shown) + value.slice(value.length - shown);
}

// Key spellings compared without case, `_`, `-`, `.` or spaces: `authorization_code` is `authorizationcode`.
const AUTHORIZATION_CODE = /^auth(orization|z)?code$/;
// Values under these keys are identity numbers even when they fail the check digits (mistyped).
const IDENTITY_KEY =
	/^(nationalid(entitynumber|number)?|ssn|pid|[fd]nr|f(o|ø|oe)dselsnummer|person(nummer|identifikator)|(norsk)?identifikator)$/;

const keyName = (key: string): string => key.toLowerCase().replace(/[\s_.-]/g, '');

// Keys that name an account or a KID, in that comparison (`payoutAccount`, `kontonummer`, `IBAN`,
// `kid_nr`): a value under them that is only such a number passes as it was (an identity number
// passes an account number's check by construction, so nothing else can tell them apart).
const BUSINESS_KEY = /(?:accounts?|konto|kontoer|ibans?|bbans?|kid)(?:numbers?|nummer|nr|no|num)?$/;
const DIGIT_GROUPS = /^\s*\d+(?:[\s.-]\d+)*\s*$/;

const isBusinessScalar = (value: unknown): boolean =>
	typeof value === 'number' ||
	(typeof value === 'string' && (DIGIT_GROUPS.test(value) || isIban(value)));

// Anything deeper could not be checked, so it is left out (an empty object or array in its place).
export const MINIMISE_DEPTH = MAX_DEPTH + 1;

/** What every text of an item goes through (Mask and Leave Out): identity numbers found by value, the known names. */
function textMinimiser(mode: MinimiseMode, names: readonly string[]): (text: string) => string {
	const form: (found: Found, written: string) => string =
		mode === 'mask' ? maskedForm : leftOutForm;
	const maskNames = personalMasker({ identityNumbers: [], names: [...names] });
	return (text) => maskNames(replaceIdentityNumbers(text, form));
}

interface Walk {
	mode: MinimiseMode;
	text: (text: string) => string;
}

function minimiseScalar(value: unknown, walk: Walk): unknown {
	if (typeof value === 'string') return walk.text(value);
	// an 11-digit number only (a number stays a number); true, false and null never pass the check
	const digits = identityNumberOfNumber(value);
	if (digits === undefined) return value;
	const found = { start: 0, end: 0, digits };
	return walk.mode === 'mask' ? maskedForm(found) : leftOutForm(found, digits);
}

function minimiseEntry(key: string, entry: unknown, walk: Walk, depth: number): unknown {
	const name = keyName(key);
	if (AUTHORIZATION_CODE.test(name)) return undefined;
	// one such number, or a list of them
	if (BUSINESS_KEY.test(name) && [entry].flat().every(isBusinessScalar)) return entry;
	if (!IDENTITY_KEY.test(name)) return minimiseValue(entry, walk, depth + 1);
	const scalar = entry === null || typeof entry === 'string' || typeof entry === 'number';
	return walk.mode === 'mask' && scalar ? maskNationalId(entry) : undefined;
}

/** Two keys that mask alike (two persons' numbers) stay two: the later gets ` (2)`, ` (3)`, … */
function unused(key: string, used: Set<string>): string {
	let name = key;
	for (let n = 2; used.has(name); n++) name = `${key} (${n})`;
	used.add(name);
	return name;
}

function minimiseValue(value: unknown, walk: Walk, depth: number): unknown {
	if (Array.isArray(value)) {
		return depth < MINIMISE_DEPTH
			? value.map((entry) => minimiseValue(entry, walk, depth + 1))
			: [];
	}
	if (!isObject(value)) return minimiseScalar(value, walk);
	const entries: Array<[string, unknown]> = [];
	const used = new Set<string>();
	for (const [key, entry] of depth < MINIMISE_DEPTH ? Object.entries(value) : []) {
		const kept = minimiseEntry(key, entry, walk, depth);
		if (kept !== undefined) entries.push([unused(walk.text(key), used), kept]);
	}
	// fromEntries defines own properties: a `__proto__` key stays a key
	return Object.fromEntries(entries);
}

/** Every string, key and number at any depth searched (Mask and Leave Out); named fields as before. */
export function minimiseValues<T>(value: T, mode: MinimiseMode, names: readonly string[] = []): T {
	if (mode === 'keep') return value;
	return minimiseValue(value, { mode, text: textMinimiser(mode, names) }, 0) as T;
}

export function minimiseUnrecognisedItem(
	item: JsonObject,
	rawText: string,
	mode: MinimiseMode,
): JsonObject {
	if (mode === 'keep') return item;
	const minimised: JsonObject = {};
	for (const [key, value] of Object.entries(item)) {
		if (key === 'rawBody') minimised.rawBodyLength = rawText.length;
		else if (key !== 'rawBodyTruncated') minimised[key] = value;
	}
	return minimiseValues(minimised, mode);
}

export function minimiseProperty(
	description: string,
	show?: { [parameter: string]: string[] },
): INodeProperties {
	return {
		displayName: 'Minimise Personal Data',
		name: MINIMISE_PARAMETER,
		type: 'options',
		options: MINIMISE_OPTIONS,
		default: MINIMISE_DEFAULT,
		description,
		...(show && { displayOptions: { show } }),
	};
}

// The allow-list of Include Headers (README): facts about the request, none a credential.
export const ALLOWED_HEADERS: readonly string[] = [
	'content-type',
	'content-length',
	'content-encoding',
	'user-agent',
];

// Header names (anywhere in the lower-cased name) that carry a credential, an identity assertion or a
// signature (proxies in front of n8n add them); never output.
const CREDENTIAL_NAME =
	/(^|[-_.])auth|cookie|session|sign|secret|passw(or)?d|token|credential|csrf|xsrf|(api|access|private|subscription|functions|client|app)[-_]?key|jwt|assertion|hmac|principal|oidc|dpop|iap|bearer|saml|identity/;
const UUID = new RegExp(`^${UUID_SHAPE}$`, 'i');
const LONG_WORD = /^[A-Za-z0-9+/_=.~-]{32,}$/;
const TOKEN_VALUE =
	/(?<![A-Za-z0-9_-])eyJ[A-Za-z0-9_-]{5,}\.|^(bearer|basic|dpop|digest|negotiate)\b|\bsha\d+=|\b(v\d|t)=[A-Za-z0-9+/=]{16,}/i;

/** A header value that looks like a token or a signature: a JWT, an auth scheme, one long opaque word. */
export function looksLikeToken(value: string): boolean {
	const word = value.trim();
	if (TOKEN_VALUE.test(word)) return true;
	return LONG_WORD.test(word) && !UUID.test(word) && /\d/.test(word) && /[A-Za-z]/.test(word);
}

/** The names of the Additional Headers option: comma- or space-separated, any case. */
export function headerNames(option: unknown): string[] {
	return typeof option === 'string' ? (option.toLowerCase().match(/[^\s,]+/g) ?? []) : [];
}

// Every mode: a header not on the list, or whose name or value looks like a token, is left out.
export function minimiseHeaders(
	headers: Record<string, unknown>,
	mode: MinimiseMode,
	added: readonly string[] = [],
): Record<string, unknown> {
	const allowed = new Set([...ALLOWED_HEADERS, ...added]);
	const entries: Array<[string, unknown]> = [];
	for (const [name, value] of Object.entries(headers)) {
		const lower = name.toLowerCase();
		const token = [value].flat().some((v) => typeof v === 'string' && looksLikeToken(v));
		if (!allowed.has(lower) || CREDENTIAL_NAME.test(lower) || token) continue;
		entries.push([name, minimiseValues(value, mode)]);
	}
	return Object.fromEntries(entries);
}

import { createHash } from 'crypto';

/**
 * The delivery id (`webhookId`, else the older `id`) read from the exact bytes of its JSON
 * token: the id shown to users (a string) and the exact key duplicates are detected on.
 * Pure functions, no n8n imports.
 *
 * Key rule (one key per id, different ids never share a key):
 * - a string id whose bytes are valid UTF-8 is its JSON string value (`"abc"` and `"\u0061bc"`
 *   are one id); the key is that value when it is plain (no control character, no lone
 *   surrogate, not starting with `~`), else `~s:` + its JSON text;
 * - a string id whose bytes are not valid UTF-8: `~b:` + the raw bytes between the quotes in
 *   hex (decoding would turn different bytes into the same U+FFFD);
 * - a number id: `~n:` + the number exactly as written (`12345678901234567890`, `1.0`);
 * - any key longer than {@link MAX_KEY_BYTES} bytes of JSON text is replaced by `~h:` + the
 *   hex SHA-256 of it (67 characters), so every remembered key has a fixed maximum size.
 * Plain keys never start with `~`, and the tags differ, so the forms cannot collide.
 * A blank string id, or an id of another type, is no id.
 */

/** Longest key kept as it is: bytes of its JSON text without the quotes. */
export const MAX_KEY_BYTES = 64;

/** Longest remembered key in JSON, quotes included: `"~h:` + 64 hex + `"`. */
export const MAX_KEY_JSON_BYTES = 69;

export interface DeliveryId {
	/** The id as shown in the item and the answer. */
	display: string;
	/** The exact duplicate key. */
	key: string;
}

const NUMBER = /^-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?$/;

// eslint-disable-next-line no-control-regex
const NOT_PLAIN =
	/[\u0000-\u001f\u007f]|[\ud800-\udbff](?![\udc00-\udfff])|(^|[^\ud800-\udbff])[\udc00-\udfff]|^~/;

/** The bounded form of a key: itself when short, else its digest. */
function bounded(key: string): string {
	if (Buffer.byteLength(JSON.stringify(key)) - 2 <= MAX_KEY_BYTES) return key;
	return `~h:${createHash('sha256').update(key, 'utf8').digest('hex')}`;
}

/** The key of a string id given by its value (also used for ids stored by version 1). */
export function keyOfStringValue(value: string): string {
	return bounded(NOT_PLAIN.test(value) ? `~s:${JSON.stringify(value)}` : value);
}

function isValidUtf8(bytes: Buffer): boolean {
	return Buffer.from(bytes.toString('utf8'), 'utf8').equals(bytes);
}

/** The id a value token stands for; null for a blank string, another type or a bad token. */
export function deliveryIdOfToken(token: Buffer): DeliveryId | null {
	const text = token.toString('utf8');
	if (token[0] === 0x22) {
		let value: unknown;
		try {
			value = JSON.parse(text);
		} catch {
			return null;
		}
		if (typeof value !== 'string' || value.trim() === '') return null;
		if (isValidUtf8(token)) return { display: value, key: keyOfStringValue(value) };
		return { display: value, key: bounded(`~b:${token.subarray(1, -1).toString('hex')}`) };
	}
	if (NUMBER.test(text)) return { display: text, key: bounded(`~n:${text}`) };
	return null;
}

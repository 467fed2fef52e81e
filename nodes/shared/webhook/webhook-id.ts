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
 * - a delivery whose id is not signed or absent: `~d:` + the hex HMAC of its signed bytes
 *   ({@link keyOfSignedBytes}), so that copies of one body share one key.
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

/** No control character, no lone surrogate, not starting with `~`. */
function isPlain(value: string): boolean {
	if (value.startsWith('~')) return false;
	for (let i = 0; i < value.length; i++) {
		const unit = value.charCodeAt(i);
		if (unit < 0x20 || unit === 0x7f) return false;
		if (unit >= 0xd800 && unit <= 0xdbff) {
			const next = value.charCodeAt(i + 1);
			if (!(next >= 0xdc00 && next <= 0xdfff)) return false;
			i++;
		} else if (unit >= 0xdc00 && unit <= 0xdfff) {
			return false;
		}
	}
	return true;
}

/** The bounded form of a key: itself when short, else its digest. */
function bounded(key: string): string {
	if (Buffer.byteLength(JSON.stringify(key)) - 2 <= MAX_KEY_BYTES) return key;
	return `~h:${createHash('sha256').update(key, 'utf8').digest('hex')}`;
}

/** The key of a string id given by its value (also used for ids stored by version 1). */
export function keyOfStringValue(value: string): string {
	return bounded(isPlain(value) ? value : `~s:${JSON.stringify(value)}`);
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

/** The key of a delivery's signed bytes: `~d:` + the hex HMAC-SHA256 its signature was checked with. */
export function keyOfSignedBytes(digestHex: string): string {
	return `~d:${digestHex}`;
}

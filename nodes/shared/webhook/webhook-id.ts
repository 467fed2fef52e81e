import { createHash, createHmac } from 'crypto';

// One key per id, different ids never share one: docs/architecture.md#webhook-id

const MAX_KEY_BYTES = 64;

export const MAX_KEY_JSON_BYTES = 69;

const NUMBER = /^-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?$/;

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

function bounded(key: string): string {
	if (Buffer.byteLength(JSON.stringify(key)) - 2 <= MAX_KEY_BYTES) return key;
	return `~h:${createHash('sha256').update(key, 'utf8').digest('hex')}`;
}

export function keyOfStringValue(value: string): string {
	return bounded(isPlain(value) ? value : `~s:${JSON.stringify(value)}`);
}

export function deliveryIdOfToken(token: Buffer): { display: string; key: string } | null {
	const text = token.toString('utf8');
	if (token[0] === 0x22) {
		let value: unknown;
		try {
			value = JSON.parse(text);
		} catch {
			return null;
		}
		if (typeof value !== 'string' || value.trim() === '') return null;
		// bytes that are valid UTF-8 survive decoding and encoding again unchanged
		if (Buffer.from(text, 'utf8').equals(token))
			return { display: value, key: keyOfStringValue(value) };
		return { display: value, key: bounded(`~b:${token.subarray(1, -1).toString('hex')}`) };
	}
	if (NUMBER.test(text)) return { display: text, key: bounded(`~n:${text}`) };
	return null;
}

const BODY_KEY_LABEL = 'n8n-nodes-sbl delivery key v1';

/**
 * The key of a delivery without a signed id under one signing secret: an HMAC of the exact bytes
 * under a key derived from the secret, so it never verifies as a signature and cannot be checked
 * against a guessed body without the secret (docs/architecture.md, "One key per delivery").
 */
export function keyOfSignedBody(rawBody: Buffer, secret: string): string {
	return `~k:${derivedHmac(secret, BODY_KEY_LABEL, rawBody)}`;
}

export function derivedHmac(secret: string, label: string, data: Buffer | string): string {
	const derived = createHmac('sha256', secret).update(label).digest();
	return createHmac('sha256', derived).update(data).digest('hex');
}

const MATCH_KEY_LABEL = 'n8n-nodes-sbl match key v1';

/** A value compared without being kept (Create and Wait's External ID): an HMAC under a key derived from a signing secret. */
export function matchKey(value: string, secret: string): string {
	return `~m:${derivedHmac(secret, MATCH_KEY_LABEL, value)}`;
}

// Bytes, not decoded text: an ASCII byte is that character in UTF-8 even beside invalid sequences.
// No recursion: a body nested 200,000 levels deep costs one loop, never the stack.

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const COMMA = 0x2c;
const COLON = 0x3a;

const isWhitespace = (b: number) => b === 0x20 || b === 0x09 || b === 0x0a || b === 0x0d;

export function withoutBom(bytes: Buffer): Buffer {
	return bytes.length >= 3 && bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf
		? bytes.subarray(3)
		: bytes;
}

// Brackets outside strings, in any bytes; a top-level object is depth 1.
export function exceedsDepth(bytes: Uint8Array, maxDepth: number): boolean {
	let depth = 0;
	let inString = false;
	for (let i = 0; i < bytes.length; i++) {
		const b = bytes[i];
		if (inString) {
			if (b === BACKSLASH) i++;
			else if (b === QUOTE) inString = false;
		} else if (b === QUOTE) {
			inString = true;
		} else if (b === OPEN_BRACE || b === OPEN_BRACKET) {
			depth++;
			if (depth > maxDepth) return true;
		} else if ((b === CLOSE_BRACE || b === CLOSE_BRACKET) && depth > 0) {
			depth--;
		}
	}
	return false;
}

function skipWhitespace(bytes: Uint8Array, i: number): number {
	while (i < bytes.length && isWhitespace(bytes[i])) i++;
	return i;
}

function stringEnd(bytes: Uint8Array, i: number): number {
	for (let j = i + 1; j < bytes.length; j++) {
		if (bytes[j] === BACKSLASH) j++;
		else if (bytes[j] === QUOTE) return j + 1;
	}
	return -1;
}

function valueEnd(bytes: Uint8Array, i: number): number {
	const first = bytes[i];
	if (first === QUOTE) return stringEnd(bytes, i);
	if (first === OPEN_BRACE || first === OPEN_BRACKET) {
		let depth = 0;
		for (let j = i; j < bytes.length; j++) {
			const b = bytes[j];
			if (b === QUOTE) {
				j = stringEnd(bytes, j);
				if (j < 0) return -1;
				j--;
			} else if (b === OPEN_BRACE || b === OPEN_BRACKET) {
				depth++;
			} else if (b === CLOSE_BRACE || b === CLOSE_BRACKET) {
				depth--;
				if (depth === 0) return j + 1;
			}
		}
		return -1;
	}
	// A number or a literal: up to the next delimiter.
	let j = i;
	while (
		j < bytes.length &&
		!isWhitespace(bytes[j]) &&
		bytes[j] !== COMMA &&
		bytes[j] !== CLOSE_BRACE &&
		bytes[j] !== CLOSE_BRACKET
	) {
		j++;
	}
	return j > i ? j : -1;
}

function memberName(token: Buffer): string | null {
	try {
		const name: unknown = JSON.parse(token.toString('utf8'));
		return typeof name === 'string' ? name : null;
	} catch {
		return null;
	}
}

// The last occurrence wins, as in JSON.parse; stops at the first thing it does not understand.
export function topLevelMembers(bytes: Buffer, names: readonly string[]): Map<string, Buffer> {
	const found = new Map<string, Buffer>();
	let i = skipWhitespace(bytes, 0);
	if (bytes[i] !== OPEN_BRACE) return found;
	i = skipWhitespace(bytes, i + 1);
	while (i < bytes.length && bytes[i] === QUOTE) {
		const keyEnd = stringEnd(bytes, i);
		if (keyEnd < 0) break;
		const name = memberName(bytes.subarray(i, keyEnd));
		i = skipWhitespace(bytes, keyEnd);
		if (bytes[i] !== COLON) break;
		i = skipWhitespace(bytes, i + 1);
		const end = valueEnd(bytes, i);
		if (end < 0) break;
		if (name !== null && names.includes(name)) found.set(name, bytes.subarray(i, end));
		i = skipWhitespace(bytes, end);
		if (bytes[i] !== COMMA) break;
		i = skipWhitespace(bytes, i + 1);
	}
	return found;
}

/** A body read once: the named top-level members of its bytes (without a BOM), and its JSON value unless too deep. */
export function scanBody(
	raw: Buffer,
	names: readonly string[],
	maxDepth: number,
): { members: Map<string, Buffer>; json: { value: unknown } | 'too-deep' | 'not-json' } {
	const bytes = withoutBom(raw);
	const members = topLevelMembers(bytes, names);
	// checked on the bytes before JSON.parse
	if (exceedsDepth(bytes, maxDepth)) return { members, json: 'too-deep' };
	try {
		return { members, json: { value: JSON.parse(bytes.toString('utf8')) as unknown } };
	} catch {
		return { members, json: 'not-json' };
	}
}

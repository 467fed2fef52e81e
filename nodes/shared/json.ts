export type JsonObject = { [key: string]: unknown };

export function isObject<T extends object = JsonObject>(value: unknown): value is T {
	return typeof value === 'object' && value !== null && !Array.isArray(value);
}

// Exact, not trimmed: CloudEvents' `type` and `source` are compared and reported as sent.
export function nonEmptyString(value: unknown): string | null {
	return typeof value === 'string' && value.length > 0 ? value : null;
}

/** The first value `pick` finds in `error` or its chain of causes (five deep at most). */
export function findInCauses<T>(
	error: unknown,
	pick: (record: JsonObject) => T | undefined,
): T | undefined {
	let current = error;
	for (let depth = 0; depth < 5 && isObject(current); depth++) {
		const found = pick(current);
		if (found !== undefined) return found;
		current = current.cause;
	}
	return undefined;
}

/** Headers as a plain object: axios keeps them as an AxiosHeaders object with toJSON(). */
export function plainHeaders(headers: unknown): JsonObject {
	if (!isObject(headers)) return {};
	const plain =
		typeof headers.toJSON === 'function' ? (headers.toJSON as () => unknown)() : headers;
	return isObject(plain) ? plain : {};
}

export type JsonObject = { [key: string]: unknown };

export function isObject<T extends object = JsonObject>(value: unknown): value is T {
	return typeof value === 'object' && value !== null && !Array.isArray(value);
}

// Exact, not trimmed: CloudEvents' `type` and `source` are compared and reported as sent.
export function nonEmptyString(value: unknown): string | null {
	return typeof value === 'string' && value.length > 0 ? value : null;
}

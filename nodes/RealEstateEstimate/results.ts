import type { IDataObject } from 'n8n-workflow';
import type { OperationResult } from '../shared/runner';

/**
 * The unwrapped `data` of a response → output items: an object → one item; an array → one item
 * per element; null or absent (the service has nothing for the object) → no item, as n8n nodes
 * do for "nothing found" (the node setting "Always Output Data" turns that into an empty item).
 */
export function dataToResults(data: unknown): OperationResult[] {
	if (data === null || data === undefined) return [];
	if (Array.isArray(data)) return data.flatMap((entry) => dataToResults(entry));
	if (typeof data === 'object') return [{ json: data as IDataObject }];
	return [{ json: { value: data as string | number | boolean } }];
}

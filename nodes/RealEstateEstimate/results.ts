import type { IDataObject } from 'n8n-workflow';
import type { OperationResult } from '../shared/runner';

export function dataToResults(data: unknown): OperationResult[] {
	if (data === null || data === undefined) return [];
	if (Array.isArray(data)) return data.flatMap((entry) => dataToResults(entry));
	if (typeof data === 'object') return [{ json: data as IDataObject }];
	return [{ json: { value: data as string | number | boolean } }];
}

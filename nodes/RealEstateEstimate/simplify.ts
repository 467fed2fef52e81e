// n8n's UX guideline: at most 10 fields, the most used first. `object` is added (the API does not
// repeat it) so that an AI agent or a later node can tell answers apart.
import type { IDataObject, INodeProperties } from 'n8n-workflow';
import { describeObject } from './identity';
import type { ObjectIdentity } from './identity';
import type { OperationResult } from '../shared/runner';

/** In output order, documented in the README. */
export const SIMPLIFIED_ESTIMATE_FIELDS = [
	'object',
	'approvedTotalMarketValue',
	'approvedNetMarketValue',
	'estimateUncertaintyLevel',
	'estimateTotalMarketValue',
	'estimateAdjustmentType',
	'commondebtLastUpdated',
	'estimateDate',
	'comparables',
	'storedEstimateDocumentationId',
] as const;

export const SIMPLIFIED_BASIS_FIELDS = [
	'object',
	'estateType',
	'ownershipType',
	'buildYear',
	'usableArea',
	'primaryArea',
	'floor',
	'currentCommondebt',
	'valuationDate',
	'valuationTotalValue',
] as const;

export function simplifyField(operations: string[]): INodeProperties {
	return {
		displayName: 'Simplify',
		name: 'simplify',
		type: 'boolean',
		default: true,
		description: 'Whether to return a simplified version of the response instead of the raw data',
		displayOptions: { show: { resource: ['estimate'], operation: operations } },
	};
}

function isObject(value: unknown): value is IDataObject {
	return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function pick(target: IDataObject, source: IDataObject, fields: readonly string[]): void {
	for (const field of fields) {
		if (source[field] !== undefined) target[field] = source[field];
	}
}

/** "Storgata 12B, 0155 Oslo" from an AddressResponseDto (parts that are absent are left out). */
export function addressLine(address: unknown): string | undefined {
	if (!isObject(address)) return undefined;
	const street = [address.streetName, address.streetNumber, address.streetLetter]
		.filter((part) => part !== null && part !== undefined && part !== '')
		.join(' ')
		.replace(/(\d) ([A-Za-z])$/, '$1$2');
	const post = isObject(address.postOffice) ? address.postOffice : {};
	const code =
		typeof post.code === 'number' ? String(post.code).padStart(4, '0') : (post.code ?? undefined);
	const place = [code, post.name ?? address.municipality]
		.filter((part) => part !== null && part !== undefined && part !== '')
		.join(' ');
	const line = [street, place].filter(Boolean).join(', ');
	return line || undefined;
}

function simplifyComparable(comparable: unknown): IDataObject {
	if (!isObject(comparable)) return {};
	const valuation = isObject(comparable.valuation) ? comparable.valuation : {};
	const result: IDataObject = {};
	const address = addressLine(comparable.address);
	if (address !== undefined) result.address = address;
	if (valuation.date !== undefined) result.saleDate = valuation.date;
	if (valuation.totalValue !== undefined) result.totalValue = valuation.totalValue;
	pick(result, comparable, ['primaryArea', 'squaremeterPrice', 'buildYear']);
	return result;
}

export function simplifyEstimate(
	data: IDataObject,
	identity: ObjectIdentity,
	estimateDate: string | undefined,
): IDataObject {
	const result: IDataObject = { object: describeObject(identity) };
	pick(result, data, [
		'approvedTotalMarketValue',
		'approvedNetMarketValue',
		'estimateUncertaintyLevel',
		'estimateTotalMarketValue',
		'estimateAdjustmentType',
		'commondebtLastUpdated',
	]);
	if (estimateDate !== undefined) result.estimateDate = estimateDate;
	if (Array.isArray(data.comparables))
		result.comparables = data.comparables.map(simplifyComparable);
	pick(result, data, ['storedEstimateDocumentationId']);
	return result;
}

export function simplifyBasis(data: IDataObject, identity: ObjectIdentity): IDataObject {
	const result: IDataObject = { object: describeObject(identity) };
	pick(result, data, [
		'estateType',
		'ownershipType',
		'buildYear',
		'usableArea',
		'primaryArea',
		'floor',
		'currentCommondebt',
	]);
	const valuation = isObject(data.valuation) ? data.valuation : {};
	if (valuation.date !== undefined) result.valuationDate = valuation.date;
	if (valuation.totalValue !== undefined) result.valuationTotalValue = valuation.totalValue;
	return result;
}

export function simplifyResults(
	results: OperationResult[],
	simplify: (json: IDataObject) => IDataObject,
): OperationResult[] {
	return results.map((result) => ({ ...result, json: simplify(result.json) }));
}

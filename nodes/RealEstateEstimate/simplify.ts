// n8n's UX guideline: at most 10 fields, the most used first. `object` is added (the API does not
// repeat it) so that an AI agent or a later node can tell answers apart.
import type { IDataObject } from 'n8n-workflow';
import { isObject } from '../shared/json';

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

/** "Storgata 12B, 0155 Oslo" from an AddressResponseDto (parts that are absent are left out). */
export function addressLine(address: unknown): string | undefined {
	if (!isObject<IDataObject>(address)) return undefined;
	const street = [address.streetName, address.streetNumber, address.streetLetter]
		.filter((part) => part !== null && part !== undefined && part !== '')
		.join(' ')
		.replace(/(\d) ([A-Za-z])$/, '$1$2');
	const post = isObject<IDataObject>(address.postOffice) ? address.postOffice : {};
	const code =
		typeof post.code === 'number' ? String(post.code).padStart(4, '0') : (post.code ?? undefined);
	const place = [code, post.name ?? address.municipality]
		.filter((part) => part !== null && part !== undefined && part !== '')
		.join(' ');
	const line = [street, place].filter(Boolean).join(', ');
	return line || undefined;
}

function simplifyComparable(comparable: unknown): IDataObject {
	if (!isObject<IDataObject>(comparable)) return {};
	const valuation = isObject<IDataObject>(comparable.valuation) ? comparable.valuation : {};
	const result: IDataObject = {};
	const address = addressLine(comparable.address);
	if (address !== undefined) result.address = address;
	if (valuation.date !== undefined) result.saleDate = valuation.date;
	if (valuation.totalValue !== undefined) result.totalValue = valuation.totalValue;
	for (const field of ['primaryArea', 'squaremeterPrice', 'buildYear']) {
		if (comparable[field] !== undefined) result[field] = comparable[field];
	}
	return result;
}

/** The fields in their listed order: a derived value where there is one, else the API's own. */
function inOrder(fields: readonly string[], data: IDataObject, derived: IDataObject): IDataObject {
	const result: IDataObject = {};
	for (const field of fields) {
		const value = Object.prototype.hasOwnProperty.call(derived, field)
			? derived[field]
			: data[field];
		if (value !== undefined) result[field] = value;
	}
	return result;
}

/** `object`: the object's label, such as "cadastre 0301-208/12/0/0". */
export function simplifyEstimate(
	data: IDataObject,
	object: string,
	estimateDate: string | undefined,
): IDataObject {
	return inOrder(SIMPLIFIED_ESTIMATE_FIELDS, data, {
		object,
		estimateDate,
		comparables: Array.isArray(data.comparables)
			? data.comparables.map(simplifyComparable)
			: undefined,
	});
}

export function simplifyBasis(data: IDataObject, object: string): IDataObject {
	const valuation = isObject<IDataObject>(data.valuation) ? data.valuation : {};
	return inOrder(SIMPLIFIED_BASIS_FIELDS, data, {
		object,
		valuationDate: valuation.date,
		valuationTotalValue: valuation.totalValue,
	});
}

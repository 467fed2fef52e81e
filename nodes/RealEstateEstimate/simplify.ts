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

const objectIn = (value: unknown): IDataObject => (isObject<IDataObject>(value) ? value : {});
const join = (parts: unknown[], separator: string) =>
	parts.filter((part) => part !== null && part !== undefined && part !== '').join(separator);

/** "Storgata 12B, 0155 Oslo" from an AddressResponseDto (parts that are absent are left out). */
export function addressLine(value: unknown): string | undefined {
	const address = objectIn(value);
	const post = objectIn(address.postOffice);
	const code = typeof post.code === 'number' ? String(post.code).padStart(4, '0') : post.code;
	const street = join(
		[address.streetName, join([address.streetNumber, address.streetLetter], '')],
		' ',
	);
	return join([street, join([code, post.name ?? address.municipality], ' ')], ', ') || undefined;
}

/** The fields in their listed order: a derived value where there is one, else the API's own. */
function inOrder(fields: readonly string[], data: IDataObject, derived: IDataObject): IDataObject {
	const result: IDataObject = {};
	for (const field of fields) {
		const value = field in derived ? derived[field] : data[field];
		if (value !== undefined) result[field] = value;
	}
	return result;
}

const COMPARABLE_FIELDS = [
	'address',
	'saleDate',
	'totalValue',
	'primaryArea',
	'squaremeterPrice',
	'buildYear',
];

/** `object`: the object's label, such as "cadastre 0301-208/12/0/0". */
export function simplifyEstimate(
	data: IDataObject,
	object: string,
	estimateDate: string | undefined,
): IDataObject {
	const comparables = Array.isArray(data.comparables)
		? data.comparables.map(objectIn).map((comparable) => {
				const { date, totalValue } = objectIn(comparable.valuation);
				const address = addressLine(comparable.address);
				return inOrder(COMPARABLE_FIELDS, comparable, { address, saleDate: date, totalValue });
			})
		: undefined;
	return inOrder(SIMPLIFIED_ESTIMATE_FIELDS, data, { object, estimateDate, comparables });
}

export function simplifyBasis(data: IDataObject, object: string): IDataObject {
	const { date, totalValue } = objectIn(data.valuation);
	return inOrder(SIMPLIFIED_BASIS_FIELDS, data, {
		object,
		valuationDate: date,
		valuationTotalValue: totalValue,
	});
}

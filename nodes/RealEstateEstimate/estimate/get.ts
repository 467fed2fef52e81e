// Estimate → Get: its fields and its body (EstimateInputDto) from one table; empty fields are never sent.
import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import type { Operation } from '../../shared/runner';
import {
	dateInputToString,
	fail,
	INT32_MAX,
	INT32_MIN,
	isEmpty,
	ISO_RULE,
	isIsoDateTime,
	ok,
	show,
	toNumber,
} from '../../shared/validation';
import type { Check, Fields } from '../../shared/validation';
import { apiJson, readObject, RESEND_ANY_FAILURE, RESEND_WHEN_NOT_ACTED } from '../api';
import type { EstimateObject } from '../api';
import { simplifyEstimate } from '../simplify';

/** A number (whole: an int32 of the API) in its range, text, or an ISO 8601 date. */
type Rule = { min?: number; max?: number; whole?: boolean } | 'text' | 'date';
type Entry = [name: string, displayName: string, rule: Rule, description?: string, required?: true];

const AMOUNT: Rule = { min: 0 };
const COUNT: Rule = { min: 0, whole: true };
const TEXT: Rule = 'text';
const FREE_TEXT = 'as the service names it (the allowed values are not published)';

const OVERRIDES: Entry[] = [
	['buildYear', 'Build Year', { min: 1000, max: 9999, whole: true }, 'Four-digit year built'],
	['currentCommondebt', 'Current Common Debt', AMOUNT, "The share's common debt (NOK)"],
	['estateType', 'Estate Type', TEXT, `Type of dwelling ${FREE_TEXT}`],
	['externalUsableArea', 'External Usable Area (BRA-E)', AMOUNT, 'In square metres'],
	['floor', 'Floor', { whole: true }, 'Floor the dwelling is on'],
	['glazedBalconyUsableArea', 'Glazed Balcony Usable Area (BRA-B)', AMOUNT, 'In square metres'],
	['grossArea', 'Gross Area (BTA)', AMOUNT, 'In square metres'],
	['internalUsableArea', 'Internal Usable Area (BRA-I)', AMOUNT, 'In square metres'],
	['numberOfBedrooms', 'Number of Bedrooms', COUNT],
	['numberOfFloorsInBuilding', 'Number of Floors in Building', COUNT],
	['ownershipType', 'Ownership Type', TEXT, `Form of ownership ${FREE_TEXT}`],
	['primaryArea', 'Primary Area (P-Rom)', AMOUNT, 'In square metres'],
	['siteArea', 'Site Area', AMOUNT, 'Size of the plot in square metres'],
	['siteType', 'Site Type', TEXT, `Plot ownership ${FREE_TEXT}`],
	['usableArea', 'Usable Area (BRA)', COUNT, 'In whole square metres'],
];

// ValuationInputDto: date, price and saleType are required
const VALUATION: Entry[] = [
	['date', 'Date', 'date', 'Date of the sale (ISO 8601)', true],
	['price', 'Price', AMOUNT, 'Price without common debt (NOK)', true],
	['saleType', 'Sale Type', TEXT, `Kind of sale ${FREE_TEXT}`, true],
	['commondebt', 'Common Debt', AMOUNT, 'Common debt at the sale (NOK), if known'],
];

function field(...[name, displayName, rule, description, required]: Entry): INodeProperties {
	const base = { displayName, name, description, required };
	if (rule === 'text') return { ...base, type: 'string', default: '' };
	if (rule === 'date') return { ...base, type: 'dateTime', default: '' };
	const { min: minValue, max: maxValue, whole } = rule;
	const typeOptions = { minValue, maxValue, numberPrecision: whole ? 0 : undefined };
	return { ...base, type: 'number', default: null, typeOptions } as INodeProperties;
}

function check(value: unknown, rule: Rule): Check<string | number> {
	if (rule === 'date') {
		const text = dateInputToString(value);
		return typeof text === 'string' && isIsoDateTime(text)
			? ok(text)
			: fail(`${ISO_RULE}, got ${show(text)}`);
	}
	if (rule === 'text')
		return typeof value === 'string' ? ok(value.trim()) : fail(`must be text, got ${show(value)}`);
	const { min = rule.whole ? INT32_MIN : -Infinity, max = rule.whole ? INT32_MAX : Infinity } =
		rule;
	const number = toNumber(value);
	if (
		number !== undefined &&
		number >= min &&
		number <= max &&
		(!rule.whole || Number.isInteger(number))
	)
		return ok(number);
	const range =
		rule.max !== undefined
			? ` from ${min} to ${max}`
			: rule.min !== undefined
				? ` of ${min} or more`
				: '';
	return fail(`must be ${rule.whole ? 'a whole number' : 'a number'}${range}, got ${show(value)}`);
}

function checkFlag(value: unknown): Check<boolean> {
	return typeof value === 'boolean' ? ok(value) : fail(`must be true or false, got ${show(value)}`);
}

const forGet = { resource: ['estimate'], operation: ['get'] };

export const getFields: INodeProperties[] = [
	{
		displayName: 'Include Comparables',
		name: 'includeComparables',
		type: 'boolean',
		default: false,
		description: 'Whether to include the comparable sales the estimate is based on',
		displayOptions: { show: forGet },
	},
	{
		displayName: 'Estimate Date',
		name: 'estimateDate',
		type: 'dateTime',
		default: '',
		description: 'Estimate as of this past date (ISO 8601); empty for now',
		displayOptions: { show: forGet },
	},
	{
		displayName: "Don't Store Estimate",
		name: 'dontStoreEstimate',
		type: 'boolean',
		default: false,
		description: 'Whether to keep the service from storing this estimate as a document',
		displayOptions: { show: forGet },
	},
	{
		displayName: 'Simplify',
		name: 'simplify',
		type: 'boolean',
		default: true,
		description: 'Whether to return a simplified version of the response instead of the raw data',
		displayOptions: { show: { resource: ['estimate'], operation: ['get', 'getBasis'] } },
	},
	{
		displayName: 'Overrides',
		name: 'overrides',
		type: 'collection',
		placeholder: 'Add override',
		default: {},
		description: 'Attributes that replace what the service holds for the object',
		displayOptions: { show: forGet },
		options: OVERRIDES.map((entry) => field(...entry)),
	},
	{
		displayName: 'Valuation',
		name: 'valuation',
		type: 'fixedCollection',
		placeholder: 'Add valuation',
		default: {},
		description: 'A known sale or valuation of the object for the estimate to take into account',
		displayOptions: { show: forGet },
		options: [
			{
				displayName: 'Valuation',
				name: 'valuationValues',
				values: VALUATION.map((entry) => field(...entry)),
			},
		],
	},
];

/** Throws for the first field that fails, before any request; no body when nothing is set. */
function estimateBody(ctx: IExecuteFunctions, fields: Fields, itemIndex: number) {
	const param = (name: string) => (ctx.getNodeParameter(name, itemIndex, {}) ?? {}) as IDataObject;
	const take = <T>(path: string, result: Check<T>): T => fields.take(itemIndex, path, result);
	// the set fields of a table, checked; a required one that is empty fails
	const collect = (values: IDataObject, table: Entry[], prefix: string) => {
		const result: IDataObject = {};
		for (const [name, , rule, , required] of table) {
			const value = values[name];
			if (required || !isEmpty(value))
				result[name] = take(
					`${prefix}.${name}`,
					isEmpty(value) ? fail('is required') : check(value, rule),
				);
		}
		return result;
	};
	const body = collect(param('overrides'), OVERRIDES, 'overrides');
	const date = ctx.getNodeParameter('estimateDate', itemIndex, '');
	if (!isEmpty(date)) body.estimateDate = take('estimateDate', check(date, 'date'));
	const flag = (name: string) =>
		take(name, checkFlag(ctx.getNodeParameter(name, itemIndex, false)));
	if (flag('includeComparables')) body.includeComparables = true;
	if (flag('dontStoreEstimate')) body.storeEstimate = false; // the API can only turn storing off
	const values = (param('valuation').valuationValues ?? {}) as IDataObject;
	if (Object.values(values).some((value) => !isEmpty(value)))
		body.valuation = collect(values, VALUATION, 'valuation');
	return Object.keys(body).length ? body : undefined;
}

/** What n8n's Retry On Fail would send again (shared/retry-on-fail.ts): an estimate any item may store. */
export function storesAgain(ctx: IExecuteFunctions): string | null {
	if (ctx.getNodeParameter('resource', 0) !== 'estimate') return null;
	if (ctx.getNodeParameter('operation', 0) !== 'get') return null;
	const mayStore = (itemIndex: number) => {
		try {
			return ctx.getNodeParameter('dontStoreEstimate', itemIndex, false) !== true;
		} catch {
			return true; // an expression that fails: it may store all the same
		}
	};
	return ctx.getInputData().some((_item, itemIndex) => mayStore(itemIndex))
		? 'send estimates again that the service may already have stored as documents. Or turn on "Don\'t Store Estimate" (Get Estimate) if no document is needed'
		: null;
}

export const get: Operation<{ object: EstimateObject; body?: IDataObject; simplify: boolean }> = {
	prepare: (ctx, { fields }, itemIndex) => ({
		object: readObject(ctx, fields, itemIndex),
		body: estimateBody(ctx, fields, itemIndex),
		simplify: ctx.getNodeParameter('simplify', itemIndex, true) !== false,
	}),

	async run(ctx, env, itemIndex, { object, body, simplify }) {
		const mayStore = body?.storeEstimate !== false;
		const results = await apiJson(
			ctx,
			env,
			itemIndex,
			{ method: 'POST', path: `${object.path}/EvEstimate`, body },
			{
				action: 'get the estimate',
				target: object.label,
				notFound: `Estimate could not be retrieved for ${object.label}`,
				mayStore,
			},
			mayStore ? RESEND_WHEN_NOT_ACTED : RESEND_ANY_FAILURE,
		);
		if (!simplify) return results;
		const date = body?.estimateDate as string | undefined;
		return results.map((result) => ({ json: simplifyEstimate(result.json, object.label, date) }));
	},
};

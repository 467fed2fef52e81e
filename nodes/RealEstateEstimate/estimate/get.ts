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

/** A number (whole: an int32 of the API) in its range, or text. */
type Rule = { min?: number; max?: number; whole?: boolean } | 'text';

const AMOUNT: Rule = { min: 0 };
const COUNT: Rule = { min: 0, whole: true };
const TEXT: Rule = 'text';
const FREE_TEXT = 'as the service names it (the allowed values are not published)';

const OVERRIDES: Array<[name: string, displayName: string, rule: Rule, description?: string]> = [
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

function field(name: string, displayName: string, rule: Rule, description?: string) {
	const base = { displayName, name, ...(description ? { description } : {}) };
	if (rule === 'text') return { ...base, type: 'string', default: '' } as INodeProperties;
	const typeOptions: INodeProperties['typeOptions'] = {};
	if (rule.min !== undefined) typeOptions.minValue = rule.min;
	if (rule.max !== undefined) typeOptions.maxValue = rule.max;
	if (rule.whole) typeOptions.numberPrecision = 0;
	return { ...base, type: 'number', default: null, typeOptions } as INodeProperties;
}

function check(value: unknown, rule: Rule): Check<string | number> {
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

function checkDate(value: unknown): Check<string> {
	const text = dateInputToString(value);
	return typeof text === 'string' && isIsoDateTime(text)
		? ok(text)
		: fail(`${ISO_RULE}, got ${show(text)}`);
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
				values: [
					{
						...field('date', 'Date', TEXT, 'Date of the sale (ISO 8601)'),
						type: 'dateTime',
						required: true,
					},
					{ ...field('price', 'Price', AMOUNT, 'Price without common debt (NOK)'), required: true },
					{ ...field('saleType', 'Sale Type', TEXT, `Kind of sale ${FREE_TEXT}`), required: true },
					field('commondebt', 'Common Debt', AMOUNT, 'Common debt at the sale (NOK), if known'),
				],
			},
		],
	},
];

/** Throws for the first field that fails, before any request; no body when nothing is set. */
function estimateBody(ctx: IExecuteFunctions, fields: Fields, itemIndex: number) {
	const param = (name: string, fallback: unknown) =>
		ctx.getNodeParameter(name, itemIndex, fallback);
	const take = <T>(path: string, result: Check<T>): T => fields.take(itemIndex, path, result);
	const body: IDataObject = {};
	const overrides = (param('overrides', {}) ?? {}) as IDataObject;
	for (const [name, , rule] of OVERRIDES) {
		if (!isEmpty(overrides[name]))
			body[name] = take(`overrides.${name}`, check(overrides[name], rule));
	}
	const date = param('estimateDate', '');
	if (!isEmpty(date)) body.estimateDate = take('estimateDate', checkDate(date));
	if (take('includeComparables', checkFlag(param('includeComparables', false))))
		body.includeComparables = true;
	// the API can only turn storing off
	if (take('dontStoreEstimate', checkFlag(param('dontStoreEstimate', false))))
		body.storeEstimate = false;
	const group = ((param('valuation', {}) ?? {}) as IDataObject).valuationValues;
	const values = ((Array.isArray(group) ? group[0] : group) ?? {}) as IDataObject;
	if (Object.values(values).some((value) => !isEmpty(value))) {
		const required = <T>(name: string, result: (value: unknown) => Check<T>): T =>
			take(`valuation.${name}`, isEmpty(values[name]) ? fail('is required') : result(values[name]));
		const valuation: IDataObject = {
			date: required('date', checkDate),
			price: required('price', (value) => check(value, AMOUNT)),
			saleType: required('saleType', (value) => check(value, TEXT)),
		};
		if (!isEmpty(values.commondebt))
			valuation.commondebt = take('valuation.commondebt', check(values.commondebt, AMOUNT));
		body.valuation = valuation;
	}
	return Object.keys(body).length ? body : undefined;
}

/** What n8n's Retry On Fail would send again (shared/retry-on-fail.ts): an estimate any item may store. */
export function storesAgain(ctx: IExecuteFunctions): string | null {
	if (ctx.getNodeParameter('resource', 0) !== 'estimate') return null;
	if (ctx.getNodeParameter('operation', 0) !== 'get') return null;
	for (let itemIndex = 0; itemIndex < ctx.getInputData().length; itemIndex++) {
		let dontStore: unknown;
		try {
			dontStore = ctx.getNodeParameter('dontStoreEstimate', itemIndex, false);
		} catch {
			dontStore = undefined; // an expression that fails: it may store all the same
		}
		if (dontStore !== true) {
			return 'send estimates again that the service may already have stored as documents. Or turn on "Don\'t Store Estimate" (Get Estimate) if no document is needed';
		}
	}
	return null;
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

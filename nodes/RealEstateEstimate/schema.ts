// zod is no runtime dependency of this package: n8n provides it (n8n-workflow peers zod 3.25.x).
// Empty parameters are dropped, never sent as null or ""; storeEstimate only as false (the API can only turn storing off).
import { z } from 'zod';
import {
	dateInputToString,
	INT32_MAX,
	INT32_MIN,
	isEmpty,
	ISO_RULE,
	isIsoDateTime,
	show,
	toNumber,
} from '../shared/validation';

const numeric = (value: unknown): unknown => toNumber(value) ?? value;

function wholeNumber(
	min: number,
	max: number,
	rule = `must be a whole number from ${min} to ${max}`,
) {
	return z.preprocess(
		numeric,
		z
			.number({ required_error: 'is required', invalid_type_error: rule })
			.int({ message: rule })
			.min(min, { message: rule })
			.max(max, { message: rule }),
	);
}

const AMOUNT_RULE = 'must be a number of 0 or more';
const amount = z.preprocess(
	numeric,
	z
		.number({ required_error: 'is required', invalid_type_error: AMOUNT_RULE })
		.finite({ message: AMOUNT_RULE })
		.nonnegative({ message: AMOUNT_RULE }),
);

const text = z
	.string({ required_error: 'is required', invalid_type_error: 'must be text' })
	.trim()
	.min(1, 'is required');

const dateTime = z.preprocess(
	dateInputToString,
	z
		.string({ required_error: 'is required', invalid_type_error: ISO_RULE })
		.refine(isIsoDateTime, ISO_RULE),
);

const flag = z.boolean({ invalid_type_error: 'must be true or false' });

const overrideShape = {
	buildYear: wholeNumber(
		1000,
		9999,
		'must be a four-digit year (whole number from 1000 to 9999)',
	).optional(),
	currentCommondebt: amount.optional(),
	estateType: text.optional(),
	externalUsableArea: amount.optional(),
	floor: wholeNumber(INT32_MIN, INT32_MAX, 'must be a whole number').optional(),
	glazedBalconyUsableArea: amount.optional(),
	grossArea: amount.optional(),
	internalUsableArea: amount.optional(),
	numberOfBedrooms: wholeNumber(0, INT32_MAX).optional(),
	numberOfFloorsInBuilding: wholeNumber(0, INT32_MAX).optional(),
	ownershipType: text.optional(),
	primaryArea: amount.optional(),
	siteArea: amount.optional(),
	siteType: text.optional(),
	usableArea: wholeNumber(
		0,
		INT32_MAX,
		'must be a whole number of square metres, 0 or more (the API takes an integer)',
	).optional(),
};

const valuationSchema = z
	.object({
		date: dateTime,
		price: amount,
		saleType: text,
		commondebt: amount.optional(),
	})
	.strict();

export const estimateInputSchema = z
	.object({
		...overrideShape,
		estimateDate: dateTime.optional(),
		includeComparables: flag.optional(),
		storeEstimate: flag.optional(),
		valuation: valuationSchema.optional(),
	})
	.strict();

export type EstimateInputDto = z.infer<typeof estimateInputSchema>;

function withoutEmpty(value: unknown): Record<string, unknown> {
	const out: Record<string, unknown> = {};
	if (value === null || typeof value !== 'object' || Array.isArray(value)) return out;
	for (const [key, entry] of Object.entries(value as Record<string, unknown>)) {
		if (!isEmpty(entry)) out[key] = entry;
	}
	return out;
}

function unwrapValuation(value: unknown): unknown {
	if (value === null || typeof value !== 'object') return undefined;
	let inner = (value as Record<string, unknown>).valuationValues;
	if (Array.isArray(inner)) inner = inner[0];
	const filled = withoutEmpty(inner);
	return Object.keys(filled).length ? filled : undefined;
}

const estimateParametersSchema = z
	.object({
		overrides: z.preprocess(withoutEmpty, z.object(overrideShape).strict()),
		estimateDate: z.preprocess(
			(value) => (isEmpty(value) ? undefined : value),
			dateTime.optional(),
		),
		includeComparables: flag.optional(),
		dontStoreEstimate: flag.optional(),
		valuation: z.preprocess(unwrapValuation, valuationSchema.optional()),
	})
	.transform((parameters): EstimateInputDto | undefined => {
		const body: EstimateInputDto = { ...parameters.overrides };
		if (parameters.estimateDate !== undefined) body.estimateDate = parameters.estimateDate;
		if (parameters.includeComparables === true) body.includeComparables = true;
		if (parameters.dontStoreEstimate === true) body.storeEstimate = false;
		if (parameters.valuation !== undefined) body.valuation = parameters.valuation;
		return Object.keys(body).length ? body : undefined;
	});

interface ParameterIssue {
	field: string;
	message: string;
}

function valueAt(source: unknown, path: Array<string | number>): unknown {
	let value: unknown = source;
	for (const key of path) {
		if (value === null || typeof value !== 'object') return undefined;
		value = (value as Record<string, unknown>)[key];
		if (key === 'valuation' && value && typeof value === 'object') {
			const inner = (value as Record<string, unknown>).valuationValues;
			value = Array.isArray(inner) ? inner[0] : inner;
		}
	}
	return value;
}

/** `parameters`: the node's overrides, estimateDate, includeComparables, dontStoreEstimate, valuation. */
export function buildEstimateInput(
	parameters: Record<string, unknown>,
):
	| { body: EstimateInputDto | undefined; issues?: undefined }
	| { body?: undefined; issues: ParameterIssue[] } {
	const result = estimateParametersSchema.safeParse(parameters);
	if (result.success) return { body: result.data };
	const issues: ParameterIssue[] = [];
	for (const issue of result.error.issues) {
		if (issue.code === 'unrecognized_keys') {
			for (const key of issue.keys) {
				const field = [...issue.path, key].join('.');
				issues.push({ field, message: 'is not a field of the estimate input' });
			}
			continue;
		}
		// quoted as every validator quotes (show): a name or identity number mapped here is not repeated
		const value = issue.message === 'is required' ? undefined : valueAt(parameters, issue.path);
		const got = value === undefined ? '' : `, got ${show(value)}`;
		issues.push({ field: issue.path.join('.'), message: `${issue.message}${got}` });
	}
	return { issues };
}

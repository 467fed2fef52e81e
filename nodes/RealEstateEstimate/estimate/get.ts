import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { apiJson, estimateRetryPolicy } from '../api';
import type { EstimateOperation } from '../api';
import { describeObject, objectPath, readIdentity } from '../identity';
import type { ObjectIdentity } from '../identity';
import { buildEstimateInput } from '../schema';
import type { EstimateInputDto } from '../schema';
import { simplifyEstimate, simplifyField, simplifyResults } from '../simplify';

const showOnlyForGet = { resource: ['estimate'], operation: ['get'] };

const AMOUNT = { minValue: 0 };
const COUNT = { minValue: 0, numberPrecision: 0 };

function numberField(
	displayName: string,
	name: string,
	typeOptions: INodeProperties['typeOptions'],
	description?: string,
): INodeProperties {
	const field: INodeProperties = { displayName, name, type: 'number', default: null, typeOptions };
	return description === undefined ? field : { ...field, description };
}

/** A text whose allowed values the API description does not publish. */
function freeText(displayName: string, name: string, what: string): INodeProperties {
	return {
		displayName,
		name,
		type: 'string',
		default: '',
		description: `${what} as the service names it (free text; the allowed values are not published: ask the provider)`,
	};
}

export const getDescription: INodeProperties[] = [
	// settings first, then the optional collections (n8n's own nodes: options last)
	{
		displayName: 'Include Comparables',
		name: 'includeComparables',
		type: 'boolean',
		default: false,
		description: 'Whether to include the comparable sales the estimate is based on',
		displayOptions: { show: showOnlyForGet },
	},
	{
		displayName: 'Estimate Date',
		name: 'estimateDate',
		type: 'dateTime',
		default: '',
		description: 'Estimate back in time as of this date (ISO 8601). Leave empty for now.',
		displayOptions: { show: showOnlyForGet },
	},
	{
		displayName: "Don't Store Estimate",
		name: 'dontStoreEstimate',
		type: 'boolean',
		default: false,
		description:
			'Whether to stop the service from storing this estimate as a document. Storing follows the account setting; a request can only turn it off.',
		displayOptions: { show: showOnlyForGet },
	},
	simplifyField(['get']),
	{
		displayName: 'Overrides',
		name: 'overrides',
		type: 'collection',
		placeholder: 'Add override',
		default: {},
		description:
			'Attributes that replace what the service holds for the object. Fields left empty are not sent.',
		displayOptions: { show: showOnlyForGet },
		options: [
			numberField(
				'Build Year',
				'buildYear',
				{ minValue: 1000, maxValue: 9999, numberPrecision: 0 },
				'Year the building was built (four digits)',
			),
			numberField(
				'Current Common Debt',
				'currentCommondebt',
				AMOUNT,
				"The share's current part of the housing cooperative's common debt (NOK)",
			),
			freeText('Estate Type', 'estateType', 'Type of dwelling'),
			numberField(
				'External Usable Area (BRA-E)',
				'externalUsableArea',
				AMOUNT,
				'BRA-e in square metres',
			),
			numberField(
				'Floor',
				'floor',
				{ numberPrecision: 0 },
				'Floor the dwelling is on (whole number)',
			),
			numberField(
				'Glazed Balcony Usable Area (BRA-B)',
				'glazedBalconyUsableArea',
				AMOUNT,
				'BRA-b in square metres',
			),
			numberField('Gross Area (BTA)', 'grossArea', AMOUNT, 'BTA in square metres'),
			numberField(
				'Internal Usable Area (BRA-I)',
				'internalUsableArea',
				AMOUNT,
				'BRA-i in square metres',
			),
			numberField('Number of Bedrooms', 'numberOfBedrooms', COUNT),
			numberField('Number of Floors in Building', 'numberOfFloorsInBuilding', COUNT),
			freeText('Ownership Type', 'ownershipType', 'Form of ownership'),
			numberField('Primary Area (P-Rom)', 'primaryArea', AMOUNT, 'P-rom in square metres'),
			numberField('Site Area', 'siteArea', AMOUNT, 'Size of the plot in square metres'),
			freeText('Site Type', 'siteType', 'Plot ownership'),
			numberField(
				'Usable Area (BRA)',
				'usableArea',
				COUNT,
				'BRA in whole square metres (the API takes an integer here)',
			),
		],
	},
	{
		displayName: 'Valuation',
		name: 'valuation',
		type: 'fixedCollection',
		placeholder: 'Add valuation',
		default: {},
		description:
			'A known sale or valuation of the object that the estimate should take into account',
		displayOptions: { show: showOnlyForGet },
		options: [
			{
				displayName: 'Valuation',
				name: 'valuationValues',
				values: [
					{
						displayName: 'Date',
						name: 'date',
						type: 'dateTime',
						required: true,
						default: '',
						description: 'Date of the sale or valuation (ISO 8601)',
					},
					{
						...numberField('Price', 'price', AMOUNT, 'Price without common debt (NOK)'),
						required: true,
					},
					{ ...freeText('Sale Type', 'saleType', 'Kind of sale'), required: true },
					numberField(
						'Common Debt',
						'commondebt',
						AMOUNT,
						'Common debt at the sale (NOK); leave empty when unknown',
					),
				],
			},
		],
	},
];

/** What n8n's Retry On Fail would send again (shared/retry-on-fail.ts): an estimate any item may store. */
export function storesAgain(ctx: IExecuteFunctions): string | null {
	if (ctx.getNodeParameter('resource', 0) !== 'estimate') return null;
	if (ctx.getNodeParameter('operation', 0) !== 'get') return null;
	const items = ctx.getInputData().length;
	for (let itemIndex = 0; itemIndex < items; itemIndex++) {
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

interface GetPrepared {
	identity: ObjectIdentity;
	body: EstimateInputDto | undefined;
	simplify: boolean;
}

export const get: EstimateOperation<GetPrepared> = {
	identifiesObject: true,
	prepare(ctx, { fields }, itemIndex) {
		const identity = readIdentity(ctx, fields, itemIndex);
		const result = buildEstimateInput({
			overrides: ctx.getNodeParameter('overrides', itemIndex, {}),
			valuation: ctx.getNodeParameter('valuation', itemIndex, {}),
			includeComparables: ctx.getNodeParameter('includeComparables', itemIndex, false),
			estimateDate: ctx.getNodeParameter('estimateDate', itemIndex, ''),
			dontStoreEstimate: ctx.getNodeParameter('dontStoreEstimate', itemIndex, false),
		});
		if (result.issues) {
			const [first, ...others] = result.issues;
			throw fields.error(
				itemIndex,
				first.field,
				first.message,
				others.length
					? `Also: ${others.map((issue) => `"${fields.label(issue.field)}" ${issue.message}`).join('; ')}. No request was sent for this item.`
					: undefined,
			);
		}
		const simplify = ctx.getNodeParameter('simplify', itemIndex, true) !== false;
		return { identity, body: result.body, simplify };
	},

	async run(ctx, env, itemIndex, { identity, body, simplify }) {
		const target = describeObject(identity);
		const results = await apiJson(
			ctx,
			env,
			itemIndex,
			{
				method: 'POST',
				path: `${objectPath(identity)}/EvEstimate`,
				body: body as IDataObject | undefined,
			},
			{
				action: 'get the estimate',
				target,
				notFound: `Estimate could not be retrieved for ${target}`,
				badRequestHint: `check the object identification and the estimate fields sent (${body ? Object.keys(body).join(', ') : 'none'})`,
				mayStore: body?.storeEstimate !== false,
			},
			estimateRetryPolicy(body),
		);
		return simplify
			? simplifyResults(results, (json) =>
					simplifyEstimate(json, identity, body?.estimateDate ?? undefined),
				)
			: results;
	},
};

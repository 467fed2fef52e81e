import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { describeObject, objectPath } from '../identity';
import type { ObjectIdentity } from '../identity';
import { readIdentity } from '../parameters';
import type { EstimateOperation } from '../read';
import { dataToResults } from '../results';
import { buildEstimateInput } from '../schema';
import type { EstimateInputDto } from '../schema';
import { simplifyEstimate, simplifyField, simplifyResults } from '../simplify';
import { apiJson, estimateRetryPolicy } from '../api';

const showOnlyForGet = { resource: ['estimate'], operation: ['get'] };

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
			{
				displayName: 'Build Year',
				name: 'buildYear',
				type: 'number',
				default: null,
				typeOptions: { minValue: 1000, maxValue: 9999, numberPrecision: 0 },
				description: 'Year the building was built (four digits)',
			},
			{
				displayName: 'Current Common Debt',
				name: 'currentCommondebt',
				type: 'number',
				default: null,
				typeOptions: { minValue: 0 },
				description: "The share's current part of the housing cooperative's common debt (NOK)",
			},
			{
				displayName: 'Estate Type',
				name: 'estateType',
				type: 'string',
				default: '',
				description:
					'Type of dwelling as the service names it (free text; the allowed values are not published: ask the provider)',
			},
			{
				displayName: 'External Usable Area (BRA-E)',
				name: 'externalUsableArea',
				type: 'number',
				default: null,
				typeOptions: { minValue: 0 },
				description: 'BRA-e in square metres',
			},
			{
				displayName: 'Floor',
				name: 'floor',
				type: 'number',
				default: null,
				typeOptions: { numberPrecision: 0 },
				description: 'Floor the dwelling is on (whole number)',
			},
			{
				displayName: 'Glazed Balcony Usable Area (BRA-B)',
				name: 'glazedBalconyUsableArea',
				type: 'number',
				default: null,
				typeOptions: { minValue: 0 },
				description: 'BRA-b in square metres',
			},
			{
				displayName: 'Gross Area (BTA)',
				name: 'grossArea',
				type: 'number',
				default: null,
				typeOptions: { minValue: 0 },
				description: 'BTA in square metres',
			},
			{
				displayName: 'Internal Usable Area (BRA-I)',
				name: 'internalUsableArea',
				type: 'number',
				default: null,
				typeOptions: { minValue: 0 },
				description: 'BRA-i in square metres',
			},
			{
				displayName: 'Number of Bedrooms',
				name: 'numberOfBedrooms',
				type: 'number',
				default: null,
				typeOptions: { minValue: 0, numberPrecision: 0 },
			},
			{
				displayName: 'Number of Floors in Building',
				name: 'numberOfFloorsInBuilding',
				type: 'number',
				default: null,
				typeOptions: { minValue: 0, numberPrecision: 0 },
			},
			{
				displayName: 'Ownership Type',
				name: 'ownershipType',
				type: 'string',
				default: '',
				description:
					'Form of ownership as the service names it (free text; the allowed values are not published: ask the provider)',
			},
			{
				displayName: 'Primary Area (P-Rom)',
				name: 'primaryArea',
				type: 'number',
				default: null,
				typeOptions: { minValue: 0 },
				description: 'P-rom in square metres',
			},
			{
				displayName: 'Site Area',
				name: 'siteArea',
				type: 'number',
				default: null,
				typeOptions: { minValue: 0 },
				description: 'Size of the plot in square metres',
			},
			{
				displayName: 'Site Type',
				name: 'siteType',
				type: 'string',
				default: '',
				description:
					'Plot ownership as the service names it (free text; the allowed values are not published: ask the provider)',
			},
			{
				displayName: 'Usable Area (BRA)',
				name: 'usableArea',
				type: 'number',
				default: null,
				typeOptions: { minValue: 0, numberPrecision: 0 },
				description: 'BRA in whole square metres (the API takes an integer here)',
			},
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
						displayName: 'Price',
						name: 'price',
						type: 'number',
						required: true,
						default: null,
						typeOptions: { minValue: 0 },
						description: 'Price without common debt (NOK)',
					},
					{
						displayName: 'Sale Type',
						name: 'saleType',
						type: 'string',
						required: true,
						default: '',
						description:
							'Kind of sale as the service names it (free text; the allowed values are not published: ask the provider)',
					},
					{
						displayName: 'Common Debt',
						name: 'commondebt',
						type: 'number',
						default: null,
						typeOptions: { minValue: 0 },
						description: 'Common debt at the sale (NOK); leave empty when unknown',
					},
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

export interface GetPrepared {
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
		const data = await apiJson(
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
		const results = dataToResults(data);
		return simplify
			? simplifyResults(results, (json) =>
					simplifyEstimate(json, identity, body?.estimateDate ?? undefined),
				)
			: results;
	},
};

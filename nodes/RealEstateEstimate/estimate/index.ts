import type { INodeProperties } from 'n8n-workflow';
import { readOperation } from '../api';
import type { EstimateOperation } from '../api';
import { organizationNumberField } from '../descriptions';
import type { ObjectIdentity } from '../identity';
import { simplifyBasis, simplifyField, simplifyResults } from '../simplify';
import { get, getDescription } from './get';

const basis = readOperation({
	suffix: 'EvEstimateBasis',
	action: 'get the estimate basis',
	notFound: (t) => `No estimate basis for ${t}`,
	badRequestHint: 'check the object identification',
});

const getBasis: EstimateOperation<{ identity: ObjectIdentity; simplify: boolean }> = {
	identifiesObject: true,
	prepare: (ctx, env, itemIndex) => ({
		identity: basis.prepare(ctx, env, itemIndex),
		simplify: ctx.getNodeParameter('simplify', itemIndex, true) !== false,
	}),

	async run(ctx, env, itemIndex, { identity, simplify }) {
		const results = await basis.run(ctx, env, itemIndex, identity);
		return simplify ? simplifyResults(results, (json) => simplifyBasis(json, identity)) : results;
	},
};

const getHousingCooperative = readOperation({
	suffix: 'EvEstimateHousingCooperative',
	action: 'get the housing cooperative estimate',
	notFound: (t) => `No estimate for ${t}`,
	badRequestHint: 'check the organization number',
	identity: 'cooperative',
});

const getMarketEstimate = readOperation({
	suffix: 'MarketEstimate',
	action: 'get the market estimate',
	notFound: (t) => `No market estimate for ${t}`,
	badRequestHint: 'check the object identification',
});

export const estimateOperations: Record<string, EstimateOperation<unknown>> = {
	get,
	getBasis,
	getHousingCooperative,
	getMarketEstimate,
};

export const estimateDescription: INodeProperties[] = [
	{
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: { resource: ['estimate'] } },
		options: [
			{
				name: 'Get',
				value: 'get',
				action: 'Get estimate',
				description:
					'Compute an estimate for an object, optionally with overridden attributes or a known sale',
			},
			{
				name: 'Get Basis',
				value: 'getBasis',
				action: 'Get estimate basis',
				description:
					'Get the attributes and last valuation an estimate uses when nothing is overridden',
			},
			{
				name: 'Get Housing Cooperative',
				value: 'getHousingCooperative',
				action: 'Get housing cooperative estimate',
				description: 'Get the estimate for all shares of a housing cooperative',
			},
			{
				name: 'Get Market Estimate',
				value: 'getMarketEstimate',
				action: 'Get market estimate',
				description: 'Get a market estimate with a low and a high bound',
			},
		],
		default: 'get',
	},
];

/** The operations' own fields (after the object to estimate, see the node); Get Basis has Simplify (14 fields). */
export const estimateFields: INodeProperties[] = [
	...getDescription,
	simplifyField(['getBasis']),
	organizationNumberField({ resource: ['estimate'], operation: ['getHousingCooperative'] }),
];

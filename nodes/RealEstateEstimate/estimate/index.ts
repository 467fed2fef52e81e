import type { INodeProperties } from 'n8n-workflow';
import type { EstimateOperation } from '../api';
import { get, getDescription } from './get';
import { getBasis, getBasisDescription } from './getBasis';
import { getHousingCooperative, getHousingCooperativeDescription } from './getHousingCooperative';
import { getMarketEstimate } from './getMarketEstimate';

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
	...getBasisDescription,
	...getHousingCooperativeDescription,
];

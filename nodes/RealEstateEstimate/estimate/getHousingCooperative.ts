import type { INodeProperties } from 'n8n-workflow';
import { apiJson } from '../transport';
import { describeObject, objectPath } from '../identity';
import type { ObjectIdentity } from '../identity';
import { readIdentity } from '../parameters';
import { dataToResults } from '../results';
import type { Operation } from '../types';

export const getHousingCooperativeDescription: INodeProperties[] = [
	{
		displayName: 'Organization Number',
		name: 'organizationNumber',
		type: 'string',
		required: true,
		default: '',
		placeholder: '987654325',
		description: "The housing cooperative's organization number: 9 digits with a valid check digit",
		displayOptions: { show: { resource: ['estimate'], operation: ['getHousingCooperative'] } },
	},
];

export const getHousingCooperative: Operation<ObjectIdentity> = {
	prepare: (ctx, itemIndex) => readIdentity(ctx, itemIndex, 'cooperative'),

	async run(ctx, api, itemIndex, identity) {
		const target = describeObject(identity);
		const data = await apiJson(
			ctx,
			api,
			itemIndex,
			{ method: 'GET', path: `${objectPath(identity)}/EvEstimateHousingCooperative` },
			{
				action: 'get the housing cooperative estimate',
				target,
				notFound: `No estimate for ${target}`,
				badRequestHint: 'check the organization number',
			},
		);
		return dataToResults(data);
	},
};

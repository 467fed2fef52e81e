import type { INodeProperties } from 'n8n-workflow';
import { apiJson } from '../transport';
import { describeObject, objectPath } from '../identity';
import type { ObjectIdentity } from '../identity';
import { readIdentity } from '../parameters';
import { dataToResults } from '../results';
import type { Operation } from '../types';

/** No fields beyond the shared object identification. */
export const getMarketEstimateDescription: INodeProperties[] = [];

export const getMarketEstimate: Operation<ObjectIdentity> = {
	prepare: (ctx, itemIndex) => readIdentity(ctx, itemIndex),

	async run(ctx, api, itemIndex, identity) {
		const target = describeObject(identity);
		const data = await apiJson(
			ctx,
			api,
			itemIndex,
			{ method: 'GET', path: `${objectPath(identity)}/MarketEstimate` },
			{
				action: 'get the market estimate',
				target,
				notFound: `No market estimate for ${target}`,
				badRequestHint: 'check the object identification',
			},
		);
		return dataToResults(data);
	},
};

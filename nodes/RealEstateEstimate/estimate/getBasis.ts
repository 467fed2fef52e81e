import type { INodeProperties } from 'n8n-workflow';
import { apiJson } from '../transport';
import { describeObject, objectPath } from '../identity';
import type { ObjectIdentity } from '../identity';
import { readIdentity } from '../parameters';
import { dataToResults } from '../results';
import type { Operation } from '../types';

/** No fields beyond the shared object identification. */
export const getBasisDescription: INodeProperties[] = [];

export const getBasis: Operation<ObjectIdentity> = {
	prepare: (ctx, itemIndex) => readIdentity(ctx, itemIndex),

	async run(ctx, api, itemIndex, identity) {
		const target = describeObject(identity);
		const data = await apiJson(
			ctx,
			api,
			itemIndex,
			{ method: 'GET', path: `${objectPath(identity)}/EvEstimateBasis` },
			{
				action: 'get the estimate basis',
				target,
				notFound: `No estimate basis for ${target}`,
				badRequestHint: 'check the object identification',
			},
		);
		return dataToResults(data);
	},
};

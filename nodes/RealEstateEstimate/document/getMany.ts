import type { INodeProperties } from 'n8n-workflow';
import { apiJson } from '../transport';
import { describeObject, objectPath } from '../identity';
import type { ObjectIdentity } from '../identity';
import { readIdentity } from '../parameters';
import { dataToResults } from '../results';
import type { Operation } from '../types';

/** No fields beyond the shared object identification. The API returns the whole list at once. */
export const getManyDescription: INodeProperties[] = [];

/** One output item per stored document; an empty or null list yields no item for that input. */
export const getMany: Operation<ObjectIdentity> = {
	prepare: (ctx, itemIndex) => readIdentity(ctx, itemIndex),

	async run(ctx, api, itemIndex, identity) {
		const target = describeObject(identity);
		const data = await apiJson(
			ctx,
			api,
			itemIndex,
			{ method: 'GET', path: `${objectPath(identity)}/EstimateDocuments` },
			{
				action: 'list the stored estimate documents',
				target,
				notFound: `No estimate documents for ${target}`,
				badRequestHint: 'check the object identification',
			},
		);
		return dataToResults(data);
	},
};

import type { INodeProperties } from 'n8n-workflow';
import { checkPositiveInteger } from '../../shared/validation';
import { readOperation } from '../api';
import type { EstimateOperation } from '../api';
import type { ObjectIdentity } from '../identity';

const showOnlyForGetMany = { resource: ['document'], operation: ['getMany'] };

export const getManyDescription: INodeProperties[] = [
	{
		displayName: 'Return All',
		name: 'returnAll',
		type: 'boolean',
		default: false,
		description: 'Whether to return all results or only up to a given limit',
		displayOptions: { show: showOnlyForGetMany },
	},
	{
		displayName: 'Limit',
		name: 'limit',
		type: 'number',
		default: 50,
		typeOptions: { minValue: 1 },
		description: 'Max number of results to return',
		displayOptions: { show: { ...showOnlyForGetMany, returnAll: [false] } },
	},
];

const list = readOperation({
	suffix: 'EstimateDocuments',
	action: 'list the stored estimate documents',
	notFound: (t) => `No estimate documents for ${t}`,
	badRequestHint: 'check the object identification',
});

/** Default of Limit, as in n8n's own nodes (the description holds the literal, as n8n's lint asks). */
const DEFAULT_LIMIT = 50;

// The API has no paging for this list: it answers the whole list, and Limit keeps its first documents.
export const getMany: EstimateOperation<{ identity: ObjectIdentity; limit: number | undefined }> = {
	identifiesObject: true,
	prepare(ctx, env, itemIndex) {
		const identity = list.prepare(ctx, env, itemIndex);
		const returnAll = ctx.getNodeParameter('returnAll', itemIndex, false) === true;
		const limit = returnAll
			? undefined
			: env.fields.take(
					itemIndex,
					'limit',
					checkPositiveInteger(ctx.getNodeParameter('limit', itemIndex, DEFAULT_LIMIT)),
				);
		return { identity, limit };
	},

	async run(ctx, env, itemIndex, { identity, limit }) {
		const documents = await list.run(ctx, env, itemIndex, identity);
		return limit === undefined ? documents : documents.slice(0, limit);
	},
};

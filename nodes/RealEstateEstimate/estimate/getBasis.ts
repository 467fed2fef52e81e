import type { INodeProperties } from 'n8n-workflow';
import { readOperation } from '../api';
import type { EstimateOperation } from '../api';
import type { ObjectIdentity } from '../identity';
import { simplifyBasis, simplifyField, simplifyResults } from '../simplify';

export const getBasisDescription: INodeProperties[] = [simplifyField(['getBasis'])];

const basis = readOperation({
	suffix: 'EvEstimateBasis',
	action: 'get the estimate basis',
	notFound: (t) => `No estimate basis for ${t}`,
	badRequestHint: 'check the object identification',
});

export const getBasis: EstimateOperation<{ identity: ObjectIdentity; simplify: boolean }> = {
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

import type { INodeProperties } from 'n8n-workflow';
import type { ObjectIdentity } from '../identity';
import { readOperation } from '../read';
import type { EstimateOperation } from '../read';
import { simplifyBasis, simplifyField, simplifyResults } from '../simplify';

/** Beyond the shared object identification: Simplify (the basis has 14 fields). */
export const getBasisDescription: INodeProperties[] = [simplifyField(['getBasis'])];

const read = readOperation({
	suffix: 'EvEstimateBasis',
	action: 'get the estimate basis',
	notFound: (t) => `No estimate basis for ${t}`,
	badRequestHint: 'check the object identification',
});

export interface GetBasisPrepared {
	identity: ObjectIdentity;
	simplify: boolean;
}

export const getBasis: EstimateOperation<GetBasisPrepared> = {
	identifiesObject: true,
	prepare: (ctx, env, itemIndex) => ({
		identity: read.prepare(ctx, env, itemIndex),
		simplify: ctx.getNodeParameter('simplify', itemIndex, true) !== false,
	}),

	async run(ctx, env, itemIndex, { identity, simplify }) {
		const results = await read.run(ctx, env, itemIndex, identity);
		return simplify ? simplifyResults(results, (json) => simplifyBasis(json, identity)) : results;
	},
};

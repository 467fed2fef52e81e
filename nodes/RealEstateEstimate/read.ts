import type { Operation } from '../shared/runner';

/** An operation of this node; `identifiesObject`: it reads the shared object identification fields. */
export type EstimateOperation<P> = Operation<P> & { identifiesObject: boolean };
import { describeObject, objectPath } from './identity';
import type { ObjectIdentity } from './identity';
import { readIdentity } from './parameters';
import { dataToResults } from './results';
import { RESEND_ANY_FAILURE, apiJson } from './api';

interface ReadOperationSpec {
	suffix: string;
	action: string;
	notFound: (target: string) => string;
	badRequestHint: string;
	/** Identified by the cooperative's org number, not the node's cadastre/share choice. */
	identity?: 'cooperative';
}

export function readOperation(spec: ReadOperationSpec): EstimateOperation<ObjectIdentity> {
	return {
		identifiesObject: spec.identity === undefined,
		prepare: (ctx, { fields }, itemIndex) => readIdentity(ctx, fields, itemIndex, spec.identity),

		async run(ctx, env, itemIndex, identity) {
			const target = describeObject(identity);
			const data = await apiJson(
				ctx,
				env,
				itemIndex,
				{ method: 'GET', path: `${objectPath(identity)}/${spec.suffix}` },
				{
					action: spec.action,
					target,
					notFound: spec.notFound(target),
					badRequestHint: spec.badRequestHint,
				},
				RESEND_ANY_FAILURE,
			);
			return dataToResults(data);
		},
	};
}

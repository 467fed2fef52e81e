import type { Operation } from '../shared/runner';

/** An operation of this node; `identifiesObject`: it reads the shared object identification fields. */
export type EstimateOperation<P> = Operation<P> & { identifiesObject: boolean };
import { describeObject, objectPath } from './identity';
import type { ObjectIdentity } from './identity';
import { readIdentity } from './parameters';
import { dataToResults } from './results';
import { apiJson } from './api';

export interface ReadOperationSpec {
	/** Path segment after the object path, e.g. `EvEstimateBasis`. */
	suffix: string;
	/** What the call does, for messages ("get the estimate basis"). */
	action: string;
	/** 404 message for the object's description, e.g. (t) => `No estimate basis for ${t}`. */
	notFound: (target: string) => string;
	badRequestHint: string;
	/** Identification form: the node's cadastre/share choice, or the cooperative's org number. */
	identity?: 'cooperative';
}

/** A GET of `<object path>/<suffix>` whose unwrapped `data` becomes the output items. */
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
			);
			return dataToResults(data);
		},
	};
}

// The reads of an object: a GET of one of its paths, sent again after any failure.
import type { IDataObject } from 'n8n-workflow';
import type { Operation } from '../shared/runner';
import { checkPositiveInteger } from '../shared/validation';
import { apiJson, readObject, RESEND_ANY_FAILURE } from './api';
import type { EstimateObject } from './api';

type Simplify = (json: IDataObject, object: string) => IDataObject;

/** A GET of the object's `suffix`, sent again after any failure. */
export function read(
	suffix: string,
	action: string,
	options: { cooperative?: boolean; simplify?: Simplify; limit?: boolean } = {},
): Operation<{ object: EstimateObject; simplify?: Simplify; limit?: number }> {
	return {
		prepare(ctx, { fields }, itemIndex) {
			const param = (name: string, fallback: unknown) =>
				ctx.getNodeParameter(name, itemIndex, fallback);
			const limited = options.limit && param('returnAll', false) !== true;
			return {
				object: readObject(ctx, fields, itemIndex, options.cooperative),
				simplify: param('simplify', true) !== false ? options.simplify : undefined,
				// the API has no paging for this list: Limit keeps its first documents
				limit: limited
					? fields.take(itemIndex, 'limit', checkPositiveInteger(param('limit', 50)))
					: undefined,
			};
		},
		async run(ctx, env, itemIndex, { object, simplify, limit }) {
			const request = { method: 'GET' as const, path: `${object.path}/${suffix}` };
			const subject = { action, target: object.label };
			const results = await apiJson(ctx, env, itemIndex, request, subject, RESEND_ANY_FAILURE);
			return results
				.slice(0, limit)
				.map((result) => (simplify ? { json: simplify(result.json, object.label) } : result));
		},
	};
}

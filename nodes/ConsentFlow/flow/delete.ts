import type { IDataObject, INodeProperties } from 'n8n-workflow';
import type { Operation } from '../../shared/runner';
import type { RetryPolicy } from '../../shared/transport';
import { checkRequiredText } from '../../shared/validation';
import { flowRequest } from '../api';
import { flowOptions, retryPolicyFrom, showFor } from './common';

export const flowDeleteDescription: INodeProperties[] = [
	{
		displayName: 'Flow ID',
		name: 'flowId',
		type: 'string',
		default: '',
		required: true,
		placeholder: 'e.g. 3f1c2a9e-…',
		displayOptions: { show: showFor('delete') },
		description:
			'ID of the flow to delete: the ID returned by Create, also the "flow" field of the webhook events. The service then sends a consent.deleted event.',
	},
	flowOptions('delete'),
];

export const remove: Operation<{ flowId: string; policy: RetryPolicy }> = {
	prepare(ctx, { fields }, itemIndex) {
		const options = ctx.getNodeParameter('options', itemIndex, {}) as IDataObject;
		return {
			flowId: fields.take(
				itemIndex,
				'flowId',
				checkRequiredText(
					ctx.getNodeParameter('flowId', itemIndex, ''),
					'Enter the ID of the flow to delete (the id returned by Create).',
				),
			),
			policy: retryPolicyFrom(fields, itemIndex, options, {
				retryStatuses: [429, 502, 503, 504],
				idempotent: true,
			}),
		};
	},

	async run(ctx, env, itemIndex, { flowId, policy }) {
		const request = { method: 'DELETE' as const, path: `/api/flows/${encodeURIComponent(flowId)}` };
		const response = await flowRequest(ctx, env, itemIndex, request, policy, flowId);
		return [{ json: { flowId, deleted: true, ...response } }];
	},
};

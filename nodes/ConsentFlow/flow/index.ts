import type { INodeProperties } from 'n8n-workflow';
import { flowCreateDescription } from './create';
import { flowDeleteDescription } from './delete';

export { executeCreate, prepareCreate } from './create';
export type { PreparedCreate } from './create';
export { executeDelete, prepareDelete } from './delete';
export type { PreparedDelete } from './delete';

const showOnlyForFlows = {
	resource: ['flow'],
};

export const flowDescription: INodeProperties[] = [
	{
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: showOnlyForFlows },
		options: [
			{
				name: 'Create',
				value: 'create',
				action: 'Create a consent flow',
				description:
					'Start a consent flow for a person and get the link to the consent page (href)',
			},
			{
				name: 'Delete',
				value: 'delete',
				action: 'Delete a consent flow',
				description: 'Delete a consent flow; the service then sends a consent.deleted event',
			},
		],
		default: 'create',
	},
	...flowCreateDescription,
	...flowDeleteDescription,
];

// Get Many: the stored estimate documents of an object (the API has no paging: Limit keeps the first).
import type { INodeProperties } from 'n8n-workflow';
import { read } from '../read';

export const getMany = read('EstimateDocuments', 'list the stored estimate documents', {
	limit: true,
});

export const getManyFields: INodeProperties[] = [
	{
		displayName: 'Return All',
		name: 'returnAll',
		type: 'boolean',
		default: false,
		description: 'Whether to return all results or only up to a given limit',
		displayOptions: { show: { resource: ['document'], operation: ['getMany'] } },
	},
	{
		displayName: 'Limit',
		name: 'limit',
		type: 'number',
		default: 50,
		typeOptions: { minValue: 1 },
		description: 'Max number of results to return',
		displayOptions: {
			show: { resource: ['document'], operation: ['getMany'], returnAll: [false] },
		},
	},
];

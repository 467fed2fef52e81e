import type { INodeProperties } from 'n8n-workflow';
import type { EstimateOperation } from '../api';
import { download, downloadDescription } from './download';
import { getMany, getManyDescription } from './getMany';

export const documentOperations: Record<string, EstimateOperation<unknown>> = { download, getMany };

export const documentDescription: INodeProperties[] = [
	{
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: { resource: ['document'] } },
		options: [
			{
				name: 'Download',
				value: 'download',
				action: 'Download estimate document',
				description: 'Download a stored estimate as a PDF file',
			},
			{
				name: 'Get Many',
				value: 'getMany',
				action: 'Get many estimate documents',
				description: 'List the stored estimate documents of an object',
			},
		],
		default: 'getMany',
	},
];

/** The operations' own fields (after the object to estimate, see the node). */
export const documentFields: INodeProperties[] = [...getManyDescription, ...downloadDescription];

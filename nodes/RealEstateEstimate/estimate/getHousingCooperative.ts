import type { INodeProperties } from 'n8n-workflow';
import { readOperation } from '../read';

export const getHousingCooperativeDescription: INodeProperties[] = [
	{
		displayName: 'Organization Number',
		name: 'organizationNumber',
		type: 'string',
		required: true,
		default: '',
		placeholder: '987654325',
		description: "The housing cooperative's organization number: 9 digits with a valid check digit",
		displayOptions: { show: { resource: ['estimate'], operation: ['getHousingCooperative'] } },
	},
];

export const getHousingCooperative = readOperation({
	suffix: 'EvEstimateHousingCooperative',
	action: 'get the housing cooperative estimate',
	notFound: (t) => `No estimate for ${t}`,
	badRequestHint: 'check the organization number',
	identity: 'cooperative',
});

import type { INodeProperties } from 'n8n-workflow';
import { readOperation } from '../api';
import { organizationNumberField } from '../descriptions';

export const getHousingCooperativeDescription: INodeProperties[] = [
	organizationNumberField({ resource: ['estimate'], operation: ['getHousingCooperative'] }),
];

export const getHousingCooperative = readOperation({
	suffix: 'EvEstimateHousingCooperative',
	action: 'get the housing cooperative estimate',
	notFound: (t) => `No estimate for ${t}`,
	badRequestHint: 'check the organization number',
	identity: 'cooperative',
});

import type { INodeProperties } from 'n8n-workflow';
import { readOperation } from '../read';

/** No fields beyond the shared object identification. */
export const getBasisDescription: INodeProperties[] = [];

export const getBasis = readOperation({
	suffix: 'EvEstimateBasis',
	action: 'get the estimate basis',
	notFound: (t) => `No estimate basis for ${t}`,
	badRequestHint: 'check the object identification',
});

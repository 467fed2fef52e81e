import type { INodeProperties } from 'n8n-workflow';
import { readOperation } from '../read';

/** No fields beyond the shared object identification. The API returns the whole list at once. */
export const getManyDescription: INodeProperties[] = [];

/** One output item per stored document; an empty or null list yields no item for that input. */
export const getMany = readOperation({
	suffix: 'EstimateDocuments',
	action: 'list the stored estimate documents',
	notFound: (t) => `No estimate documents for ${t}`,
	badRequestHint: 'check the object identification',
});

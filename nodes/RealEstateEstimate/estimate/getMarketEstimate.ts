import type { INodeProperties } from 'n8n-workflow';
import { readOperation } from '../read';

export const getMarketEstimateDescription: INodeProperties[] = [];

export const getMarketEstimate = readOperation({
	suffix: 'MarketEstimate',
	action: 'get the market estimate',
	notFound: (t) => `No market estimate for ${t}`,
	badRequestHint: 'check the object identification',
});

import { readOperation } from '../api';

export const getMarketEstimate = readOperation({
	suffix: 'MarketEstimate',
	action: 'get the market estimate',
	notFound: (t) => `No market estimate for ${t}`,
	badRequestHint: 'check the object identification',
});

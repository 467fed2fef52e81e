import { read } from '../read';

export const getMarketEstimate = read('MarketEstimate', 'get the market estimate');

import { read } from '../read';

export const getHousingCooperative = read(
	'EvEstimateHousingCooperative',
	'get the housing cooperative estimate',
	{ cooperative: true },
);

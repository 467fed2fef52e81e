import { read } from '../read';
import { simplifyBasis } from '../simplify';

export const getBasis = read('EvEstimateBasis', 'get the estimate basis', {
	simplify: simplifyBasis,
});
